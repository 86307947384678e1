"""Coverage: how many tasks a model can write a right program for at all, by breadth (k
independent draws, ramp.methods.draws) and by depth (an iterating method's iterations), each
beside the model tokens a task it took.

* Draws: per task, ``n`` draws of which ``c`` pass every hidden test; the unbiased pass@k
  (ramp.analysis.passk) for k = 1..n. A subset's ``covered`` at k is the expected number of
  its tasks with a right program among k draws (the sum of the tasks' pass@k), and its tokens
  at k are k times a task's mean tokens a draw, averaged over the tasks.
* Runs: per iteration t, the tasks with a right program among the attempts 1..t (the
  cumulative score: any attempt, whatever the method returns), and the mean tokens a task spent
  through t: its initial reflection's and guiding tests' calls, then every call of its
  iterations up to t (a task that stopped spends no more).

Tokens are prompt plus answer tokens, as the runs' cost tables count them. Hidden tests only
score here; nothing chooses, so these are ceilings: what a perfect chooser among the programs
could reach.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from ramp.analysis.passk import pass_at_k

COVERAGE_COLUMNS = ["model", "method", "kind", "k", "tokens_per_task", "pass_at_k", "covered",
                    "tasks", "hidden_feedback"]
"""One row per method and k: ``kind`` ``draws`` (k draws a task) or ``iterations`` (k = the
iteration t of a run); ``pass_at_k`` the mean over tasks, ``covered`` the (expected) tasks with a
right program, ``tasks`` how many tasks the row averages over, ``hidden_feedback`` whether the
method was fed the hidden tests' outcomes (ramp.hidden_feedback: its curve is labelled so)."""
UNIT_COLUMNS = ["model", "method", "level", "unit", "problem_id", "n", "right", "k", "pass_at_k"]
"""The draws' pass@k per task (``level`` task, ``n`` draws and ``right`` of them) and per
problem (``level`` problem: the mean over its tasks; ``n`` and ``right`` summed)."""

_CALL_ROLES = ("programmer", "feedback")


def _tokens(frame: pd.DataFrame, prefix: str) -> pd.Series:
    """Prompt plus answer tokens of the ``prefix`` calls of each row (0 where none)."""
    if frame.empty or f"{prefix}_prompt_tokens" not in frame.columns:
        return pd.Series(0, index=frame.index, dtype="int64")
    return (frame[f"{prefix}_prompt_tokens"].fillna(0)
            + frame[f"{prefix}_completion_tokens"].fillna(0)).astype("int64")


def _other_tokens(calls: Iterable[dict] | None) -> int:
    return sum(int(c.get("prompt_tokens") or 0) + int(c.get("completion_tokens") or 0)
               for c in (calls if calls is not None else ()))


def attempt_tokens(attempts: pd.DataFrame) -> pd.Series:
    """Every call's tokens of each attempt row: the Programmer's, the Feedback Integrator's and
    a baseline's other roles'."""
    total = sum((_tokens(attempts, role) for role in _CALL_ROLES),
                start=pd.Series(0, index=attempts.index, dtype="int64"))
    if "other_calls" in attempts.columns:
        total = total + attempts["other_calls"].map(_other_tokens).astype("int64")
    return total


def draw_units(
    hidden_draws: pd.DataFrame, task_problems: dict[str, str], *, model: str, method: str
) -> pd.DataFrame:
    """Per task and per problem, pass@k for k = 1..n (n: the fewest draws a task has)."""
    _require(hidden_draws, ["task_id", "iteration", "passed_hidden"], "hidden draws")
    counts = hidden_draws.groupby("task_id")["passed_hidden"].agg(["size", "sum"])
    missing = sorted(set(task_problems) - set(counts.index))
    if missing:
        raise ValueError(f"hidden draws: no draw of task {missing[0]!r} "
                         f"({len(missing)} task(s) missing)")
    n_max = int(counts["size"].min()) if len(counts) else 0
    rows = []
    for task_id, problem_id in task_problems.items():
        n, c = int(counts.at[task_id, "size"]), int(counts.at[task_id, "sum"])
        rows += [{"model": model, "method": method, "level": "task", "unit": task_id,
                  "problem_id": problem_id, "n": n, "right": c, "k": k,
                  "pass_at_k": pass_at_k(n, c, k)} for k in range(1, n_max + 1)]
    tasks = pd.DataFrame(rows, columns=UNIT_COLUMNS)
    problems = (tasks.groupby(["problem_id", "k"], sort=False)
                .agg(n=("n", "sum"), right=("right", "sum"), pass_at_k=("pass_at_k", "mean"))
                .reset_index())
    problems = problems.assign(model=model, method=method, level="problem",
                               unit=problems["problem_id"])
    out = pd.concat([tasks, problems[UNIT_COLUMNS]], ignore_index=True)
    return out.astype({"n": "int64", "right": "int64", "k": "int64", "pass_at_k": "float64"})


