"""Bug validation: does every buggy program really fail its hidden tests, and how?

Runs each task's buggy program on all of its hidden tests (one row per task x test), then
summarises per program: does it fail at least one test, and does our first failing verdict
agree with the outcome the data set recorded. Truncated tests (cut inputs no program can pass)
are counted apart so that they cannot hide or fake a failure.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pandas as pd

from ramp.execution.executor import Executor
from ramp.io import write_parquet, write_text
from ramp.journal import Journal
from ramp.sampling import difficulty_band
from ramp.tasks import RunReport, Task, Verdict

RUN_COLUMNS: tuple[str, ...] = (
    "task_id",
    "problem_id",
    "test_index",
    "truncated",
    "verdict",
    "exit_code",
    "signal",
    "cpu_s",
    "wall_s",
    "peak_memory_mb",
    "stdout_tail",
    "stderr_tail",
    "note",
    "compile_error",
)

PASSED = Verdict.PASSED.value


Progress = Callable[[int, int, Task, RunReport, float], None]


Executors = Executor | Mapping[str, Executor]
"""One executor for every task, or one per task ``lang`` (C++ dialects compile differently)."""


def executor_for(executors: Executors, task: Task) -> Executor:
    if isinstance(executors, Mapping):
        if task.lang not in executors:
            raise KeyError(f"no executor for lang {task.lang!r} (task {task.task_id})")
        return executors[task.lang]
    return executors


def run_buggy_programs(
    tasks: Sequence[Task],
    executor: Executors,
    progress: Progress | None = None,
    *,
    first_failure: bool = False,
) -> Iterator[tuple[Task, RunReport]]:
    """Run each buggy program on every hidden test (by default no early stop: every verdict).

    ``first_failure``: the quick variant, for a data set whose time-outs would take hours:
    only the clean (not truncated) tests, in order, up to the first that fails. Its first
    verdict is the one compared with the recorded outcome; counts of failed tests are not."""
    for done, task in enumerate(tasks, start=1):
        start = time.monotonic()
        run = executor_for(executor, task).run
        if first_failure:
            report = _first_failure_run(run, task)
        else:
            report = run(task.problem.buggy_code, task.hidden_tests, task.limits)
        if progress is not None:
            progress(done, len(tasks), task, report, time.monotonic() - start)
        yield task, report


def _first_failure_run(run: Callable[..., RunReport], task: Task) -> RunReport:
    clean = [i for i, t in enumerate(task.hidden_tests) if not t.truncated]
    tests = [task.hidden_tests[i] for i in clean]
    report = run(task.problem.buggy_code, tests, task.limits, stop_at_first_failure=True)
    # Back to the task's own test numbering (the truncated tests were left out).
    results = tuple(dataclasses.replace(r, index=clean[r.index]) for r in report.results)
    return dataclasses.replace(report, results=results)


def run_rows(task: Task, report: RunReport) -> list[dict[str, Any]]:
    """One row per test the executor reported on (a skipped test has no row)."""
    rows = []
    for r in report.results:
        rows.append(
            {
                "task_id": task.task_id,
                "problem_id": task.problem_id,
                "test_index": r.index,
                "truncated": task.hidden_tests[r.index].truncated,
                "verdict": r.verdict.value,
                "exit_code": r.exit_code,
                "signal": r.signal,
                "cpu_s": r.cpu_s,
                "wall_s": r.wall_s,
                "peak_memory_mb": r.peak_memory_mb,
                "stdout_tail": r.stdout_tail,
                "stderr_tail": r.stderr_tail,
                "note": r.note,
                "compile_error": report.compile_error,
            }
        )
    return rows


def runs_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    df = pd.DataFrame(list(rows), columns=list(RUN_COLUMNS))
    # Nullable ints: a killed program has a signal and no exit code, and vice versa.
    return df.astype(
        {"test_index": "int64", "truncated": "bool", "exit_code": "Int64", "signal": "Int64"}
    )


def _first_failure(group: pd.DataFrame) -> tuple[str, int | None]:
    failed = group[group["verdict"] != PASSED].sort_values("test_index")
    if failed.empty:
        return PASSED, None
    first = failed.iloc[0]
    return str(first["verdict"]), int(first["test_index"])


def summarise(runs: pd.DataFrame, tasks: Sequence[Task]) -> pd.DataFrame:
    """One row per task: counts of passed/failed tests and the first failing verdict.

    ``first_verdict`` looks at every test; ``first_verdict_clean`` skips truncated ones, which is
    the verdict to compare with the data set's recorded outcome.
    """
    rows = []
    by_task = dict(tuple(runs.groupby("task_id", sort=False)))
    for task in tasks:
        group = by_task.get(task.task_id, runs.iloc[0:0])
        failed = group["verdict"] != PASSED
        clean = group[~group["truncated"]]
        first, first_index = _first_failure(group)
        first_clean, _ = _first_failure(clean)
        rows.append(
            {
                "task_id": task.task_id,
                "problem_id": task.problem_id,
                "difficulty": task.difficulty,
                "band": difficulty_band(task.difficulty),
                "recorded_outcome": task.recorded_outcome,
                "n_tests": len(task.hidden_tests),
                "n_run": len(group),
                "n_truncated": task.n_truncated,
                "n_passed": int((~failed).sum()),
                "n_failed": int(failed.sum()),
                "n_failed_truncated": int((failed & group["truncated"]).sum()),
                "fails_any": bool(failed.any()),
                "fails_any_clean": bool((clean["verdict"] != PASSED).any()),
                "first_verdict": first,
                "first_fail_index": first_index,
                "first_verdict_clean": first_clean,
                "cpu_s": float(group["cpu_s"].sum()),
                "wall_s": float(group["wall_s"].sum()),
                "compile_error": bool(group["compile_error"].astype(bool).any()),
            }
        )
    df = pd.DataFrame(rows)
    return df.astype({"difficulty": "Int64", "first_fail_index": "Int64"})


def confusion(summary: pd.DataFrame, column: str = "first_verdict_clean") -> pd.DataFrame:
    """Recorded outcome (rows) x our first failing verdict (columns), with totals."""
    return pd.crosstab(
        summary["recorded_outcome"],
        summary[column],
        rownames=["recorded"],
        colnames=["ours"],
        margins=True,
        margins_name="total",
    )


def confusion_long(summary: pd.DataFrame) -> pd.DataFrame:
    """Both confusion matrices in one tidy table: scope, recorded, ours, programs."""
    parts = []
    for scope, column in (("clean", "first_verdict_clean"), ("all", "first_verdict")):
        counts = summary.groupby(["recorded_outcome", column]).size()
        part = counts.rename("programs").reset_index()
        part.columns = ["recorded", "ours", "programs"]
        part.insert(0, "scope", scope)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _pct(n: int, total: int) -> str:
    return f"{n}/{total} ({100 * n / total:.1f}%)" if total else "0/0"


def render_markdown(summary: pd.DataFrame, runs: pd.DataFrame, subset: str) -> str:
    n = len(summary)
    trunc = runs[runs["truncated"]]
    n_trunc_tests = trunc[["problem_id", "test_index"]].drop_duplicates().shape[0]
    only_trunc = int((summary["fails_any"] & ~summary["fails_any_clean"]).sum())
    agree = int((summary["first_verdict_clean"] == summary["recorded_outcome"]).sum())
    counts = pd.DataFrame(
        {
            "measure": [
                "programs",
                "hidden test runs",
                "fail at least one hidden test",
                "fail at least one non-truncated test",
                "fail only on truncated tests",
                "first failing verdict = recorded outcome",
                "compilation error",
            ],
            "value": [
                str(n),
                str(len(runs)),
                _pct(int(summary["fails_any"].sum()), n),
                _pct(int(summary["fails_any_clean"].sum()), n),
                str(only_trunc),
                _pct(agree, n),
                str(int(summary["compile_error"].sum())),
            ],
        }
    )
    lines = [
        f"# Bug validation: subset `{subset}`",
        "",
        "Each buggy program run on all of its hidden tests. A program should fail at least one.",
        "",
        counts.to_markdown(index=False),
        "",
        "## Our first failing verdict vs the recorded `bug_exec_outcome`",
        "",
        "Rows: the outcome the data set recorded. Columns: the verdict of the first hidden test",
        "the program fails, skipping truncated tests (PASSED: it passes every clean test).",
        "",
        confusion(summary).to_markdown(),
        "",
        "## Truncated tests",
        "",
        f"{n_trunc_tests} distinct hidden test(s) of {trunc['problem_id'].nunique()} problem(s)"
        f" in this subset have inputs the data set cut off ({len(trunc)} runs); no program can"
        f" pass them. They are flagged (`truncated`) in hidden_runs.parquet; {only_trunc}"
        " program(s) fail only on them. With them counted, the first failing verdicts are:",
        "",
        confusion(summary, "first_verdict").to_markdown(),
        "",
    ]
    return "\n".join(lines)


def validate_bugs(
    tasks: Sequence[Task],
    executor: Executors,
    runs_out: str | os.PathLike[str],
    progress: Progress | None = None,
    *,
    journal: Journal | None = None,
    first_failure: bool = False,
) -> pd.DataFrame:
    """The bug-validation stage: every buggy program on every hidden test, to Parquet.

    With a ``journal`` the programs already run by an interrupted attempt are not run again."""
    done = journal.done if journal is not None else {}
    todo = [t for t in tasks if t.task_id not in done]
    by_task: dict[str, list[dict[str, Any]]] = {t.task_id: done[t.task_id]
                                               for t in tasks if t.task_id in done}
    for task, report in run_buggy_programs(todo, executor, progress, first_failure=first_failure):
        by_task[task.task_id] = run_rows(task, report)
        if journal is not None:
            journal.record(task.task_id, by_task[task.task_id])
    runs = runs_frame([row for t in tasks for row in by_task[t.task_id]])
    write_parquet(runs, runs_out)
    if journal is not None:
        journal.finish()
    return runs


def write_summary(
    runs: pd.DataFrame,
    tasks: Sequence[Task],
    subset: str,
    summary_out: str | os.PathLike[str],
    confusion_out: str | os.PathLike[str],
    markdown_out: str | os.PathLike[str],
) -> pd.DataFrame:
    summary = summarise(runs, tasks)
    write_parquet(summary, summary_out)
    write_parquet(confusion_long(summary), confusion_out)
    write_text(markdown_out, render_markdown(summary, runs, subset))
    return summary
