"""The paper's figures 2-6, one function each; each returns its Figure (axes labelled).

Every function copes with a study of one method: comparison panels then show that one.
"""

from __future__ import annotations

from itertools import combinations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ramp.analysis.transitions import matrix
from ramp.figures.study import Method, Study
from ramp.sampling import BANDS

SOLVED, UNSOLVED = "#4caf50", "#e57373"


def _integer(axis) -> None:
    """Counts and iterations are whole numbers: no 0.5 ticks."""
    axis.set_major_locator(MaxNLocator(integer=True))


def _curve(study: Study, method: Method, metric: str) -> pd.Series:
    s = study.of(study.scores, method)
    s = s[(s["metric"] == metric) & (s["scope"] == "task")]
    return s.set_index("iteration")["value"].sort_index() * 100


def _bands(per_task: pd.DataFrame, column: str) -> pd.DataFrame:
    """Solved / unsolved task counts per difficulty band, in the paper's band order."""
    order = [b for b in BANDS if b in set(per_task["band"])]
    solved = per_task.groupby("band")[column].sum().reindex(order, fill_value=0)
    total = per_task.groupby("band").size().reindex(order, fill_value=0)
    return pd.DataFrame({"solved": solved, "unsolved": total - solved, "total": total})


def figure2(study: Study) -> Figure:
    """Left: cumulative pass@1 per iteration, every method. Right: solved/unsolved per band."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for m in study.methods:
        curve = _curve(study, m, "cumulative")
        left.plot(curve.index, curve.values, marker="o", label=m.label)
    left.set(xlabel="iteration", ylabel="cumulative pass@1 (%)", ylim=(0, 100),
             title="Cumulative pass@1 per iteration")
    left.legend(fontsize=8)
    _integer(left.xaxis)
    rows = []
    for m in study.methods:
        b = _bands(study.of(study.task_scores, m), "cumulative")
        for band, r in b.iterrows():
            rows += [{"band": band, "method": m.label, "state": "solved", "tasks": r.solved},
                     {"band": band, "method": m.label, "state": "unsolved", "tasks": r.unsolved}]
    df = pd.DataFrame(rows)
    df["group"] = df["method"] + ": " + df["state"]
    palette = {}
    for i, m in enumerate(study.methods):
        shade = 1 - 0.35 * i / max(1, len(study.methods) - 1) if len(study.methods) > 1 else 1
        palette[f"{m.label}: solved"] = tuple(np.array(to_rgb(SOLVED)) * shade)
        palette[f"{m.label}: unsolved"] = tuple(np.array(to_rgb(UNSOLVED)) * shade)
    sns.barplot(df, x="band", y="tasks", hue="group", palette=palette, ax=right)
    right.set(xlabel="difficulty (Codeforces rating)", ylabel="tasks",
              title="Solved and unsolved by difficulty")
    right.legend(fontsize=7)
    _integer(right.yaxis)
    fig.tight_layout()
    return fig


def figure3(study: Study, method: Method | None = None) -> Figure:
    """Left: solved (returned program passes) vs unsolved at each budget, regressions marked.
    Right: the cumulative pass@1 curve from iteration 0."""
    m = method or study.main
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    status = study.of(study.scores, m)
    n = int(status[(status["metric"] == "strict") & (status["scope"] == "task")]["n"].max())
    strict = _curve(study, m, "strict") * n / 100
    its = strict.index.to_numpy()
    left.fill_between(its, 0, strict.values, color=SOLVED, alpha=0.6, label="solved")
    left.fill_between(its, strict.values, n, color=UNSOLVED, alpha=0.6, label="unsolved")
    left.plot(its, strict.values, color="black", marker="o", label="solved now")
    drops = its[1:][np.diff(strict.values) < 0]
    if len(drops):
        left.scatter(drops, strict.loc[drops], color="black", marker="v", s=60, zorder=3,
                     label="regression")
    left.set(xlabel="iteration (budget)", ylabel="tasks", ylim=(0, n),
             title=f"Solved per iteration: {m.label}")
    left.legend(fontsize=8, loc="lower right")
    _integer(left.xaxis)
    _integer(left.yaxis)
    cumulative = _curve(study, m, "cumulative")
    _integer(right.xaxis)
    right.plot(cumulative.index, cumulative.values, marker="o", color="tab:blue")
    right.set(xlabel="iteration", ylabel="cumulative pass@1 (%)", ylim=(0, 100),
              title="Cumulative pass@1")
    fig.tight_layout()
    return fig


def figure4(study: Study, method: Method | None = None) -> Figure:
    """Left: solved/unsolved per difficulty band, task counts as a line. Middle and right: the
    per-hidden-test outcome before -> after repair (recorded and measured 'before')."""
    m = method or study.main
    fig, axes = plt.subplots(1, 3, figsize=(18, 5), gridspec_kw={"width_ratios": [1, 1.2, 1.2]})
    b = _bands(study.of(study.task_scores, m), "cumulative")
    x = np.arange(len(b))
    axes[0].bar(x, b["solved"], color=SOLVED, label="solved")
    axes[0].bar(x, b["unsolved"], bottom=b["solved"], color=UNSOLVED, label="unsolved")
    axes[0].plot(x, b["total"], color="tab:blue", marker="o", label="tasks in range")
    axes[0].set_xticks(x, b.index)
    axes[0].set(xlabel="difficulty (Codeforces rating)", ylabel="tasks",
                title=f"By difficulty: {m.label}")
    axes[0].set_ylim(0, 1.3 * max(1, int(b["total"].max())))
    _integer(axes[0].yaxis)
    axes[0].legend(fontsize=8, loc="upper right")
    counts = study.of(study.transitions, m)
    for ax, convention in zip(axes[1:], ("recorded", "measured"), strict=True):
        mat = matrix(counts, convention, "first_passing") if len(counts) else pd.DataFrame()
        if mat.empty:
            ax.text(0.5, 0.5, f"no '{convention}' outcomes", ha="center", va="center")
        else:
            sns.heatmap(mat, annot=True, fmt="d", cmap="Blues", cbar=False, ax=ax)
            ax.tick_params(axis="x", rotation=30)
        ax.set(xlabel="after repair (per hidden test)", ylabel=f"before ({convention})",
               title=f"Outcome transitions, before = {convention}")
    fig.tight_layout()
    return fig


def figure5(study: Study, method: Method | None = None) -> Figure:
    """Left: share solved per tag (bars) with the tag's task count (line). Right: pass@1 per
    initial (recorded) outcome of the buggy program."""
    m = method or study.main
    per_task = study.of(study.task_scores, m)
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5), gridspec_kw={"width_ratios": [2, 1]})
    tags = per_task.explode("tags").dropna(subset=["tags"])
    by_tag = tags.groupby("tags")["cumulative"].agg(["mean", "size"]).sort_values(
        ["mean", "size"], ascending=False)
    x = np.arange(len(by_tag))
    left.bar(x, 100 * by_tag["mean"], color=SOLVED)
    left.set_xticks(x, by_tag.index, rotation=60, ha="right", fontsize=8)
    left.set(xlabel="tag", ylabel="solved (%)", ylim=(0, 105), title=f"Per tag: {m.label}")
    count_ax = left.twinx()
    count_ax.plot(x, by_tag["size"], color="tab:blue", marker="o")
    count_ax.set_ylabel("tasks with the tag", color="tab:blue")
    count_ax.set_ylim(0, 1.1 * max(1, int(by_tag["size"].max()) if len(by_tag) else 1))
    _integer(count_ax.yaxis)
    by_outcome = per_task.groupby("recorded_outcome")["cumulative"].agg(["mean", "size"])
    bars = right.bar(by_outcome.index, 100 * by_outcome["mean"], color="tab:blue")
    right.bar_label(bars, labels=[f"n={n}" for n in by_outcome["size"]], fontsize=8)
    right.tick_params(axis="x", rotation=30)
    right.set(xlabel="initial outcome (recorded)", ylabel="pass@1 (%)", ylim=(0, 105),
              title="Per initial outcome")
    fig.tight_layout()
    return fig


def _seconds(study: Study, method: Method, policy: str) -> float | None:
    c = study.of(study.costs, method)
    total = c[(c["policy"] == policy) & (c["stage"] == "total")]["seconds"]
    return float(total.iloc[0]) if len(total) else None


def figure6(study: Study) -> Figure:
    """Left: pass@1 vs summed compute seconds per method (and E.S.). Right: overlap of the solved
    sets, as counts of tasks per exact membership pattern (an UpSet-style Venn)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8))
    for i, m in enumerate(study.methods):
        for policy, metric, suffix, marker, dy in (("full", "cumulative", "", "o", 4),
                                                   ("early_stop", "early_stop", " E.S.", "s", -12)):
            seconds = _seconds(study, m, policy)
            curve = _curve(study, m, metric)
            if seconds is None or curve.empty:
                continue
            left.scatter(seconds, curve.iloc[-1], s=50, color=f"C{i}", marker=marker)
            left.annotate(m.label + suffix, (seconds, curve.iloc[-1]), fontsize=8,
                          xytext=(4, dy), textcoords="offset points")
    left.set(xlabel="compute time (s, summed over stages)", ylabel="cumulative pass@1 (%)",
             ylim=(0, 105), title="pass@1 vs time")
    if left.collections:
        left.set_xscale("log")
    solved = {m.label: set(study.of(study.task_scores, m).query("cumulative")["task_id"])
              for m in study.methods}
    _overlap(right, solved)
    fig.tight_layout()
    return fig


