"""The paper's figures 2-6, and pass@1 by model tokens, one function each; each returns its
Figure (axes labelled).

Every function copes with a study of one method: comparison panels then show that one.
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from ramp.analysis.authors import AGREEMENT, agreement, agreement_pairs
from ramp.analysis.transitions import NOT_RUN, matrix
from ramp.figures.study import Method, Study
from ramp.sampling import BANDS

SOLVED, UNSOLVED = "#4caf50", "#e57373"
# Verdicts as the judges abbreviate them, so the transition matrices' labels fit, in the one
# order every matrix's rows and columns follow (passed first, the program not run last).
SHORT_VERDICT = {"PASSED": "OK", "WRONG_ANSWER": "WA", "RUNTIME_ERROR": "RE",
                 "TIME_LIMIT_EXCEEDED": "TLE", "MEMORY_LIMIT_EXCEEDED": "MLE",
                 "OUTPUT_LIMIT_EXCEEDED": "OLE", "COMPILATION_ERROR": "CE", NOT_RUN: "NR"}
VERDICT_MEANING = {"OK": "passed", "WA": "wrong answer", "RE": "runtime error",
                   "TLE": "time limit", "MLE": "memory limit", "OLE": "output limit",
                   "CE": "compilation error", "NR": "not run"}


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


def _figure2_methods(study: Study) -> tuple[Method, ...]:
    """The paper's Figure 2 (right) sets RAMP beside the baseline with the highest score: the
    main method and the other with the highest cumulative, then strict, pass@1 (first listed
    on a tie)."""
    others = [m for m in study.methods if m != study.main]
    if not others:
        return (study.main,)

    def score(m: Method) -> tuple[float, float]:
        return (_final(study, m, "cumulative"), _final(study, m, "strict"))

    best = max(others, key=score)  # max keeps the first of equal scores
    return (study.main, best)


def _final(study: Study, method: Method, metric: str) -> float:
    curve = _curve(study, method, metric)
    return float(curve.iloc[-1]) if len(curve) else 0.0


def _bands_by_method(ax, study: Study, methods: tuple[Method, ...]) -> None:
    """Per difficulty band, one stacked bar per method: solved (green) under unsolved (red),
    each part labelled with its count; methods told apart by hatching and their name below."""
    frames = {m: _bands(study.of(study.task_scores, m), "cumulative") for m in methods}
    order = [b for b in BANDS if any(b in f.index for f in frames.values())]
    width = 0.8 / len(methods)
    hatches = ("", "//", "..", "xx")
    for i, (m, b) in enumerate(frames.items()):
        b = b.reindex(order, fill_value=0)
        x = np.arange(len(order)) - 0.4 + width * (i + 0.5)
        hatch = hatches[i % len(hatches)]
        low = ax.bar(x, b["solved"], width, color=SOLVED, hatch=hatch, edgecolor="white")
        high = ax.bar(x, b["unsolved"], width, bottom=b["solved"], color=UNSOLVED, hatch=hatch,
                      edgecolor="white")
        for bars, counts in ((low, b["solved"]), (high, b["unsolved"])):
            ax.bar_label(bars, labels=[str(int(c)) if c else "" for c in counts],
                         label_type="center", fontsize=8)
        for xi in x:
            ax.text(xi, -0.02, study.name(m), rotation=90, ha="center", va="top", fontsize=7,
                    transform=ax.get_xaxis_transform())
    totals = frames[methods[0]].reindex(order, fill_value=0)["total"]
    ax.set_xticks(np.arange(len(order)), [f"{band}\n(n={int(n)})" for band, n in totals.items()])
    ax.tick_params(axis="x", pad=58 if len(methods) > 1 else 40)
    ax.set_ylim(0, 1.12 * max(1, int(totals.max()) if len(totals) else 1))
    versus = " vs ".join(study.name(m) for m in methods)
    ax.set(xlabel="difficulty (Codeforces rating; n = tasks in the range)",
           ylabel="tasks (cumulative)", title=f"Solved and unsolved by difficulty: {versus}")
    handles = [Patch(color=SOLVED, label="solved"), Patch(color=UNSOLVED, label="unsolved")]
    if len(methods) > 1:
        handles += [Patch(facecolor="lightgrey", hatch=hatches[i % len(hatches)],
                          edgecolor="white", label=study.name(m)) for i, m in enumerate(methods)]
    ax.legend(handles=handles, fontsize=8, loc="upper right")
    _integer(ax.yaxis)


def figure2(study: Study) -> Figure:
    """Left: cumulative pass@1 per iteration, every method. Right: solved and unsolved tasks
    per difficulty band of the main method and the other with the highest score (the paper's
    RAMP beside its best baseline)."""
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
    _bands_by_method(right, study, _figure2_methods(study))
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
        key = ""
        if mat.empty:
            ax.text(0.5, 0.5, f"no '{convention}' outcomes", ha="center", va="center")
        else:
            mat = verdict_matrix(mat)
            sns.heatmap(mat, annot=True, fmt="d", cmap="Blues", cbar=False, ax=ax)
            ax.tick_params(axis="both", rotation=0)
            shown = set(mat.columns) | set(mat.index)
            key = "\n" + textwrap.fill(", ".join(
                f"{v} = {VERDICT_MEANING[v]}" for v in SHORT_VERDICT.values() if v in shown), 80)
        ax.set(xlabel=f"after repair (per hidden test){key}", ylabel=f"before ({convention})",
               title=f"Outcome transitions, before = {convention}")
    fig.tight_layout()
    return fig


def verdict_matrix(mat: pd.DataFrame) -> pd.DataFrame:
    """A before x after count matrix with its verdicts abbreviated, rows and columns in the
    one order of :data:`SHORT_VERDICT`; only verdicts that occur have a row or a column (a
    verdict outside that order would follow it, by name)."""
    def order(names) -> list[str]:
        known = [v for v in SHORT_VERDICT if v in set(names)]
        return known + sorted(set(names) - set(SHORT_VERDICT))

    mat = mat.loc[order(mat.index), order(mat.columns)]
    return mat.rename(index=SHORT_VERDICT, columns=SHORT_VERDICT)


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
    """Left: pass@1 vs summed compute time per method: strict (filled square) and cumulative
    (filled circle) of the full run, joined, and with E.S. (hollow ring, drawn on top and
    larger, so it shows even where it coincides with a filled marker). Right: overlap of the
    solved sets: tasks solved by both of two methods (diagonal: by one)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5.2))
    n = len(study.methods)
    for i, m in enumerate(study.methods):
        color = f"C{i}"
        # Later methods get smaller markers, so methods at the same point show as rings.
        size = 50 + 18 * (n - 1 - i)
        full = _seconds(study, m, "full")
        if full is not None:
            strict, cumulative = _final(study, m, "strict"), _final(study, m, "cumulative")
            hours = full / 3600
            left.plot([hours, hours], [strict, cumulative], color=color, linewidth=1,
                      zorder=1)
            # The circle on the square, smaller and white-edged: equal scores show both.
            left.scatter(hours, strict, s=size, marker="s", color=color, zorder=2)
            left.scatter(hours, cumulative, s=0.55 * size, marker="o", color=color,
                         edgecolors="white", linewidths=1, zorder=2.5, label=study.name(m))
        early = _seconds(study, m, "early_stop")
        if early is not None and not _curve(study, m, "early_stop").empty:
            left.scatter(early / 3600, _final(study, m, "early_stop"), s=2.6 * size + 60,
                         marker="o", facecolors="none", edgecolors=color, linewidths=2,
                         zorder=3)
    left.set(xlabel="compute time (hours, summed over stages)", ylabel="pass@1 (%)",
             title="pass@1 vs time")
    left.set_ylim(bottom=0, top=max(1.0, left.get_ylim()[1] * 1.1))
    left.set_xlim(left=0)
    if left.collections:
        grey = {"color": "grey", "linestyle": "none"}
        keys = [Line2D([], [], marker="s", label="strict", **grey),
                Line2D([], [], marker="o", label="cumulative", **grey),
                Line2D([], [], marker="o", markerfacecolor="none", markersize=10,
                       markeredgewidth=2, label="early stopping (E.S.)", **grey)]
        methods, names = left.get_legend_handles_labels()
        left.legend(handles=[*methods, *keys], labels=[*names, *(k.get_label() for k in keys)],
                    fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14),
                    ncols=min(4, len(names) + 3), frameon=False)
    solved = {study.name(m): study.solved(m) for m in study.methods}
    _overlap(right, solved)
    _model_title(fig, study)
    fig.tight_layout()
    return fig


