"""The data rule in the workflow: planned first on a clone without the data, and run on the
stand-in hub through the user's Hugging Face cache, its file then loaded by load_tasks."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from . import standin

ROOT = Path(__file__).resolve().parents[2]


def _snakemake(*args: str, cwd: Path, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )


def _clone_without_data(folder: Path) -> Path:
    """The repository's tracked top-level entries, linked: a clone, with no ../shared beside it."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    folder.mkdir()
    for name in sorted({path.split("/", 1)[0] for path in tracked}):
        (folder / name).symlink_to(ROOT / name)
    return folder


def test_a_dry_run_without_the_data_plans_the_data_rule_first(tmp_path: Path) -> None:
    clone = _clone_without_data(tmp_path / "clone")
    assert not (clone / "../shared/data").exists()
    result = _snakemake("-n", cwd=clone)
    assert result.returncode == 0, result.stderr[-2000:]
    text = result.stdout + result.stderr
    jobs = re.findall(r"^Job \d+: (.*)\nReason: (.*)$", text, flags=re.MULTILINE)
    first, reason = jobs[0]
    assert first.startswith("Building ../shared/data/xcodeeval-apr-ruby/validation.jsonl from")
    assert reason == "Missing output files: ../shared/data/xcodeeval-apr-ruby/validation.jsonl"
    assert re.search(r"^fetch_data\s+1$", text, flags=re.MULTILINE)


def test_with_the_data_there_is_no_data_rule_to_force(tmp_path: Path) -> None:
    # A data set one has is never rebuilt or deleted, not even by --forceall.
    data = tmp_path / "data.jsonl"
    data.write_text("")
    config = tmp_path / "config.yaml"
    config.write_text(f"data:\n  jsonl: {data}\nsubsets: ['2']\nexecutor: {{workers: 1}}\n")
    result = _snakemake(
        "-s",
        str(ROOT / "Snakefile"),
        "-d",
        str(tmp_path / "work"),
        "--configfile",
        str(config),
        "-n",
        "--forceall",
        "results/tasks/2.parquet",
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "fetch_data" not in result.stdout + result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("language", "rows"), [("ruby", 3), ("cpp", 2)])
def test_the_data_rule_builds_the_task_file_the_workflow_loads(
    tmp_path: Path, language: str, rows: int
) -> None:
    cache = standin.write_cache(tmp_path / "hf-cache")
    data = tmp_path / "data" / f"{language}.jsonl"
    config = tmp_path / "config.yaml"
    config.write_text(
        f"data:\n  jsonl: {data}\n  language: {language}\n"
        "subsets: ['2']\nexecutor: {workers: 1, memory_mb: 256}\n"
    )
    work = tmp_path / "work"
    # A language other than Ruby keeps its tables and logs in folders of its own.
    results, logs = ("results", "logs") if language == "ruby" else ("results/cpp", "logs/cpp")
    result = _snakemake(
        "-s",
        str(ROOT / "Snakefile"),
        "-d",
        str(work),
        "--configfile",
        str(config),
        "--cores",
        "1",
        f"{results}/tasks/2.parquet",
        cwd=ROOT,
        env={"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(cache)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert data.is_file()
    log = (work / logs / "data/fetch_data.log").read_text()
    measured = 343 if language == "ruby" else 312
    assert f"not the file the study was measured on: {rows} rows where {measured}" in log
    tasks = pd.read_parquet(work / results / "tasks/tasks.parquet")
    assert len(tasks) == rows
    assert len(pd.read_parquet(work / results / "tasks/load_errors.parquet")) == 0
    assert len(pd.read_parquet(work / results / "tasks/2.parquet")) == 2
