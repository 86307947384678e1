"""The shard count never changes a result: the agent stages run on 1 shard and on 4, as the
rules run them (per shard, then gathered), give the same tables. The 4-shard run replays the
1-shard run's model cache in replay-only mode, so a prompt or parameter that depended on the
shard (on a task's position in a batch, on its batch-mates) would be a cache miss and fail."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

from ramp import study_config
from ramp.llm.cache import CachedLLM
from ramp.llm.fake import FakeLLM
from ramp.methods import stages
from ramp.runs import RUN_FILES, RunId
from ramp.shards import all_shards
from ramp.task_table import build_task_table, read_problems
from tests.agents.scripted import TESTS_OK, role_of, ruby

TINY = Path(__file__).resolve().parents[1] / "data" / "tiny.jsonl"
K = 3
CONFIG = {
    "study": {"iterations": K, "seed": 0, "variants": ["ramp", "self_planning"]},
    "variants": {"ramp": {}, "self_planning": {"method": "self_planning"}},
    "models": {"use": ["fake"], "entries": {"fake": {"backend": "llamacpp", "weights": "x"}}},
}
# Columns that measure the process or the machine, not the study.
MEASURED = ["peak_rss_mb", "exec_seconds"]


def _digest(prompt) -> int:
    text = "\n".join(m.content for m in prompt)
    return int(hashlib.sha256(text.encode()).hexdigest(), 16)


def answer(prompt) -> str:
    """An answer that is a function of the prompt alone: some candidates right, some wrong, so
    that tasks close at different iterations."""
    role = role_of(prompt)
    if role == "test_design":
        return TESTS_OK
    if role in ("reflection", "feedback", "planner"):
        return f"The bug, seen from {_digest(prompt) % 997}: the output is off."
    # A task's candidate is right from iteration 1, 2 or 3 on, by its buggy program alone (not
    # by the wording around it), so that tasks close at different iterations whatever the
    # templates say; the iteration is the number of analyses the prompt shows.
    text = prompt[-1].content
    program = text.split("Buggy Ruby program", 1)[-1].split("Analysis", 1)[0]
    closes_at = int(hashlib.sha256(program.encode()).hexdigest(), 16) % 3 + 1
    right = text.count("\nAnalysis ") >= closes_at
    return ruby("n = gets.to_i\nputs n * 2" if right else "n = gets.to_i\nputs n + 1")


@pytest.fixture(scope="module")
def tasks(tmp_path_factory) -> Path:
    """Nine tasks: the tiny data set's loadable rows, three times under new ids."""
    folder = tmp_path_factory.mktemp("tasks")
    rows = []
    for line in TINY.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue  # the tiny set's malformed rows
        for copy in range(3):
            rows.append({**row, "apr_id": f"{row.get('apr_id')}-{copy}",
                         "bug_code_uid": f"{row.get('bug_code_uid')}-{copy}"})
    (folder / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    build_task_table(folder / "tasks.jsonl", folder / "tasks.parquet", folder / "errors.parquet")
    return folder / "tasks.parquet"


def run_study(root: Path, tasks: Path, shards: int, cache: Path, mode: str, monkeypatch) -> Path:
    """Every agent stage of RAMP and of a baseline, per shard and gathered, as the rules do."""
    monkeypatch.setattr(study_config, "build_llm", lambda config, name: CachedLLM(
        FakeLLM(respond=answer, model_id="fake"), cache, mode))
    names = [s.name for s in all_shards(shards)]

    def part(run_dir: Path, name: str, shard: str, **values) -> Path:
        return run_dir / "shards" / shard / RUN_FILES[name].format(**values)

    def gather(run: RunId, run_dir: Path, name: str, **values) -> None:
        out = run_dir / RUN_FILES[name].format(**values)
        stages.gather_shards(run, [part(run_dir, name, s, **values) for s in names], tasks, out)

    ramp = RunId("default", "fake", "ramp", "tiny")
    folder = root / "ramp"
    for shard in all_shards(shards):
        stages.reflect(CONFIG, ramp, tasks, part(folder, "reflections", shard.name), shard=shard)
        stages.design_tests(CONFIG, ramp, tasks, part(folder, "tests", shard.name), workers=1,
                            shard=shard)
        for t in range(1, K + 1):
            previous = (part(folder, "reflections", shard.name) if t == 1
                        else part(folder, "iteration", shard.name, t=t - 1))
            inputs = {"tasks": tasks, "tests": part(folder, "tests", shard.name),
                      "previous": previous}
            stages.repair_iteration(CONFIG, ramp, t, inputs,
                                    part(folder, "iteration", shard.name, t=t), workers=1,
                                    shard=shard)
    for name in ("reflections", "tests"):
        gather(ramp, folder, name)
    for t in range(1, K + 1):
        gather(ramp, folder, "iteration", t=t)
    stages.collect_attempts(ramp, [folder / RUN_FILES["iteration"].format(t=t)
                                   for t in range(1, K + 1)], folder / RUN_FILES["attempts"])

    baseline = RunId("default", "fake", "self_planning", "tiny")
    folder = root / "self_planning"
    for shard in all_shards(shards):
        outputs = {n: part(folder, r, shard.name) for n, r in
                   (("attempts", "method_attempts"), ("reflections", "reflections"),
                    ("tests", "tests"))}
        stages.run_method(CONFIG, baseline, tasks, outputs, workers=1, shard=shard)
    for name in ("reflections", "tests", "method_attempts"):
        gather(baseline, folder, name)
    return root


def tables(root: Path) -> dict[str, pd.DataFrame]:
    return {str(p.relative_to(root)): pd.read_parquet(p).drop(columns=MEASURED, errors="ignore")
            for p in sorted(root.rglob("*.parquet")) if "shards" not in p.parts}


def test_one_shard_and_four_give_the_same_tables(tasks, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    one = tables(run_study(tmp_path / "one", tasks, 1, cache, "read-write", monkeypatch))
    four = tables(run_study(tmp_path / "four", tasks, 4, cache, "replay-only", monkeypatch))
    assert one.keys() == four.keys() and len(one) == 2 + K + 1 + 3
    for name, frame in one.items():
        pd.testing.assert_frame_equal(four[name], frame, obj=name)

    # The study is not trivial: every task ran, and tasks closed at different iterations.
    n_tasks = len(read_problems(tasks))
    assert n_tasks >= 8 and len(one["ramp/reflections.parquet"]) == n_tasks
    open_per_t = [len(one[f"ramp/iterations/{t}.parquet"]) for t in range(1, K + 1)]
    assert open_per_t[0] == n_tasks and n_tasks > open_per_t[-1] > 0, open_per_t
    assert set(one["self_planning/method_attempts.parquet"].task_id) == {
        p.task_id for p in read_problems(tasks)}
    # Four shards of this many tasks: every shard had work, one per task at most.
    assert len(list((tmp_path / "four" / "ramp" / "shards").iterdir())) == 4


def test_a_shard_with_no_task_writes_empty_tables_and_loads_no_model(tasks, tmp_path,
                                                                      monkeypatch):
    def no_model(config, name):
        raise AssertionError("an empty shard loaded a model")

    monkeypatch.setattr(study_config, "build_llm", no_model)
    run = RunId("default", "fake", "ramp", "tiny")
    n_tasks = len(read_problems(tasks))
    empty = all_shards(n_tasks + 1)[-1]
    out = tmp_path / "reflections.parquet"
    assert len(stages.reflect(CONFIG, run, tasks, out, shard=empty)) == 0
    assert len(stages.design_tests(CONFIG, run, tasks, tmp_path / "tests.parquet", workers=1,
                                   shard=empty)) == 0
    outputs = {n: tmp_path / f"sp_{n}.parquet" for n in ("attempts", "reflections", "tests")}
    baseline = RunId("default", "fake", "self_planning", "tiny")
    assert len(stages.run_method(CONFIG, baseline, tasks, outputs, workers=1, shard=empty)) == 0
