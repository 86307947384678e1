"""Write a study's figures (PNG and PDF), its tables (CSV) and its Markdown summary."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from ramp.figures import plots, tables
from ramp.figures.reported import REPORTED, beside_ours
from ramp.figures.study import RUN_FILES, Study
from ramp.io import atomic_path, write_parquet, write_text
from ramp.languages import language

FIGURES: dict[str, tuple[Callable[[Study], Figure], str]] = {
    "figure2": (plots.figure2, "Cumulative pass@1 per iteration; solved/unsolved by difficulty"),
    "figure3": (plots.figure3, "Solved per iteration (regressions); cumulative curve"),
    "figure4": (plots.figure4, "By difficulty; per-test outcome transitions"),
    "figure5": (plots.figure5, "Solved per tag; pass@1 per initial outcome"),
    "figure6": (plots.figure6, "pass@1 vs time; overlap of solved tasks"),
    "tokens": (plots.tokens, "pass@1 vs model tokens a task"),
}
TABLES: dict[str, tuple[Callable[[Study], pd.DataFrame], str]] = {
    "table1": (tables.table1, "Table 1: pass@1 (%) per method"),
    "paired": (tables.paired, "Each method against the main one on the same tasks "
               "(cumulative; exact McNemar test; difference, bootstrap interval and "
               "permutation test with problems as units)"),
    "solved_tasks": (tables.solved_tasks, "Tasks repaired, per method (t2: first hidden pass at "
                     "iteration 2, returned; (t2): passed, but another program was returned)"),
    "acceptance": (tables.acceptance, "Own tests vs hidden tests, per candidate (does the "
                   "method stop on a right program?)"),
    "table2": (tables.table2, "Table 2: component ablations (cumulative pass@1, %)"),
    "table3_paper": (tables.table3_paper, "Table 3: the paper's counts and ours, made the "
                     "same way (generated-test verdict vs hidden verdict, every task)"),
    "table3_code": (tables.table3_code, "Table 3 as the paper's numbers were made: the "
                    "candidate's generated-test verdict vs its hidden verdict, per iteration"),
    "table3": (tables.table3, "Table 3 as the paper's text defines it: the generated tests on a "
               "ground-truth program vs the candidate's hidden verdict, per iteration"),
    "oracle_coverage": (tables.oracle_coverage, "Oracle coverage"),
    "table4": (tables.table4, "Table 4: prompting ablations (cumulative pass@1, %)"),
    "ramp_plus_ablation": (tables.ramp_plus_ablation, "RAMP+ with each switch off in turn "
                           "(docs/ramp_plus.md; pass@1 %, model calls and tokens a task)"),
    "breadth_ablation": (tables.breadth_ablation, "The breadth method with each switch off in "
                         "turn, and RAMP (docs/breadth.md; pass@1 %, model calls, tokens and "
                         "minutes a task)"),
    "candidates": (tables.candidates, "Generation vs selection: every program a method wrote "
                   "on the hidden tests, against the one it returns (tasks)"),
    "cost_summary": (tables.cost_summary, "Cost per method (full run; E.S.: early stopping)"),
    "costs": (tables.cost_table, "Cost per method and stage (full run)"),
    "truncation": (tables.truncation, "Answers cut by length, per method and agent (full run; "
                   "an answer over the context is not sent, and counted here)"),
}
# Text under a table in the summary: how to read it, drawn from the study like the table.
NOTES: dict[str, Callable[[Study], str]] = {
    "table1": tables.interval_note, "table3_paper": tables.table3_note,
    "table3_code": tables.code_reading_note, "table3": tables.text_reading_note,
}
# The side-by-side with the RAMP authors' released outcomes, drawn when the study is given
# their file: a per-task table, the agreement counts, their loop beside ours candidate by
# candidate (per task and in total), and two figures.
AUTHORS_TABLES: dict[str, tuple[Callable[[Study], pd.DataFrame], str]] = {
    "authors": (tables.authors_table, "The RAMP authors' released outcome beside ours, per "
                "task (theirs: any candidate right, a cumulative score; and whether their "
                "final candidate is right)"),
    "authors_agreement": (tables.authors_agreement, "Agreement with the authors' outcomes on "
                          "the tasks both ran"),
    "authors_trajectory_totals": (tables.trajectory_totals, "Their loop beside ours, "
                                  "candidate by candidate, in total"),
    "authors_trajectory": (tables.trajectory_table, "Their loop beside ours, per task "
                           "(first right: 1 is the first candidate; right accepted/rejected: "
                           "right candidates the loop's own tests accepted / rejected)"),
}
AUTHORS_FIGURE = "authors"
AUTHORS_FIGURES = (AUTHORS_FIGURE, "authors_trajectory")
FORMATS = ("png", "pdf")
# The frames every table and figure is drawn from, written beside them as the run's small,
# committable record (one row per method x ...; no program text, no data-set text).
DATA_NAMES = (*RUN_FILES, "oracle", "oracle_programs")


def study_line(name: str, iterations: int) -> str:
    """The summary's line on the study under its title: its name and its budget K."""
    return (f"Study `{name or 'default'}`: a budget of K = {iterations} iteration(s) "
            "for every iterating method.")


