import dataclasses
import json

import pandas as pd
import pytest

from ramp.io import write_parquet, write_text
from ramp.llm import CachedLLM, FakeLLM, LLMError, SamplingParams, UsageLog, messages
from ramp.llm.base import LLM, Completion
from ramp.llm.cache import cache_key, replayable
from ramp.llm.prefix_cache import COUNTERS
from ramp.llm.usage import CallRecord

P1 = messages(("system", "You fix Ruby."), ("user", "fix: puts 1+"))
P2 = messages(("user", "write tests"))


def test_fake_queue_then_function_and_records_prompts():
    fake = FakeLLM(["one two three"], respond=lambda p: p[-1].content.upper())
    out = fake.complete([P1, P2], SamplingParams(max_new_tokens=2))
    assert [c.text for c in out] == ["one two", "WRITE TESTS"]
    assert [c.finish_reason for c in out] == ["length", "stop"]
    assert out[0].completion_tokens == 2 and out[0].prompt_tokens == 6
    assert fake.prompts == [P1, P2] and fake.batches == 1
    assert isinstance(fake, LLM)


def test_fake_stop_strings_and_exhaustion():
    fake = FakeLLM(["code```rest"])
    (c,) = fake.complete([P1], SamplingParams(stop=("```",)))
    assert (c.text, c.finish_reason) == ("code", "stop")
    with pytest.raises(LLMError, match="no scripted response left"):
        fake.complete([P1], SamplingParams())


def test_usage_by_role_frame():
    log = UsageLog()
    fake = FakeLLM(respond=lambda p: "a b c")
    log.tagged(fake, "programmer").complete([P1, P2], SamplingParams())
    log.tagged(fake, "reflection").complete([P2], SamplingParams())
    frame = log.by_role()
    assert list(frame.columns) == [
        "role", "calls", "prompt_tokens", "completion_tokens", "seconds", "reused_prompt_tokens",
        "kv_read_bytes", "kv_written_bytes",
    ]
    assert frame.to_dict("records")[0] == {
        "role": "programmer",
        "calls": 2,
        "prompt_tokens": 8,
        "completion_tokens": 6,
        "seconds": 0.0,
        "reused_prompt_tokens": 0,
        "kv_read_bytes": 0,
        "kv_written_bytes": 0,
    }
    assert frame["role"].tolist() == ["programmer", "reflection"]
    assert len(log.calls_frame()) == 3
    assert UsageLog().by_role().empty


def test_cache_key_depends_on_model_prompt_and_params():
    base = cache_key("m", P1, SamplingParams())
    assert base == cache_key("m", P1, SamplingParams())
    assert base != cache_key("m2", P1, SamplingParams())
    assert base != cache_key("m", P2, SamplingParams())
    assert base != cache_key("m", P1, SamplingParams(seed=1))


def test_cache_hit_miss_and_partial_batch(tmp_path):
    fake = FakeLLM(respond=lambda p: f"answer to {p[-1].content}")
    cached = CachedLLM(fake, tmp_path)
    first = cached.complete([P1], SamplingParams())
    assert (cached.hits, cached.misses, len(fake.seen)) == (0, 1, 1)
    both = cached.complete([P2, P1], SamplingParams())
    assert both[1] == first[0]  # served from the cache
    assert fake.prompts[-1] == P2 and len(fake.seen) == 2  # only the miss reached the model
    key = cache_key("fake", P1, SamplingParams())
    assert cached.path_of(key).exists() and cached.path_of(key).parent.name == key[:2]


def test_one_prompt_with_several_seeds_is_keyed_and_recorded_per_seed(tmp_path):
    fake = FakeLLM(respond=lambda p: f"answer {len(fake.seen)}")
    cached = CachedLLM(fake, tmp_path, chunk_size=4)
    seeds = [SamplingParams(temperature=0.8, seed=s) for s in (1, 1001, 2001)]
    first = cached.complete([P1] * 3, seeds)
    assert [c.text for c in first] == ["answer 1", "answer 2", "answer 3"] and fake.batches == 1
    for params in seeds:
        assert cached.path_of(cache_key("fake", P1, params)).exists()
    # One seed alone, or in another order, gets its own recorded answer back.
    assert cached.complete([P1], seeds[1]) == [first[1]]
    assert cached.complete([P1] * 2, [seeds[2], seeds[0]]) == [first[2], first[0]]
    assert fake.batches == 1


