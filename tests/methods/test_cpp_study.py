"""RAMP and ChatRepair on real C++ tasks: a scripted model, the REAL sandbox (g++, and Ruby for
the Test Designer's input generator), then the hidden tests, as the C++ study runs them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ramp.analysis.hidden import validate_attempts
from ramp.dataset import load_tasks
from ramp.execution.executor import SandboxExecutor
from ramp.execution.runtime import runtime_named
from ramp.methods import chatrepair
from ramp.methods.base import MethodContext
from ramp.methods.frames import attempts_frame
from ramp.methods.ramp import repair
from ramp.variants import Variant
from tests.agents.scripted import ScriptedAgents

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "../shared/data/xcodeeval-apr-cpp/validation.jsonl"
# Two cpp65 tasks of one problem ("Watermelon": YES when w splits into two even parts), submitted
# as GNU C++ (gnu++98) and GNU C++11; both buggy programs answer YES for w = 2.
TASK_IDS = ("ab992d137d9d2bc3931623b056168567", "0805e7dcd94b492e16adbbc05dc37d8d")
FIX = """#include <iostream>
using namespace std;

int main() {
    int w;
    cin >> w;
    cout << (w > 2 && w % 2 == 0 ? "YES" : "NO") << endl;
    return 0;
}
"""
# Two written tests and a large one whose input a Ruby generator prints.
TESTS = """### Test 1 (basic)
Input:
```
2
```
Output:
```
NO
```
### Test 2 (edge)
Input:
```
8
```
Output:
```
YES
```
### Test 3 (large)
Generator:
```ruby
puts 100
```
Output:
```
YES
```
"""

pytestmark = pytest.mark.skipif(
    not DATA.exists() or shutil.which("g++") is None or shutil.which("ruby") is None,
    reason="needs the C++ data set, g++ and Ruby")


def cpp(code: str) -> str:
    return f"Let's think step by step.\n\n```cpp\n{code.rstrip()}\n```\n"


@pytest.fixture(scope="module")
def tasks():
    by_id = {t.task_id: t for t in load_tasks(DATA).tasks}
    return [by_id[i] for i in TASK_IDS]


def test_ramp_repairs_real_cpp_tasks_in_the_sandbox(tasks, executors, lib):
    attempts = []
    for task in tasks:
        agents = ScriptedAgents(
            reflection=["For w = 2 the two parts would be 1 and 1: odd."], test_design=[TESTS],
            programmer=[cpp(task.problem.buggy_code), cpp(FIX)],
            feedback=["It answers YES for 2: require w > 2."])
        ctx = MethodContext(llm=agents.llm, lib=lib, variant=Variant(), executors=executors,
                            budget=3)
        first, second = repair(task.problem, ctx)
        # The buggy program, compiled with g++ and run, fails the written test w = 2; the large
        # test's input came from the Ruby generator.
        assert first.report is not None and not first.report.compile_error
        assert first.verdicts == ("WRONG_ANSWER", "PASSED", "PASSED")
        assert "Test 1 (basic): WRONG_ANSWER" in first.traces and "Input:\n2" in first.traces
        assert second.passed_generated and second.code == FIX
        # Every prompt spoke C++ (the Test Designer's asks for a Ruby input generator); the
        # code calls stopped at a C++ program.
        assert all("Ruby" not in m.content for role, prompts in agents.prompts.items()
                   if role != "test_design" for p in prompts for m in p)
        assert {params.stop_when for _, params in agents.llm.seen} == {"", "program:cpp"}
        assert "Buggy C++ program:\n```cpp\n" in agents.prompts["programmer"][1][-1].content
        assert "Your previous attempt:\n```cpp\n" in agents.prompts["programmer"][1][-1].content
        attempts += [first, second]

    # The hidden tests, as rule score_hidden runs them: with the C++ runtime.
    with SandboxExecutor(workers=2, runtime=runtime_named("cpp")) as runner:
        _, summary = validate_attempts(attempts_frame(attempts), tasks, runner)
    passed = {(r.task_id, r.iteration): r.passed_hidden for r in summary.itertuples()}
    assert passed == {(t, i): i == 2 for t in TASK_IDS for i in (1, 2)}


def test_chatrepair_runs_the_buggy_cpp_program_on_the_samples_first(tasks, executors, lib):
    task = tasks[1].problem
    agents = ScriptedAgents(chatrepair=[cpp("int main() { return 1; }"), cpp(FIX)])
    ctx = MethodContext(llm=agents.llm, lib=lib, variant=Variant(method="chatrepair",
                                                                 alternatives=False),
                        executors=executors, budget=3)
    first, second = chatrepair.repair(task, ctx)
    # The buggy program passes the statement's one sample: no failing test to show.
    assert "It passes the sample tests, but it is known to be incorrect" in \
        agents.prompts["chatrepair"][0][-1].content
    assert first.verdicts == ("RUNTIME_ERROR",) and second.passed_generated
    # The conversation keeps the failed candidate as a C++ block.
    assert agents.prompts["chatrepair"][1][-2].content == \
        "```cpp\nint main() { return 1; }\n```"
