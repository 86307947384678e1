"""Redraw the committed studies from their source data alone: no run, model, Ruby or data set.

A study's figures live in ``figures/`` (the default study) or ``figures/NAME/`` (a study named
NAME), one folder per subset, beside the study's ``summary.md`` that gathers them. Each subset
folder's ``data/`` holds every frame its tables and figures are drawn from
(:data:`ramp.figures.render.DATA_NAMES`), which is all it takes to draw them again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ramp.figures.coverage import has_coverage, render_coverage
from ramp.figures.render import DATA_NAMES, combine_summaries, render_study, study_line
from ramp.figures.study import LATER_RUN_FILES, Study, methods_of
from ramp.io import write_text
from ramp.runs import DEFAULT_STUDY


@dataclass(frozen=True)
class CommittedStudy:
    """One study's figure folders: ``root`` is ``figures/`` or ``figures/NAME``."""

    #: the study's name, empty for the default study (as ``study.name`` in the config).
    name: str
    root: Path
    #: the subset folders under ``root`` holding every source frame, sorted by name.
    subsets: tuple[str, ...]

    @property
    def summary(self) -> Path | None:
        """The named study's ``summary.md``, gathering its subsets' summaries; None for the
        default study, whose place (``figures/summary.md``) holds the index of every study."""
        return self.root / "summary.md" if self.name else None


def has_source_data(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder/data`` holds every frame a subset's figures are drawn from (those of
    :data:`~ramp.figures.study.LATER_RUN_FILES` may be missing)."""
    data = Path(folder) / "data"
    return all((data / f"{name}.parquet").is_file() for name in DATA_NAMES
               if name not in LATER_RUN_FILES)


def committed_studies(figures: str | os.PathLike[str]) -> list[CommittedStudy]:
    """The studies under ``figures`` whose subset folders can be redrawn, by name."""
    figures = Path(figures)
    roots: dict[Path, list[str]] = {}
    for data in [*figures.glob("*/data"), *figures.glob("*/*/data")]:
        if has_source_data(data.parent):
            roots.setdefault(data.parent.parent, []).append(data.parent.name)
    studies = [
        CommittedStudy(name="" if root == figures else root.relative_to(figures).as_posix(),
                       root=root, subsets=tuple(sorted(subsets)))
        for root, subsets in roots.items()
    ]
    return sorted(studies, key=lambda s: s.name)


def study_summaries(
    root: str | os.PathLike[str], drawn: Iterable[str | os.PathLike[str]]
) -> list[Path]:
    """The subset summaries a published study's summary gathers: those just ``drawn`` and
    every subset committed under ``root`` (with its source data), in name order, as
    :func:`rerender` gathers them; so a run of one subset never drops the others."""
    root = Path(root)
    names = {Path(p).parent.name for p in drawn}
    names |= {d.parent.name for d in root.glob("*/data") if has_source_data(d.parent)}
    return [root / name / "summary.md" for name in sorted(names)]


def load_source_data(folder: str | os.PathLike[str]) -> Study:
    """A subset's :class:`Study` from ``folder/data`` (the subset is the folder's name).

    The methods keep the order their runs were gathered in, which is the order of their rows.
    """
    folder = Path(folder)
    data = folder / "data"
    frames = {name: pd.DataFrame() if name in LATER_RUN_FILES and not path.is_file()
              else pd.read_parquet(path)
              for name, path in ((n, data / f"{n}.parquet") for n in DATA_NAMES)}
    scores = frames["scores"]
    methods = methods_of(scores)
    if not methods:
        raise ValueError(f"{folder}/data: no method has scores")
    authors = folder / "data" / "authors.parquet"  # the authors' outcomes, when rendered with
    return Study(subset=folder.name, methods=methods,
                 authors=pd.read_parquet(authors) if authors.is_file() else None, **frames)


def study_name(study: Study, committed: CommittedStudy) -> str:
    """The study's name: its runs' ``study`` column (``default``: "") or, in frames written
    before runs carried their identity, the folder it sits in."""
    if "study" in study.scores.columns and len(study.scores):
        name = str(study.scores["study"].iloc[0])
        return "" if name == DEFAULT_STUDY else name
    return committed.name


def budget(study: Study) -> int:
    """The study's budget K: every method's scores run to iteration K, stopped or not."""
    return int(study.scores["iteration"].max())


INDEX_HEAD = """# RAMP results: the committed studies

