"""Programmer: a whole repaired program, reasoning first (few-shot CoT, or SCoT)."""

from __future__ import annotations

from collections.abc import Sequence

from ramp.languages import Language
from ramp.llm.base import ChatMessage
from ramp.parsing import ExtractedProgram, extract_program
from ramp.prompting import PromptLibrary
from ramp.tasks import Problem
from ramp.variants import Variant

ROLE = "programmer"
ROLE_DEBUG = "debug"
"""A rewrite of one program after it failed a sample test (the breadth method's)."""
DEBUG_TEMPLATE = "programmer/debug"


def template(variant: Variant) -> str:
    """The Programmer's template (prompts/<name>.j2): the variant's prompt style."""
    return f"programmer/{variant.programmer_style}"


def prompt(
    lib: PromptLibrary,
    task: Problem,
    variant: Variant,
    reflections: Sequence[str],
    *,
    previous_code: str = "",
    previous_traces: str = "",
) -> tuple[ChatMessage, ...]:
    """The Programmer's prompt: the problem (as the variant's view shows it), the buggy program,
    the ``reflections`` in order (empty ones left out), and the previous candidate with its
    failing traces when there was one (``previous_code`` "" with traces: it had no program)."""
    return lib.render(
        template(variant),
        {"task": task, "view": variant.programmer_view,
         "reflections": [r for r in reflections if r.strip()],
         "previous_code": previous_code, "previous_traces": previous_traces},
    )


def debug_prompt(
    lib: PromptLibrary, task: Problem, variant: Variant, code: str, failures: str
) -> tuple[ChatMessage, ...]:
    """A program and the sample tests it fails, asking for the whole corrected program (no
    reflection, no other candidate: ramp.methods.breadth)."""
    return lib.render(DEBUG_TEMPLATE, {"task": task, "view": variant.programmer_view,
                                       "reflections": [], "previous_code": code,
                                       "previous_traces": failures})


def parse(answer: str, language: Language) -> ExtractedProgram:
    """The program of an answer, in the task's ``language``."""
    return extract_program(answer, lang=language.key)
