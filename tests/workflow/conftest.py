"""What the workflow tests that run a real study share: a project folder of the study's own,
Snakemake run in it, and the check that the model it needs is installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ramp.llm import embedded

REPO = Path(__file__).resolve().parents[2]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def require_model(name: str) -> None:
    """Skip the test unless the embedded model ``name`` is installed."""
    try:
        embedded.resolve(name)
    except FileNotFoundError:
        pytest.skip(f"{name} not installed (`python -m ramp models install {name}`)")


def study_folder(work: Path) -> Path:
    """``work`` made a project folder: the repository's workflow, config, prompts and data
    linked in, so that a study run there writes its results and caches there alone."""
    for item in ("Snakefile", "workflow", "config", "prompts", "data"):
        (work / item).symlink_to(REPO / item)
    return work


def task_file() -> str:
    """The task file config/config.yaml names, as an absolute path (a study folder is not
    where the repository is, so the configured relative path would miss it)."""
    base = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    return str((REPO / base["data"]["jsonl"]).resolve())


def snakemake(work: Path, *args: str, timeout: float = 1800) -> str:
    """Snakemake run in ``work`` with ``args``, asserted to succeed: its stdout and stderr."""
    done = subprocess.run(
        [str(SNAKEMAKE), *args],
        cwd=work,
        capture_output=True,
        text=True,
        env={**os.environ, "LANG": "C.UTF-8"},
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-5000:]
    return done.stdout + done.stderr
