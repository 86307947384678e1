"""A scripted model that answers by agent role, and a small made-up task: what the tests of
the agents (tests/agents) and of the repair methods (tests/methods) share. Their conftest files
bring in the fixtures."""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable

import pytest

from ramp.llm.base import Prompt
from ramp.llm.fake import FakeLLM
from ramp.prompting import PromptLibrary
from ramp.tasks import Problem, TestCase

ROLE_MARKERS = {
    "explains bugs": "reflection",
    "explains why a program fails": "feedback",
    "careful tester": "test_design",
    "repairs buggy programs": "programmer",
    "Repair the buggy program": "programmer",
    "automated program repair tool": "chatrepair",
    "analyst of a small software team": "analyst",
    "coder of a small software team": "coder",
    "tester of a small software team": "tester",
    "You translate Ruby programs into": "translator",
    "programmer who fixes programs so that they solve": "repairer",
    "programs into Ruby, keeping": "back_translator",
    "plans repairs": "planner",
    "implements a repair plan": "programmer",
    "You find inputs on which two programs": "distinguish",
    "You decide which of two outputs": "judge",
    "fails some of the problem's": "debug",
}


def role_of(prompt: Prompt) -> str:
    system = prompt[0].content
    for marker, role in ROLE_MARKERS.items():
        if marker in system:
            return role
    raise AssertionError(f"unknown agent prompt: {system[:80]!r}")


class ScriptedAgents:
    """Answers each agent role from its own queue; records which roles were called in order."""

    def __init__(self, **answers: Iterable[str]) -> None:
        self.queues = defaultdict(deque, {r: deque(a) for r, a in answers.items()})
        self.calls: list[str] = []
        self.prompts: dict[str, list[Prompt]] = defaultdict(list)
        self.llm = FakeLLM(respond=self._respond, model_id="scripted")

    def _respond(self, prompt: Prompt) -> str:
        role = role_of(prompt)
        self.calls.append(role)
        self.prompts[role].append(prompt)
        if not self.queues[role]:
            raise AssertionError(f"no scripted answer left for {role}")
        return self.queues[role].popleft()


def ruby(code: str) -> str:
    return f"Let's think step by step.\n\n```ruby\n{code}\n```\n"


TESTS_OK = """### Test 1 (basic)
Input:
```
2
```
Output:
```
4
```
### Test 2 (edge)
Input:
```
0
```
Output:
```
0
```
"""


def made_up_problem() -> Problem:
    """Read n, print 2n; the buggy program prints 3n."""
    return Problem(
        task_id="t1", problem_id="p1", description="Read an integer n and print 2n.",
        input_spec="One integer n (0 <= n <= 10^9).", output_spec="Print 2n.", notes="",
        samples=(TestCase("3\n", ("6\n",), kind="sample"),), time_limit_s=1.0, memory_mb=256,
        tags=("math",), difficulty=800, buggy_code="puts gets.to_i * 3\n",
    )


@pytest.fixture
def task() -> Problem:
    return made_up_problem()


@pytest.fixture(scope="session")
def lib() -> PromptLibrary:
    return PromptLibrary.default()
