"""Bug validation against a scripted executor (and the real one when it is installed)."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pytest

from ramp.bug_validation import confusion, render_markdown, summarise, validate_bugs, write_summary
from ramp.dataset import load_tasks
from ramp.tasks import Limits, RunReport, TestCase, TestResult, Verdict

TINY = Path(__file__).parent / "data" / "tiny.jsonl"


class ScriptedExecutor:
    """Judges by the program's text: '/ 0' crashes, else it passes only the first test."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, Limits]] = []

    def run(
        self,
        program: str,
        tests: Sequence[TestCase],
        limits: Limits,
        *,
        stop_at_first_failure: bool = False,
    ) -> RunReport:
        self.calls.append((program, len(tests), limits))
        results = []
        for i, test in enumerate(tests):
            if "/ 0" in program:
                verdict = Verdict.RUNTIME_ERROR
            elif test.truncated:
                verdict = Verdict.WRONG_ANSWER
            else:
                verdict = Verdict.PASSED if i == 0 else Verdict.WRONG_ANSWER
            code = 1 if verdict is Verdict.RUNTIME_ERROR else 0
            results.append(TestResult(i, verdict, exit_code=code, cpu_s=0.01, wall_s=0.02))
        return RunReport(tuple(results))


@pytest.fixture()
def tasks():
    return load_tasks(TINY).tasks


def test_runs_every_hidden_test_under_the_task_limits(tmp_path: Path, tasks) -> None:
    executor = ScriptedExecutor()
    seen: list[str] = []
    runs = validate_bugs(
        tasks,
        executor,
        tmp_path / "runs.parquet",
        progress=lambda done, total, task, report, s: seen.append(f"{done}/{total}"),
    )
    assert seen == ["1/3", "2/3", "3/3"]
    assert [c[1] for c in executor.calls] == [3, 3, 3]
    assert executor.calls[2][2] == Limits(time_s=0.5, memory_mb=64)
    assert len(runs) == 9
    back = pd.read_parquet(tmp_path / "runs.parquet")
    assert back["truncated"].tolist() == [False] * 7 + [True, False]
    assert back.loc[back["task_id"] == "t-crash", "verdict"].unique().tolist() == ["RUNTIME_ERROR"]
    assert str(back["exit_code"].dtype) == "Int64"


def test_summary_and_confusion(tmp_path: Path, tasks) -> None:
    runs = validate_bugs(tasks, ScriptedExecutor(), tmp_path / "runs.parquet")
    summary = summarise(runs, tasks).set_index("task_id")
    assert summary["fails_any"].all()
    assert summary.loc["t-dots", "fails_any_clean"]  # its third test is clean and fails
    assert summary.loc["t-wrong", "first_verdict"] == "WRONG_ANSWER"
    assert summary.loc["t-wrong", "first_fail_index"] == 1
    assert summary.loc["t-dots", "n_failed_truncated"] == 1
    matrix = confusion(summary.reset_index())
    assert matrix.loc["RUNTIME_ERROR", "RUNTIME_ERROR"] == 1
    assert matrix.loc["WRONG_ANSWER", "WRONG_ANSWER"] == 2
    assert matrix.loc["total", "total"] == 3


def test_program_failing_only_on_truncated_tests(tmp_path: Path, tasks) -> None:
    dots = tasks[2]
    runs = validate_bugs([dots], ScriptedExecutor(), tmp_path / "runs.parquet")
    # Flip the clean failure to a pass: now only the cut input fails.
    runs.loc[runs["test_index"] == 2, "verdict"] = "PASSED"
    summary = summarise(runs, [dots])
    assert summary["fails_any"].tolist() == [True]
    assert summary["fails_any_clean"].tolist() == [False]
    assert summary["first_verdict_clean"].tolist() == ["PASSED"]
    text = render_markdown(summary, runs, "tiny")
    assert "| fail only on truncated tests" in text and "| 1 " in text


def test_write_summary_files(tmp_path: Path, tasks) -> None:
    runs = validate_bugs(tasks, ScriptedExecutor(), tmp_path / "runs.parquet")
    write_summary(
        runs, tasks, "tiny", tmp_path / "s.parquet", tmp_path / "c.parquet", tmp_path / "s.md"
    )
    text = (tmp_path / "s.md").read_text()
    assert "# Bug validation: subset `tiny`" in text
    assert "3/3 (100.0%)" in text
    assert "1 distinct hidden test(s) of 1 problem(s)" in text
    long = pd.read_parquet(tmp_path / "c.parquet")
    assert set(long["scope"]) == {"clean", "all"}
    assert long.groupby("scope")["programs"].sum().tolist() == [3, 3]
    assert len(pd.read_parquet(tmp_path / "s.parquet")) == 3


has_executor = importlib.util.find_spec("ramp.execution.executor") is not None


@pytest.mark.slow
@pytest.mark.skipif(not has_executor, reason="ramp.execution.executor is not installed")
def test_real_executor_fails_the_tiny_bugs(tmp_path: Path, tasks) -> None:
    from ramp.execution.executor import SandboxExecutor

    with SandboxExecutor(workers=2) as executor:
        runs = validate_bugs(tasks[:2], executor, tmp_path / "runs.parquet")
    summary = summarise(runs, tasks[:2]).set_index("task_id")
    assert summary.loc["t-wrong", "first_verdict"] == "WRONG_ANSWER"
    assert summary.loc["t-crash", "first_verdict"] == "RUNTIME_ERROR"
    assert summary.loc["t-wrong", "n_failed"] == 3
