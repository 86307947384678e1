"""Programmer: a whole repaired program, reasoning first (few-shot CoT, or SCoT)."""

from __future__ import annotations

from ramp.llm.base import ChatMessage
from ramp.parsing import ExtractedProgram, extract_program
from ramp.prompting import PromptLibrary
from ramp.tasks import Problem
from ramp.variants import Variant

ROLE = "programmer"


def prompt(
    lib: PromptLibrary, task: Problem, variant: Variant, reflection: str
) -> tuple[ChatMessage, ...]:
    return lib.render(
        f"programmer/{variant.programmer_style}",
        {"task": task, "variant": variant, "reflection": reflection},
    )


def parse(answer: str) -> ExtractedProgram:
    return extract_program(answer, lang="ruby")
