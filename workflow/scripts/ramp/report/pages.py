"""Self-contained HTML pages for the report: one per task trajectory, one per table.

A page carries its own style and no script, so that it reads the same opened from disk, in the
report's frame (`snakemake --report` embeds each as a data URI) or printed. Templates live in
``templates/`` beside this module; every value is escaped (Jinja autoescape), and a missing one
fails loudly (StrictUndefined).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import jinja2
import pandas as pd

from ramp.io import write_text
from ramp.report.trajectory import Trajectory

TEMPLATES = Path(__file__).parent / "templates"
# The trajectory folder's index: one row per page, read for the report's labels.
INDEX = "index.csv"
INDEX_COLUMNS = ("task_id", "difficulty", "iterations", "outcome")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _css() -> str:
    return (TEMPLATES / "style.css").read_text(encoding="utf-8")


def trajectory_page(trajectory: Trajectory) -> str:
    return _environment().get_template("trajectory.html.j2").render(t=trajectory, css=_css())


def outcome_label(trajectory: Trajectory) -> str:
    """The task's result in a word, for the report's list: evaluation only, like the page's
    own box."""
    o = trajectory.outcome
    if o is None:
        return "not scored"
    if o.strict:
        return "repaired"
    return "a candidate was right" if o.cumulative else "not repaired"


def write_trajectory_pages(trajectories: Sequence[Trajectory],
                           out_dir: str | os.PathLike[str]) -> pd.DataFrame:
    """Write ``<task_id>.html`` per trajectory and the folder's index; returns the index."""
    out = Path(out_dir)
    rows = []
    for t in trajectories:
        name = t.problem.task_id
        if not _PLAIN_NAME.fullmatch(name):
            raise ValueError(f"task id {name!r} is not a plain file name")
        write_text(out / f"{name}.html", trajectory_page(t))
        rows.append({"task_id": name,
                     "difficulty": "" if t.problem.difficulty is None else t.problem.difficulty,
                     "iterations": len(t.steps), "outcome": outcome_label(t)})
    index = pd.DataFrame(rows, columns=list(INDEX_COLUMNS))
    write_text(out / INDEX, index.to_csv(index=False))
    return index


def index_row(folder: str | os.PathLike[str], task_id: str) -> dict[str, str]:
    """One page's row of a trajectory folder's index, as text (the report's labels)."""
    index = pd.read_csv(Path(folder) / INDEX, dtype=str, keep_default_na=False)
    return {str(k): str(v) for k, v in index.set_index("task_id").loc[task_id].items()}


def table_page(title: str, table: pd.DataFrame | None) -> str:
    """A table under its title; ``table`` None or empty: what it describes did not run in
    this study."""
    body = (table.to_html(index=False, na_rep="", border=0, escape=True)
            if table is not None and not table.empty else "")
    return _environment().get_template("table.html.j2").render(
        title=title, table=body, css=_css())


def read_table(path: str | os.PathLike[str]) -> pd.DataFrame | None:
    """A rendered table's CSV (None when the table was written empty: nothing ran)."""
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        return None
