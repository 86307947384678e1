"""Test Designer: six guiding tests (2 basic, 2 edge, 2 large) from the problem and samples."""

from __future__ import annotations

from ramp.llm.base import ChatMessage
from ramp.parsing import ParsedTests, parse_generated_tests
from ramp.prompting import PromptLibrary
from ramp.tasks import Problem
from ramp.variants import Variant

ROLE = "test_design"


def prompt(lib: PromptLibrary, task: Problem, variant: Variant) -> tuple[ChatMessage, ...]:
    return lib.render("test_designer/designer", {"task": task, "variant": variant})


def parse(answer: str) -> ParsedTests:
    return parse_generated_tests(answer)
