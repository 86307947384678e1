"""The paper's tables as DataFrames: Table 1 (pass@1 per method), Tables 2 and 4 (ablations),
Table 3 (generated tests vs oracle) and the cost table. Scores are percentages."""

from __future__ import annotations

import pandas as pd

from ramp.analysis.costs import EXECUTOR_STAGES
from ramp.analysis.oracle import CATEGORIES
from ramp.analysis.oracle import table3 as oracle_counts
from ramp.analysis.scores import final_score
from ramp.analysis.uncertainty import paired_p_value, rate_interval
from ramp.figures.study import Method, Study

# The paper's column labels for each ablation, in its order; RAMP itself closes each table.
TABLE2_VARIANTS = {
    "no_testgen": "w/o Test Gen.", "no_self_reflection": "w/o Self-Refl.",
    "no_first_reflection": "w/o First Refl.", "no_reflection": "w/o Reflection",
    "spec": "w Spec.", "ramp": "RAMP",
}
TABLE4_VARIANTS = {
    "scot": "SCoT", "no_io_spec": "w/o I/O spec", "no_limits": "w/o limits",
    "samples": "w sample I/O", "ramp": "RAMP",
}


def _pct(x: float) -> float:
    return round(100 * x, 1)


def method_scores(study: Study, method: Method) -> dict[str, float]:
    s = study.of(study.scores, method)
    return {
        "strict pass@1": _pct(final_score(s, "strict")),
        "cumulative pass@1": _pct(final_score(s, "cumulative")),
        "strict (per problem)": _pct(final_score(s, "strict", "problem")),
        "cumulative (per problem)": _pct(final_score(s, "cumulative", "problem")),
        "cumulative excl. truncated": _pct(final_score(s, "cumulative_excl_truncated")),
    }


def _interval(score: float, tasks: int) -> str:
    """The 95% Wilson interval of a per-task pass@1 (a fraction of ``tasks``), in %."""
    if not tasks:
        return ""
    low, high = rate_interval(round(score * tasks), tasks)
    return f"{_pct(low)}-{_pct(high)}"


def table1(study: Study) -> pd.DataFrame:
    """Pass@1 per method (variant x model), strict and cumulative, with task counts and the
    95% interval of each per-task score (a few dozen tasks leave wide ones)."""
    rows = []
    for m in study.methods:
        n = len(study.of(study.task_scores, m))
        s = study.of(study.scores, m)
        rows.append({"method": m.variant, "model": m.model, "tasks": n,
                     **method_scores(study, m),
                     "strict 95% CI": _interval(final_score(s, "strict"), n),
                     "cumulative 95% CI": _interval(final_score(s, "cumulative"), n)})
        if (s["metric"] == "early_stop").any():
            score = final_score(s, "early_stop")
            value = _pct(score)
            per_problem = _pct(final_score(s, "early_stop", "problem"))
            rows.append({"method": f"{m.variant} E.S.", "model": m.model, "tasks": n,
                         "strict pass@1": value, "cumulative pass@1": value,
                         "strict (per problem)": per_problem,
                         "cumulative (per problem)": per_problem,
                         "strict 95% CI": _interval(score, n),
                         "cumulative 95% CI": _interval(score, n)})
    return pd.DataFrame(rows)


def paired(study: Study) -> pd.DataFrame:
    """Every other method against the study's main one (RAMP) on the same tasks, cumulative:
    tasks both solved, only one solved, and the exact McNemar p-value of the difference."""
    main = study.main
    solved = {m: study.solved(m) for m in study.methods}
    rows = []
    for m in study.methods:
        if m == main:
            continue
        only_main, only_other = len(solved[main] - solved[m]), len(solved[m] - solved[main])
        rows.append({"method": study.name(m), "both solved": len(solved[main] & solved[m]),
                     f"only {study.name(main)}": only_main, "only this method": only_other,
                     "McNemar exact p": round(paired_p_value(only_main, only_other), 3)})
    return pd.DataFrame(rows)


def solved_tasks(study: Study) -> pd.DataFrame:
    """The tasks some method repaired, one column per method: ``t2`` when its candidate of
    iteration 2 was the first to pass every hidden test and is the returned program (strict),
    ``(t2)`` when that candidate passed but the method returned another (cumulative only)."""
    ts = study.task_scores
    if ts.empty or not ts["cumulative"].any():
        return pd.DataFrame()
    solved = ts.loc[ts["cumulative"].astype(bool), "task_id"].unique()
    first = ts[ts["task_id"].isin(solved)].drop_duplicates("task_id").set_index("task_id")
    per_method = {m: study.of(ts, m).set_index("task_id") for m in study.methods}
    rows = []
    for task_id in sorted(solved, key=lambda t: (first.loc[t, "difficulty"], t)):
        info = first.loc[task_id]
        row: dict[str, object] = {
            "task": task_id[:8], "difficulty": info["difficulty"],
            "tags": ", ".join(info["tags"]) if info["tags"] is not None else "",
            "recorded outcome": info["recorded_outcome"]}
        for m, r in per_method.items():
            cell = ""
            if task_id in r.index and bool(r.loc[task_id, "cumulative"]):
                t = f"t{int(r.loc[task_id, 'first_pass_iteration'])}"
                cell = t if bool(r.loc[task_id, "strict"]) else f"({t})"
            row[study.name(m)] = cell
        rows.append(row)
    return pd.DataFrame(rows)