def _overlap(ax, sets: dict[str, set[str]]) -> None:
    names = list(sets)
    everything = set().union(*sets.values()) if sets else set()
    patterns: dict[tuple[bool, ...], int] = {}
    for item in everything:
        key = tuple(item in sets[n] for n in names)
        patterns[key] = patterns.get(key, 0) + 1
    ordered = sorted(patterns.items(), key=lambda kv: -kv[1])
    labels = [" & ".join(n for n, inside in zip(names, key, strict=True) if inside)
              for key, _ in ordered]
    y = np.arange(len(ordered))
    ax.barh(y, [c for _, c in ordered], color="tab:purple")
    ax.set_yticks(y, labels if labels else [], fontsize=8)
    ax.invert_yaxis()
    _integer(ax.xaxis)
    ax.set(xlabel="tasks solved by exactly these methods", ylabel="methods",
           title="Overlap of solved tasks")
    pairs = ", ".join(f"{len(sets[a] & sets[b])}" for a, b in combinations(names, 2))
    if not ordered:
        ax.text(0.5, 0.5, "no task solved", ha="center", va="center", transform=ax.transAxes)
    elif pairs:
        ax.text(0.99, 0.01, f"pairwise shared: {pairs}", ha="right", va="bottom",
                transform=ax.transAxes, fontsize=7)
