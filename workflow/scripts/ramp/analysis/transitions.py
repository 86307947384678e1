"""Per-hidden-test outcome before and after repair (Figure 4, right).

Two conventions for "before": ``recorded`` is the paper's (every hidden test of a task takes
the outcome the data set recorded for the buggy program); ``measured`` is the buggy program's
own verdict on that test, from the bug-validation stage. "After" is the verdict of one chosen
program per task: ``returned`` (what the method returns, the strict score's program) or
``first_passing`` (the first attempt that passed the hidden tests, else the returned one: the
cumulative score's program). A test with no verdict (no code, or skipped after a failure) is
``NOT_RUN``.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ramp.tasks import Task

NOT_RUN = "NOT_RUN"
TRANSITION_COLUMNS = ["convention", "program", "truncated", "before", "after", "tests"]


def _verdicts(runs: pd.DataFrame, keys: Sequence[str]) -> dict[tuple, str]:
    return dict(zip(map(tuple, runs[list(keys)].to_numpy()), runs["verdict"], strict=True))


def transitions(
    hidden: pd.DataFrame,
    per_task: pd.DataFrame,
    tasks: Sequence[Task],
    bug_runs: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Counts of hidden tests per (convention, program, truncated, before, after)."""
    after = _verdicts(hidden, ["task_id", "iteration", "test_index"])
    before = _verdicts(bug_runs, ["task_id", "test_index"]) if bug_runs is not None else {}
    chosen = per_task.set_index("task_id")
    rows = []
    for task in tasks:
        info = chosen.loc[task.task_id]
        returned = info["returned_iteration"]
        first = info["first_pass_iteration"]
        programs = {
            "returned": returned,
            "first_passing": first if not pd.isna(first) else returned,
        }
        for program, iteration in programs.items():
            for i, test in enumerate(task.hidden_tests):
                verdict = (NOT_RUN if pd.isna(iteration)
                           else after.get((task.task_id, int(iteration), i), NOT_RUN))
                rows.append(("recorded", program, test.truncated, task.recorded_outcome, verdict))
                if bug_runs is not None:
                    rows.append(("measured", program, test.truncated,
                                 before.get((task.task_id, i), NOT_RUN), verdict))
    df = pd.DataFrame(rows, columns=TRANSITION_COLUMNS[:-1])
    counts = df.groupby(TRANSITION_COLUMNS[:-1]).size().rename("tests").reset_index()
    return counts.astype({"truncated": "bool", "tests": "int64"})


def matrix(
    counts: pd.DataFrame,
    convention: str = "recorded",
    program: str = "first_passing",
    *,
    include_truncated: bool = True,
) -> pd.DataFrame:
    """The before x after matrix of one convention and program (rows: before)."""
    sel = counts[(counts["convention"] == convention) & (counts["program"] == program)]
    if not include_truncated:
        sel = sel[~sel["truncated"]]
    return sel.pivot_table(index="before", columns="after", values="tests", aggfunc="sum",
                           fill_value=0)
