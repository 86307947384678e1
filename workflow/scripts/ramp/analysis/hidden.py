"""Hidden validation: every attempt of every iteration on its task's hidden tests.

The paper runs hidden tests only on the program the method returns; we run them on every
attempt so that one table serves both scores (strict and cumulative), the per-iteration
curves, the oracle and the transition matrix. A candidate with no code (parse failure) fails
without running. Identical programs for one problem are run once (the hidden tests and limits
belong to the problem): a reused row is flagged and repeats the first run's seconds.

Every candidate also runs on the statement's sample tests (``passed_samples``), so that one
table says how a stop rule on the samples would have judged RAMP's candidates, beside the
generated tests' verdict (``passed_generated``). The samples' run is no cost of the method.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ramp.execution.executor import Executor
from ramp.journal import Journal
from ramp.tasks import Task, TestCase, TestResult, Verdict

PASSED = Verdict.PASSED.value

HIDDEN_COLUMNS: tuple[str, ...] = (
    "task_id", "problem_id", "iteration", "test_index", "truncated", "verdict",
    "exit_code", "signal", "cpu_s", "wall_s", "peak_memory_mb", "note",
)

HIDDEN_ATTEMPT_COLUMNS: tuple[str, ...] = (
    "task_id", "problem_id", "iteration", "has_code", "passed_generated", "n_hidden",
    "n_hidden_run", "n_hidden_passed", "n_truncated", "n_truncated_passed", "passed_hidden",
    "passed_hidden_excluding_truncated", "first_failing_verdict", "compile_error",
    "hidden_cpu_s", "hidden_wall_s", "hidden_peak_memory_mb", "hidden_seconds", "reused",
    "n_samples", "n_samples_passed", "passed_samples",
)


@dataclass(frozen=True)
class HiddenRun:
    """One program's hidden-test results, indexed like ``task.hidden_tests``, and how many of
    the statement's sample tests it passed."""

    results: tuple[TestResult, ...]
    compile_error: str
    seconds: float
    samples_passed: int = 0


Progress = Callable[[int, int, str, int, bool], None]


def clean_first(tests: Sequence[TestCase]) -> list[int]:
    """Test indexes with the truncated ones last: with early stop on a failure, every clean
    test has still run when a truncated test fails, so the score excluding them stays exact."""
    return sorted(range(len(tests)), key=lambda i: tests[i].truncated)


def run_hidden(
    task: Task, code: str, runner: Executor, *, stop_at_first_failure: bool
) -> HiddenRun:
    order = clean_first(task.hidden_tests)
    start = time.monotonic()
    report = runner.run(
        code,
        [task.hidden_tests[i] for i in order],
        task.limits,
        stop_at_first_failure=stop_at_first_failure,
    )
    # The executor numbers tests by their position in the list we gave it; map back.
    results = tuple(dataclasses.replace(r, index=order[r.index]) for r in report.results)
    seconds = time.monotonic() - start
    return HiddenRun(results, report.compile_error, seconds, run_samples(task, code, runner))


def run_samples(task: Task, code: str, runner: Executor) -> int:
    """How many of the statement's sample tests the program passes (0 when it has none)."""
    samples = task.problem.samples
    if not samples:
        return 0
    report = runner.run(code, list(samples), task.limits)
    return sum(r.verdict is Verdict.PASSED for r in report.results)


def per_test_rows(task: Task, iteration: int, run: HiddenRun) -> list[dict[str, Any]]:
    return [
        {
            "task_id": task.task_id, "problem_id": task.problem_id, "iteration": iteration,
            "test_index": r.index, "truncated": task.hidden_tests[r.index].truncated,
            "verdict": r.verdict.value, "exit_code": r.exit_code, "signal": r.signal,
            "cpu_s": r.cpu_s, "wall_s": r.wall_s, "peak_memory_mb": r.peak_memory_mb,
            "note": r.note,
        }
        for r in sorted(run.results, key=lambda r: r.index)
    ]


