"""Bug validation across languages: one executor per task lang, and the quick
first-failure variant (clean tests only, numbered as the task numbers them)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from ramp.bug_validation import run_buggy_programs, summarise, validate_bugs
from ramp.tasks import Limits, Problem, RunReport, Task, TestCase, TestResult, Verdict

SUM_CPP = (
    "#include <cstdio>\n"
    "int main() { int a, b; scanf(\"%d %d\", &a, &b); printf(\"%d\", a - b); }"
)


def task(task_id: str, lang: str, code: str, tests: Sequence[TestCase]) -> Task:
    problem = Problem(
        task_id=task_id, problem_id="p1", description="", input_spec="", output_spec="",
        notes="", samples=(), time_limit_s=1.0, memory_mb=64, tags=(), difficulty=800,
        buggy_code=code, lang=lang,
    )  # fmt: skip
    return Task(problem, hidden_tests=tuple(tests), recorded_outcome="WRONG_ANSWER")


TESTS = (
    TestCase("2 2\n", ("4",)),
    TestCase("1 1\n", ("...",), truncated=True),
    TestCase("0 0\n", ("0",)),
    TestCase("3 1\n", ("4",)),
)


class Recorder:
    """Passes every test but the one whose input is '3 1'; records what it was asked."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.asked: list[tuple[int, bool]] = []

    def run(
        self, program: str, tests: Sequence[TestCase], limits: Limits, *,
        stop_at_first_failure: bool = False,
    ) -> RunReport:  # fmt: skip
        self.asked.append((len(tests), stop_at_first_failure))
        results = []
        for i, t in enumerate(tests):
            ok = t.input != "3 1\n"
            results.append(TestResult(i, Verdict.PASSED if ok else Verdict.WRONG_ANSWER))
            if stop_at_first_failure and not ok:
                break
        return RunReport(tuple(results), skipped=len(tests) - len(results))


def test_each_task_runs_on_its_own_langs_executor() -> None:
    ruby, cpp = Recorder("ruby"), Recorder("cpp")
    tasks = [task("a", "Ruby", "p", TESTS), task("b", "GNU C++11", "p", TESTS)]
    done = list(run_buggy_programs(tasks, {"Ruby": ruby, "GNU C++11": cpp}))
    assert [t.task_id for t, _ in done] == ["a", "b"]
    assert ruby.asked == [(4, False)] and cpp.asked == [(4, False)]
    with pytest.raises(KeyError, match="no executor for lang 'MS C\\+\\+'"):
        list(run_buggy_programs([task("c", "MS C++", "p", TESTS)], {"Ruby": ruby}))


def test_first_failure_runs_clean_tests_and_keeps_the_task_numbering(tmp_path: Path) -> None:
    executor = Recorder("cpp")
    tasks = [task("b", "GNU C++11", "p", TESTS)]
    runs = validate_bugs(tasks, executor, tmp_path / "runs.parquet", first_failure=True)
    assert executor.asked == [(3, True)]  # the truncated test is left out
    assert list(runs["test_index"]) == [0, 2, 3] and not runs["truncated"].any()
    summary = summarise(runs, tasks).iloc[0]
    assert summary["first_verdict_clean"] == "WRONG_ANSWER" and summary["first_fail_index"] == 3


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_real_cpp_dialects_in_one_sandbox(tmp_path: Path) -> None:
    from ramp.execution.dialects import executors_by_lang

    modern = SUM_CPP.replace("int a, b;", "auto a = 0, b = 0;")
    tasks = [
        task("old", "GNU C++", SUM_CPP, TESTS),
        task("new", "GNU C++17", modern, TESTS),
        task("old-auto", "GNU C++", modern, TESTS),
    ]
    with executors_by_lang((t.lang for t in tasks), 2) as executors:
        runs = validate_bugs(tasks, executors, tmp_path / "runs.parquet")
        sandbox = executors["GNU C++"].sandbox
        assert sandbox is executors["GNU C++17"].sandbox
    summary = summarise(runs, tasks).set_index("task_id")
    # a - b: right on 0 0, wrong on 2 2; `auto` is an error in C++98 only.
    assert summary.loc["old", "first_verdict_clean"] == "WRONG_ANSWER"
    assert summary.loc["new", "first_verdict_clean"] == "WRONG_ANSWER"
    assert summary.loc["old-auto", "first_verdict_clean"] == "COMPILATION_ERROR"
