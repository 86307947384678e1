"""A llama.cpp answer is a function of model, prompt, parameters and seed (the real 0.5B, T = 0.8).

Whatever ran before (another prompt sharing the prefix, a call replayed from the cache, nothing:
another process, a prefix's KV state loaded from the disk cache, here or in another process) the
same prompt gives the same text, while whole batches of a shared prefix are still taken from the
KV cache. Generations stay short: this runs on a 2-core CPU.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ramp.llm import CachedLLM, SamplingParams, create_llm, embedded, messages
from ramp.llm.prefix_cache import TAIL, Grain, PrefixCache
from ramp.llm.spec import ModelSpec

from .conftest import SHARED, SMALL, SYSTEM, check_answer_ends_at_the_program

pytestmark = [pytest.mark.slow, pytest.mark.model]

FIRST = messages(SYSTEM, ("user", SHARED + "Explain the bug in one sentence."))
SECOND = messages(SYSTEM, ("user", SHARED + "Which line is wrong? Answer briefly."))
PARAMS = SamplingParams(temperature=0.8, top_p=0.95, max_new_tokens=12, seed=7)
SPEC = dict(name=SMALL, backend="llamacpp", embedded=SMALL, n_threads=1, context_size=1024,
            n_batch=32)


@pytest.fixture(scope="module")
def llm():
    pytest.importorskip("llama_cpp")
    try:
        embedded.resolve(SMALL)
    except FileNotFoundError:
        pytest.skip(f"{SMALL} not installed (`python -m ramp models install {SMALL}`)")
    return create_llm(ModelSpec(**SPEC))


def _reused(completion) -> int:
    return completion.counters["reused_prompt_tokens"]


def _read(completion) -> int:
    return completion.counters["kv_read_bytes"]


def _written(completion) -> int:
    return completion.counters["kv_written_bytes"]


def _fresh(llm):
    llm.llm.reset()  # an empty KV cache, as in a new process
    llm.llm.whole = 0


def test_same_text_fresh_after_a_shared_prefix_and_repeated(llm):
    _fresh(llm)
    (fresh,) = llm.complete([SECOND], PARAMS)
    assert _reused(fresh) == 0
    _fresh(llm)
    _, after = llm.complete([FIRST, SECOND], PARAMS)
    # The shared prefix was reused, in whole grains of 4 tokens (this build's)...
    assert llm.llm.grain == Grain(4, 32, TAIL)
    assert _reused(after) >= 64 and _reused(after) % 4 == 0
    assert _reused(after) < after.prompt_tokens
    # ...and the answer is the fresh one, token for token.
    assert after.text == fresh.text and after.completion_tokens == fresh.completion_tokens
    (again,) = llm.complete([SECOND], PARAMS)  # the prompt itself is in the cache now
    assert _reused(again) == llm.llm.grain.fit(
        (again.prompt_tokens - 1) // 4 * 4, again.prompt_tokens)
    assert again.text == fresh.text


def test_resumed_run_replays_the_first_call_and_answers_the_second_alike(llm, tmp_path):
    _fresh(llm)
    clean = CachedLLM(llm, tmp_path / "clean")
    _, clean_second = clean.complete([FIRST, SECOND], PARAMS)
    # The resumed run finds only the first answer recorded: it is replayed, the second is
    # generated from an empty KV cache (in the clean run it followed the first).
    resumed_dir = tmp_path / "resumed"
    (only_first,) = CachedLLM(llm, resumed_dir).complete([FIRST], PARAMS)
    _fresh(llm)
    resumed = CachedLLM(llm, resumed_dir)
    replayed, resumed_second = resumed.complete([FIRST, SECOND], PARAMS)
    assert (resumed.hits, resumed.misses) == (1, 1)
    assert replayed == only_first
    assert _reused(resumed_second) == 0 < _reused(clean_second)
    assert resumed_second.text == clean_second.text


_CHILD = """
import json, sys
from pathlib import Path
from ramp.llm import SamplingParams, create_llm, messages
from ramp.llm.spec import ModelSpec
spec, prompt, params, prefix_dir = json.loads(sys.stdin.read())
llm = create_llm(ModelSpec(**spec), prefix_dir=prefix_dir and Path(prefix_dir),
                 prefix_max_bytes=2**30)
