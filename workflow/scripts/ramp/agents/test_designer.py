"""Test Designer: six guiding tests (2 basic, 2 edge, 2 large) from the problem and samples."""

from __future__ import annotations

from ramp.llm.base import ChatMessage
from ramp.parsing import ParsedTests, parse_generated_tests
from ramp.prompting import PromptLibrary
from ramp.tasks import Problem
from ramp.variants import ProblemView

ROLE = "test_design"
TEMPLATE = "test_designer/designer"


def prompt(lib: PromptLibrary, task: Problem) -> tuple[ChatMessage, ...]:
    # Table 4's switches are the Programmer's: the Test Designer always sees the whole problem.
    return lib.render(TEMPLATE, {"task": task, "view": ProblemView()})


def parse(answer: str) -> ParsedTests:
    return parse_generated_tests(answer)
