"""The paper's figures 2-6, one function each; each returns its Figure (axes labelled).

Every function copes with a study of one method: comparison panels then show that one.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ramp.analysis.transitions import matrix
from ramp.figures.study import Method, Study
from ramp.sampling import BANDS

SOLVED, UNSOLVED = "#4caf50", "#e57373"
# Verdicts as the judges abbreviate them, so the transition matrices' labels fit.
SHORT_VERDICT = {"PASSED": "OK", "WRONG_ANSWER": "WA", "RUNTIME_ERROR": "RE",
                 "TIME_LIMIT_EXCEEDED": "TLE", "MEMORY_LIMIT_EXCEEDED": "MLE",
                 "COMPILATION_ERROR": "CE", "OUTPUT_LIMIT_EXCEEDED": "OLE"}


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def _model_title(fig: Figure, study: Study) -> None:
    """With one model, plots name methods by variant; the model is named once, above."""
    if len(study.models) == 1:
        fig.suptitle(f"model: {study.models[0]}", fontsize=9, x=0.99, ha="right")


def _integer(axis) -> None:
    """Counts and iterations are whole numbers: no 0.5 ticks."""
    axis.set_major_locator(MaxNLocator(integer=True))


def _curve(study: Study, method: Method, metric: str) -> pd.Series:
    s = study.of(study.scores, method)
    s = s[(s["metric"] == metric) & (s["scope"] == "task")]
    return s.set_index("iteration")["value"].sort_index() * 100


def _legend_below(ax, entries: int) -> None:
    """The legend under the axes, where it covers no curve or point (up to 4 per row)."""
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14),
              ncols=min(4, entries), frameon=False)


def _percent_top(values) -> float:
    """A pass@1 axis's top: 100 when scores are high, else the next 10 above the best score
    plus a margin, so that low curves (a small model's) are not drawn flat on the axis."""
    best = max((float(v) for v in values), default=0.0)
    return float(min(100, max(10, 10 * np.ceil((best + 5) / 10))))


def _bands(per_task: pd.DataFrame, column: str) -> pd.DataFrame:
    """Solved / unsolved task counts per difficulty band, in the paper's band order."""
    order = [b for b in BANDS if b in set(per_task["band"])]
    solved = per_task.groupby("band")[column].sum().reindex(order, fill_value=0)
    total = per_task.groupby("band").size().reindex(order, fill_value=0)
    return pd.DataFrame({"solved": solved, "unsolved": total - solved, "total": total})


def figure2(study: Study) -> Figure:
    """Left: cumulative pass@1 per iteration, every method. Right: solved/unsolved per band."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    best = []
    for i, m in enumerate(study.methods):
        curve = _curve(study, m, "cumulative")
        # A marker per method, larger for earlier ones, so curves that coincide stay visible.
        left.plot(curve.index, curve.values, marker=MARKERS[i % len(MARKERS)],
                  markersize=5.5 + 1.3 * (len(study.methods) - 1 - i), label=study.name(m))
        best += list(curve.values)
    left.set(xlabel="iteration", ylabel="cumulative pass@1 (%)", ylim=(0, _percent_top(best)),
             title="Cumulative pass@1 per iteration")
    _legend_below(left, len(study.methods))
    _integer(left.xaxis)
    # Solved tasks per band, one bar per method; the band's task count is in its tick label
    # (unsolved = that count minus the bar), which stays readable with Table 1's seven methods.
    rows = []
    for m in study.methods:
        b = _bands(study.of(study.task_scores, m), "cumulative")
        rows += [{"band": f"{band}\n(n={int(r.total)})", "method": study.name(m),
                  "solved": r.solved} for band, r in b.iterrows()]
    sns.barplot(pd.DataFrame(rows), x="band", y="solved", hue="method", ax=right)
    right.set(xlabel="difficulty (Codeforces rating; n = tasks in the range)",
              ylabel="tasks solved (cumulative)", title="Solved by difficulty")
    right.legend(fontsize=8)
    _integer(right.yaxis)
    _model_title(fig, study)
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
    _legend_below(left, 4)
    _integer(left.xaxis)
    _integer(left.yaxis)
    cumulative = _curve(study, m, "cumulative")
    _integer(right.xaxis)
    right.plot(cumulative.index, cumulative.values, marker="o", color="tab:blue")
    right.set(xlabel="iteration", ylabel="cumulative pass@1 (%)",
              ylim=(0, _percent_top(cumulative.values)), title="Cumulative pass@1")
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
            mat = mat.rename(index=SHORT_VERDICT, columns=SHORT_VERDICT)
            sns.heatmap(mat, annot=True, fmt="d", cmap="Blues", cbar=False, ax=ax)
            ax.tick_params(axis="both", rotation=0)
        ax.set(xlabel="after repair (per hidden test; OK = passed, WA, RE, TLE, MLE, CE)",
               ylabel=f"before ({convention})",
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
    """Left: pass@1 vs summed compute time per method (filled) and with E.S. (hollow). Right:
    overlap of the solved sets: tasks solved by both of two methods (diagonal: by one)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5.2))
    for i, m in enumerate(study.methods):
        for policy, metric, face in (("full", "cumulative", f"C{i}"),
                                     ("early_stop", "early_stop", "none")):
            seconds = _seconds(study, m, policy)
            curve = _curve(study, m, metric)
            if seconds is None or curve.empty:
                continue
            # One legend entry per method: the title says what a hollow marker is.
            label = study.name(m) if policy == "full" else "_nolegend_"
            # Later methods get smaller markers, so methods at the same point show as rings.
            size = 50 + 18 * (len(study.methods) - 1 - i)
            left.scatter(seconds / 3600, curve.iloc[-1], s=size, marker="o", facecolors=face,
                         edgecolors=f"C{i}", linewidths=1.5, label=label)
    left.set(xlabel="compute time (hours, summed over stages)", ylabel="cumulative pass@1 (%)",
             title="pass@1 vs time (hollow: early stopping)")
    left.set_ylim(bottom=0, top=max(1.0, left.get_ylim()[1] * 1.1))
    if left.collections:
        _legend_below(left, len(study.methods))
    solved = {study.name(m): study.solved(m) for m in study.methods}
    _overlap(right, solved)
    _model_title(fig, study)
    fig.tight_layout()
    return fig


def overlap_matrix(sets: dict[str, set[str]]) -> pd.DataFrame:
    """Tasks in both of two sets; the diagonal is each set's size."""
    names = list(sets)
    return pd.DataFrame([[len(sets[a] & sets[b]) for b in names] for a in names],
                        index=names, columns=names)


def _overlap(ax, sets: dict[str, set[str]]) -> None:
    mat = overlap_matrix(sets)
    alone = {n: len(s - set().union(*(t for k, t in sets.items() if k != n)))
             for n, s in sets.items()}
    sns.heatmap(mat, annot=True, fmt="d", cmap="Purples", cbar=False, square=True, ax=ax)
    ax.set_yticks(np.arange(len(mat)) + 0.5, [f"{n} ({alone[n]} alone)" for n in mat.index],
                  rotation=0)
    ax.tick_params(axis="x", rotation=45)
    ax.set(xlabel="method", ylabel="method (tasks only it solved)",
           title="Solved tasks shared (diagonal: solved)")