def figure_paths(
    out_dir: str | os.PathLike[str], *, summary: bool = True, authors: bool = False
) -> list[str]:
    """Every file :func:`render_study` writes (what a rule declares as its outputs), the
    summary last unless ``summary`` is False; ``authors``: the study is given the authors'
    outcomes (their side-by-side tables, figure and frame)."""
    out = Path(out_dir)
    paths = [out / f"{name}.{ext}" for name in FIGURES for ext in FORMATS]
    paths += [out / "tables" / f"{name}.csv" for name in TABLES]
    paths += [out / "data" / f"{name}.parquet" for name in DATA_NAMES]
    if authors:
        paths += [out / f"{name}.{ext}" for name in AUTHORS_FIGURES for ext in FORMATS]
        paths += [out / "tables" / f"{name}.csv" for name in AUTHORS_TABLES]
        paths.append(out / "data" / "authors.parquet")
    if summary:
        paths.append(out / "summary.md")
    return [str(p) for p in paths]


def save_figure(fig: Figure, stem: Path) -> None:
    import matplotlib.pyplot as plt

    for ext in FORMATS:
        with atomic_path(stem.with_suffix(f".{ext}")) as tmp:
            # No creation date in a PDF: the same frames give the same bytes, so redrawing the
            # committed figures changes no file unless the drawing did.
            meta = {"CreationDate": None} if ext == "pdf" else None
            fig.savefig(tmp, format=ext, dpi=150, bbox_inches="tight", metadata=meta)
    plt.close(fig)


def _markdown(df: pd.DataFrame) -> str:
    # A cell with no value (e.g. an early-stopping row's truncated-excluded score) stays blank.
    if df.empty:
        return "_(nothing to show: not run)_"
    # tabulate leaves only None blank, not NaN.
    return df.astype(object).where(df.notna(), None).to_markdown(index=False, missingval="")


def source_data(study: Study) -> dict[str, pd.DataFrame]:
    """The study's frames as written to ``data/``: oracle programs and candidates without
    their code, and the authors' outcomes (task ids and outcomes only) when the study has
    them."""
    frames = {name: getattr(study, name) for name in DATA_NAMES}
    for name in ("oracle_programs", "candidates"):
        frames[name] = frames[name].drop(columns="code", errors="ignore")
    if study.authors is not None:
        frames["authors"] = study.authors
    return frames


def _table(df: pd.DataFrame, out: Path, name: str) -> str:
    """Write one table's CSV; its Markdown for the summary."""
    with atomic_path(out / "tables" / f"{name}.csv") as tmp:
        df.to_csv(tmp, index=False)
    return _markdown(df)


# Under the paper's numbers: the baselines the authors ran with the hidden tests as feedback.
HIDDEN_FEEDBACK_NOTE = (
    "The paper's ChatRepair and LANTERN ran inside LANTERN's framework with the hidden tests "
    "as feedback each round (the tasks left in the loop were those not yet fixed on them; "
    "ChatRepair's next prompt showed a failing one); ours see the statement's sample tests "
    "only (`hidden_feedback: true` runs them the paper's way, its scores labelled as such; "
    "docs/baselines.md).")


def _reported(study: Study, table1: pd.DataFrame) -> list[str]:
    """The summary's section with the paper's pass@1 for the study's language beside ours
    (``table1``; none when the frames do not say the language)."""
    if study.language not in REPORTED:
        return []
    reported, name = REPORTED[study.language], language(study.language).name
    return [f"## The paper's pass@1 beside ours ({name})", "",
            f"The paper reports these in {reported.where} ({reported.tasks}), with "
            "DeepSeek-Coder-6.7B-Instruct behind every method and K = 11. Its scores are "
            "cumulative pass@1: compare them with our cumulative column, and mind that our "
            "model, budget and tasks are this study's.", "",
            _markdown(beside_ours(study.language, table1)), "",
            HIDDEN_FEEDBACK_NOTE, ""]


