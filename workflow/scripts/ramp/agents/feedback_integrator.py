"""Feedback Integrator: the initial reflection e0 and the reflections on failing runs."""

from __future__ import annotations

from ramp.llm.base import ChatMessage
from ramp.parsing import clean_reflection
from ramp.prompting import PromptLibrary
from ramp.tasks import Problem
from ramp.variants import Variant

ROLE_INITIAL = "reflection"
ROLE_FEEDBACK = "feedback"


def initial_prompt(lib: PromptLibrary, task: Problem, variant: Variant) -> tuple[ChatMessage, ...]:
    variables = {"task": task, "variant": variant}
    return lib.render(f"feedback_integrator/{variant.reflection_strategy}", variables)


def feedback_prompt(
    lib: PromptLibrary, task: Problem, variant: Variant, *, candidate: str, traces: str,
    previous: str,
) -> tuple[ChatMessage, ...]:
    return lib.render(
        "feedback_integrator/feedback",
        {"task": task, "variant": variant, "candidate": candidate, "traces": traces,
         "previous": previous},
    )


def parse(answer: str) -> str:
    return clean_reflection(answer)
