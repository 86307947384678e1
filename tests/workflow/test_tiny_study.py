"""The whole agent workflow, end to end, on 2 tasks with K=2 and the real 0.5B model."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from ramp.methods.frames import ATTEMPT_COLUMNS
from ramp.runs import IDENTITY_COLUMNS

from .conftest import SNAKEMAKE, require_model, snakemake, study_folder, task_file

pytestmark = [pytest.mark.slow, pytest.mark.model]

MODEL = "qwen2.5-coder-0.5b"
K = 2
SHARDS = 2  # one task per shard: each model stage runs as one job per shard
# Each baseline of Table 1 with the roles its calls may have besides the Programmer's.
BASELINE_ROLES = {
    "self_planning": {"planner"},
    "chatrepair": set(),
    "self_collaboration": {"analyst", "tester"},
    "lantern": {"translator", "repairer"},
}
VARIANTS = ["ramp", *BASELINE_ROLES]
# Each run's attempts and its stages' gathered tables (a shard's own tables feed its next
# stage, so nothing else asks for the gathered reflections and tests), and RAMP's scores.
TARGETS = [f"results/runs/{MODEL}/{v}/2/{name}.parquet" for v in VARIANTS
           for name in ("attempts", "reflections", "tests")] + [
    f"results/runs/{MODEL}/{v}/2/scores.parquet" for v in ("ramp", "self_planning")]


@pytest.fixture(scope="module")
def tiny_study(tmp_path_factory) -> Path:
    require_model(MODEL)
    work = study_folder(tmp_path_factory.mktemp("study"))
    overrides = {
        "data": {"jsonl": task_file()},
        "subsets": ["2"],
        "study": {"variants": VARIANTS, "iterations": K, "seed": 0, "shards": SHARDS},
        "models": {"use": [MODEL]},
    }
    (work / "tiny.yaml").write_text(yaml.safe_dump(overrides))
    args = ["--cores", "2", "--configfile", "tiny.yaml", "--", *TARGETS]
    (work / "dry-run.txt").write_text(snakemake(work, "-n", *args))
    snakemake(work, *args)
    return work


def test_dag_has_one_job_per_iteration_and_shard(tiny_study):
    plan = (tiny_study / "dry-run.txt").read_text()
    table = plan.split("Job stats:", 1)[1]
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", table, re.MULTILINE))
    assert jobs.get("repair_iteration") == str(K * SHARDS)
    assert jobs.get("reflect") == jobs.get("design_tests") == str(SHARDS)
    assert jobs.get("gather_iteration") == str(K)  # each iteration gathered into one table
    # one job per baseline and shard
    assert jobs.get("run_method") == str(len(BASELINE_ROLES) * SHARDS)


def test_every_stage_wrote_parquet(tiny_study):
    run = tiny_study / "results" / "runs" / MODEL / "ramp" / "2"
    reflections = pd.read_parquet(run / "reflections.parquet")
    assert len(reflections) == 2 and reflections.reflection.str.len().gt(0).all()
    assert {"reflection_prompt", "reflection_response", "reflection_completion_tokens"} <= set(
        reflections.columns
    )
    tests = pd.read_parquet(run / "tests.parquet")
    assert len(tests) == 2 and set(tests.source) <= {"generated", "samples"}
    assert (tests.n_tests > 0).all()
    first = pd.read_parquet(run / "iterations" / "1.parquet")
    assert list(first.columns) == [*ATTEMPT_COLUMNS, "peak_rss_mb", *IDENTITY_COLUMNS]
    assert len(first) == 2
    assert (first.programmer_completion_tokens > 0).all()
    # the stage process held the model: its peak RSS is well above a bare interpreter's
    assert (first.peak_rss_mb > 300).all() and (reflections.peak_rss_mb > 300).all()
    second = pd.read_parquet(run / "iterations" / "2.parquet")
    assert list(second.columns) == [*ATTEMPT_COLUMNS, "peak_rss_mb", *IDENTITY_COLUMNS]
    # iteration 2 holds exactly the tasks iteration 1 left open
    assert set(second.task_id) == set(first.task_id[~first.passed_generated])
    attempts = pd.read_parquet(run / "attempts.parquet")
    assert len(attempts) == len(first) + len(second)
    # every run table says which run it is (no folder name to parse)
    for frame in (reflections, tests, first, attempts,
                  pd.read_parquet(run / "scores.parquet")):
        assert frame[list(IDENTITY_COLUMNS)].drop_duplicates().values.tolist() == [
            ["default", MODEL, "ramp", "2"]]


def test_rerun_from_cache_is_a_no_op(tiny_study):
    """Snakemake sees nothing to do: the study resumes instead of recomputing."""
    assert "Nothing to be done" in snakemake(tiny_study, "-n", "--configfile", "tiny.yaml", "--",
                                             *TARGETS)


def test_a_rerun_replays_every_call_and_gives_the_same_tables(tiny_study, tmp_path):
    """The runs rebuilt from scratch with the model cache in replay-only mode (a call not in the
    cache is an error): zero model calls, and the same attempts and scores."""
    import shutil

    before = {v: pd.read_parquet(tiny_study / "results" / "runs" / MODEL / v / "2" /
                                 "scores.parquet") for v in ("ramp", "self_planning")}
    attempts = pd.read_parquet(tiny_study / "results" / "runs" / MODEL / "ramp" / "2" /
                               "attempts.parquet")
    for variant in before:
        shutil.move(tiny_study / "results" / "runs" / MODEL / variant, tmp_path / variant)
    config = yaml.safe_load((tiny_study / "tiny.yaml").read_text())
    config["models"]["cache"] = {"mode": "replay-only"}
    (tiny_study / "replay.yaml").write_text(yaml.safe_dump(config))
    targets = [f"results/runs/{MODEL}/{v}/2/scores.parquet" for v in before]
    snakemake(tiny_study, "--cores", "2", "--configfile", "replay.yaml", "--", *targets)
    run = tiny_study / "results" / "runs" / MODEL
    timings = ["peak_rss_mb", "exec_seconds"]  # the executor's and the process's, not the model's
    pd.testing.assert_frame_equal(
        pd.read_parquet(run / "ramp" / "2" / "attempts.parquet").drop(columns=timings),
        attempts.drop(columns=timings))
    for variant, scores in before.items():
        pd.testing.assert_frame_equal(pd.read_parquet(run / variant / "2" / "scores.parquet"),
                                      scores)


@pytest.mark.parametrize("variant", list(BASELINE_ROLES))
def test_a_baseline_runs_its_loop_in_one_job(tiny_study, variant):
    run = tiny_study / "results" / "runs" / MODEL / variant / "2"
    attempts = pd.read_parquet(run / "attempts.parquet")
    assert list(attempts.columns) == [*ATTEMPT_COLUMNS, "peak_rss_mb", *IDENTITY_COLUMNS]
    assert set(attempts.task_id) == set(pd.read_parquet(run / "reflections.parquet").task_id)
    assert attempts.iteration.between(1, K).all()
    roles = {c["role"] for calls in attempts.other_calls for c in calls}
    assert roles <= BASELINE_ROLES[variant]
    assert attempts.programmer_completion_tokens.sum() > 0
    if variant != "chatrepair":  # ChatRepair goes on after a plausible patch (alternatives)
        for _, group in attempts.groupby("task_id"):
            assert not group.sort_values("iteration").passed_generated.iloc[:-1].any()
    assert (pd.read_parquet(run / "tests.parquet").source == "none").all()


def _one_shard_run(tiny_study, name: str, cache: dict, kill_after: int = 0) -> Path:
    """RAMP's run of the tiny study again, as 1 shard, in a study of its own (its files apart
    from the 2-shard run's): the folder of its run. With ``kill_after`` = n, the run is first
    killed outright (SIGKILL to Snakemake and its jobs) as soon as n model answers are in its
    cache, then resumed with the same command, as a user whose machine went down would."""
    config = yaml.safe_load((tiny_study / "tiny.yaml").read_text())
    config["study"] = {**config["study"], "shards": 1, "name": name, "variants": ["ramp"]}
    config["models"]["cache"] = cache
    (tiny_study / f"{name}.yaml").write_text(yaml.safe_dump(config))
    run = tiny_study / "results" / "studies" / name / "runs" / MODEL / "ramp" / "2"
    cmd = [str(SNAKEMAKE), "--cores", "2", "--configfile", f"{name}.yaml", "--",
           *(str((run / f"{t}.parquet").relative_to(tiny_study))
             for t in ("attempts", "reflections", "tests"))]
    env = {**os.environ, "LANG": "C.UTF-8"}
    if kill_after:
        _kill_after_answers(cmd, tiny_study, env, Path(cache["dir"]), kill_after)
        unlock = subprocess.run([str(SNAKEMAKE), "--unlock", "--cores", "1", "--configfile",
                                 f"{name}.yaml"], cwd=tiny_study, capture_output=True,
                                text=True, env=env)
        assert unlock.returncode == 0, unlock.stderr[-3000:]
    done = subprocess.run(cmd, cwd=tiny_study, capture_output=True, text=True, env=env,
                          timeout=1800)
    assert done.returncode == 0, done.stderr[-5000:]
    return run


def _kill_after_answers(cmd: list[str], cwd: Path, env: dict, cache: Path, n: int) -> None:
    """Start ``cmd`` in a session of its own and SIGKILL the whole session once ``n`` answers
    are recorded in ``cache``: it dies during a model stage, with that stage's answers so far
    in the cache and none of its outputs written."""
    import signal
    import time

    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 1200
    try:
        while len(list(cache.glob("*/*.json"))) < n:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no model answer recorded in 20 minutes"
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _stage_tables(run: Path, drop: list[str]) -> dict[str, pd.DataFrame]:
    names = ["reflections.parquet", "tests.parquet", "attempts.parquet",
             *(f"iterations/{t}.parquet" for t in range(1, K + 1))]
    return {n: pd.read_parquet(run / n).drop(columns=["study", *drop], errors="ignore")
            for n in names}


def test_one_shard_replays_the_two_shard_runs_calls_into_the_same_tables(tiny_study):
    """The shard count changes no prompt and no parameter: 1 shard, replay-only from the cache
    the 2-shard run recorded, misses no call and writes the same tables."""
    one = _one_shard_run(tiny_study, "one-shard-replay", {"mode": "replay-only"})
    two = tiny_study / "results" / "runs" / MODEL / "ramp" / "2"
    measured = ["peak_rss_mb", "exec_seconds"]
    for name, table in _stage_tables(two, measured).items():
        pd.testing.assert_frame_equal(_stage_tables(one, measured)[name], table, obj=name)


def test_one_shard_killed_and_resumed_generates_the_same_text_as_two(tiny_study, tmp_path):
    """The model itself, with an empty cache: each answer depends on its prompt, parameters and
    seed, not on which prompts its job ran before it (1 shard runs both tasks in one job, 2
    shards one each), nor on where a run was interrupted: this run is killed once its first
    answer is recorded, so the resumed job replays that call and evaluates the next one from
    scratch, where the clean run had evaluated it after the first, reusing its prefix."""
    cache = tmp_path / "cache"
    one = _one_shard_run(tiny_study, "one-shard-fresh",
                         {"mode": "read-write", "dir": str(cache), "committed": []},
                         kill_after=1)
    assert len(list(cache.glob("*/*.json"))) > 1  # the resumed run made the rest of the calls
    two = tiny_study / "results" / "runs" / MODEL / "ramp" / "2"
    tables_one = _stage_tables(one, [])
    for name, table in _stage_tables(two, []).items():
        # Not the measures of how a call ran: its time, and how much of its prompt's KV state
        # it reused (1 shard reuses the other task's prefix; that changes speed, not text).
        measures = ("_seconds", "peak_rss_mb", "_reused_prompt_tokens", "_kv_read_bytes",
                    "_kv_written_bytes")
        text = [c for c in table.columns if not c.endswith(measures)]
        pd.testing.assert_frame_equal(tables_one[name][text], table[text], obj=name)