(c,) = llm.complete([messages(*prompt)], SamplingParams(**params))
print(json.dumps([c.text, c.counters["reused_prompt_tokens"], c.counters["kv_read_bytes"]]))
"""


def _in_another_process(prompt, prefix_dir=None, **spec):
    """(text, reused prompt tokens, bytes read from the prefix cache) of a new process, its
    model entry ``SPEC`` with ``spec``'s changes."""
    payload = json.dumps([SPEC | spec, [[m.role, m.content] for m in prompt],
                          {"temperature": 0.8, "top_p": 0.95, "max_new_tokens": 12, "seed": 7},
                          prefix_dir and str(prefix_dir)])
    done = subprocess.run([sys.executable, "-c", _CHILD], input=payload, capture_output=True,
                          text=True, check=True, timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_another_process_gives_the_same_text(llm):
    _fresh(llm)
    _, here = llm.complete([FIRST, SECOND], PARAMS)
    text, reused, _ = _in_another_process(SECOND)
    assert (text, reused) == (here.text, 0)


def test_one_thread_evaluates_prompts_too_and_two_give_the_same_text(llm):
    """n_threads is every thread of the job: llama-cpp-python's own default for prompts is all
    the machine's cores. The count is not in the model id, since it changes speed only."""
    import llama_cpp

    ctx = llm.llm._ctx.ctx
    assert (llama_cpp.llama_n_threads(ctx), llama_cpp.llama_n_threads_batch(ctx)) == (1, 1)
    _fresh(llm)
    (here,) = llm.complete([SECOND], PARAMS)
    text, reused, _ = _in_another_process(SECOND, n_threads=2)
    assert (text, reused) == (here.text, 0)


def test_same_text_from_a_prefix_loaded_from_the_disk_cache_here_and_in_another_process(
    llm, tmp_path
):
    """FIRST's whole batches go to the disk cache; SECOND, in a new KV cache (as in the next
    stage job) and in a new process, loads the batches it shares with them: same text."""
    _fresh(llm)
    (fresh,) = llm.complete([SECOND], PARAMS)
    assert _read(fresh) == _written(fresh) == 0  # no disk cache: none used
    llm.llm.prefix_cache = PrefixCache(tmp_path / "kv", llm.state_identity, 4, 2**30)
    try:
        _fresh(llm)
        (first,) = llm.complete([FIRST], PARAMS)
        assert _written(first) > 0 and _read(first) == 0
        _fresh(llm)
        (loaded,) = llm.complete([SECOND], PARAMS)
    finally:
        llm.llm.prefix_cache = None
    assert _read(loaded) > 0
    assert _reused(loaded) >= 64 and _reused(loaded) % 4 == 0
    assert loaded.text == fresh.text and loaded.completion_tokens == fresh.completion_tokens
    text, reused, read = _in_another_process(SECOND, tmp_path / "kv")
    assert text == fresh.text and reused >= 64 and read > 0


def test_a_prefix_inside_a_batch_is_reused_and_the_text_is_the_fresh_one():
    """With batches of 512 both prompts fit in one, so whole batches would reuse nothing; whole
    grains of 4 reuse all but the last tokens of the shared prefix: same text at T = 0.8."""
    llm = create_llm(ModelSpec(**{**SPEC, "n_batch": 512}))
    assert llm.llm.grain == Grain(4, 512, TAIL)
    (fresh,) = llm.complete([SECOND], PARAMS)
    _fresh(llm)
    _, after = llm.complete([FIRST, SECOND], PARAMS)
    assert 100 <= _reused(after) < after.prompt_tokens - TAIL + 4
    assert after.text == fresh.text and after.completion_tokens == fresh.completion_tokens


def test_generation_stops_at_the_end_of_the_program(llm):
    check_answer_ends_at_the_program(llm)


def test_a_stored_state_is_keyed_by_the_cpu_features_of_the_build(llm):
    """A native build computes with the kernels the CPU has (AVX-512 or not), so the bits of a
    state depend on them: a folder shared by unlike cluster nodes must not mix their states."""
    import llama_cpp

    features = llama_cpp.llama_print_system_info().decode()
    identity = llm.state_identity
    assert identity.startswith(llm.model_id + "|")
    assert identity.endswith("|cpu=" + " ".join(features.split()))


def test_a_prompt_over_the_context_is_not_sent_but_an_outcome(llm):
    """A prompt that leaves less than its answer's cap in the context (here: over it alone, and
    one that fits but leaves too little) is not generated, where the library would cut the
    answer silently: its outcome says so, and the next call still answers."""
    long = messages(SYSTEM, ("user", SHARED * 12 + "Explain the bug."))  # ~2,000 tokens
    (over,) = llm.complete([long], PARAMS)
    assert (over.finish_reason, over.text, over.completion_tokens) == ("over_context", "", 0)
    assert over.prompt_tokens > 1024
    (answer,) = llm.complete([FIRST], PARAMS)  # still answers
    assert answer.completion_tokens > 0
    tight = SamplingParams(max_new_tokens=1024 - answer.prompt_tokens + 1)
    (cut,) = llm.complete([FIRST], tight)
    assert cut.finish_reason == "over_context"


def test_the_grain_is_measured_once_and_kept_beside_the_stored_states(llm, tmp_path,
                                                                      monkeypatch):
    """A study's jobs share the disk cache's folder: the first job measures the grain (a
    property of model, build and CPU), the next ones read it; an unreadable record is measured
    again."""
    from ramp.llm.backends import llamacpp

    def load():
        return create_llm(ModelSpec(**SPEC), prefix_dir=tmp_path, prefix_max_bytes=2**30)

    assert load().llm.grain == llm.llm.grain  # measured, as without a folder
    (kept,) = tmp_path.glob("grain-*.json")
    measured = []
    monkeypatch.setattr(llamacpp, "reuse_grain",
                        lambda *a: measured.append(a) or llamacpp.Grain(8, 32, TAIL))
    assert load().llm.grain == llm.llm.grain and not measured
    kept.write_text("{not json", encoding="utf-8")
    assert load().llm.grain == llamacpp.Grain(8, 32, TAIL) and len(measured) == 1
    assert json.loads(kept.read_text(encoding="utf-8"))["block"] == 8