def test_replay_only_miss_names_model_and_key(tmp_path):
    cached = CachedLLM(FakeLLM(["x"], model_id="qwen-test"), tmp_path, mode="replay-only")
    key = cache_key("qwen-test", P1, SamplingParams())
    with pytest.raises(LLMError, match=f"model qwen-test: key {key}"):
        cached.complete([P1], SamplingParams())


def test_off_mode_passes_through(tmp_path):
    fake = FakeLLM(["a", "b"])
    cached = CachedLLM(fake, tmp_path, mode="off")
    assert [c.text for c in cached.complete([P1, P1], SamplingParams())] == ["a", "b"]
    assert not any(tmp_path.iterdir())


def _stage(llm, out_path):
    """A miniature stage: calls by two roles, then completions + usage to Parquet."""
    log = UsageLog()
    params = SamplingParams(temperature=0.8, top_p=0.95, seed=3)
    answers = log.tagged(llm, "programmer").complete([P1, P2], params)
    answers += log.tagged(llm, "reflection").complete([P2], params)
    frame = pd.DataFrame(
        {"text": [c.text for c in answers], "seconds": [c.seconds for c in answers]}
    )
    write_parquet(frame, out_path / "answers.parquet")
    write_parquet(log.by_role(), out_path / "usage.parquet")


def test_rerun_from_cache_makes_no_calls_and_identical_parquet(tmp_path):
    import itertools

    counter = itertools.count()
    recorder = FakeLLM(respond=lambda p: f"sample {next(counter)}")  # non-deterministic model
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    _stage(CachedLLM(recorder, tmp_path / "cache"), tmp_path / "a")
    replayer = FakeLLM(model_id="fake")  # answers nothing: any call would fail
    _stage(CachedLLM(replayer, tmp_path / "cache", mode="replay-only"), tmp_path / "b")
    assert replayer.seen == []
    for name in ("answers.parquet", "usage.parquet"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_a_backend_s_own_counters_are_stored_beside_the_fields_and_summed_by_role(tmp_path):
    counted = Completion("x", "stop", 5, 1, 0.5, {"reused_prompt_tokens": 4, "kv_read_bytes": 9})
    cached = CachedLLM(FakeLLM(respond=lambda p: "unused"), tmp_path)
    path = cached.path_of(cache_key("fake", P1, SamplingParams()))
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"model_id": "fake", "completion": counted.to_json()}))
    assert json.loads(path.read_text())["completion"]["kv_read_bytes"] == 9  # as ever
    log = UsageLog()
    (replayed,) = log.tagged(cached, "programmer").complete([P1], SamplingParams())
    assert replayed == counted
    log.tagged(FakeLLM(["y"]), "programmer").complete([P2], SamplingParams())  # counts none
    row = log.by_role().to_dict("records")[0]
    assert (row["reused_prompt_tokens"], row["kv_read_bytes"], row["kv_written_bytes"]) == (4, 9, 0)


def test_a_call_record_ends_with_the_counters():
    names = [f.name for f in dataclasses.fields(CallRecord)]
    assert names[-len(COUNTERS):] == list(COUNTERS)


def test_a_stored_completion_missing_a_field_or_with_a_bad_counter_is_named():
    stored = Completion("x", "stop", 5, 1, 0.5).to_json()
    assert set(stored) == {"text", "finish_reason", "prompt_tokens", "completion_tokens",
                           "seconds"}
    with pytest.raises(TypeError, match="without seconds"):
        Completion.from_json({k: v for k, v in stored.items() if k != "seconds"})
    with pytest.raises(TypeError, match="counter 'kv_read_bytes' is '9'"):
        Completion.from_json({**stored, "kv_read_bytes": "9"})


def test_corrupt_cache_entry_is_a_clear_error(tmp_path):
    cached = CachedLLM(FakeLLM(["x"]), tmp_path)
    cached.complete([P1], SamplingParams())
    path = cached.path_of(cache_key("fake", P1, SamplingParams()))
    path.write_text("{not json")
    with pytest.raises(LLMError, match="corrupt cache entry"):
        cached.complete([P1], SamplingParams())