def tokens(study: Study) -> Figure:
    """Strict (square) and cumulative (circle) pass@1 of each method, joined, against the model
    tokens it spent a task in its full run (log axis): what a method's score cost, so that
    breadth and depth compare at equal tokens."""
    fig, ax = plt.subplots(figsize=(8, 5.2))
    for i, m in enumerate(study.methods):
        spent = study.tokens_a_task(m)
        if spent is None:
            continue
        color = f"C{i % 10}"
        strict, cumulative = _final(study, m, "strict"), _final(study, m, "cumulative")
        ax.plot([spent, spent], [strict, cumulative], color=color, linewidth=1, zorder=1)
        ax.scatter(spent, strict, s=60, marker="s", color=color, zorder=2)
        ax.scatter(spent, cumulative, s=33, marker="o", color=color, edgecolors="white",
                   linewidths=1, zorder=2.5, label=study.name(m))
    ax.set_xscale("log")
    ax.set(xlabel="model tokens a task (prompt + answer, full run, mean; log axis)",
           ylabel="pass@1 (%)", title="pass@1 vs model tokens")
    ax.set_ylim(bottom=0, top=max(1.0, ax.get_ylim()[1] * 1.1))
    if ax.collections:
        grey = {"color": "grey", "linestyle": "none"}
        keys = [Line2D([], [], marker="s", label="strict", **grey),
                Line2D([], [], marker="o", label="cumulative", **grey)]
        methods, names = ax.get_legend_handles_labels()
        ax.legend(handles=[*methods, *keys], labels=[*names, "strict", "cumulative"],
                  fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14),
                  ncols=min(4, len(names) + 2), frameon=False)
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