def draw_curve(units: pd.DataFrame, draws: pd.DataFrame) -> pd.DataFrame:
    """The subset's coverage by k draws (:data:`COVERAGE_COLUMNS`), from :func:`draw_units`'
    task rows and the draws' attempts (their tokens)."""
    tasks = units[units["level"] == "task"]
    if tasks.empty:
        return pd.DataFrame(columns=COVERAGE_COLUMNS)
    per_draw = attempt_tokens(draws).groupby(draws["task_id"]).mean()
    mean_tokens = float(per_draw.reindex(tasks["unit"].unique()).fillna(0).mean())
    by_k = tasks.groupby("k")["pass_at_k"].agg(["mean", "sum", "size"]).reset_index()
    (model,), (method,) = tasks["model"].unique(), tasks["method"].unique()
    return pd.DataFrame({
        "model": model, "method": method, "kind": "draws", "k": by_k["k"].astype("int64"),
        "tokens_per_task": by_k["k"] * mean_tokens, "pass_at_k": by_k["mean"],
        "covered": by_k["sum"], "tasks": by_k["size"].astype("int64"), "hidden_feedback": False,
    }, columns=COVERAGE_COLUMNS)


def iteration_curve(
    task_ids: Sequence[str], attempts: pd.DataFrame, hidden_attempts: pd.DataFrame,
    setup_tokens: pd.Series, *, model: str, method: str, iterations: int,
    hidden_feedback: bool = False,
) -> pd.DataFrame:
    """A run's coverage by iteration t = 1..``iterations``: tasks with a right attempt among
    1..t, and the mean tokens a task spent through t (``setup_tokens``: each task's tokens
    before iteration 1, its initial reflection and guiding tests; by task id)."""
    _require(hidden_attempts, ["task_id", "iteration", "passed_hidden"], "hidden attempts")
    spent = attempt_tokens(attempts).groupby([attempts["task_id"], attempts["iteration"]]).sum()
    right = hidden_attempts[hidden_attempts["passed_hidden"].astype(bool)]
    first_right = right.groupby("task_id")["iteration"].min()
    setup = setup_tokens.reindex(list(task_ids)).fillna(0)
    rows = []
    for t in range(1, iterations + 1):
        upto = spent[spent.index.get_level_values("iteration") <= t]
        tokens = upto.groupby(level="task_id").sum().reindex(list(task_ids)).fillna(0) + setup
        covered = int((first_right.reindex(list(task_ids)) <= t).sum())
        rows.append({"model": model, "method": method, "kind": "iterations", "k": t,
                     "tokens_per_task": float(tokens.mean()) if len(task_ids) else 0.0,
                     "pass_at_k": covered / len(task_ids) if task_ids else float("nan"),
                     "covered": float(covered), "tasks": len(task_ids),
                     "hidden_feedback": hidden_feedback})
    return pd.DataFrame(rows, columns=COVERAGE_COLUMNS)


def setup_tokens(reflections: pd.DataFrame, tests: pd.DataFrame) -> pd.Series:
    """Each task's tokens before iteration 1: its initial reflection's and Test Designer's
    calls (0 where the method made none), by task id."""
    parts = [_tokens(reflections, "reflection").groupby(reflections["task_id"]).sum(),
             _tokens(tests, "test_design").groupby(tests["task_id"]).sum()]
    return pd.concat(parts).groupby(level=0).sum()


def _require(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what}: missing columns {missing}")