Each study below is published by its command, run from the project root, and redrawn from the
frames committed beside its figures (`figures/**/data/*.parquet`) by `./ramp.sh rerender`, with
no model, Ruby or data set. A run that does not publish draws under `results/` and changes
nothing here. What each study is: docs/results.md.

| study | K | subsets | methods | command |
|---|---|---|---|---|
"""


def studies_index(figures: str | os.PathLike[str],
                  commands: Mapping[str, Mapping[str, str]]) -> str:
    """``figures/summary.md``: a row per committed study under ``figures`` (its budget K, its
    subsets' summaries, its methods, the commands that publish it; ``commands`` maps a study's
    name, "" for the default, to each subset's command: study_config.publish_commands)."""
    figures = Path(figures)
    rows = []
    for committed in committed_studies(figures):
        scores = pd.concat([pd.read_parquet(committed.root / s / "data" / "scores.parquet")
                            for s in committed.subsets], ignore_index=True)
        links = [f"[{s}]({(committed.root / s).relative_to(figures).as_posix()}/summary.md)"
                 for s in committed.subsets]
        if committed.summary is not None:
            links.append(f"([all]({committed.summary.relative_to(figures).as_posix()}))")
        by_model: dict[str, list[str]] = {}
        for m in methods_of(scores):
            by_model.setdefault(m.model, []).append(m.shown)
        methods = "; ".join(f"{', '.join(shown)} ({model})" for model, shown in by_model.items())
        rows.append(f"| `{committed.name or DEFAULT_STUDY}` | {int(scores['iteration'].max())} "
                    f"| {' '.join(links)} | {methods} "
                    f"| {index_commands(committed, commands.get(committed.name) or {})} |")
    return INDEX_HEAD + "\n".join(rows) + "\n"


def index_commands(committed: CommittedStudy, commands: Mapping[str, str]) -> str:
    """The index's command cell: the one command making every subset of ``committed``, else
    each subset's (``commands`` maps a subset to its command)."""
    made = {subset: commands.get(subset) for subset in committed.subsets}
    if len(set(made.values())) == 1:
        command = next(iter(made.values()))
        return f"`{command}`" if command else "no config in config/ names it"
    return "; ".join(f"{subset}: `{command}`" if command else
                     f"{subset}: no config in config/ makes it" for subset, command in made.items())


def write_index(figures: str | os.PathLike[str],
                commands: Mapping[str, Mapping[str, str]]) -> Path:
    """Write :func:`studies_index` to ``figures/summary.md``; returns its path."""
    path = Path(figures) / "summary.md"
    write_text(path, studies_index(figures, commands))
    return path


def rerender(figures: str | os.PathLike[str],
             commands: Mapping[str, Mapping[str, str]]) -> list[Path]:
    """Redraw every committed study under ``figures`` in place, then the index of studies
    (:func:`write_index`); returns the summaries written.

    A named study's summary gathers its subsets in name order.
    """
    written = []
    for committed in committed_studies(figures):
        parts = []
        for subset in committed.subsets:
            folder = committed.root / subset
            study = load_source_data(folder)
            render_study(study, folder, about=study_line(study_name(study, committed),
                                                         budget(study)),
                         write_data=False)
            if has_coverage(folder):
                render_coverage(folder)
            parts.append(folder / "summary.md")
        written += parts
        if committed.summary is not None:
            combine_summaries(parts, committed.summary)
            written.append(committed.summary)
    return [*written, write_index(figures, commands)]
