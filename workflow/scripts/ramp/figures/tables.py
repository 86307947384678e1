"""The paper's tables as DataFrames: Table 1 (pass@1 per method), Tables 2 and 4 (ablations),
Table 3 in its two readings (ramp.analysis.oracle) and the cost table. Scores are percentages."""

from __future__ import annotations

import pandas as pd

from ramp.analysis.authors import (
    AGREEMENT,
    Flags,
    agreement,
    agreement_pairs,
    authors_flags,
    our_flags,
    side_by_side,
)
from ramp.analysis.authors import trajectories as trajectory_frame
from ramp.analysis.costs import EXECUTOR_STAGES
from ramp.analysis.oracle import (
    CATEGORIES,
    CODE_READING,
    TEXT_READING,
    classify_by_generated,
    runs_with_generated_tests,
)
from ramp.analysis.oracle import table3 as oracle_counts
from ramp.analysis.scores import final_score
from ramp.analysis.uncertainty import (
    RESAMPLES,
    paired_p_value,
    paired_problem_comparison,
    problem_bootstrap_interval,
    rate_interval,
)
from ramp.figures.reported import REPORTED_TABLE3, TABLE3_ORDER, reported_table3
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
# RAMP+'s switches, one off in each variant (config.yaml, docs/ramp_plus.md); RAMP+ first.
RAMP_PLUS_VARIANTS = {
    "ramp_plus": "RAMP+", "ramp_plus_no_gate": "w/o sample gate",
    "ramp_plus_one_candidate": "1 candidate an iteration", "ramp_plus_no_agreement":
    "w/o agreement", "ramp_plus_no_distinguish": "w/o distinguishing inputs",
    "ramp_plus_latest": "refine the latest", "ramp_plus_ramp_stop": "RAMP's stop rule",
}
# The breadth method's switches, one off in each variant (one on in the last; config.yaml,
# docs/breadth.md), and RAMP, whose cost it is held to.
BREADTH_VARIANTS = {
    "breadth": "Breadth", "breadth_one_prompt": "one prompt (Zero-Shot draws only)",
    "breadth_no_debug": "w/o debugging on the samples", "breadth_no_groups": "w/o grouping",
    "breadth_no_distinguish": "w/o distinguishing inputs", "breadth_no_stop": "w/o stop rule",
    "breadth_reject_unchanged": "with the unchanged program gated out",
    "breadth_wide": "32 Zero-Shot draws, no rewrite, no stop, unchanged gated out",
    "breadth_wide_split": "the same, with the chosen group split by a judged input",
    "ramp": "RAMP",
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


def _problem_interval(per_task: pd.DataFrame, column: str) -> str:
    """The 95% interval of a per-task pass@1 from a bootstrap over problems, in %."""
    if per_task.empty:
        return ""
    low, high = problem_bootstrap_interval(per_task[column].astype(bool).tolist(),
                                           per_task["problem_id"].tolist())
    return f"{_pct(low)}-{_pct(high)}"


def table1(study: Study) -> pd.DataFrame:
    """Pass@1 per method (variant x model), strict and cumulative, with task counts and two
    95% intervals of each per-task score (a few dozen tasks leave wide ones): Wilson's, which
    counts the tasks as independent, and a bootstrap over problems, which does not."""
    rows = []
    for m in study.methods:
        per_task = study.of(study.task_scores, m)
        n = len(per_task)
        s = study.of(study.scores, m)
        scores = method_scores(study, m)
        if m.hidden_feedback:  # never a strict score: its checks ran the hidden tests
            scores = {k: (None if k.startswith("strict") else v) for k, v in scores.items()}
        rows.append({"method": m.shown, "model": m.model, "tasks": n, **scores,
                     "strict 95% CI": "" if m.hidden_feedback
                     else _interval(final_score(s, "strict"), n),
                     "cumulative 95% CI": _interval(final_score(s, "cumulative"), n),
                     "strict 95% CI (problems)": "" if m.hidden_feedback
                     else _problem_interval(per_task, "strict"),
                     "cumulative 95% CI (problems)": _problem_interval(per_task, "cumulative")})
        if (s["metric"] == "early_stop").any():
            score = final_score(s, "early_stop")
            value = _pct(score)
            per_problem = _pct(final_score(s, "early_stop", "problem"))
            # The early-stopping rule returns the first hidden pass: its score is cumulative.
            problems = _problem_interval(per_task, "cumulative")
            rows.append({"method": f"{m.shown} E.S.", "model": m.model, "tasks": n,
                         "strict pass@1": value, "cumulative pass@1": value,
                         "strict (per problem)": per_problem,
                         "cumulative (per problem)": per_problem,
                         "strict 95% CI": _interval(score, n),
                         "cumulative 95% CI": _interval(score, n),
                         "strict 95% CI (problems)": problems,
                         "cumulative 95% CI (problems)": problems})
    return pd.DataFrame(rows)


def interval_note(study: Study) -> str:
    """Which of Table 1's intervals (and which paired test) to read, from how the study's
    tasks fall into problems."""
    per_task = study.of(study.task_scores, study.main)
    if per_task.empty:
        return ""
    sizes = per_task.groupby("problem_id").size()
    how = (f"Intervals: *95% CI* is Wilson's, *(problems)* a bootstrap over problems (BCa, "
           f"{RESAMPLES:,} resamples, seed 0: the same numbers on every rendering). ")
    if sizes.max() == 1:
        return how + (f"Each of the {len(per_task)} tasks is a problem of its own, so both "
                      "estimate the same thing: read Wilson's, which is the more accurate of "
                      "the two with this few tasks, and the exact McNemar test.")
    return how + (
        f"The {len(per_task)} tasks come from {len(sizes)} problems, the largest with "
        f"{sizes.max()} tasks. The programs of one problem tend to be repaired or missed "
        "together, so the tasks are not independent draws, and Wilson's interval, which counts "
        f"{len(per_task)} of them, is too narrow wherever solved tasks share a problem. Read the "
        "*(problems)* interval: it resamples problems with all their tasks. Two exceptions, "
        "where a bootstrap's own weakness shows: a method that solved no task (or every one) "
        "gets no spread at all, and a few solved tasks, each in a problem of its own, get too "
        "short an upper tail; where the *(problems)* interval is the narrower one, read "
        "Wilson's. In short: the wider of the two. In the paired table, likewise, read the "
        "permutation test over problems rather than McNemar's, which counts tasks.")


def paired(study: Study) -> pd.DataFrame:
    """Every other method against the study's main one (RAMP) on the same tasks, cumulative:
    tasks both solved, only one solved, and the exact McNemar p-value of the difference
    (tasks as units); then the difference in points (this method minus the main one), its
    95% interval from a paired bootstrap over problems and a permutation test swapping whole
    problems (problems as units)."""
    main = study.main
    solved = {m: study.solved(m) for m in study.methods}
    ours = study.of(study.task_scores, main)[["task_id", "problem_id", "cumulative"]]
    rows = []
    for m in study.methods:
        if m == main:
            continue
        only_main, only_other = len(solved[main] - solved[m]), len(solved[m] - solved[main])
        both = ours.merge(study.of(study.task_scores, m)[["task_id", "cumulative"]],
                          on="task_id", suffixes=("_main", "_other"))
        c = paired_problem_comparison(both["cumulative_other"].astype(bool).tolist(),
                                      both["cumulative_main"].astype(bool).tolist(),
                                      both["problem_id"].tolist())
        rows.append({"method": study.name(m), "both solved": len(solved[main] & solved[m]),
                     f"only {study.name(main)}": only_main, "only this method": only_other,
                     "McNemar exact p": round(paired_p_value(only_main, only_other), 3),
                     "difference (points)": _pct(c.difference),
                     "difference 95% CI (problems)": f"{_pct(c.low)} to {_pct(c.high)}",
                     "permutation p (problems)": round(c.p_value, 3)})
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
    without a check (one attempt per task, none accepted: Zero-Shot, Few-Shot) has no row.
    Where the runs were scored with the statement's sample tests too, the last two columns
    count the candidates that pass them, and of those the ones that pass hidden (a stop rule
    on the samples); a statement without samples counts as not passed."""
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
        row = {
            "method": study.name(m), "candidates": len(h),
            "accepted by its own tests": int(accepted.sum()),
            "accepted, pass hidden": int((accepted & hidden).sum()),
            "rejected": int((~accepted).sum()),
            "rejected, pass hidden": int((~accepted & hidden).sum()),
        }
        if "passed_samples" in h.columns and h["passed_samples"].notna().any():
            samples = h["passed_samples"].astype("boolean").fillna(False).astype(bool)
            row |= {"pass the samples": int(samples.sum()),
                    "pass the samples, pass hidden": int((samples & hidden).sum())}
        rows.append(row)
    return pd.DataFrame(rows)


def _variants_run(study: Study, labels: dict[str, str]) -> list[str]:
    """The variants of ``labels`` the study ran (for any model), in the labels' order."""
    return [v for v in labels if any(m.variant == v for m in study.methods)]


def ablation_table(study: Study, labels: dict[str, str]) -> pd.DataFrame:
    """Cumulative pass@1 (the paper's convention), models x the variants of ``labels`` run;
    empty when no ablation ran (RAMP alone compares nothing)."""
    present = _variants_run(study, labels)
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


def ramp_plus_ablation(study: Study) -> pd.DataFrame:
    """RAMP+ and each of its switches off, per model: strict and cumulative pass@1 (over tasks
    and per problem) and model calls, tokens and minutes a task; empty unless RAMP+ or a
    variant of it ran beside another of the table's methods."""
    return _switch_ablation(study, RAMP_PLUS_VARIANTS)


def breadth_ablation(study: Study) -> pd.DataFrame:
    """The breadth method and each of its switches off, and RAMP, as
    :func:`ramp_plus_ablation`: its cost a task beside RAMP's in one table."""
    return _switch_ablation(study, BREADTH_VARIANTS)


def _switch_ablation(study: Study, labels: dict[str, str]) -> pd.DataFrame:
    present = _variants_run(study, labels)
    if len(present) < 2 or present == ["ramp"]:
        return pd.DataFrame()
    costs = cost_summary(study).query("policy == 'full'").set_index(["model", "variant"])
    rows = []
    for model in study.models:
        for variant in present:
            method = Method(model, variant)
            tasks = study.of(study.task_scores, method)["task_id"].nunique()
            if not tasks or (model, variant) not in costs.index:
                continue
            c = costs.loc[(model, variant)]
            scores = method_scores(study, method)
            rows.append({
                "model": model, "variant": labels[variant],
                **{k: scores[k] for k in ("strict pass@1", "strict (per problem)",
                                          "cumulative pass@1", "cumulative (per problem)")},
                "model calls a task": round(c["model calls"] / tasks, 1),
                "model tokens a task": round(study.tokens_a_task(method)),
                "model minutes a task": round(60 * c["model hours"] / tasks, 1),
            })
    return pd.DataFrame(rows)


def _per_problem(flags: pd.Series, problems: pd.Series) -> float:
    """The share of ``flags`` (per task) with every problem weighted equally, in %."""
    return _pct(flags.groupby(problems).mean().mean()) if len(flags) else 0.0


def candidates(study: Study) -> pd.DataFrame:
    """Every program each method wrote against the one it returns (ramp.analysis.candidates):
    the tasks with some right program (the generation ceiling) beside those it returned a right
    one for (strict), and where the others were lost: the right program failed a sample test,
    its group ranked below the chosen one in the last selection, or it was in the chosen group
    (it printed what the returned program printed on every generated input) but not its
    representative (the last two for RAMP+ only). Empty in studies drawn before that stage
    existed."""
    c = study.candidates
    if c.empty:
        return pd.DataFrame()
    rows = []
    for m in study.methods:
        mine = study.of(c, m)
        if mine.empty:
            continue
        right = mine["passed_hidden"].astype(bool)
        rank = mine["final_rank"].astype("Int64").fillna(0)
        by_task = pd.DataFrame({
            "problem": mine.groupby("task_id")["problem_id"].first(),
            "made": right.groupby(mine["task_id"]).any(),
            "returned": (right & mine["returned"].astype(bool)).groupby(mine["task_id"]).any(),
            "failed a sample": (right & ~mine["passed_samples"].astype("boolean")
                                .fillna(True).astype(bool)).groupby(mine["task_id"]).any(),
            "outranked": (right & (rank > 1)).groupby(mine["task_id"]).any(),
            "grouped": (right & (rank == 1)).groupby(mine["task_id"]).any(),
        })
        lost = by_task["made"] & ~by_task["returned"]
        ranked = mine["final_rank"].notna().any()
        rows.append({
            "method": study.name(m), "tasks": len(by_task),
            "programs": int(mine["has_code"].astype(bool).sum()),
            "right programs": int(right.sum()),
            "tasks with a right program": int(by_task["made"].sum()),
            "ceiling %": _pct(by_task["made"].mean()),
            "ceiling % (per problem)": _per_problem(by_task["made"], by_task["problem"]),
            "returned right": int(by_task["returned"].sum()),
            "strict %": _pct(by_task["returned"].mean()),
            "right, not returned": int(lost.sum()),
            "of them: right failed a sample": int((lost & by_task["failed a sample"]).sum()),
            "of them: right outranked": (int((lost & by_task["outranked"]).sum())
                                         if ranked else None),
            "of them: right in the chosen group": (int((lost & by_task["grouped"]).sum())
                                                   if ranked else None),
        })
    # A count, blank for the methods without a selection: Int64, not float.
    return pd.DataFrame(rows).astype({"of them: right outranked": "Int64",
                                      "of them: right in the chosen group": "Int64"})


def _category_cells(counts: pd.DataFrame, prefix: str = "") -> pd.DataFrame:
    """Counts of FN/FP/TN/TP (the paper's order) as 'count (pct%)' cells of their row's total."""
    out = pd.DataFrame(index=counts.index)
    total = counts[list(TABLE3_ORDER)].sum(axis=1)
    for c in TABLE3_ORDER:
        share = (100 * counts[c] / total.where(total > 0)).fillna(0)
        out[f"{prefix}{c}"] = [f"{n} ({p:.1f}%)" for n, p in zip(counts[c], share, strict=True)]
    return out


def table3(study: Study) -> pd.DataFrame:
    """The text's reading (ramp.analysis.oracle.TEXT_READING): FN/FP/TN/TP per iteration with
    shares, as 'count (pct%)' cells, per method; classified task x run pairs only."""
    if study.tested_oracle.empty:
        return pd.DataFrame()
    counts = oracle_counts(study.tested_oracle)
    out = counts[["model", "variant", "iteration"]].copy()
    out[list(TABLE3_ORDER)] = _category_cells(counts)
    out["classified"] = counts["total"]
    return out


def code_reading(study: Study) -> pd.DataFrame:
    """The code's reading (ramp.analysis.oracle.CODE_READING) of every method with generated
    tests, per task and iteration 1..K (K: the study's budget)."""
    runs = runs_with_generated_tests(study.tested_oracle)
    if not runs or study.hidden_attempts.empty:
        return pd.DataFrame()
    h = study.hidden_attempts
    keys = pd.Series(list(zip(h["model"], h["variant"], strict=True)), index=h.index)
    return classify_by_generated(h[keys.isin(runs)], int(study.scores["iteration"].max()))


def table3_code(study: Study) -> pd.DataFrame:
    """The code's reading: FN/FP/TN/TP per iteration, as 'count (pct%)' cells, per method with
    generated tests; every task is classified (``tasks``), ``carried``: how many of them had
    stopped earlier and keep their last candidate."""
    frame = code_reading(study)
    if frame.empty:
        return pd.DataFrame()
    counts = oracle_counts(frame)
    out = counts[["model", "variant", "iteration"]].copy()
    out[list(TABLE3_ORDER)] = _category_cells(counts)
    out["tasks"] = counts["total"]
    carried = frame.groupby(["model", "variant", "iteration"])["carried"].sum()
    out["carried"] = [int(carried.get((m, v, t), 0)) for m, v, t in
                      zip(out["model"], out["variant"], out["iteration"], strict=True)]
    return out


def _table3_method(study: Study) -> Method | None:
    """The method set beside the paper's Table 3: the main one if it has generated tests, else
    the first that has."""
    runs = runs_with_generated_tests(study.tested_oracle)
    if (study.main.model, study.main.variant) in runs:
        return study.main
    return Method(*runs[0]) if runs else None


def table3_paper(study: Study) -> pd.DataFrame:
    """The paper's Table 3 (its language's; none for another) beside the code's reading of one
    method of ours (:func:`_table3_method`), per iteration of either."""
    paper = reported_table3(study.language or "")
    method = _table3_method(study)
    if paper.empty or method is None:
        return pd.DataFrame()
    ours = oracle_counts(study.of(code_reading(study), method)).set_index("iteration")
    theirs = paper.set_index("iteration")
    iterations = sorted(set(theirs.index) | set(ours.index))
    out = pd.DataFrame({"iteration": iterations}).set_index("iteration")
    out = out.join(_category_cells(theirs, "paper ")).join(
        theirs[list(TABLE3_ORDER)].sum(axis=1).rename("paper tasks").astype("Int64"))
    out = out.join(_category_cells(ours, "ours ")).join(ours["total"].rename("ours tasks")
                                                         .astype("Int64"))
    out.insert(len(TABLE3_ORDER) + 1, "ours", study.name(method))
    return out.reset_index()


def table3_note(study: Study) -> str:
    """Under the paper's Table 3 and ours: what each side is."""
    if study.language is None:
        return ""  # frames that do not say their language: nothing to set them beside
    if study.language not in REPORTED_TABLE3:
        return "The paper reports Table 3 for Ruby only."
    reported = REPORTED_TABLE3[study.language]
    method = _table3_method(study)
    ours = (f"ours is `{study.name(method)}` on this study's tasks, model and budget"
            if method else "no method of ours has generated tests")
    return (f"The paper's numbers ({reported.where}: RAMP with DeepSeek-Coder-6.7B-Instruct on "
            f"all {reported.tasks} Ruby tasks, K = 11) classify every task at every iteration, "
            "which no ground-truth oracle could on a split without reference fixes; they read "
            f"as the code's reading: {CODE_READING}. Next to them, {ours}. A task that "
            "stopped keeps its last candidate here; in the paper's released runner an iteration a "
            "task did not reach records no pass on either side, which its script counts as TN.")


def text_reading_note(study: Study) -> str:
    """The text's definition, and whether these frames had reference programs at all."""
    note = f"Definition: {TEXT_READING}. Tasks without an oracle are counted apart (below)."
    if not study.oracle_programs.empty and "source" not in study.oracle_programs.columns:
        note += (" These frames were made before the oracle stage took reference programs: "
                 "every oracle here is a program found in the runs (running the oracle stage "
                 "again with `oracle.references` gives every problem its reference).")
    return note


def code_reading_note(study: Study) -> str:
    """The code's definition, and the methods it leaves out (no generated tests recorded)."""
    runs = runs_with_generated_tests(study.tested_oracle)
    left = [study.name(m) for m in study.methods if (m.model, m.variant) not in runs]
    note = f"Definition: {CODE_READING}."
    if left:
        note += (" Left out, as their runs record no generated tests (their own acceptance "
                 f"check is another): {', '.join(left)}.")
    return note


def oracle_coverage(study: Study) -> pd.DataFrame:
    """How many problems had an oracle (and of which source), and how many tasks each category
    left out."""
    if study.oracle_programs.empty:
        return pd.DataFrame()
    p = study.oracle_programs
    # Frames drawn before references existed: every oracle there was found in the runs.
    source = p["source"] if "source" in p.columns else p["has_oracle"].map(
        {True: "found", False: ""})
    reference = p["reference"] if "reference" in p.columns else pd.Series("none", index=p.index)
    oracle = study.tested_oracle
    excluded = oracle[oracle["iteration"] == oracle["iteration"].min()]
    rows = [
        {"measure": "problems", "value": len(p)},
        {"measure": "problems with an oracle program", "value": int(p["has_oracle"].sum())},
        {"measure": "... a reference program", "value": int((source == "reference").sum())},
        {"measure": "... a program found passing in the runs",
         "value": int((source == "found").sum())},
        {"measure": "references refused (they failed a complete hidden test)",
         "value": int((reference == "refused").sum())},
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


def truncation(study: Study) -> pd.DataFrame:
    """Answers cut, per method and agent, as the method ran (policy ``full``): ended on the
    answer's cap, or not sent because the prompt left less than the cap in the model's context;
    and the tasks whose guiding tests fell back to the statement's samples (the Test Designer's
    row). Blank where the run's tables predate these counts."""
    c = study.costs
    if "cut_by_cap" not in c.columns:
        return pd.DataFrame({"note": ["not known: these runs' tables were made before they "
                                      "recorded how each answer ended"]})
    used = (c["policy"] == "full") & (c["calls"] > 0) & ~c["stage"].isin(
        (*EXECUTOR_STAGES, "total"))
    df = c.loc[used, ["model", "variant", "stage", "calls", "cut_by_cap", "cut_by_context",
                      "samples_fallback"]]
    shown = {(m.model, m.variant): m.shown for m in study.methods}
    df = df.assign(variant=[shown.get((a, b), b) for a, b in zip(df["model"], df["variant"],
                                                                  strict=True)])
    return df.rename(columns={"stage": "agent", "cut_by_cap": "cut by the answer cap",
                              "cut_by_context": "cut by the context (not sent)",
                              "samples_fallback": "tests fell back to the samples"}
                     ).reset_index(drop=True)


def authors_methods(study: Study) -> tuple[Method, ...]:
    """The methods compared with the authors' RAMP: the study's main variant, every model."""
    return tuple(m for m in study.methods if m.variant == study.main.variant)


def authors_side_by_side(study: Study) -> dict[Method, pd.DataFrame]:
    """Per compared method, the tasks it shares with the authors' outcomes (none: empty)."""
    if study.authors is None:
        return {}
    return {m: side_by_side(study.authors, study.of(study.task_scores, m))
            for m in authors_methods(study)}


def authors_table(study: Study) -> pd.DataFrame:
    """The tasks both studies ran, one row each: the authors' released outcome (cumulative: any
    candidate right; and, where their file says, whether their final candidate is right, the
    nearest to our strict) beside ours, cumulative and strict, per compared method; empty when
    no task is shared."""
    frames = {m: f for m, f in authors_side_by_side(study).items() if len(f)}
    if not frames:
        return pd.DataFrame()
    first = next(iter(frames.values()))
    out = pd.DataFrame({"task": first["task_id"].str[:8], "problem": first["problem_id"].str[:8],
                        "difficulty": first["difficulty"],
                        "authors (cumulative)": _solved(first["authors_solved"])})
    if first["authors_final"].notna().any():
        out["authors final candidate"] = _solved(first["authors_final"].fillna(False))
    for m, f in frames.items():
        ours = f.set_index("task_id").reindex(first["task_id"])
        out[f"{study.name(m)} cumulative"] = _solved(ours["cumulative"]).to_numpy()
        out[f"{study.name(m)} strict"] = _solved(ours["strict"]).to_numpy()
    return out


def _solved(flags: pd.Series) -> pd.Series:
    return flags.map(lambda v: "solved" if v is True or v == 1 else "")


def authors_agreement(study: Study) -> pd.DataFrame:
    """On the shared tasks, how our score agrees with the authors' outcome, per compared
    method and score (:func:`agreement_pairs`): tasks both solved, only theirs, only ours,
    neither."""
    rows = []
    for m, f in authors_side_by_side(study).items():
        if f.empty:
            continue
        for score, their_score, theirs, ours in agreement_pairs(f):
            counts = agreement(theirs, ours)
            rows.append({"method": study.name(m), "our score": score,
                         "their score": their_score, "tasks": len(f),
                         "authors solved": int(theirs.sum()), "we solved": int(ours.sum()),
                         **counts, "agree": counts["both solved"] + counts["neither"]})
    columns = ["method", "our score", "their score", "tasks", "authors solved", "we solved",
               *AGREEMENT, "agree"]
    return pd.DataFrame(rows, columns=columns) if rows else pd.DataFrame()


def trajectory_flags(study: Study) -> dict[str, Flags]:
    """Per side, the authors' first and then each compared method (by its name in the study),
    its candidates' flags (ramp.analysis.authors.Flags) on the tasks every side has, in the
    order of :func:`authors_table`; empty when the authors' file has no per-iteration record
    or no task is shared."""
    if study.authors is None:
        return {}
    sides = {"authors": authors_flags(study.authors)}
    for m in authors_methods(study):
        sides[study.name(m)] = our_flags(study.of(study.hidden_attempts, m))
    if len(sides) < 2 or not all(sides.values()):
        return {}
    shared = set.intersection(*(set(f) for f in sides.values()))
    if not shared:
        return {}
    order = study.authors[study.authors["task_id"].isin(shared)]
    order = order.sort_values(["difficulty", "problem_id", "task_id"], na_position="last")
    return {side: {t: f[t] for t in order["task_id"]} for side, f in sides.items()}


def trajectories(study: Study) -> dict[str, pd.DataFrame]:
    """Per side of :func:`trajectory_flags`, its per-task
    :func:`~ramp.analysis.authors.trajectory`, in the same order."""
    return {side: trajectory_frame(flags) for side, flags in trajectory_flags(study).items()}


def trajectory_budgets(study: Study) -> dict[str, int]:
    """Per side of :func:`trajectories`, its budget: the most candidates a loop may write (the
    authors': their longest record; ours: the study's K)."""
    sides = trajectories(study)
    if not sides:
        return {}
    budgets = {"authors": int(sides["authors"]["candidates"].max())}
    for m in authors_methods(study):
        budgets[study.name(m)] = int(study.of(study.scores, m)["iteration"].max())
    return budgets


def trajectory_table(study: Study) -> pd.DataFrame:
    """Per shared task, each side's loop (:func:`trajectories`): candidates written, the first
    right one (1: the first), the right ones its own tests accepted / rejected, the wrong ones
    they accepted, and whether the final candidate is right."""
    sides = trajectories(study)
    if not sides:
        return pd.DataFrame()
    info = study.authors.set_index("task_id").loc[sides["authors"]["task_id"]]
    out = pd.DataFrame({"task": sides["authors"]["task_id"].str[:8],
                        "problem": info["problem_id"].astype(str).str[:8].to_numpy(),
                        "difficulty": info["difficulty"].to_numpy()})
    for side, f in sides.items():
        out[f"{side} candidates"] = f["candidates"].to_numpy()
        out[f"{side} first right"] = f["first_right"].astype(object).where(
            f["first_right"].notna(), "").to_numpy()
        out[f"{side} right accepted/rejected"] = [
            f"{a}/{r}" for a, r in zip(f["right_accepted"], f["right_rejected"], strict=True)]
        out[f"{side} wrong accepted"] = f["wrong_accepted"].to_numpy()
        out[f"{side} final right"] = f["final_right"].fillna(False).map(
            {True: "yes", False: ""}).to_numpy()
    return out


def trajectory_totals(study: Study) -> pd.DataFrame:
    """:func:`trajectory_table` summed per side, one row each."""
    sides, budgets = trajectories(study), trajectory_budgets(study)
    rows = []
    for side, f in sides.items():
        right = f["first_right"].notna()
        rows.append({
            "loop": side, "tasks": len(f), "candidates": int(f["candidates"].sum()),
            "ran every iteration": int((f["candidates"] >= budgets[side]).sum()),
            "tasks with a right candidate": int(right.sum()),
            "right at the first": int((f["first_right"] == 1).sum()),
            "right first later": int((right & (f["first_right"] > 1)).sum()),
            "right accepted": int(f["right_accepted"].sum()),
            "right rejected": int(f["right_rejected"].sum()),
            "wrong accepted": int(f["wrong_accepted"].sum()),
            "final candidate right": int(f["final_right"].fillna(False).astype(bool).sum()),
        })
    return pd.DataFrame(rows)
