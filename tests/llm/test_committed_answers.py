"""Committed answers: a cache folder packed into one file, and a cache that answers from it."""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import pytest

from ramp.llm import answers
from ramp.llm.base import Completion, LLMError, SamplingParams, messages
from ramp.llm.cache import CachedLLM
from ramp.llm.fake import FakeLLM
from ramp.llm.spec import ModelsConfig

PARAMS = SamplingParams(0.8, 0.95, 64, 3)
REPO = Path(__file__).resolve().parents[2]


def _record(tmp_path, texts, first=0):
    cache = CachedLLM(FakeLLM(texts, model_id="m"), tmp_path / "cache")
    prompts = [messages(("user", f"question {i}")) for i in range(first, first + len(texts))]
    return cache.complete(prompts, PARAMS), prompts


def test_export_is_sorted_deterministic_and_holds_no_prompt(tmp_path):
    recorded, _ = _record(tmp_path, ["one", "two", "three"])
    out = tmp_path / "a.jsonl.gz"
    assert answers.export(answers.cache_entries(tmp_path / "cache"), out) == 3
    first = out.read_bytes()
    answers.export(answers.cache_entries(tmp_path / "cache"), out)
    assert out.read_bytes() == first  # no time stamp in the gzip header
    with gzip.open(out, "rt") as f:
        rows = [json.loads(line) for line in f]
    assert [r["key"] for r in rows] == sorted(r["key"] for r in rows)
    assert not any("question" in json.dumps(r) for r in rows)
    assert {r["completion"]["text"] for r in rows} == {c.text for c in recorded}


def test_a_replay_only_cache_answers_from_committed_answers_alone(tmp_path):
    recorded, prompts = _record(tmp_path, ["one", "two"])
    out = tmp_path / "committed" / "study.jsonl.gz"
    answers.export(answers.cache_entries(tmp_path / "cache"), out)
    model = FakeLLM(model_id="m")  # would fail if asked: it has no answer
    replay = CachedLLM(model, tmp_path / "empty", "replay-only",
                       committed=answers.load([out.parent]))
    assert replay.complete(prompts, PARAMS) == recorded and model.seen == []
    with pytest.raises(LLMError, match="replay-only cache miss"):
        replay.complete([messages(("user", "a question never asked"))], PARAMS)


def test_update_keeps_the_committed_answers_and_adds_the_caches(tmp_path):
    """A study resumed from committed answers records only its new calls: --update adds them."""
    _record(tmp_path / "one", ["one", "two"])
    out = tmp_path / "study.jsonl.gz"
    answers.export(answers.cache_entries(tmp_path / "one" / "cache"), out)
    _record(tmp_path / "two", ["three"], first=2)  # another sitting: a fresh cache folder
    cache = tmp_path / "two" / "cache"
    code = answers.main(answers_args(cache, out, update=True))
    assert code == 0
    assert sorted(c.text for c in answers.load([out]).values()) == ["one", "three", "two"]
    assert answers.main(answers_args(cache, out, update=False)) == 0  # without: the cache alone
    assert [c.text for c in answers.load([out]).values()] == ["three"]


def test_skip_leaves_out_the_answers_another_file_holds(tmp_path):
    """A new study's file holds only its own calls, not those replayed from another study's."""
    _record(tmp_path / "one", ["one", "two"])
    folder = tmp_path / "answers"
    folder.mkdir()
    answers.export(answers.cache_entries(tmp_path / "one" / "cache"), folder / "old.jsonl.gz")
    _record(tmp_path / "one", ["three"], first=2)  # the same cache: old answers and a new one
    new = folder / "new.jsonl.gz"
    assert answers.main(answers_args(tmp_path / "one" / "cache", new, update=True,
                                     skip=[folder])) == 0
    assert [c.text for c in answers.load([new]).values()] == ["three"]
    # --out itself is never skipped: updating it again keeps its answer.
    assert answers.main(answers_args(tmp_path / "one" / "cache", new, update=True,
                                     skip=[folder])) == 0
    assert [c.text for c in answers.load([new]).values()] == ["three"]


def test_a_missing_skip_path_is_a_one_line_error(tmp_path, capsys):
    _record(tmp_path, ["one"])
    out = tmp_path / "new.jsonl.gz"
    code = answers.main(answers_args(tmp_path / "cache", out, update=False,
                                     skip=[tmp_path / "nowhere"]))
    assert code == 2 and not out.exists()
    err = capsys.readouterr().err.strip()
    assert err.startswith("ramp answers: ") and "nowhere" in err and "\n" not in err


def answers_args(cache, out, *, update, skip=()):
    parser = argparse.ArgumentParser()
    answers.add_arguments(parser)
    argv = ["--cache", str(cache), "--out", str(out)] + (["--update"] if update else [])
    argv += [arg for path in skip for arg in ("--skip", str(path))]
    return parser.parse_args(argv)


def test_a_bad_committed_file_is_named(tmp_path):
    bad = tmp_path / "bad.jsonl.gz"
    with gzip.open(bad, "wt") as f:
        f.write('{"key": "k"}\n')
    with pytest.raises(LLMError, match=r"bad.jsonl.gz:1: not a committed answer"):
        answers.load([bad])
    with pytest.raises(LLMError, match="does not exist"):
        answers.load([tmp_path / "nowhere"])


def test_the_config_names_committed_answers():
    config = ModelsConfig.from_dict({"use": [], "entries": {},
                                     "cache": {"committed": ["data/answers"]}})
    assert config.cache.committed == ("data/answers",)


def test_a_replayed_study_s_folder_packs_exactly_the_answers_it_used(tmp_path):
    """A committed answer replayed is copied into the cache folder: a fresh folder ends up with
    the answers its study used, so packing it prunes the ones no study asks for any more."""
    recorded, prompts = _record(tmp_path, ["one", "two"])
    out = tmp_path / "committed" / "study.jsonl.gz"
    answers.export(answers.cache_entries(tmp_path / "cache"), out)
    fresh = tmp_path / "fresh"
    replay = CachedLLM(FakeLLM(model_id="m"), fresh, "replay-only",
                       committed=answers.load([out.parent]))
    assert replay.complete(prompts[:1], PARAMS) == recorded[:1]  # the study now asks one
    pruned = tmp_path / "pruned.jsonl.gz"
    assert answers.main(answers_args(fresh, pruned, update=False)) == 0
    assert [c.text for c in answers.load([pruned]).values()] == ["one"]


def test_every_committed_answer_reads_back_as_it_was_stored():
    """The committed studies replay as recorded: each answer, its llamacpp counters (stored as
    fields of their own, as always) included, reads and writes back to the stored entry."""
    files = sorted((REPO / "data" / "answers").glob("*.jsonl.gz"))
    assert files
    for path in files:
        counted = 0
        for entry in answers.file_entries(path):
            completion = Completion.from_json(entry["completion"])
            assert completion.to_json() == entry["completion"], (path.name, entry["key"])
            counted += "reused_prompt_tokens" in completion.counters
        assert counted, f"{path.name}: no answer has the llamacpp counters"