def _render_authors(study: Study, out: Path) -> list[str]:
    """The side-by-side files; the summary's section only when some task is shared."""
    sections = {name: (title, _table(build(study), out, name))
                for name, (build, title) in AUTHORS_TABLES.items()}
    frames = tables.authors_side_by_side(study)
    save_figure(plots.figure_authors(study, frames), out / AUTHORS_FIGURE)
    flags = tables.trajectory_flags(study)
    labels = tables.trajectory_table(study)
    labels = [f"{t} ({p[:6]}, {d})" for t, p, d in
              zip(labels.get("task", []), labels.get("problem", []),
                  labels.get("difficulty", []), strict=True)]
    save_figure(plots.figure_trajectory(study, flags, labels), out / AUTHORS_FIGURES[1])
    shared = max((len(f) for f in frames.values()), default=0)
    if not shared:
        return []
    lines = [f"## The authors' outcomes beside ours ({shared} tasks in both)", "",
             f"The RAMP authors released their per-task outcome ({len(study.authors)} tasks); "
             f"{shared} of them are in this study. Their `is_solved` counts a task solved when "
             "any of its candidates passed the hidden tests, a cumulative score: compare it "
             "with our cumulative column. Their loop does not stop at a hidden pass, so "
             "whether their final candidate passes is the nearest they have to our strict "
             "score (a run that never sees the hidden tests). Their backbone and ours may "
             "differ: the table says where the two studies agree, not why.", ""]
    for name in ("authors", "authors_agreement"):
        title, text = sections[name]
        lines += [f"### {title}", "", text, ""]
    lines += [f"![{AUTHORS_FIGURE}]({AUTHORS_FIGURE}.png)", ""]
    if flags:
        lines += [f"### {sections['authors_trajectory_totals'][0]}", "",
                  trajectory_note(study), "", sections["authors_trajectory_totals"][1], "",
                  f"![{AUTHORS_FIGURES[1]}]({AUTHORS_FIGURES[1]}.png)", "",
                  f"### {sections['authors_trajectory'][0]}", "",
                  sections["authors_trajectory"][1], ""]
    return lines


def trajectory_note(study: Study) -> str:
    """How to read the per-candidate comparison, with the authors' own counts."""
    totals = tables.trajectory_totals(study).set_index("loop")
    budget = tables.trajectory_budgets(study)["authors"]
    a = totals.loc["authors"]
    theirs = tables.trajectories(study)["authors"]
    early = theirs[theirs["candidates"] < budget]
    early_accepted = int(((early["right_accepted"] + early["wrong_accepted"]) > 0).sum())
    went_past = int((theirs["first_right"] < theirs["candidates"]).fillna(False).sum())
    return (
        f"Each loop's candidates in the order written (the authors' iteration 0 is candidate "
        f"1). Their loop wrote all {budget} candidates on {a['ran every iteration']} of "
        f"{a['tasks']} tasks and went on past a right candidate on {went_past}; it ended early "
        f"on {len(early)}, {early_accepted} of them after its generated tests had accepted a "
        f"candidate. Their generated tests accepted {a['right accepted']} right and "
        f"{a['wrong accepted']} wrong candidates. Of their {a['tasks with a right candidate']} "
        f"tasks with a right candidate, {a['right at the first']} had one at the first; their "
        f"final candidate is right on {a['final candidate right']}. Our loop returns the first "
        "candidate its generated tests accept, else the last: our final candidate is the one "
        "our strict score judges.")


def render_study(study: Study, out_dir: str | os.PathLike[str], about: str = "",
                 write_data: bool = True) -> str:
    """Render everything for one subset; returns the summary's Markdown. ``about``: a line
    on the study (its name and budget) under the title (:func:`study_line`). ``write_data``:
    False when the study was loaded from ``out_dir/data`` itself (re-rendering)."""
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window (set here, not at import)
    out = Path(out_dir)
    lines = [f"# RAMP results: subset `{study.subset}`", "", *([about, ""] if about else []),
             "Methods: " + ", ".join(m.label for m in study.methods) + ".",
             f"Figures 3-5 describe `{study.main.label}`.", "",
             "*strict* pass@1: the program the method returns passes every hidden test; "
             "*cumulative*: some iteration's candidate did (the paper's convention). "
             "E.S.: the Discussion's early stopping on a hidden pass. See docs/metrics.md.", ""]
    for name, (build, title) in TABLES.items():
        frame = build(study)
        lines += [f"## {title}", "", _table(frame, out, name), ""]
        note = NOTES[name](study) if name in NOTES else ""
        lines += [note, ""] if note else []
        if name == "table1":
            lines += _reported(study, frame)
    for name, (draw, title) in FIGURES.items():
        save_figure(draw(study), out / name)
        lines += [f"## {name.capitalize()}: {title}", "", f"![{name}]({name}.png)", ""]
    if study.authors is not None:
        lines += _render_authors(study, out)
    if write_data:
        for name, df in source_data(study).items():
            write_parquet(df, out / "data" / f"{name}.parquet")
    lines += ["## Source data", "",
              "`data/*.parquet`: the frames these tables and figures are drawn from "
              "(`pandas.read_parquet`); `model` and `variant` name the method.", ""]
    text = "\n".join(lines)
    write_text(out / "summary.md", text)
    return text


def combine_summaries(parts: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str]) -> None:
    """figures/summary.md: each subset's summary, its image links made relative to figures/."""
    texts = []
    for p in map(Path, parts):
        text = p.read_text(encoding="utf-8")
        for stem in ("figure", *AUTHORS_FIGURES):
            text = text.replace(f"]({stem}", f"]({p.parent.name}/{stem}")
        texts.append(text.replace("\n# ", "\n## ").replace("# RAMP", "## RAMP", 1))
    write_text(out, "# RAMP results\n\n" + "\n\n".join(texts))
