"""Strict and cumulative pass@1, per iteration and per problem, and pass@k.

* **strict**: the program the method returns passes every hidden test. RAMP returns the first
  attempt that passed its generated tests, else the last one (hidden tests used only at the end).
* **cumulative**: some attempt up to the budget passed every hidden test (what the paper's
  numbers and the authors' released ``is_solved`` count: their loop runs on past a hidden pass
  and counts the task solved if any candidate passed; ramp.analysis.authors). It is also the
  score of the Discussion's early-stopping rule, "stop a task once a candidate passes the
  hidden tests", which returns that candidate.

"At budget t" means the run had been stopped after iteration t, so the strict curve over t is
the number solved *now* (Figure 3 left, with its regressions) and the cumulative curve never
falls. Per-problem scores weigh every problem the same: the mean over problems of the share of
its tasks solved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from ramp.analysis.passk import mean_pass_at_k
from ramp.sampling import difficulty_band
from ramp.tasks import Task

SCORE_COLUMNS = ["metric", "scope", "iteration", "k", "value", "n"]
# metric name -> the per-task status column it averages.
CURVE_METRICS = {
    "strict": "strict",
    "cumulative": "cumulative",
    "strict_excl_truncated": "strict_excl_truncated",
    "cumulative_excl_truncated": "cumulative_excl_truncated",
}


def _require(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = sorted(set(columns) - set(df.columns))
    if missing:
        raise ValueError(f"{what}: missing columns {missing}")


def status_by_iteration(
    hidden_attempts: pd.DataFrame, tasks: Sequence[Task], iterations: int
) -> pd.DataFrame:
    """One row per task x budget t = 0..K: does the returned program pass (strict), did any
    attempt so far pass (cumulative), each also excluding truncated tests; ``attempted`` says
    whether the task had an attempt at exactly t (a task stops once its generated tests pass)."""
    _require(hidden_attempts, ["task_id", "iteration", "passed_generated", "passed_hidden",
                               "passed_hidden_excluding_truncated"], "hidden attempts")
    arrays = _attempt_arrays(hidden_attempts)
    rows = []
    for task in tasks:
        its, gen, hid, hid_x = arrays(task.task_id)
        for t in range(iterations + 1):
            upto = its <= t
            returned = returned_index(its, gen, t)
            rows.append({
                "task_id": task.task_id, "problem_id": task.problem_id, "iteration": t,
                "attempted": bool((its == t).any()),
                "strict": returned is not None and bool(hid[returned]),
                "cumulative": bool(hid[upto].any()),
                "strict_excl_truncated": returned is not None and bool(hid_x[returned]),
                "cumulative_excl_truncated": bool(hid_x[upto].any()),
            })
    return pd.DataFrame(rows, columns=["task_id", "problem_id", "iteration", "attempted",
                                       *CURVE_METRICS.values()])


def _attempt_arrays(
    hidden_attempts: pd.DataFrame,
) -> Callable[[str], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """task id -> its attempts in iteration order: iterations, passed generated, passed
    hidden, passed hidden excluding truncated (empty arrays for a task with no attempt)."""
    by_task = dict(tuple(hidden_attempts.sort_values("iteration").groupby("task_id")))
    empty = hidden_attempts.iloc[0:0]

    def arrays(task_id: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        group = by_task.get(task_id, empty)
        return (
            group["iteration"].to_numpy(),
            group["passed_generated"].to_numpy(bool),
            group["passed_hidden"].to_numpy(bool),
            group["passed_hidden_excluding_truncated"].to_numpy(bool),
        )

    return arrays


def returned_index(its: np.ndarray, gen: np.ndarray, t: int) -> int | None:
    """Position of the program returned at budget t: first generated-test pass, else last.

    ``its``: a task's attempt iterations in order; ``gen``: whether each passed the method's
    own tests. A method that goes on after a pass (ChatRepair's alternatives) still returns
    the first."""
    upto = np.flatnonzero(its <= t)
    if upto.size == 0:
        return None
    passing = upto[gen[upto]]
    return int(passing[0]) if passing.size else int(upto[-1])


def task_scores(
    hidden_attempts: pd.DataFrame, tasks: Sequence[Task], iterations: int
) -> pd.DataFrame:
    """One row per task: the final scores and what the figures group by."""
    status = status_by_iteration(hidden_attempts, tasks, iterations)
    final = status[status["iteration"] == iterations].set_index("task_id")
    arrays = _attempt_arrays(hidden_attempts)
    rows = []
    for task in tasks:
        its, gen, hid, _ = arrays(task.task_id)
        returned = returned_index(its, gen, iterations)
        first_pass = int(its[hid][0]) if hid.any() else None
        last = int(its[-1]) if its.size else None
        rows.append({
            "task_id": task.task_id, "problem_id": task.problem_id,
            "difficulty": task.difficulty, "band": difficulty_band(task.difficulty),
            "tags": list(task.problem.tags), "recorded_outcome": task.recorded_outcome,
            "language": task.problem.language.key,
            "n_truncated": task.n_truncated, "n_attempts": int(its.size),
            "n_passing_attempts": int(hid.sum()), "last_iteration": last,
            "returned_iteration": None if returned is None else int(its[returned]),
            "first_pass_iteration": first_pass,
            # The early-stopping rule stops at the first hidden pass, else runs as usual.
            "early_stop_iteration": first_pass if first_pass is not None else last,
            **{m: bool(final.at[task.task_id, m]) for m in CURVE_METRICS.values()},
        })
    df = pd.DataFrame(rows)
    return df.astype({"difficulty": "Int64", "last_iteration": "Int64",
                      "returned_iteration": "Int64", "first_pass_iteration": "Int64",
                      "early_stop_iteration": "Int64"})


def _mean(values: pd.Series) -> float:
    return float(values.mean()) if len(values) else float("nan")


def scores_table(
    status: pd.DataFrame,
    per_task: pd.DataFrame,
    *,
    k_values: Sequence[int] = (1,),
    early_stopping: bool = False,
) -> pd.DataFrame:
    """The tidy score table: metric, scope (task | problem | attempts), iteration, k, value, n.

    Curves are reported at every budget t = 0..K (t = K is the final score). pass@k rows use
    the unbiased estimator where several samples exist: scope ``attempts`` takes a task's
    attempts as its samples; scope ``problem`` takes a problem's tasks (their returned
    programs) as its samples. Units with fewer than k samples are left out (``n`` says how
    many counted).
    """
    rows = []
    last = int(status["iteration"].max()) if len(status) else 0
    for t, at_t in status.groupby("iteration"):
        for metric, column in CURVE_METRICS.items():
            rows.append([metric, "task", t, 1, _mean(at_t[column]), len(at_t)])
            per_problem = at_t.groupby("problem_id")[column].mean()
            rows.append([metric, "problem", t, 1, _mean(per_problem), len(per_problem)])
    if early_stopping:
        final = status[status["iteration"] == last]
        rows.append(["early_stop", "task", last, 1, _mean(final["cumulative"]), len(final)])
        per_problem = final.groupby("problem_id")["cumulative"].mean()
        rows.append(["early_stop", "problem", last, 1, _mean(per_problem), len(per_problem)])
    attempts = list(zip(per_task["n_attempts"], per_task["n_passing_attempts"], strict=True))
    problems = [(len(g), int(g["strict"].sum())) for _, g in per_task.groupby("problem_id")]
    for k in k_values:
        value, n = mean_pass_at_k(attempts, k)
        rows.append(["pass@k", "attempts", last, k, value, n])
        value, n = mean_pass_at_k(problems, k)
        rows.append(["pass@k", "problem", last, k, value, n])
    df = pd.DataFrame(rows, columns=SCORE_COLUMNS)
    return df.astype({"iteration": "int64", "k": "int64", "value": "float64", "n": "int64"})


def final_score(scores: pd.DataFrame, metric: str, scope: str = "task") -> float:
    """The score at the last budget (NaN if absent)."""
    sel = scores[(scores["metric"] == metric) & (scores["scope"] == scope)]
    if sel.empty:
        return float("nan")
    return float(sel.loc[sel["iteration"].idxmax(), "value"])
