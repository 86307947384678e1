"""The C++ study's plan (config/cpp.yaml): its jobs, and folders apart from every Ruby study's."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from ramp import study_config

REPO = Path(__file__).resolve().parents[2]
MODEL = "qwen2.5-coder-1.5b"


def snakemake(*args: str) -> str:
    # --nolock: a real run may hold the lock.
    done = subprocess.run([sys.executable, "-m", "snakemake", "--nolock", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout + done.stderr


def plan(*args: str) -> tuple[str, str]:
    """A dry run (--forceall: results built here hide no job) and every file the plan would
    build or has built (--summary)."""
    return snakemake("-n", "--forceall", *args), snakemake("--summary", *args)


def job_counts(output: str) -> dict[str, int]:
    table = output.split("Job stats:", 1)[1]
    return {m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.MULTILINE)}


def test_the_cpp_study_plans_its_four_methods_on_cpp65_in_folders_of_its_own():
    jobs, text = plan("all", "--configfile", "config/cpp.yaml")
    counts = job_counts(jobs)
    # RAMP's K = 3 iterations and Zero-Shot's one; Self-Planning and ChatRepair in one job each.
    assert counts["repair_iteration"] == 4 and counts["run_method"] == 2
    assert counts["score_hidden"] == 4 and counts["load_tasks"] == 1
    runs = f"results/studies/cpp-k3/runs/{MODEL}"
    for variant in ("ramp", "zero_shot", "self_planning", "chatrepair"):
        assert f"{runs}/{variant}/cpp65/" in text, variant
    assert f"{runs}/ramp/cpp65/shards/1-of-1/iterations/3.parquet" in text
    assert "iterations/4.parquet" not in text
    for path in ("results/cpp/tasks/tasks.parquet", "results/cpp/tasks/cpp65.parquet",
                 "results/cpp/bugs/cpp65/hidden_runs.parquet", "figures/cpp-k3/summary.md"):
        assert path in text, path
    assert "tasks from ../shared/data/xcodeeval-apr-cpp/validation.jsonl" in jobs
    # Nothing of the Ruby studies' folders, and no side-by-side with the authors' Ruby outcomes.
    assert not re.search(r"results/(tasks|bugs|runs)/", text)
    assert "xcodeeval-apr-ruby" not in jobs and "authors" not in text


def test_the_cpp_config_layers_on_the_default_one():
    base = yaml.safe_load((REPO / "config/config.yaml").read_text())
    cpp = yaml.safe_load((REPO / "config/cpp.yaml").read_text())
    assert study_config.language(base).key == "ruby"
    assert study_config.language({**base, "data": {**base["data"], **cpp["data"]}}).key == "cpp"
    assert cpp["study"]["variants"] == ["ramp", "zero_shot", "self_planning", "chatrepair"]
    assert set(cpp["study"]["variants"]) <= set(base["variants"])


def test_the_ruby_study_keeps_its_folders():
    jobs, text = plan("results/bugs/paper10/summary.md")
    assert "results/tasks/tasks.parquet" in text and "results/tasks/paper10.parquet" in text
    assert "results/bugs/paper10/hidden_runs.parquet" in text
    assert "results/cpp" not in jobs + text
