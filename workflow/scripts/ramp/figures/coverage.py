"""The coverage figure and page (ramp.analysis.coverage): what a chooser could reach with k
draws a task, beside what each run reached by iteration, on one axis of model tokens a task."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from ramp.figures.render import FORMATS, save_figure
from ramp.figures.study import HIDDEN_TAG
from ramp.io import write_parquet, write_text

DATA = ("coverage", "coverage_units")
"""The source frames under a subset's figures/<subset>/data/ (the curves, the per-unit rows)."""
REPORTED_K = (1, 2, 4, 8, 16, 32, 64, 128)
"""The k of the page's table (those up to the draws' n)."""


def labelled(curve: pd.DataFrame) -> pd.DataFrame:
    """``curve`` with a method fed the hidden tests named so (:data:`HIDDEN_TAG`), as
    everywhere."""
    if "hidden_feedback" not in curve.columns:
        return curve
    tag = curve["hidden_feedback"].fillna(False).astype(bool).map({True: HIDDEN_TAG, False: ""})
    return curve.assign(method=curve["method"] + tag)


def coverage_figure(curve: pd.DataFrame) -> Figure:
    """Left: tasks with a right program by k draws (log k). Right: the same and every run's
    cumulative tasks by iteration, against mean model tokens a task (log)."""
    import matplotlib.pyplot as plt

    fig, (by_k, by_tokens) = plt.subplots(1, 2, figsize=(11, 4.2))
    curve = labelled(curve)
    draws = curve[curve["kind"] == "draws"]
    for (model, method), group in draws.groupby(["model", "method"], sort=False):
        by_k.plot(group["k"], group["covered"], marker="o", ms=3, label=f"{method} ({model})")
        by_tokens.plot(group["tokens_per_task"], group["covered"], marker="o", ms=3, lw=2,
                       label=f"{method} draws ({model})")
    runs = curve[curve["kind"] == "iterations"]
    for (model, method), group in runs.groupby(["model", "method"], sort=False):
        by_tokens.plot(group["tokens_per_task"], group["covered"], marker="s", ms=3, ls="--",
                       label=f"{method}, by iteration ({model})")
    tasks = int(curve["tasks"].max()) if len(curve) else 0
    by_k.set_xscale("log", base=2)
    by_k.set(xlabel="k draws a task", ylabel=f"tasks with a right program (of {tasks})",
             title="Coverage by draws (unbiased pass@k, summed)")
    by_tokens.set_xscale("log")
    by_tokens.set(xlabel="model tokens a task (prompt + answer, mean)",
                  ylabel="tasks with a right program",
                  title="Breadth vs depth at equal tokens")
    for ax in (by_k, by_tokens):
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig


def _table(frame: pd.DataFrame) -> str:
    if frame.empty:
        return "_(nothing to show)_"
    return frame.astype(object).where(frame.notna(), None).to_markdown(index=False, missingval="")


def coverage_page(curve: pd.DataFrame, units: pd.DataFrame, command: str) -> str:
    """The page beside the figure: the curves at a few k, every run's last iteration, and the
    draws' right programs per problem."""
    curve = labelled(curve)
    draws = curve[curve["kind"] == "draws"]
    picked = draws[draws["k"].isin(REPORTED_K) | (draws["k"] == draws["k"].max())]
    at_k = picked.assign(pass_at_k=(100 * picked["pass_at_k"]).round(1),
                         covered=picked["covered"].round(2),
                         tokens_per_task=picked["tokens_per_task"].round(0).astype("int64"))
    runs = curve[curve["kind"] == "iterations"]
    last = runs.loc[runs.groupby(["model", "method"], sort=False)["k"].idxmax()] if len(
        runs) else runs
    last = last.assign(pass_at_k=(100 * last["pass_at_k"]).round(1),
                       tokens_per_task=last["tokens_per_task"].round(0).astype("int64"))
    problems = units[(units["level"] == "problem") & (units["k"] == 1)]
    per_problem = problems.assign(
        share_right=(100 * problems["right"] / problems["n"]).round(1))[
        ["model", "method", "problem_id", "n", "right", "share_right"]]
    columns = ["model", "method", "k", "pass_at_k", "covered", "tokens_per_task"]
    return "\n".join([
        "# Coverage: right programs by breadth and by depth", "",
        f"Made by `{command}` (docs/coverage.md). Hidden tests only score here: these are what "
        "a perfect chooser among the programs could reach, not a method's pass@1.", "",
        "![coverage](coverage.png)", "",
        "## Draws: unbiased pass@k (%) and expected tasks with a right program", "",
        _table(at_k[columns].rename(columns={"pass_at_k": "pass@k %"})), "",
        "## Runs: tasks with a right attempt by their last iteration (cumulative)", "",
        _table(last[columns].rename(columns={"k": "iteration", "pass_at_k": "right %"})), "",
        "## Draws per problem: right draws of all draws of its tasks", "",
        _table(per_problem), "",
    ])


def publish_coverage(
    coverage: str | os.PathLike[str], units: str | os.PathLike[str],
    out: str | os.PathLike[str], command: str,
) -> list[Path]:
    """Rule coverage_figure: the frames into ``out``/data (the curves with the ``command`` that
    made them, as a column), then :func:`render_coverage` from there; the files written."""
    data = Path(out) / "data"
    write_parquet(pd.read_parquet(coverage).assign(command=command), data / f"{DATA[0]}.parquet")
    write_parquet(pd.read_parquet(units), data / f"{DATA[1]}.parquet")
    return render_coverage(out)


def has_coverage(folder: str | os.PathLike[str]) -> bool:
    """Whether a subset's figures folder holds coverage source data (rerender redraws it)."""
    return (Path(folder) / "data" / f"{DATA[0]}.parquet").is_file()


def render_coverage(folder: str | os.PathLike[str]) -> list[Path]:
    """``folder``/coverage.{png,pdf,md} from ``folder``/data alone; the files written."""
    folder = Path(folder)
    curve = pd.read_parquet(folder / "data" / f"{DATA[0]}.parquet")
    per_unit = pd.read_parquet(folder / "data" / f"{DATA[1]}.parquet")
    command = str(curve["command"].iat[0]) if len(curve) else ""
    save_figure(coverage_figure(curve.drop(columns="command")), folder / "coverage")
    write_text(folder / "coverage.md", coverage_page(curve, per_unit, command))
    return [folder / f"coverage.{ext}" for ext in (*FORMATS, "md")]
