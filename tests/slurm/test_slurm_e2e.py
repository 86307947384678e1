"""The tiny study through the Slurm profile on a real (one-node) Slurm, checked against a
local run of the same study: same jobs run, same artifacts."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from slurm_cluster import LocalSlurm
from tiny_workflow import artifacts, copy_project, fit_profile, load_profile, write_profile

REPO = Path(__file__).resolve().parents[2]
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
MODEL = "qwen2.5-coder-0.5b"
SHARDS = 2  # the 2 tasks as 2 shards: each model stage runs as one Slurm job per shard
# Test-only settings: poll Slurm every second instead of the plugin's 40 s first wait (each job
# round drops from about a minute to about 12 s); squeue because there is no slurmdbd for
# sacct; no account on this cluster; fail fast instead of retrying; keep logs to read on failure.
FAST_POLLING = [
    "--slurm-status-command", "squeue",
    "--slurm-init-seconds-before-status-checks", "1",
    "--seconds-between-status-checks", "1",
    "--slurm-no-account",
    "--slurm-keep-successful-logs",
    "--retries", "0",
    "--latency-wait", "5",
]
SUBMITTED = re.compile(r"submitted with SLURM jobid (\d+) \(log: \S*/rule_(\w+)/")
FINISHED = re.compile(r"Finished jobid: \d+ \(Rule: (\w+)\)")


def model_runs_here() -> bool:
    try:
        import llama_cpp  # noqa: F401  (only asks whether the backend is installed)

        from ramp.llm import embedded

        embedded.resolve(MODEL)
    except (ImportError, FileNotFoundError):
        return False
    return True


def tiny_study(path: Path, cache: Path, cache_mode: str) -> tuple[Path, str, bool]:
    """A config for 2 tasks and K=2, the target to build, and whether it has model stages.

    Where the 0.5B model runs here, the target is `all`: data, bug validation, the agent
    stages, scoring and figures. The local run records the model's answers in ``cache``; the
    Slurm run replays them (replay-only: a miss fails), so both runs see the same answers and
    their artifacts must be equal. RAMP_SLURM_AGENTS=0 (or no model) keeps to the data and
    bug-validation stages.
    """
    agents = os.environ.get("RAMP_SLURM_AGENTS", "1") != "0" and model_runs_here()
    overrides = {"subsets": ["2"],
                 "study": {"variants": ["ramp"], "iterations": 2, "shards": SHARDS},
                 "models": {"use": [MODEL], "cache": {"mode": cache_mode, "dir": str(cache)}}}
    path.write_text(yaml.safe_dump(overrides), encoding="utf-8")
    return path, "all" if agents else "results/bugs/2/summary.md", agents


def run_watching_squeue(cmd: list[str], cwd: Path, cluster: LocalSlurm,
                        log: Path) -> tuple[int, str, set[str]]:
    """Run ``cmd``; its exit code, its output, and every job id squeue showed meanwhile."""
    seen: set[str] = set()
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=cluster.env, stdout=out,
                                stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 600
        try:
            while proc.poll() is None and time.monotonic() < deadline:
                seen |= set(cluster.run(["squeue", "-h", "-o", "%i"], check=False).split())
                time.sleep(0.5)
        finally:
            if proc.poll() is None:  # timed out or interrupted: no Snakemake left behind
                proc.terminate()
                proc.wait(timeout=60)
    return proc.returncode, log.read_text(encoding="utf-8"), seen


@pytest.mark.slow
@pytest.mark.slurm
def test_tiny_study_through_slurm_matches_a_local_run(slurm_cluster: LocalSlurm,
                                                      tmp_path: Path) -> None:
    cache = tmp_path / "llm-cache"
    local = copy_project(REPO, tmp_path / "local")
    config, target, agents = tiny_study(tmp_path / "local.yaml", cache, "read-write")
    done = subprocess.run([SNAKEMAKE, target, "--cores", str(slurm_cluster.node.cpus),
                           "--configfile", str(config)],
                          cwd=local, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-4000:]

    remote = copy_project(REPO, tmp_path / "slurm")
    profile_path = remote / "profiles" / "slurm" / "config.yaml"
    node = slurm_cluster.node
    fitted = fit_profile(load_profile(profile_path), node.cpus, node.memory_mb)
    write_profile(fitted, profile_path)
    config, target, _ = tiny_study(tmp_path / "slurm.yaml", cache, "replay-only")
    code, output, seen = run_watching_squeue(
        [SNAKEMAKE, target, "--profile", "profiles/slurm", "--configfile", str(config),
         *FAST_POLLING],
        remote, slurm_cluster, tmp_path / "slurm.log")
    assert code == 0, output[-4000:]

    jobs = dict(SUBMITTED.findall(output))  # Slurm job id -> rule
    finished = set(FINISHED.findall(output)) - {"all"}
    assert {"load_tasks", "sample_tasks", "validate_bugs", "summarise_bugs"} <= finished
    if agents:
        assert {"reflect", "design_tests", "repair_iteration", "gather_shards",
                "gather_iteration", "collect_attempts", "score_hidden", "score_run", "oracle",
                "render_figures"} <= finished
        submitted = list(jobs.values())
        assert submitted.count("reflect") == submitted.count("design_tests") == SHARDS
    assert set(jobs.values()) == finished, "every rule but `all` ran as a Slurm job"
    assert seen & set(jobs), "squeue never showed one of the workflow's jobs"

    states = slurm_cluster.job_states()
    for job_id, rule in jobs.items():
        job = states[job_id]
        assert job["JobState"] == "COMPLETED", (rule, job)
        wanted = {**fitted["default-resources"], **fitted["set-resources"].get(rule, {})}
        assert f"mem={wanted['mem_mb']}M" in job["TRES"], (rule, job["TRES"])
        # Without accounting, GRES show up in the request fields, not in TRES.
        gres = job.get("TresPerJob", "") + job.get("TresPerNode", "")
        assert ("gpu" in gres) == bool(wanted.get("gpu")), (rule, gres)

    on_slurm, here = artifacts(remote / "results"), artifacts(local / "results")
    assert on_slurm.keys() == here.keys()
    assert "bugs/2/hidden_runs.parquet" in here
    if agents:
        assert f"runs/{MODEL}/ramp/2/iterations/2.parquet" in here
    for name, table in here.items():
        # a shard's iteration 2 is empty when its one task passed at iteration 1
        assert len(table) > 0 or name.endswith("errors.parquet") or "/shards/" in name, name
        pd.testing.assert_frame_equal(on_slurm[name], table, obj=name)
    for md in (local / "results").rglob("*.md"):
        assert (remote / "results" / md.relative_to(local / "results")).exists(), md.name
