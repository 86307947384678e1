"""Hand-made tasks and run tables whose scores are known by construction, and a scripted
executor: what the tests of the analysis (tests/analysis), the figures (tests/figures) and the
journal share. tests/analysis/conftest.py brings in the fixture."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import pytest

from ramp.tasks import Limits, Problem, RunReport, Task, TestCase, TestResult, Verdict


def make_task(task_id: str, problem_id: str, *, n_hidden: int = 3, truncated: int = 0,
              difficulty: int | None = 1000, tags: tuple[str, ...] = ("math",),
              outcome: str = "WRONG_ANSWER", n_samples: int = 0) -> Task:
    """A task whose hidden test i has input "i" and sample test i input "si" (EchoRunner)."""
    hidden = tuple(TestCase(input=f"{i}\n", outputs=(f"{i}",), kind="hidden",
                            truncated=i >= n_hidden - truncated) for i in range(n_hidden))
    samples = tuple(TestCase(input=f"s{i}\n", outputs=(f"s{i}",), kind="sample")
                    for i in range(n_samples))
    problem = Problem(task_id=task_id, problem_id=problem_id, description="d", input_spec="i",
                      output_spec="o", notes="", samples=samples, time_limit_s=2.0, memory_mb=256,
                      tags=tags, difficulty=difficulty, buggy_code="puts 0")
    return Task(problem, hidden_tests=hidden, recorded_outcome=outcome)


def hidden_attempts(rows: Sequence[tuple[str, int, bool, bool]],
                    excl: dict[tuple[str, int], bool] | None = None) -> pd.DataFrame:
    """(task_id, iteration, passed_generated, passed_hidden) -> a hidden_attempts-like frame."""
    excl = excl or {}
    return pd.DataFrame([
        {"task_id": t, "iteration": i, "passed_generated": g, "passed_hidden": h,
         "passed_hidden_excluding_truncated": excl.get((t, i), h)}
        for t, i, g, h in rows
    ])


class EchoRunner:
    """A scripted executor: a program 'pass:1,2' passes tests 1 and 2 and fails the others
    with WRONG_ANSWER; it records every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, bool]] = []

    def run(self, program: str, tests: Sequence[TestCase], limits: Limits, *,
            stop_at_first_failure: bool = False) -> RunReport:
        self.calls.append((program, len(tests), stop_at_first_failure))
        good = {s for s in program.strip().removeprefix("pass:").split(",") if s}
        results = []
        for i, t in enumerate(tests):
            ok = "all" in good or t.input.strip() in good
            results.append(TestResult(index=i, verdict=Verdict.PASSED if ok
                                      else Verdict.WRONG_ANSWER, cpu_s=0.01, wall_s=0.02,
                                      peak_memory_mb=10.0 + i))
            if stop_at_first_failure and not ok:
                return RunReport(results=tuple(results), skipped=len(tests) - i - 1)
        return RunReport(results=tuple(results))


@pytest.fixture
def runner() -> EchoRunner:
    return EchoRunner()