def test_an_interrupted_batch_keeps_every_finished_chunk(tmp_path):
    """The model dies on the 3rd prompt of 4: the first two are recorded, and the rerun asks
    the model only for the last two (resume inside a stage)."""
    answers = iter(["a", "b"])

    def flaky(prompt):
        try:
            return next(answers)
        except StopIteration:
            raise RuntimeError("killed") from None

    prompts = [messages(("user", f"q{i}")) for i in range(4)]
    with pytest.raises(RuntimeError, match="killed"):
        CachedLLM(FakeLLM(respond=flaky), tmp_path).complete(prompts, SamplingParams())
    second = FakeLLM(["c", "d"])
    cached = CachedLLM(second, tmp_path, chunk_size=1)
    assert [c.text for c in cached.complete(prompts, SamplingParams())] == ["a", "b", "c", "d"]
    assert cached.hits == 2 and [p[0].content for p in second.prompts] == ["q2", "q3"]
    assert second.batches == 2  # one model call per chunk of 1


def test_chunks_follow_the_backends_batch(tmp_path):
    inner = FakeLLM(respond=lambda p: p[0].content.upper())
    cached = CachedLLM(inner, tmp_path, chunk_size=3)
    prompts = [messages(("user", f"q{i}")) for i in range(7)]
    texts = [c.text for c in cached.complete(prompts, SamplingParams())]
    assert texts == [f"Q{i}" for i in range(7)]
    assert inner.batches == 3
    with pytest.raises(ValueError, match="chunk_size"):
        CachedLLM(inner, tmp_path, chunk_size=0)


def test_progress_says_how_many_calls_are_done_and_about_how_long_is_left(tmp_path, caplog):
    caplog.set_level("INFO", logger="ramp.llm.cache")
    CachedLLM(FakeLLM(["a"]), tmp_path).complete([P1], SamplingParams())  # one cached
    cached = CachedLLM(FakeLLM(["b", "c"]), tmp_path, chunk_size=1)
    cached.complete([P1, P2, messages(("user", "third"))], SamplingParams())
    lines = [r.getMessage() for r in caplog.records if "model calls" in r.getMessage()]
    assert lines[0].startswith("model calls: 1/2 new done, 1 replayed from the cache (")
    assert "min left)" in lines[0]


def _stored(reason, prompt_tokens=100, completion_tokens=50):
    return Completion("x", reason, prompt_tokens, completion_tokens, 1.0)


def test_an_answer_the_context_cut_is_never_replayed():
    cap = SamplingParams(max_new_tokens=64)
    # Cut before its cap: the context it was recorded under stopped it.
    assert replayable(_stored("length", completion_tokens=50), cap, 8192) is None
    assert replayable(_stored("length", completion_tokens=50), cap, None) is None
    # Ended, or cut by its own cap: the same under any context that holds prompt and cap.
    for stored in (_stored("stop"), _stored("length", completion_tokens=64)):
        assert replayable(stored, cap, 8192) is stored
        assert replayable(stored, cap, 164) is stored
        over = replayable(stored, cap, 163)
        assert (over.finish_reason, over.text, over.prompt_tokens) == ("over_context", "", 100)
    # Not sent for want of room: asked again once the context has it.
    assert replayable(_stored("over_context", completion_tokens=0), cap, 8192) is None
    kept = _stored("over_context", completion_tokens=0)
    assert replayable(kept, cap, 150) is kept


def test_a_replay_only_cache_refuses_an_answer_cut_by_the_context(tmp_path):
    params = SamplingParams(max_new_tokens=64)
    cached = CachedLLM(FakeLLM(["full answer"]), tmp_path, context_size=8192)
    cut = Completion("The", "length", 4090, 6, 1.0)
    write_text(cached.path_of(cache_key("fake", P1, params)),
               json.dumps({"model_id": "fake", "key": cache_key("fake", P1, params),
                           "completion": cut.to_json()}))
    assert cached.complete([P1], params)[0].text == "full answer"  # asked again, re-recorded
    assert cached.refused == 1
    assert CachedLLM(FakeLLM([]), tmp_path, context_size=8192).complete([P1], params)[0].text \
        == "full answer"
