"""The paper's own path end to end: config/paper.yaml's study run through the transformers
backend, its prompts generated in batches, on the CPU with the 0.5B.

Snakemake is given config/paper.yaml, as a GPU user runs it, and then a few overrides: the model
entry `qwen2.5-coder-0.5b-hf` (transformers, no quantization, batch size 4) instead of the 7B
backbones, RAMP alone on the first two tasks with K = 2, one shard so that both tasks' prompts
reach the model in one call, and shorter answer caps, since what is checked is the path (reflect,
design_tests, two repair iterations, scoring), not what the model writes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from ramp.runs import IDENTITY_COLUMNS

from .conftest import REPO, require_model, snakemake, study_folder, task_file

pytestmark = [pytest.mark.slow, pytest.mark.model]

MODEL = "qwen2.5-coder-0.5b-hf"
K = 2
RUN = Path("results") / "runs" / MODEL / "ramp" / "2"


def _entry() -> dict:
    return yaml.safe_load((REPO / "config" / "config.yaml").read_text())["models"]["entries"][MODEL]


@pytest.fixture(scope="module")
def paper_study(tmp_path_factory) -> Path:
    pytest.importorskip("transformers")
    require_model(_entry()["embedded"])
    work = study_folder(tmp_path_factory.mktemp("paper-study"))
    overrides = {
        "data": {"jsonl": task_file()},
        "subsets": ["2"],
        "study": {"variants": ["ramp"], "iterations": K, "shards": 1},
        "models": {"use": [MODEL]},
        "variants": {"ramp": {"analysis_max_tokens": 128, "code_max_tokens": 384}},
    }
    (work / "hf.yaml").write_text(yaml.safe_dump(overrides))
    # transformers on the CPU generates ~5 tokens a second for the 0.5B; on a busy 2-core
    # machine (load 3 to 10) this study took about 40 minutes, so its limit is above the
    # other studies'.
    target = str(RUN / "scores.parquet")
    snakemake(
        work,
        "--cores",
        "2",
        "--configfile",
        "config/paper.yaml",
        "hf.yaml",
        "--",
        target,
        timeout=4800,
    )
    return work


def _tables(study: Path) -> dict[str, pd.DataFrame]:
    run = study / RUN
    names = [
        "reflections",
        "tests",
        "attempts",
        "scores",
        "task_scores",
        "hidden_attempts",
        *(f"iterations/{t}" for t in range(1, K + 1)),
    ]
    return {n: pd.read_parquet(run / f"{n}.parquet") for n in names}


def test_the_entry_is_the_transformers_backend_with_batches():
    """What the study below stands for: an unquantized transformers model that batches."""
    entry = _entry()
    assert entry["backend"] == "transformers"
    assert entry.get("quantization", "none") == "none"
    assert entry["batch_size"] > 1


def test_every_stage_ran_and_the_run_was_scored(paper_study):
    tables = _tables(paper_study)
    reflections, tests = tables["reflections"], tables["tests"]
    assert len(reflections) == 2 and reflections.reflection.str.len().gt(0).all()
    assert (reflections.reflection_completion_tokens > 0).all()
    assert len(tests) == 2 and set(tests.source) <= {"generated", "samples"}
    assert (tests.test_design_completion_tokens > 0).all()
    first, second = tables["iterations/1"], tables["iterations/2"]
    assert len(first) == 2 and (first.programmer_completion_tokens > 0).all()
    # Iteration 2 holds the tasks iteration 1 left open; the 0.5B leaves these two open (a
    # second iteration is part of what this test is for).
    assert set(second.task_id) == set(first.task_id[~first.passed_generated])
    assert len(second) > 0, "both tasks passed their guiding tests in iteration 1"
    assert (second.programmer_completion_tokens > 0).all()
    assert len(tables["attempts"]) == len(first) + len(second)
    assert len(tables["hidden_attempts"]) == len(tables["attempts"])
    assert set(tables["task_scores"].task_id) == set(reflections.task_id)
    assert len(tables["scores"]) > 0
    for name, frame in tables.items():
        assert frame[list(IDENTITY_COLUMNS)].drop_duplicates().values.tolist() == [
            ["default", MODEL, "ramp", "2"]
        ], name


def test_each_stage_answered_its_tasks_in_one_batch(paper_study):
    """Every prompt of a batch is given the batch's time divided evenly (Completion.seconds):
    the two tasks' calls of a stage share one value, which two calls made apart would not."""
    tables = _tables(paper_study)
    calls = [
        (tables["reflections"], "reflection"),
        (tables["tests"], "test_design"),
        (tables["iterations/1"], "programmer"),
    ]
    first = tables["iterations/1"]
    if (~first.passed_generated).sum() > 1:  # both failed: their reflections went together
        calls.append((first, "feedback"))
    if len(tables["iterations/2"]) > 1:
        calls.append((tables["iterations/2"], "programmer"))
    for frame, role in calls:
        seconds = frame[f"{role}_seconds"]
        assert len(seconds) == 2 and seconds.gt(0).all(), role
        assert seconds.nunique() == 1, (role, seconds.tolist())


def test_every_call_went_to_the_transformers_model(paper_study):
    """The model cache holds one answer per call of the run's tables, each recorded under the
    transformers backend's identity of the 0.5B, unquantized."""
    entries = [
        json.loads(p.read_text())
        for p in (paper_study / "results" / "cache" / "llm").glob("*/*.json")
    ]
    tables = _tables(paper_study)
    attempts = tables["attempts"]
    made = (
        len(tables["reflections"])
        + len(tables["tests"])
        + len(attempts)
        + int(attempts.feedback_prompt.str.len().gt(0).sum())
    )
    assert len(entries) == made
    (model_id,) = {e["model_id"] for e in entries}
    assert model_id.startswith("transformers/qwen2.5-coder-0.5b@") and "/none/" in model_id