def figure_authors(study: Study, frames: dict[Method, pd.DataFrame]) -> Figure:
    """The authors' released outcome beside ours on the tasks both ran. Left: one row per
    task (grouped by problem, easiest first), one column for theirs and ours (cumulative,
    strict) per compared method; a filled cell is a solved task. Right: how often ours agrees
    with theirs. ``frames``: per method, ramp.analysis.authors.side_by_side."""
    frames = {m: f for m, f in frames.items() if len(f)}
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, max(4.5, 0.22 * _rows(frames) + 2)),
                                      gridspec_kw={"width_ratios": [1.1, 1]})
    if not frames:
        for ax in (left, right):
            ax.text(0.5, 0.5, "no task in common with the authors' outcomes", ha="center",
                    va="center")
            ax.set(xlabel="", ylabel="tasks", xticks=[], yticks=[])
        left.set_title("Authors' outcomes beside ours")
        return fig
    first = next(iter(frames.values()))
    columns = {"authors": first["authors_solved"].to_numpy(bool)}
    for m, f in frames.items():
        ours = f.set_index("task_id").reindex(first["task_id"])
        for score in ("cumulative", "strict"):
            columns[f"{study.name(m)}\n{score}"] = ours[score].to_numpy(bool)
    grid = np.column_stack(list(columns.values())).astype(int)
    left.imshow(grid, cmap=ListedColormap([UNSOLVED, SOLVED]), aspect="auto", vmin=0, vmax=1)
    left.set_xticks(np.arange(len(columns)), list(columns), fontsize=8)
    labels = [f"{t[:8]} ({p[:6]}, {d})" for t, p, d in
              zip(first["task_id"], first["problem_id"].astype(str), first["difficulty"],
                  strict=True)]
    left.set_yticks(np.arange(len(labels)), labels, fontsize=7)
    # A line between problems: the tasks of one problem (one statement) sit together.
    problems = first["problem_id"].to_numpy()
    change = np.flatnonzero(problems[1:] != problems[:-1])
    for y in change:
        left.axhline(y + 0.5, color="white", linewidth=1.5)
    for x in range(1, len(columns)):  # theirs apart from ours, then method from method
        left.axvline(x - 0.5, color="white", linewidth=3 if x % 2 else 1)
    left.set(xlabel="outcome (green: solved, red: not)",
             ylabel="task (problem, difficulty)", title="Authors' outcomes beside ours")
    rows = []
    for m, f in frames.items():
        for score, theirs_name, theirs, ours in agreement_pairs(f):
            rows.append((f"{study.name(m)} {score}\n(theirs: {theirs_name})",
                         agreement(theirs, ours)))
    colours = (SOLVED, "tab:orange", "tab:blue", UNSOLVED)
    y = np.arange(len(rows))
    start = np.zeros(len(rows))
    for name, colour in zip(AGREEMENT, colours, strict=True):
        counts = np.array([r[name] for _, r in rows])
        bars = right.barh(y, counts, left=start, color=colour, label=name)
        right.bar_label(bars, labels=[str(c) if c else "" for c in counts],
                        label_type="center", fontsize=8)
        start += counts
    right.set_yticks(y, [name for name, _ in rows])
    right.invert_yaxis()
    right.set(xlabel=f"tasks ({len(first)} in both studies)", ylabel="our score",
              title="Agreement with the authors")
    right.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncols=4,
                 frameon=False)
    _integer(right.xaxis)
    fig.tight_layout()
    return fig


