"""What a run cost, per agent: calls, tokens, seconds, and peak memory.

Peak memory: for an agent, the peak resident memory of the stage processes that made its calls
(the loaded model on CPU; ``peak_rss_mb`` in the stage's table); for the executor stages, the
largest peak of the programs under test.

Two policies from the same tables: ``full`` (the method as run: every attempt, and hidden tests
only on the returned program, as the paper's workflow does) and ``early_stop`` (the
Discussion's rule: the hidden tests run after every attempt and a task stops at its first
hidden pass, so later attempts are not made). Seconds are summed per stage: a sum of compute
times, not the wall time of a Snakemake run, which also includes scheduling and model loading.

Prefix reuse: ``reused_prompt_tokens`` of the prompt tokens came from a KV cache (the call
before, or the disk cache of prefixes shared by a study's jobs), ``prefix_hit_rate`` is their
share, and ``kv_read_bytes`` / ``kv_written_bytes`` what the disk cache served and stored; all
unknown (NA) for tables written before they were recorded.

Answers cut (STYLE: nothing is cut silently): ``cut_by_cap`` counts the calls whose answer ended
on its cap (``length``), ``cut_by_context`` those not sent because the prompt left less than the
cap in the model's context (``over_context``); ``samples_fallback`` the tasks whose guiding tests
are the statement's samples because no generated test parsed (the Test Designer's row). Unknown
(NA) in tables written before they were recorded.
"""

from __future__ import annotations

import pandas as pd

from ramp.llm.prefix_cache import COUNTERS as REUSE_FIELDS

CUT_FIELDS = ("cut_by_cap", "cut_by_context", "samples_fallback")
COUNT_FIELDS = (*REUSE_FIELDS, *CUT_FIELDS)
COST_COLUMNS = ["policy", "stage", "calls", "prompt_tokens", "completion_tokens", "seconds",
                "peak_memory_mb", *COUNT_FIELDS, "prefix_hit_rate"]
# finish_reason values (ramp.llm.base) each cut column counts.
CUT_REASONS = {"cut_by_cap": "length", "cut_by_context": "over_context"}
# Stages without a model: their ``calls`` are programs run, left out of the total's calls
# (which counts model calls), while their seconds count in the total's.
EXECUTOR_STAGES = ("test_executor", "hidden_validation")


def _calls(df: pd.DataFrame, role: str, stage: str, policy: str) -> dict:
    made = df[df[f"{role}_prompt"].fillna("").astype(str) != ""] if len(df) else df
    return {
        "policy": policy, "stage": stage, "calls": len(made),
        "prompt_tokens": int(made[f"{role}_prompt_tokens"].sum()) if len(made) else 0,
        "completion_tokens": int(made[f"{role}_completion_tokens"].sum()) if len(made) else 0,
        "seconds": float(made[f"{role}_seconds"].sum()) if len(made) else 0.0,
        "peak_memory_mb": _peak_rss(made),
        **_reuse(made, f"{role}_"),
        **_cuts(made, f"{role}_finish_reason"),
    }


def _cuts(made: pd.DataFrame, column: str) -> dict:
    """How many of these calls ended on their cap or were over the context; None where the
    table predates finish reasons. No fall-back here (only the Test Designer has one)."""
    known = column in made.columns or not len(made)
    reasons = made[column] if column in made.columns else pd.Series(dtype=object)
    return {**{f: int((reasons == r).sum()) if known else None for f, r in CUT_REASONS.items()},
            "samples_fallback": 0}


def _reuse(made: pd.DataFrame, prefix: str) -> dict:
    """The prefix-reuse sums of these calls; None where the table predates them."""
    return {f: (int(made[prefix + f].sum()) if len(made) else 0)
            if prefix + f in made.columns else None for f in REUSE_FIELDS}


def _peak_rss(made: pd.DataFrame) -> float | None:
    """The largest peak RSS of the stage processes that made these calls (the loaded model);
    None for tables from before the column existed or for a stage that made no call."""
    if not len(made) or "peak_rss_mb" not in made.columns:
        return None
    peak = made["peak_rss_mb"].dropna()
    return float(peak.max()) if len(peak) else None


def _other_calls(df: pd.DataFrame, policy: str) -> list[dict]:
    """One row per role of the ``other_calls`` lists (a baseline's planner, tester, ...)."""
    if "other_calls" not in df.columns or not len(df):
        return []
    calls = [c for cs in df["other_calls"] if cs is not None for c in cs]
    if not calls:
        return []
    table = pd.DataFrame(list(calls))
    rows = []
    for role, group in table.groupby("role", sort=True):
        rows.append({
            "policy": policy, "stage": str(role), "calls": len(group),
            "prompt_tokens": int(group["prompt_tokens"].sum()),
            "completion_tokens": int(group["completion_tokens"].sum()),
            "seconds": float(group["seconds"].sum()), "peak_memory_mb": _peak_rss(df),
            **_reuse(group, ""),
            **_cuts(group, "finish_reason"),
        })
    return rows


