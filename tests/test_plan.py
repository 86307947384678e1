"""The plan as data (ramp.plan) on literal dot text, and the default study's plan on 8 cores."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ramp.plan import critical_path, parse_dot, schedule

ROOT = Path(__file__).resolve().parents[1]
MODEL_RULES = ("reflect", "design_tests", "repair_iteration", "run_method")

# Two shards of one run, K = 2, as `snakemake --dag` draws them (labels name only the
# wildcards a job's dependencies do not have).
DOT = r"""digraph snakemake_dag {
    graph[bgcolor=white, margin=0];
	0[label = "all", color = "0.00 0.6 0.85"];
	2[label = "sample_tasks\nsubset: 2", color = "0.47 0.6 0.85"];
	5[label = "collect_attempts", color = "0.04 0.6 0.85"];
	6[label = "gather_iteration", color = "0.12 0.6 0.85"];
	7[label = "repair_iteration\nt: 1", color = "0.35 0.6 0.85"];
	8[label = "design_tests\nmodel: m\nshard: 1-of-2\nvariant: ramp", color = "0.08 0.6 0.85"];
	9[label = "reflect\nmodel: m\nshard: 1-of-2\nvariant: ramp", color = "0.27 0.6 0.85"];
	10[label = "repair_iteration\nt: 1", color = "0.35 0.6 0.85"];
	11[label = "design_tests\nmodel: m\nshard: 2-of-2\nvariant: ramp", color = "0.08 0.6 0.85"];
	12[label = "reflect\nmodel: m\nshard: 2-of-2\nvariant: ramp", color = "0.27 0.6 0.85"];
	13[label = "gather_iteration", color = "0.12 0.6 0.85"];
	14[label = "repair_iteration\nt: 2", color = "0.35 0.6 0.85"];
	15[label = "repair_iteration\nt: 2", color = "0.35 0.6 0.85"];
	5 -> 0
	6 -> 5
	13 -> 5
	7 -> 6
	10 -> 6
	2 -> 7
	8 -> 7
	9 -> 7
	2 -> 8
	2 -> 9
	2 -> 10
	11 -> 10
	12 -> 10
	2 -> 11
	2 -> 12
	14 -> 13
	15 -> 13
	2 -> 14
	7 -> 14
	8 -> 14
	2 -> 15
	10 -> 15
	11 -> 15
}
"""


def test_jobs_get_back_the_wildcards_their_dependencies_agree_on() -> None:
    plan = parse_dot(DOT)
    assert len(plan.jobs) == 13
    assert dict(plan.jobs[14].wildcards) == {"model": "m", "variant": "ramp", "subset": "2",
                                             "shard": "1-of-2", "t": "2"}
    assert dict(plan.jobs[15].wildcards)["shard"] == "2-of-2"
    # a gather has no shard (its shards differ) but the iteration its shards agree on
    assert dict(plan.jobs[13].wildcards) == {"model": "m", "variant": "ramp", "subset": "2",
                                             "t": "2"}
    assert "t" not in plan.jobs[5].wildcards
    assert plan.needs[14] == {2, 7, 8}


def test_the_first_wave_of_model_jobs_is_every_shards_first_stages() -> None:
    wave = parse_dot(DOT).first_wave(MODEL_RULES)
    assert sorted(j.id for j in wave) == [8, 9, 11, 12]


def test_a_schedule_on_few_slots_waits_and_on_many_follows_the_critical_path() -> None:
    plan = parse_dot(DOT)
    seconds = {i: (10.0 if j.rule in MODEL_RULES else 0.0) for i, j in plan.jobs.items()}
    assert critical_path(plan, seconds)[9] == 30.0  # reflect, iteration 1, iteration 2

    def one(job):
        return 1

    wide = schedule(plan, seconds, one, capacity=None)
    assert wide.wall_s == wide.critical_path_s == 30.0
    assert wide.busy_s == 80.0
    assert schedule(plan, seconds, one, capacity=1).wall_s == 80.0
    assert schedule(plan, seconds, one, capacity=2).wall_s == 40.0
    assert schedule(plan, seconds, one, capacity=4).wall_s == 30.0


@pytest.mark.slow
def test_the_default_study_on_8_cores_starts_8_model_jobs_at_once() -> None:
    """`snakemake -n --cores 8 all` on the default config: RAMP's run alone has at least 8
    model jobs that wait for no other model job."""
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--nolock", "--forceall", "--cores", "8",
         "--dag", "dot", "--", "all"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    wave = parse_dot(done.stdout).first_wave(MODEL_RULES)
    ramp = [j for j in wave if j.wildcards.get("variant") == "ramp"]
    assert len(ramp) >= 8, [(j.rule, dict(j.wildcards)) for j in wave]
    assert {j.wildcards["shard"] for j in ramp} == {f"{i}-of-8" for i in range(1, 9)}
