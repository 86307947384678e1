"""Feedback Integrator: the initial reflection e0 and the reflections on failing runs."""

from __future__ import annotations

from collections.abc import Sequence

from ramp.llm.base import ChatMessage
from ramp.parsing import clean_reflection
from ramp.prompting import PromptLibrary
from ramp.tasks import Problem
from ramp.variants import ProblemView, Variant

ROLE_INITIAL = "reflection"
ROLE_FEEDBACK = "feedback"
FEEDBACK_TEMPLATE = "feedback_integrator/feedback"


def initial_template(variant: Variant) -> str:
    """The template of e0: the variant's reflection strategy."""
    return f"feedback_integrator/{variant.reflection_strategy}"


def initial_prompt(lib: PromptLibrary, task: Problem, variant: Variant) -> tuple[ChatMessage, ...]:
    # Table 4's switches are the Programmer's: the Feedback Integrator sees the whole problem.
    variables = {"task": task, "view": ProblemView()}
    return lib.render(initial_template(variant), variables)


def feedback_prompt(
    lib: PromptLibrary, task: Problem, *, candidate: str, traces: str, earlier: Sequence[str] = (),
) -> tuple[ChatMessage, ...]:
    """A reflection on a failing candidate: e_t+1 = R_f(C, d, tau_t), the paper's Step 4;
    ``earlier``: the reflections so far, in order, shown only where a variant asks for them
    (``feedback_history``)."""
    return lib.render(
        FEEDBACK_TEMPLATE,
        {"task": task, "view": ProblemView(), "candidate": candidate, "traces": traces,
         "earlier": [r for r in earlier if r.strip()]},
    )


def parse(answer: str) -> str:
    return clean_reflection(answer)