def acceptance(study: Study) -> pd.DataFrame:
    """Each iterating method's own check (RAMP: its generated tests; a baseline: the statement's
    sample tests) against the hidden tests, per candidate: how many candidates the check
    accepted, and how many of those, and of the rejected ones, pass every hidden test. A method
    without a check (one attempt per task, none accepted: Zero-Shot, Few-Shot) has no row."""
    rows = []
    for m in study.methods:
        h = study.of(study.hidden_attempts, m)
        h = h[h["has_code"].astype(bool)] if len(h) else h
        if h.empty:
            continue
        accepted = h["passed_generated"].fillna(False).astype(bool)
        hidden = h["passed_hidden"].fillna(False).astype(bool)
        if not accepted.any() and h.groupby("task_id").size().max() == 1:
            continue
        rows.append({
            "method": study.name(m), "candidates": len(h),
            "accepted by its own tests": int(accepted.sum()),
            "accepted, pass hidden": int((accepted & hidden).sum()),
            "rejected": int((~accepted).sum()),
            "rejected, pass hidden": int((~accepted & hidden).sum()),
        })
    return pd.DataFrame(rows)


def ablation_table(study: Study, labels: dict[str, str]) -> pd.DataFrame:
    """Cumulative pass@1 (the paper's convention), models x the variants of ``labels`` run;
    empty when no ablation ran (RAMP alone compares nothing)."""
    present = [v for v in labels if any(m.variant == v for m in study.methods)]
    if not set(present) - {"ramp"}:
        return pd.DataFrame()
    rows = []
    for model in dict.fromkeys(m.model for m in study.methods):
        row: dict[str, object] = {"model": model}
        for v in present:
            s = study.of(study.scores, Method(model, v))
            row[labels[v]] = _pct(final_score(s, "cumulative")) if len(s) else None
        rows.append(row)
    return pd.DataFrame(rows, columns=["model", *(labels[v] for v in present)])


def table2(study: Study) -> pd.DataFrame:
    return ablation_table(study, TABLE2_VARIANTS)


def table4(study: Study) -> pd.DataFrame:
    return ablation_table(study, TABLE4_VARIANTS)


def table3(study: Study) -> pd.DataFrame:
    """FN/FP/TN/TP per iteration with shares, as 'count (pct%)' cells, per method."""
    if study.oracle.empty:
        return pd.DataFrame()
    counts = oracle_counts(study.oracle)
    out = counts[["model", "variant", "iteration"]].copy()
    for c in ("FN", "FP", "TN", "TP"):
        share = 100 * counts[c] / counts["total"].where(counts["total"] > 0)
        out[c] = [f"{n} ({p:.1f}%)" for n, p in zip(counts[c], share.fillna(0), strict=True)]
    out["classified"] = counts["total"]
    return out


def oracle_coverage(study: Study) -> pd.DataFrame:
    """How many problems had an oracle, and how many tasks each category left out."""
    if study.oracle_programs.empty:
        return pd.DataFrame()
    p = study.oracle_programs
    excluded = study.oracle[study.oracle["iteration"] == study.oracle["iteration"].min()]
    rows = [
        {"measure": "problems", "value": len(p)},
        {"measure": "problems with an oracle program", "value": int(p["has_oracle"].sum())},
        {"measure": "task x run pairs classified",
         "value": int(excluded["category"].isin(CATEGORIES).sum())},
        {"measure": "task x run pairs without an oracle",
         "value": int((excluded["excluded"] == "no oracle").sum())},
        {"measure": "task x run pairs without generated tests",
         "value": int((excluded["excluded"] == "no generated tests").sum())},
        # How often a generated test's expected output is right, where an oracle can tell.
        {"measure": "generated tests run on an oracle program",
         "value": int(excluded["n_tests"].where(excluded["category"].notna(), 0).sum())},
        {"measure": "... whose expected output the oracle reproduces",
         "value": int(excluded["n_tests_passed_oracle"].fillna(0).sum())},
    ]
    return pd.DataFrame(rows)


def cost_summary(study: Study) -> pd.DataFrame:
    """One row per method and policy: model calls and tokens, model and execution time, peaks.

    Times are summed stage seconds (docs/metrics.md), not a Snakemake run's wall time."""
    rows = []
    stages = study.costs[study.costs["stage"] != "total"]
    for (model, variant, policy), g in stages.groupby(["model", "variant", "policy"], sort=False):
        executor = g["stage"].isin(EXECUTOR_STAGES)
        llm, ran = g[~executor], g[executor]
        rows.append({
            "model": model, "variant": variant, "policy": policy,
            "model calls": int(llm["calls"].sum()),
            "prompt tokens": int(llm["prompt_tokens"].sum()),
            "completion tokens": int(llm["completion_tokens"].sum()),
            "model hours": round(llm["seconds"].sum() / 3600, 2),
            "programs run": int(ran["calls"].sum()),
            "execution minutes": round(ran["seconds"].sum() / 60, 1),
            "model peak MB": round(llm["peak_memory_mb"].max(), 0),
            "program peak MB": round(ran["peak_memory_mb"].max(), 1),
        })
    return pd.DataFrame(rows)


def cost_table(study: Study) -> pd.DataFrame:
    """Calls, tokens, seconds and peak memory per method and stage, as the method ran
    (policy ``full``), leaving out the stages a method has not got (no call, no second).
    Every policy's rows are in the source data's ``costs.parquet``."""
    cols = ["model", "variant", "stage", "calls", "prompt_tokens",
            "completion_tokens", "seconds", "peak_memory_mb"]
    c = study.costs
    used = (c["policy"] == "full") & ((c["calls"] > 0) | (c["seconds"] > 0))
    df = c.loc[used, cols].reset_index(drop=True)
    df["seconds"] = df["seconds"].round(1)
    return df
