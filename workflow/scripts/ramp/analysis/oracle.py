"""Generated tests vs ground truth (the paper's Table 3, section 4.2).

This split has no reference fixes, so a problem's oracle is any program that passed all of its
hidden tests, found in any run (model, variant, iteration) of the subset; for the problems whose
data set cut some hidden inputs off, passing every non-truncated test is enough (no program can
pass a cut input). One oracle per problem, chosen deterministically (shortest code, then run
and task order). A run's generated tests for a task *pass on the ground truth* when the oracle
passes every one of them. Per iteration t, each task's current candidate (the program it would
return if stopped after t; a task that stopped earlier keeps its last one) is then:

* TP: tests pass on the oracle and the candidate passes the hidden tests
* FN: tests fail on the oracle, yet the candidate passes the hidden tests
* FP: tests pass on the oracle, but the candidate fails the hidden tests
* TN: tests fail on the oracle and the candidate fails the hidden tests

Tasks of a problem without an oracle, or with no generated tests, get no category
(``excluded`` says why) and are counted apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ramp.execution.executor import Executor
from ramp.methods.frames import tests_from_frame
from ramp.tasks import Task, TestCase

ORACLE_PROGRAM_COLUMNS = ["problem_id", "has_oracle", "n_candidates", "code", "source_model",
                          "source_variant", "source_task", "source_iteration"]
ORACLE_COLUMNS = ["model", "variant", "task_id", "problem_id", "iteration", "carried",
                  "has_oracle", "n_tests", "n_tests_passed_oracle", "tests_pass_oracle",
                  "passed_hidden", "category", "excluded"]
CATEGORIES = ("TP", "FN", "FP", "TN")

RunKey = tuple[str, str]  # (model, variant)


def category(tests_pass_oracle: bool, passed_hidden: bool) -> str:
    """The paper's four cases, keyed on the oracle verdict and the hidden verdict."""
    if tests_pass_oracle:
        return "TP" if passed_hidden else "FP"
    return "FN" if passed_hidden else "TN"


def oracle_programs(
    runs: Mapping[RunKey, tuple[pd.DataFrame, pd.DataFrame]], tasks: Sequence[Task]
) -> pd.DataFrame:
    """One row per problem of ``tasks``: its oracle program, if any run found one.

    ``runs`` maps (model, variant) to (attempts, hidden_attempts) of that run.
    """
    problem_of = {t.task_id: t.problem_id for t in tasks}
    found = []
    for (model, variant), (attempts, validated) in runs.items():
        good = validated[validated["passed_hidden_excluding_truncated"]]
        merged = good[["task_id", "iteration"]].merge(
            attempts[["task_id", "iteration", "code"]], on=["task_id", "iteration"])
        for row in merged.itertuples(index=False):
            found.append({"problem_id": problem_of.get(row.task_id), "code": row.code,
                          "source_model": model, "source_variant": variant,
                          "source_task": row.task_id, "source_iteration": int(row.iteration)})
    columns = ["problem_id", *ORACLE_PROGRAM_COLUMNS[3:]]
    candidates = pd.DataFrame(found, columns=columns)
    rows = []
    for problem in sorted(set(problem_of.values())):
        mine = candidates[candidates["problem_id"] == problem]
        if mine.empty:
            rows.append({"problem_id": problem, "has_oracle": False, "n_candidates": 0,
                         "code": "", "source_model": "", "source_variant": "",
                         "source_task": "", "source_iteration": None})
            continue
        mine = mine.assign(length=mine["code"].str.len()).sort_values(
            ["length", "source_model", "source_variant", "source_task", "source_iteration"])
        best = mine.iloc[0]
        rows.append({"problem_id": problem, "has_oracle": True,
                     "n_candidates": int(mine["code"].nunique()), "code": best["code"],
                     "source_model": best["source_model"],
                     "source_variant": best["source_variant"],
                     "source_task": best["source_task"],
                     "source_iteration": int(best["source_iteration"])})
    df = pd.DataFrame(rows, columns=ORACLE_PROGRAM_COLUMNS)
    return df.astype({"has_oracle": "bool", "n_candidates": "int64",
                      "source_iteration": "Int64"})


def generated_tests(tests: pd.DataFrame) -> dict[str, tuple[TestCase, ...]]:
    """tests.parquet rows -> the guiding tests of each task."""
    return tests_from_frame(tests)


def check_tests_on_oracles(
    tests: pd.DataFrame, programs: pd.DataFrame, tasks: Sequence[Task], runner: Executor
) -> pd.DataFrame:
    """Run each task's generated tests on its problem's oracle: task_id, n_tests, n_passed."""
    by_id = {t.task_id: t for t in tasks}
    oracle = dict(zip(programs["problem_id"], programs["code"], strict=True))
    cache: dict[tuple[str, tuple[TestCase, ...]], int] = {}
    rows = []
    for task_id, cases in generated_tests(tests).items():
        task = by_id.get(task_id)
        code = oracle.get(task.problem_id, "") if task else ""
        if not code or not cases:
            rows.append({"task_id": task_id, "n_tests": len(cases), "n_passed": None})
            continue
        key = (task.problem_id, cases)
        if key not in cache:
            report = runner.run(code, cases, task.limits)
            cache[key] = sum(r.verdict.value == "PASSED" for r in report.results)
        rows.append({"task_id": task_id, "n_tests": len(cases), "n_passed": cache[key]})
    return pd.DataFrame(rows, columns=["task_id", "n_tests", "n_passed"]).astype(
        {"n_tests": "int64", "n_passed": "Int64"})


def classify_run(
    model: str,
    variant: str,
    status: pd.DataFrame,
    checked: pd.DataFrame,
    programs: pd.DataFrame,
) -> pd.DataFrame:
    """Per task x iteration (t >= 1) of one run: the TP/FN/FP/TN category.

    ``status`` is :func:`ramp.analysis.scores.status_by_iteration` of the run (its ``strict``
    column is the current candidate's hidden verdict); ``checked`` is
    :func:`check_tests_on_oracles` of the run's tests.
    """
    has_oracle = dict(zip(programs["problem_id"], programs["has_oracle"], strict=True))
    tests_of = checked.set_index("task_id")
    rows: list[dict[str, Any]] = []
    for row in status[status["iteration"] >= 1].itertuples(index=False):
        oracle = bool(has_oracle.get(row.problem_id, False))
        n_tests = int(tests_of.at[row.task_id, "n_tests"]) if row.task_id in tests_of.index else 0
        n_passed = tests_of.at[row.task_id, "n_passed"] if row.task_id in tests_of.index else None
        excluded = "no oracle" if not oracle else "no generated tests" if n_tests == 0 else ""
        passes = None if excluded else bool(int(n_passed) == n_tests)
        rows.append({
            "model": model, "variant": variant, "task_id": row.task_id,
            "problem_id": row.problem_id, "iteration": int(row.iteration),
            "carried": not row.attempted, "has_oracle": oracle, "n_tests": n_tests,
            "n_tests_passed_oracle": None if excluded else int(n_passed),
            "tests_pass_oracle": passes, "passed_hidden": bool(row.strict),
            "category": None if excluded else category(bool(passes), bool(row.strict)),
            "excluded": excluded,
        })
    df = pd.DataFrame(rows, columns=ORACLE_COLUMNS)
    return df.astype({"iteration": "int64", "carried": "bool", "has_oracle": "bool",
                      "n_tests": "int64", "n_tests_passed_oracle": "Int64",
                      "tests_pass_oracle": "boolean", "passed_hidden": "bool"})


def table3(oracle: pd.DataFrame) -> pd.DataFrame:
    """Counts and shares of TP/FN/FP/TN per (model, variant, iteration), classified tasks only."""
    done = oracle[oracle["category"].notna()]
    counts = (done.groupby(["model", "variant", "iteration", "category"]).size()
              .unstack("category", fill_value=0)
              .reindex(columns=list(CATEGORIES), fill_value=0))
    counts["total"] = counts.sum(axis=1)
    return counts.reset_index()