def attempt_row(
    task: Task, iteration: int, passed_generated: bool, run: HiddenRun | None, reused: bool
) -> dict[str, Any]:
    """The per-attempt summary; ``run`` is None for a candidate without code."""
    results = run.results if run else ()
    samples = task.problem.samples
    truncated = {i for i, t in enumerate(task.hidden_tests) if t.truncated}
    passed = {r.index for r in results if r.verdict is Verdict.PASSED}
    failing = sorted((r for r in results if r.verdict is not Verdict.PASSED),
                     key=lambda r: r.index)
    n_hidden = len(task.hidden_tests)
    clean = set(range(n_hidden)) - truncated
    memory = [r.peak_memory_mb for r in results if r.peak_memory_mb is not None]
    return {
        "task_id": task.task_id, "problem_id": task.problem_id, "iteration": iteration,
        "has_code": run is not None, "passed_generated": passed_generated,
        "n_hidden": n_hidden, "n_hidden_run": len(results), "n_hidden_passed": len(passed),
        "n_truncated": len(truncated), "n_truncated_passed": len(passed & truncated),
        "passed_hidden": run is not None and n_hidden > 0 and len(passed) == n_hidden,
        "passed_hidden_excluding_truncated": run is not None and bool(clean) and clean <= passed,
        "first_failing_verdict": (
            "NO_CODE" if run is None else failing[0].verdict.value if failing else PASSED
        ),
        "compile_error": bool(run and run.compile_error),
        "hidden_cpu_s": sum(r.cpu_s for r in results),
        "hidden_wall_s": sum(r.wall_s for r in results),
        "hidden_peak_memory_mb": max(memory) if memory else None,
        "hidden_seconds": run.seconds if run else 0.0,
        "reused": reused,
        "n_samples": len(samples),
        "n_samples_passed": run.samples_passed if run else 0,
        # Unknown (not False) where the statement gives no sample test.
        "passed_samples": (None if not samples
                           else run is not None and run.samples_passed == len(samples)),
    }


def validate_attempts(
    attempts: pd.DataFrame,
    tasks: Sequence[Task],
    runner: Executor,
    *,
    stop_at_first_failure: bool = False,
    progress: Progress | None = None,
    journal: Journal | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every attempt on the hidden tests: (per attempt x test, per attempt) frames.

    With a ``journal``, attempts validated by an interrupted run are read back, not rerun."""
    by_id = {t.task_id: t for t in tasks}
    unknown = sorted(set(attempts["task_id"]) - set(by_id))
    if unknown:
        raise ValueError(f"attempts name {len(unknown)} task(s) not in the task table, "
                         f"e.g. {unknown[0]!r}")
    cache: dict[tuple[str, str], HiddenRun] = {}
    test_out: list[dict[str, Any]] = []
    attempt_out: list[dict[str, Any]] = []
    ordered = attempts.sort_values(["task_id", "iteration"])
    for done, row in enumerate(ordered.itertuples(index=False), start=1):
        task = by_id[row.task_id]
        unit = f"{row.task_id}:{int(row.iteration)}"
        if journal is not None and unit in journal.done:
            (entry,) = journal.done[unit]
            test_out.extend(entry["tests"])
            attempt_out.append(entry["attempt"])
            continue
        code = row.code if isinstance(row.code, str) else ""
        run: HiddenRun | None = None
        reused = False
        if code.strip():
            key = (task.problem_id, code)
            reused = key in cache
            if not reused:
                cache[key] = run_hidden(task, code, runner,
                                        stop_at_first_failure=stop_at_first_failure)
            run = cache[key]
        tests = per_test_rows(task, int(row.iteration), run) if run is not None else []
        test_out.extend(tests)
        summary = attempt_row(task, int(row.iteration), bool(row.passed_generated), run, reused)
        attempt_out.append(summary)
        if journal is not None:
            journal.record(unit, [{"attempt": summary, "tests": tests}])
        if progress is not None:
            progress(done, len(ordered), task.task_id, int(row.iteration),
                     bool(summary["passed_hidden"]))
    return hidden_frame(test_out), hidden_attempts_frame(attempt_out)


def hidden_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    df = pd.DataFrame(list(rows), columns=list(HIDDEN_COLUMNS))
    return df.astype({"iteration": "int64", "test_index": "int64", "truncated": "bool",
                      "exit_code": "Int64", "signal": "Int64", "cpu_s": "float64",
                      "wall_s": "float64", "peak_memory_mb": "float64"})


def hidden_attempts_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    df = pd.DataFrame(list(rows), columns=list(HIDDEN_ATTEMPT_COLUMNS))
    return df.astype({"iteration": "int64", "has_code": "bool", "passed_generated": "bool",
                      "n_hidden": "int64", "n_hidden_run": "int64", "n_hidden_passed": "int64",
                      "n_truncated": "int64", "n_truncated_passed": "int64",
                      "passed_hidden": "bool", "passed_hidden_excluding_truncated": "bool",
                      "compile_error": "bool", "hidden_cpu_s": "float64",
                      "hidden_wall_s": "float64", "hidden_peak_memory_mb": "float64",
                      "hidden_seconds": "float64", "reused": "bool", "n_samples": "int64",
                      "n_samples_passed": "int64", "passed_samples": "boolean"})
