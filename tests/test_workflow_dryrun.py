"""The workflow's plan: `snakemake -n` lists our data and validation jobs; lint, format clean."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
TINY = Path(__file__).parent / "data" / "tiny.jsonl"
REAL = ROOT / "../shared/data/xcodeeval-apr-ruby/validation.jsonl"
needs_real = pytest.mark.skipif(not REAL.exists(), reason="the xCodeEval data set is not here")
OUR_RULES = ("load_tasks", "sample_tasks", "validate_bugs", "summarise_bugs")


def snakemake(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    # The venv's snakemake, run as a module so the test needs no PATH set-up.
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def job_counts(output: str) -> dict[str, int]:
    table = output.split("Job stats:", 1)[1]
    return {m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.MULTILINE)}


@pytest.mark.slow
@needs_real
def test_dry_run_all_plans_our_jobs() -> None:
    # --forceall so that results already built here do not hide jobs; --nolock because a real
    # run may hold the lock.
    result = snakemake("-n", "--forceall", "--nolock", "all")
    assert result.returncode == 0, result.stderr[-2000:]
    counts = job_counts(result.stdout + result.stderr)
    for rule in OUR_RULES:
        assert counts.get(rule, 0) >= 1, (rule, counts)
    assert counts["load_tasks"] == 1


@pytest.mark.slow
@needs_real
def test_dry_run_numbered_subset() -> None:
    result = snakemake("-n", "--forceall", "--nolock", "results/bugs/20/summary.md")
    assert result.returncode == 0, result.stderr[-2000:]
    counts = job_counts(result.stdout + result.stderr)
    assert {r: counts[r] for r in OUR_RULES} == dict.fromkeys(OUR_RULES, 1)


def test_a_nested_command_line_override_is_typed_and_planned() -> None:
    # Snakemake reads nested --config values as text ('2'); the Snakefile types them by the schema.
    target = "results/studies/cli-k2/runs/qwen2.5-coder-1.5b/zero_shot/paper10/attempts.parquet"
    result = snakemake(
        "-n", "--nolock", "--config", "study={name: cli-k2, iterations: 2, variants: [zero_shot]}",
        "--", target,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert target in result.stdout + result.stderr


@pytest.mark.slow
def test_lint_is_clean() -> None:
    result = snakemake("--lint")
    text = result.stdout + result.stderr
    assert re.findall(r"^Lints for .*$", text, flags=re.MULTILINE) == []
    assert "your workflow is in a good condition" in text


def test_rules_are_snakefmt_formatted() -> None:
    # The workflow catalog's convention; the line length is pyproject.toml's [tool.snakefmt].
    rules = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("workflow/rules/*.smk"))
    files = ["Snakefile", *rules]
    result = subprocess.run(
        [sys.executable, "-m", "snakefmt", "--check", "--diff", *files],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]


@pytest.mark.slow
def test_data_rules_run_on_the_tiny_set(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(
        f"data:\n  jsonl: {TINY}\nsubsets: ['2']\nexecutor: {{workers: 1, memory_mb: 256}}\n"
    )
    work = tmp_path / "work"
    result = snakemake(
        "-s", str(ROOT / "Snakefile"), "-d", str(work), "--configfile", str(config),
        "--cores", "1", "results/tasks/2.parquet",
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "tiny.jsonl:4: field 'prob_desc_time_limit'" in result.stderr
    assert len(pd.read_parquet(work / "results/tasks/tasks.parquet")) == 3
    assert len(pd.read_parquet(work / "results/tasks/load_errors.parquet")) == 4
    assert len(pd.read_parquet(work / "results/tasks/2.parquet")) == 2


@pytest.mark.slow
def test_a_dataset_with_a_new_mtime_but_the_same_bytes_reruns_nothing(tmp_path: Path) -> None:
    # Shared data sets get remounted or copied anew: a new mtime alone must not rerun the study
    # (hours of model calls downstream); new bytes must.
    data = tmp_path / "data.jsonl"
    data.write_bytes(TINY.read_bytes())
    config = tmp_path / "config.yaml"
    config.write_text(
        f"data:\n  jsonl: {data}\nsubsets: ['2']\nexecutor: {{workers: 1, memory_mb: 256}}\n"
    )
    work = tmp_path / "work"
    # Snakemake itself compares checksums of inputs under 1 MB; the real data set is larger, so
    # its own check is switched off here (threshold 1 byte) to test ours.
    args = ("-s", str(ROOT / "Snakefile"), "-d", str(work), "--configfile", str(config),
            "--max-checksum-file-size", "1")
    built = snakemake(*args, "--cores", "1", "results/tasks/2.parquet")
    assert built.returncode == 0, built.stderr[-2000:]

    data.touch()
    plan = snakemake(*args, "-n", "results/tasks/2.parquet")
    assert plan.returncode == 0, plan.stderr[-2000:]
    assert "Nothing to be done" in plan.stdout + plan.stderr

    data.write_bytes(TINY.read_bytes() + b"\n")
    plan = snakemake(*args, "-n", "results/tasks/2.parquet")
    assert plan.returncode == 0, plan.stderr[-2000:]
    assert job_counts(plan.stdout + plan.stderr) == {"load_tasks": 1, "sample_tasks": 1, "total": 2}


@pytest.mark.slow
@needs_real
def test_a_named_study_keeps_its_runs_and_figures_apart(tmp_path: Path) -> None:
    # Two studies with another K must never share run folders: results/runs/... does not carry K.
    config = tmp_path / "study.yaml"
    config.write_text("subsets: [paper10]\n"
                      "study:\n  name: k3\n  variants: [ramp, chatrepair]\n  iterations: 3\n")
    # --summary lists every file the plan would build or has built.
    result = snakemake("--summary", "--nolock", "all", "--configfile", str(config))
    assert result.returncode == 0, result.stderr[-2000:]
    text = result.stdout + result.stderr
    assert "results/studies/k3/runs/qwen2.5-coder-1.5b/ramp/paper10/iterations/3.parquet" in text
    assert "results/studies/k3/runs/qwen2.5-coder-1.5b/chatrepair/paper10/attempts.parquet" in text
    # Unpublished, its figures are drawn under its results; the committed figures/ is untouched.
    assert "results/studies/k3/figures/summary.md" in text
    assert not re.search(r"(^|\s)figures/", text, re.MULTILINE)
    assert "results/runs/" not in text
    assert "iterations/4.parquet" not in text
    # Tasks and the bug validation stay shared with every other study.
    assert "results/bugs/paper10/summary.md" in text


@pytest.mark.slow
@needs_real
def test_only_a_study_that_publishes_plans_files_under_the_committed_figures() -> None:
    # The README's `--config subsets='[5]'`: the default study's committed summary stays as is.
    result = snakemake("--summary", "--nolock", "all", "--config", "subsets=[5]")
    assert result.returncode == 0, result.stderr[-2000:]
    text = result.stdout + result.stderr
    assert "results/figures/5/summary.md" in text and "results/figures/summary.md" in text
    assert not re.search(r"(^|\s)figures/", text, re.MULTILINE)
    published = snakemake("--summary", "--nolock", "all", "--config", "subsets=[5]",
                          "study={name: k3, publish: true}")
    assert published.returncode == 0, published.stderr[-2000:]
    text = published.stdout + published.stderr
    # A named study gathers its subsets, and rewrites the index of the committed studies.
    assert "figures/k3/5/summary.md" in text and "figures/k3/summary.md" in text
    assert re.search(r"(^|\s)figures/summary\.md", text, re.MULTILINE)
    default = snakemake("--summary", "--nolock", "all", "--config", "subsets=[5]",
                        "study={publish: true}")
    assert default.returncode == 0, default.stderr[-2000:]
    # The default study's subsets have their own summaries; its place holds the index.
    assert re.search(r"(^|\s)figures/5/summary\.md", default.stdout + default.stderr)
    assert re.search(r"(^|\s)figures/summary\.md", default.stdout + default.stderr)


def test_a_study_name_must_be_a_plain_folder_name(tmp_path: Path) -> None:
    config = tmp_path / "study.yaml"
    config.write_text("study:\n  name: ../elsewhere\n")
    result = snakemake("-n", "--nolock", "all", "--configfile", str(config))
    text = result.stdout + result.stderr
    assert result.returncode != 0
    assert "['study']['name']" in text and "does not match" in text


@pytest.mark.slow
@needs_real
def test_draws_are_planned_only_when_the_config_asks() -> None:
    # Default: no draw (coverage.draws 0). With draws, one draw job a shard, then the hidden
    # scoring, the coverage analysis and its figure of the subset, in the study's results.
    plain = snakemake("-n", "--forceall", "--nolock", "--cores", "2", "all")
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert "draw_samples" not in job_counts(plain.stdout + plain.stderr)
    asked = snakemake("-n", "--forceall", "--nolock", "--cores", "2", "all",
                      "--config", "coverage={draws: 2}")
    assert asked.returncode == 0, asked.stderr[-2000:]
    text = asked.stdout + asked.stderr
    counts = job_counts(text)
    assert {r: counts.get(r, 0) for r in ("draw_samples", "score_draws", "coverage",
                                         "coverage_figure")} == {
        "draw_samples": 2, "score_draws": 1, "coverage": 1, "coverage_figure": 1}
    assert "results/figures/paper34/coverage.md" in text
    assert "Draws: qwen2.5-coder-1.5b on 'paper34', shard 2-of-2" in text


def test_a_draws_variant_with_more_than_one_call_stops_the_workflow() -> None:
    result = snakemake("-n", "--nolock", "all", "--config", "coverage={draws: 2, variant: ramp}")
    text = result.stdout + result.stderr
    assert result.returncode != 0
    assert "coverage.variant: 'ramp' is not a single-call variant" in text
