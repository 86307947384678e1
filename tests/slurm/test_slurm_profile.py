"""Fast checks of the Slurm profile and of the harness's pure parts (no Slurm needed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from slurm_cluster import Node, Ports, render_gres_conf, render_slurm_conf
from tiny_workflow import copy_project, fit_profile, load_profile, study_columns

REPO = Path(__file__).resolve().parents[2]
PROFILE = REPO / "profiles" / "slurm" / "config.yaml"
SNAKEMAKE = Path(sys.executable).parent / "snakemake"
GPU_KEYS = ("gpu", "gres", "gpu_model")


@pytest.fixture(scope="module")
def profile() -> dict:
    return load_profile(PROFILE)


@pytest.fixture(scope="module")
def workflow_rules() -> set[str]:
    done = subprocess.run([str(SNAKEMAKE), "--list-rules"], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=True)
    return {line.strip() for line in done.stdout.splitlines() if line.strip()} - {"all"}


def test_profile_submits_to_slurm_with_retries_and_latency_wait(profile: dict) -> None:
    assert profile["executor"] == "slurm"
    assert profile["jobs"] >= 1
    assert profile["retries"] >= 1
    assert profile["latency-wait"] >= 30
    assert profile["rerun-incomplete"] is True
    defaults = profile["default-resources"]
    assert defaults["mem_mb"] > 0 and defaults["runtime"] > 0
    assert not any(k in defaults for k in GPU_KEYS), "an unknown rule must not hold a GPU"


def test_every_rule_entry_names_memory_and_runtime(profile: dict) -> None:
    for rule, res in profile["set-resources"].items():
        assert res["mem_mb"] > 0 and res["runtime"] > 0, rule


def test_model_stages_ask_for_a_gpu_and_cpu_stages_do_not(profile: dict) -> None:
    res = profile["set-resources"]
    gpu_rules = {r for r, v in res.items() if any(k in v for k in GPU_KEYS)}
    assert gpu_rules == {"reflect", "design_tests", "repair_iteration", "run_method",
                         "draw_samples"}
    for rule in gpu_rules:
        assert res[rule]["gpu"] == 1
    cpu_only = {"load_tasks", "sample_tasks", "validate_bugs", "summarise_bugs",
                "collect_attempts"}
    assert cpu_only <= set(res) and not cpu_only & gpu_rules


def test_every_workflow_rule_has_tuned_resources(profile: dict, workflow_rules: set[str]) -> None:
    # A new rule still runs with default-resources; this reminds its author to size it.
    untuned = workflow_rules - set(profile["set-resources"])
    assert not untuned, f"add {sorted(untuned)} to set-resources in {PROFILE.name}"


@pytest.mark.slow
def test_dry_run_through_the_profile_plans_the_tiny_study(tmp_path: Path) -> None:
    project = copy_project(REPO, tmp_path)
    done = subprocess.run(
        [str(SNAKEMAKE), "--profile", "profiles/slurm", "--config", "subsets=[2]", "-n", "all"],
        cwd=project, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"validate_bugs\s+1", done.stdout + done.stderr)


def test_fit_profile_caps_requests_to_the_node_and_keeps_gpus(profile: dict) -> None:
    fitted = fit_profile(profile, cpus=2, memory_mb=3000)
    assert fitted["set-resources"]["reflect"] == {
        **profile["set-resources"]["reflect"], "cpus_per_task": 2, "mem_mb": 3000,
    }
    assert fitted["set-resources"]["sample_tasks"]["mem_mb"] == 2000
    assert fitted["max-threads"] == 2
    assert fitted["executor"] == "slurm"
    assert profile["set-resources"]["reflect"]["mem_mb"] == 48000, "input left unchanged"


def test_slurm_conf_describes_one_node_with_its_cpus_memory_and_gpu(tmp_path: Path) -> None:
    node = Node(name="box", cpus=4, memory_mb=8000, gpus=1)
    conf = render_slurm_conf(node, tmp_path, Ports(7001, 7002), tmp_path / "m.sock")
    assert "NodeName=box NodeAddr=127.0.0.1 CPUs=4 RealMemory=8000 Gres=gpu:1" in conf
    assert "SlurmctldHost=box(127.0.0.1)" in conf
    assert "SlurmctldPort=7001" in conf and "SlurmdPort=7002" in conf
    assert f"AuthInfo=socket={tmp_path / 'm.sock'}" in conf
    assert f"StateSaveLocation={tmp_path / 'state'}" in conf
    assert "ProctrackType=proctrack/linuxproc" in conf and "TaskPlugin=task/none" in conf
    assert "Name=gpu File=/dev/null Count=1" in render_gres_conf(node)
    no_gpu = render_slurm_conf(Node("box", 4, 8000, 0), tmp_path, Ports(1, 2), tmp_path / "s")
    assert "Gres=" not in no_gpu
    with pytest.raises(ValueError, match="at most one"):
        render_gres_conf(Node("box", 4, 8000, 2))


def test_study_columns_drop_timing_and_ignore_row_order() -> None:
    a = pd.DataFrame({"task_id": ["b", "a"], "verdict": ["OK", "WA"], "cpu_s": [0.1, 0.2],
                      "wall_s": [1.0, 2.0], "peak_memory_mb": [10.0, 11.0]})
    b = pd.DataFrame({"task_id": ["a", "b"], "verdict": ["WA", "OK"], "cpu_s": [9.0, 9.0],
                      "wall_s": [9.0, 9.0], "peak_memory_mb": [99.0, 99.0]})
    pd.testing.assert_frame_equal(study_columns(a), study_columns(b))
    assert list(study_columns(a).columns) == ["task_id", "verdict"]
    c = b.assign(verdict=["WA", "WA"])
    with pytest.raises(AssertionError):
        pd.testing.assert_frame_equal(study_columns(a), study_columns(c))