def _sum_or_unknown(values: pd.Series) -> object:
    """A total that is unknown (NA) when any of its parts is."""
    return values.sum(skipna=False)


def _executed(attempts: pd.DataFrame) -> int:
    """Candidates the Test Executor ran: code, and tests to run it on (Zero-Shot has none)."""
    ran = attempts["code"].fillna("").astype(str).str.strip() != ""
    if "n_tests" in attempts.columns:
        ran &= attempts["n_tests"].fillna(0) > 0
    return int(ran.sum())


def _hidden(validated: pd.DataFrame, policy: str) -> dict:
    ran = validated[validated["has_code"]]
    memory = ran["hidden_peak_memory_mb"].dropna()
    return {
        "policy": policy, "stage": "hidden_validation", "calls": len(ran),
        "prompt_tokens": 0, "completion_tokens": 0,
        "seconds": float(ran["hidden_seconds"].sum()),
        "peak_memory_mb": float(memory.max()) if len(memory) else None,
        **dict.fromkeys(COUNT_FIELDS, 0),
    }


def cost_table(
    attempts: pd.DataFrame,
    reflections: pd.DataFrame,
    tests: pd.DataFrame,
    hidden_attempts: pd.DataFrame,
    per_task: pd.DataFrame,
    *,
    early_stopping: bool = False,
) -> pd.DataFrame:
    """Rows per (policy, stage), plus a ``total`` row per policy (its calls: model calls)."""
    stops = per_task.set_index("task_id")
    policies = {"full": attempts}
    if early_stopping:
        stop = attempts["task_id"].map(stops["early_stop_iteration"])
        policies["early_stop"] = attempts[attempts["iteration"] <= stop]
    rows = []
    for policy, kept in policies.items():
        rows.append(_calls(reflections, "reflection", "feedback_integrator_initial", policy))
        designer = _calls(tests, "test_design", "test_designer", policy)
        designer["samples_fallback"] = int((tests["source"] == "samples").sum()) \
            if "source" in tests.columns else 0
        rows.append(designer)
        rows.append(_calls(kept, "programmer", "programmer", policy))
        rows.append(_calls(kept, "feedback", "feedback_integrator", policy))
        rows.extend(_other_calls(kept, policy))
        rows.append({"policy": policy, "stage": "test_executor", "calls": _executed(kept),
                     "prompt_tokens": 0, "completion_tokens": 0,
                     "seconds": float(kept["exec_seconds"].sum()), "peak_memory_mb": None,
                     **dict.fromkeys(COUNT_FIELDS, 0)})
        if policy == "full":
            returned = per_task[["task_id", "returned_iteration"]].dropna()
            validated = hidden_attempts.merge(
                returned, left_on=["task_id", "iteration"],
                right_on=["task_id", "returned_iteration"])
        else:
            validated = hidden_attempts.merge(kept[["task_id", "iteration"]])
        rows.append(_hidden(validated, policy))
    df = pd.DataFrame(rows, columns=COST_COLUMNS[:-1]).astype(dict.fromkeys(COUNT_FIELDS,
                                                                           "Int64"))
    model_calls = df["calls"].where(~df["stage"].isin(EXECUTOR_STAGES), 0)
    totals = df.assign(model_calls=model_calls).groupby("policy", sort=False).agg(
        calls=("model_calls", "sum"), prompt_tokens=("prompt_tokens", "sum"),
        completion_tokens=("completion_tokens", "sum"), seconds=("seconds", "sum"),
        peak_memory_mb=("peak_memory_mb", "max"),
        **{f: (f, _sum_or_unknown) for f in COUNT_FIELDS}).reset_index()
    totals.insert(1, "stage", "total")
    out = pd.concat([df, totals[COST_COLUMNS[:-1]]], ignore_index=True)
    out = out.astype({"calls": "int64", "prompt_tokens": "int64", "completion_tokens": "int64",
                      "seconds": "float64", "peak_memory_mb": "float64",
                      **dict.fromkeys(COUNT_FIELDS, "Int64")})
    tokens = out["prompt_tokens"].where(out["prompt_tokens"] > 0)
    out["prefix_hit_rate"] = (out["reused_prompt_tokens"].astype("float64") / tokens).astype(
        "float64")
    return out
