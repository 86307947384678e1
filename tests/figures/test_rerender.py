"""Redrawing committed studies from their source data alone: finding them, and the rule."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from ramp.figures.render import DATA_NAMES
from ramp.figures.rerender import (
    CommittedStudy,
    committed_studies,
    has_source_data,
    studies_index,
    study_summaries,
)
from ramp.study_config import declared_publish, publish_commands, run_command

REPO = Path(__file__).resolve().parents[2]


def _data(folder: Path, names=DATA_NAMES) -> None:
    (folder / "data").mkdir(parents=True)
    for name in names:
        pd.DataFrame({"x": [1]}).to_parquet(folder / "data" / f"{name}.parquet")


def test_committed_studies_are_the_subset_folders_with_every_source_frame(tmp_path):
    figures = tmp_path / "figures"
    _data(figures / "paper10")
    _data(figures / "k3" / "paper10")
    _data(figures / "k3" / "5")
    _data(figures / "k3" / "all", names=DATA_NAMES[:-1])  # a frame short: not redrawable
    (figures / "empty" / "paper10").mkdir(parents=True)
    assert committed_studies(figures) == [
        CommittedStudy(name="", root=figures, subsets=("paper10",)),
        CommittedStudy(name="k3", root=figures / "k3", subsets=("5", "paper10")),
    ]
    assert not has_source_data(figures / "k3" / "all")
    assert CommittedStudy("k3", figures / "k3", ()).summary == figures / "k3" / "summary.md"
    assert CommittedStudy("", figures, ()).summary is None  # its place holds the index


def test_a_published_summary_gathers_the_committed_subsets_beside_the_drawn_ones(tmp_path):
    figures = tmp_path / "figures"
    _data(figures / "k3" / "paper10")
    _data(figures / "k3" / "all", names=DATA_NAMES[:-1])  # not redrawable: not a study's
    drawn = [figures / "k3" / "5" / "summary.md"]
    assert study_summaries(figures / "k3", drawn) == [
        figures / "k3" / "5" / "summary.md", figures / "k3" / "paper10" / "summary.md"]
    assert study_summaries(figures / "k3", [figures / "k3" / "paper10" / "summary.md"]) == [
        figures / "k3" / "paper10" / "summary.md"]


def test_the_repository_commits_redrawable_studies():
    names = [s.name for s in committed_studies(REPO / "figures")]
    assert "" in names  # the default study; a named study that publishes adds its own


@pytest.mark.slow
def test_rerender_target_redraws_the_committed_studies_byte_for_byte(tmp_path):
    """`snakemake rerender` in a folder holding only the committed source data (no results, no
    data set): one job, and every table and summary comes back as committed."""
    for item in ("Snakefile", "workflow", "config", "prompts", "data"):
        (tmp_path / item).symlink_to(REPO / item)
    committed = REPO / "figures"
    for data in committed.glob("**/data"):
        shutil.copytree(data, tmp_path / "figures" / data.relative_to(committed))
    sources = {p: p.read_bytes() for p in (tmp_path / "figures").rglob("*.parquet")}
    snakemake = [str(Path(sys.executable).with_name("snakemake")), "--cores", "2", "rerender"]
    # The timeout only guards against a hang: the redraw takes well under a minute of CPU per
    # study, but on a loaded machine its wall time has no useful bound.
    done = subprocess.run(snakemake, cwd=tmp_path, capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "1 of 1 steps (100%) done" in done.stderr
    tables = sorted(p.relative_to(committed) for p in committed.rglob("*")
                    if p.suffix in (".csv", ".md"))
    assert {Path("summary.md"), Path("paper34/tables/table1.csv"),
            Path("paper34/summary.md")} <= set(tables)
    for rel in tables:
        assert (tmp_path / "figures" / rel).read_bytes() == (committed / rel).read_bytes(), rel
    for figure in committed.rglob("figure*.p*"):
        assert (tmp_path / "figures" / figure.relative_to(committed)).stat().st_size > 0
    assert {p: p.read_bytes() for p in sources} == sources  # the source data is only read


def _scores(folder: Path, study: str, rows) -> None:
    pd.DataFrame([{"study": study, "model": "m", "variant": v, "subset": folder.name,
                   "iteration": k, "hidden_feedback": hidden} for v, k, hidden in rows]
                 ).to_parquet(folder / "data" / "scores.parquet")


def test_the_index_lists_every_committed_study_with_its_subsets_methods_and_command(tmp_path):
    figures = tmp_path / "figures"
    _data(figures / "paper34")
    _scores(figures / "paper34", "default",
            [("ramp", 11, False), ("oracle_feedback", 11, True), ("ramp", 3, False)])
    _data(figures / "k3" / "paper10")
    _scores(figures / "k3" / "paper10", "k3", [("zero_shot", 3, False)])
    for subset in ("paper34", "heldout33"):
        _data(figures / "wide" / subset)
        _scores(figures / "wide" / subset, "wide", [("zero_shot", 3, False)])
    text = studies_index(figures, {
        "": {"paper34": "./ramp.sh workflow"},
        "wide": {"paper34": "./ramp.sh workflow --configfile config/w.yaml",
                 "heldout33": "./ramp.sh workflow --configfile config/w.yaml config/h.yaml"}})
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert rows == [
        "| `default` | 11 | [paper34](paper34/summary.md) "
        "| ramp, oracle_feedback [hidden-test feedback] (m) | `./ramp.sh workflow` |",
        "| `k3` | 3 | [paper10](k3/paper10/summary.md) ([all](k3/summary.md)) "
        "| zero_shot (m) | no config in config/ names it |",
        "| `wide` | 3 | [heldout33](wide/heldout33/summary.md) [paper34](wide/paper34/summary.md) "
        "([all](wide/summary.md)) | zero_shot (m) "
        "| heldout33: `./ramp.sh workflow --configfile config/w.yaml config/h.yaml`; "
        "paper34: `./ramp.sh workflow --configfile config/w.yaml` |",
    ]


def test_the_run_command_names_the_layers_in_order_and_the_publish_flag():
    assert run_command([], False) == "./ramp.sh workflow"
    assert run_command(["config/a.yaml", "config/b.yaml"], True) == (
        "./ramp.sh workflow --configfile config/a.yaml config/b.yaml "
        "--config 'study={publish: true}'")


def test_the_publish_flag_is_needed_only_where_no_layer_publishes(tmp_path):
    (tmp_path / "a.yaml").write_text("study:\n  name: a\n  publish: true\n")
    (tmp_path / "b.yaml").write_text("subsets: [heldout33]\n")
    (tmp_path / "off.yaml").write_text("study:\n  publish: false\n")
    assert declared_publish([tmp_path / "a.yaml", tmp_path / "b.yaml"])
    assert not declared_publish([tmp_path / "a.yaml", tmp_path / "off.yaml"])  # the last wins
    assert not declared_publish([])


def test_publish_commands_name_each_study_s_config_files_by_subset(tmp_path):
    (tmp_path / "config.yaml").write_text("subsets: [paper34]\nstudy:\n  variants: [ramp]\n")
    (tmp_path / "k3.yaml").write_text("study:\n  name: k3\n  publish: true\n")
    (tmp_path / "k3_held.yaml").write_text("subsets: [heldout33]\nstudy:\n  name: k3\n")
    (tmp_path / "draft.yaml").write_text("subsets: [paper10]\nstudy:\n  name: draft\n")
    (tmp_path / "layer.yaml").write_text("study:\n  variants: [ramp]\n")  # names no study
    assert publish_commands(tmp_path) == {
        "": {"paper34": "./ramp.sh workflow --config 'study={publish: true}'"},
        "k3": {"paper34": "./ramp.sh workflow --configfile config/k3.yaml",
               "heldout33": "./ramp.sh workflow --configfile config/k3.yaml config/k3_held.yaml"},
        "draft": {"paper10": "./ramp.sh workflow --configfile config/draft.yaml "
                             "--config 'study={publish: true}'"},
    }
    shipped = publish_commands(REPO / "config")
    # Every committed subset has its command; a shipped study may be unpublished for now.
    for committed in committed_studies(REPO / "figures"):
        assert set(committed.subsets) <= set(shipped[committed.name]), committed.name
    assert {"", "table1-k3", "ramp-plus", "cpp-k3"} <= set(shipped)