def _rows(frames: dict[Method, pd.DataFrame]) -> int:
    return max((len(f) for f in frames.values()), default=0)


# A candidate of a loop, by whether it passes every hidden test and whether the loop's own
# tests accepted it; a loop that stopped early leaves the rest of its row unwritten.
TRAJECTORY_CELLS = ("not written", "wrong, rejected", "wrong, accepted", "right, rejected",
                    "right, accepted")
TRAJECTORY_COLOURS = ("#f5f5f5", "#f4c7c3", "#b71c1c", "#a5d6a7", "#1b5e20")


def trajectory_grid(flags: dict[str, tuple[list[bool], list[bool]]], width: int) -> np.ndarray:
    """Tasks x candidates, each cell an index into :data:`TRAJECTORY_CELLS`."""
    grid = np.zeros((len(flags), width), dtype=int)
    for row, (generated, hidden) in enumerate(flags.values()):
        for col, (gen, hid) in enumerate(zip(generated[:width], hidden[:width], strict=True)):
            grid[row, col] = 1 + int(gen) + 2 * int(hid)
    return grid


def figure_trajectory(study: Study, sides: dict[str, dict[str, tuple[list[bool], list[bool]]]],
                      labels: list[str]) -> Figure:
    """The authors' loop beside ours, candidate by candidate: one panel per side (theirs
    first), one row per shared task (``labels``, in the sides' order), one column per
    candidate (1: the first), coloured by whether it is right and whether the loop's own
    tests accepted it. ``sides``: ramp.figures.tables.trajectory_flags."""
    fig, axes = plt.subplots(1, max(1, len(sides)), sharey=True, squeeze=False,
                             figsize=(3.2 * max(2, len(sides)) + 2,
                                      max(4.5, 0.22 * len(labels) + 2)))
    if not sides:
        ax = axes[0, 0]
        ax.text(0.5, 0.5, "no per-iteration record shared with the authors", ha="center",
                va="center")
        ax.set(xlabel="candidate", ylabel="tasks", xticks=[], yticks=[])
        return fig
    width = max(len(hid) for flags in sides.values() for _, hid in flags.values())
    cmap = ListedColormap(TRAJECTORY_COLOURS)
    for ax, (side, flags) in zip(axes[0], sides.items(), strict=True):
        grid = trajectory_grid(flags, width)
        ax.imshow(grid, cmap=cmap, vmin=0, vmax=len(TRAJECTORY_CELLS) - 1, aspect="auto")
        ax.set_xticks(np.arange(width), [str(c) for c in range(1, width + 1)], fontsize=7)
        right = int((grid >= 3).any(axis=1).sum())
        final = sum(bool(hid) and hid[-1] for _, hid in flags.values())
        ax.set(xlabel="candidate (1: the first)")
        ax.set_title(f"{side}\n{right} with a right candidate, {final} final right",
                     fontsize=10)
    axes[0, 0].set_yticks(np.arange(len(labels)), labels, fontsize=7)
    axes[0, 0].set_ylabel("task (problem, difficulty)")
    handles = [Patch(facecolor=c, edgecolor="grey", label=n)
               for n, c in zip(TRAJECTORY_CELLS, TRAJECTORY_COLOURS, strict=True)]
    fig.legend(handles=handles, loc="lower center", ncols=len(handles), fontsize=8,
               frameon=False, bbox_to_anchor=(0.5, -0.02))
    _model_title(fig, study)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig
