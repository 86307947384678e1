"""Generated tests vs ground truth (the paper's Table 3, section 4.2), in its two readings.

**The text's reading** (``TEXT_READING``): the generated tests run on a ground-truth program of
the problem. A problem's oracle is its reference program (ramp.analysis.references: one per
problem from a file, accepted only if it passes every complete hidden test), else, as the
fall-back, any program that passed all of its hidden tests in any run (model, variant,
iteration) of the subset; for the problems whose data set cut some hidden inputs off, passing
every non-truncated test is enough (no program can pass a cut input). A found program is chosen
deterministically (shortest code, then run and task order); ``source`` says which kind each
oracle is. A run's generated tests for a task *pass on the ground truth* when the oracle passes
every one of them. Per iteration t, each task's current candidate (the program it would return
if stopped after t; a task that stopped earlier keeps its last one) is then:

* TP: tests pass on the oracle and the candidate passes the hidden tests
* FN: tests fail on the oracle, yet the candidate passes the hidden tests
* FP: tests pass on the oracle, but the candidate fails the hidden tests
* TN: tests fail on the oracle and the candidate fails the hidden tests

Tasks of a problem without an oracle, or with no generated tests, get no category
(``excluded`` says why) and are counted apart.

**The code's reading** (``CODE_READING``): how the paper's numbers were made. The authors'
released ``apr/analysis/confusion_stats_by_iteration.py`` compares, per iteration, whether the
candidate passed the generated tests with whether it passed the hidden tests (FN: generated
fail, hidden pass; FP: generated pass, hidden fail; TN: both fail; TP: both pass). It needs no
oracle and classifies every task at every iteration (the paper's rows sum to its 343 tasks).
Here the candidate is the same current candidate as above; the authors' file has no value for
an iteration a task did not run and counts it as failing both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ramp.analysis.references import ReferenceCheck
from ramp.analysis.scores import returned_index
from ramp.execution.executor import Executor
from ramp.methods.frames import tests_from_frame
from ramp.tasks import Task, TestCase

ORACLE_PROGRAM_COLUMNS = ["problem_id", "has_oracle", "source", "language", "reference",
                          "reference_note", "n_candidates", "code", "source_model",
                          "source_variant", "source_task", "source_iteration"]
ORACLE_COLUMNS = ["model", "variant", "task_id", "problem_id", "iteration", "carried",
                  "has_oracle", "n_tests", "n_tests_passed_oracle", "tests_pass_oracle",
                  "passed_hidden", "category", "excluded"]
CODE_READING_COLUMNS = ["model", "variant", "task_id", "problem_id", "iteration", "carried",
                        "passed_generated", "passed_hidden", "category"]
CATEGORIES = ("TP", "FN", "FP", "TN")
# Where a problem's oracle came from (``source``), and what became of its reference.
SOURCES = ("reference", "found", "")
REFERENCE_STATES = ("used", "refused", "none")

# The two readings of Table 3, as the tables and the summary name them.
TEXT_READING = ("the paper's text: the generated tests run on a ground-truth program of the "
                "problem (its reference program, else a program found passing the hidden tests "
                "in the runs); FN: the tests fail on it, the candidate passes the hidden tests; "
                "FP: the tests pass on it, the candidate fails the hidden tests")
CODE_READING = ("how the paper's numbers were made (its released analysis, "
                "apr/analysis/confusion_stats_by_iteration.py): the candidate's verdict on its "
                "generated tests against its hidden verdict, every task; FN: generated fail, "
                "hidden pass; FP: generated pass, hidden fail")

RunKey = tuple[str, str]  # (model, variant)
RunnerFor = Callable[[str], Executor]  # a language's runtime name -> its executor


def category(tests_pass_oracle: bool, passed_hidden: bool) -> str:
    """The paper's four cases, keyed on the generated tests' verdict (on the oracle in the
    text's reading, on the candidate in the code's) and the candidate's hidden verdict."""
    if tests_pass_oracle:
        return "TP" if passed_hidden else "FP"
    return "FN" if passed_hidden else "TN"


def found_programs(
    runs: Mapping[RunKey, tuple[pd.DataFrame, pd.DataFrame]], tasks: Sequence[Task]
) -> pd.DataFrame:
    """Every program of any run that passed its problem's hidden tests (excluding cut inputs):
    problem_id, code, source_model, source_variant, source_task, source_iteration."""
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
    return pd.DataFrame(found, columns=["problem_id", "code", *ORACLE_PROGRAM_COLUMNS[8:]])


def oracle_programs(
    runs: Mapping[RunKey, tuple[pd.DataFrame, pd.DataFrame]],
    tasks: Sequence[Task],
    references: Mapping[str, ReferenceCheck] | None = None,
) -> pd.DataFrame:
    """One row per problem of ``tasks``: its oracle program, if any.

    ``runs`` maps (model, variant) to (attempts, hidden_attempts) of that run; ``references``:
    the checked reference of each problem that has one (ramp.analysis.references). An accepted
    reference is the oracle; otherwise the shortest program found passing in the runs is.
    """
    references = references or {}
    language_of = {t.problem_id: t.problem.language.key for t in tasks}
    candidates = found_programs(runs, tasks)
    rows = []
    for problem in sorted(language_of):
        check = references.get(problem)
        row: dict[str, Any] = {
            "problem_id": problem, "has_oracle": False, "source": "", "language": "",
            "reference": "none" if check is None else "used" if check.accepted else "refused",
            "reference_note": check.note if check else "", "code": "", "source_model": "",
            "source_variant": "", "source_task": "", "source_iteration": None}
        mine = candidates[candidates["problem_id"] == problem]
        row["n_candidates"] = int(mine["code"].nunique())
        if check is not None and check.accepted:
            row |= {"has_oracle": True, "source": "reference",
                    "language": check.reference.language, "code": check.reference.code}
        elif not mine.empty:
            best = mine.assign(length=mine["code"].str.len()).sort_values(
                ["length", "source_model", "source_variant", "source_task",
                 "source_iteration"]).iloc[0]
            row |= {"has_oracle": True, "source": "found", "language": language_of[problem],
                    "code": best["code"], "source_model": best["source_model"],
                    "source_variant": best["source_variant"],
                    "source_task": best["source_task"],
                    "source_iteration": int(best["source_iteration"])}
        rows.append(row)
    df = pd.DataFrame(rows, columns=ORACLE_PROGRAM_COLUMNS)
    return df.astype({"has_oracle": "bool", "n_candidates": "int64",
                      "source_iteration": "Int64"})


def generated_tests(tests: pd.DataFrame) -> dict[str, tuple[TestCase, ...]]:
    """tests.parquet rows -> the guiding tests of each task."""
    return tests_from_frame(tests)


def check_tests_on_oracles(
    tests: pd.DataFrame, programs: pd.DataFrame, tasks: Sequence[Task], runner_for: RunnerFor
) -> pd.DataFrame:
    """Run each task's generated tests on its problem's oracle: task_id, n_tests, n_passed.

    ``runner_for(language)``: the executor of an oracle's language (``programs.language``; the
    task's own where the frame does not say)."""
    by_id = {t.task_id: t for t in tasks}
    oracle = dict(zip(programs["problem_id"], programs["code"], strict=True))
    languages = (dict(zip(programs["problem_id"], programs["language"], strict=True))
                 if "language" in programs.columns else {})
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
            language = languages.get(task.problem_id) or task.problem.language.key
            report = runner_for(language).run(code, cases, task.limits)
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
    """Counts of TP/FN/FP/TN per (model, variant, iteration), classified rows only, of either
    reading's frame (:func:`classify_run`'s or :func:`classify_by_generated`'s)."""
    done = oracle[oracle["category"].notna()]
    counts = (done.groupby(["model", "variant", "iteration", "category"]).size()
              .unstack("category", fill_value=0)
              .reindex(columns=list(CATEGORIES), fill_value=0))
    counts["total"] = counts.sum(axis=1)
    return counts.reset_index()


def classify_by_generated(hidden_attempts: pd.DataFrame, iterations: int) -> pd.DataFrame:
    """The code's reading, per run x task x iteration t = 1..``iterations``: the current
    candidate's verdict on its own generated tests (``passed_generated``) against its hidden
    verdict. Every task with an attempt is classified at every t; a task that stopped earlier
    (or a method with a smaller budget) keeps its last candidate (``carried``).

    ``hidden_attempts``: the hidden_attempts tables of one or more runs (model and variant are
    columns)."""
    rows: list[dict[str, Any]] = []
    ordered = hidden_attempts.sort_values("iteration", kind="stable")
    for (model, variant, task_id), group in ordered.groupby(
            ["model", "variant", "task_id"], sort=False):
        its = group["iteration"].to_numpy()
        gen = group["passed_generated"].astype("boolean").fillna(False).to_numpy(bool)
        hid = group["passed_hidden"].astype("boolean").fillna(False).to_numpy(bool)
        problem = group["problem_id"].iloc[0] if "problem_id" in group else ""
        for t in range(1, iterations + 1):
            at = returned_index(its, gen, t)
            if at is None:
                continue  # no candidate yet (a method whose first attempt is later)
            rows.append({"model": model, "variant": variant, "task_id": task_id,
                         "problem_id": problem, "iteration": t,
                         "carried": not bool(np.any(its == t)),
                         "passed_generated": bool(gen[at]), "passed_hidden": bool(hid[at]),
                         "category": category(bool(gen[at]), bool(hid[at]))})
    df = pd.DataFrame(rows, columns=CODE_READING_COLUMNS)
    return df.astype({"iteration": "int64", "carried": "bool", "passed_generated": "bool",
                      "passed_hidden": "bool"})


def runs_with_generated_tests(oracle: pd.DataFrame) -> list[RunKey]:
    """The runs (model, variant) of an oracle frame whose tasks had generated tests, in order."""
    if oracle.empty:
        return []
    tested = oracle[oracle["n_tests"] > 0]
    return list(dict.fromkeys(zip(tested["model"], tested["variant"], strict=True)))

