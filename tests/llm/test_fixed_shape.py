"""Calls decoded together in a fixed shape (``decode_width``): an answer is still a function of
model, prompt, parameters and seed (the real 0.5B, T = 0.8), whatever decodes beside it.

The pure slot rules are checked on literal token lists; the decoder on the real model: with one
slot it gives the library's own texts (its sampling, stop strings and ends are the library's),
with four a prompt's text is the same alone (three paddings), beside three other prompts, in
another slot, joining after others ended, from a prefix loaded from the disk cache, and in
another process.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ramp.llm import ContextOverflow, SamplingParams, create_llm, embedded, messages
from ramp.llm.backends.fixed_shape import pick_slot
from ramp.llm.prefix_cache import reusable_prefix
from ramp.llm.spec import ConfigError, ModelSpec

from .conftest import (
    PROGRAM_THEN_PROSE,
    SHARED,
    SMALL,
    SYSTEM,
    check_answer_ends_at_the_program,
)


def test_a_slot_reuses_whole_blocks_of_what_it_holds_never_the_last_token():
    def reusable(held, tokens, block):  # a slot holds whole batches only
        return reusable_prefix(held, len(held), tokens, block)

    assert reusable([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6, 7], 2) == 6
    assert reusable([1, 2, 3, 4, 5, 6], [1, 2, 3, 9, 5, 6, 7], 2) == 2  # differs in block 2
    assert reusable([1, 2, 3, 4], [1, 2, 3, 4], 2) == 2  # the last token is evaluated again
    assert reusable([], [1, 2, 3], 2) == 0


def test_a_prompt_goes_to_the_free_slot_holding_most_of_it_else_the_first():
    held = [[1, 2, 3, 4], [1, 2], [], [1, 2, 3, 4]]
    assert pick_slot([1, 2, 3], held, [1, 2, 3, 4, 5], 2) == 3
    assert pick_slot([1, 2], held, [1, 2, 3, 4, 5], 2) == 1
    assert pick_slot([0, 2], held, [7, 8, 9], 2) == 0


def test_the_width_is_checked_and_named_in_the_error():
    with pytest.raises(ConfigError, match=r"models.entries.m.decode_width: must be >= 1"):
        ModelSpec(name="m", backend="llamacpp", weights="w.gguf", decode_width=0)
    with pytest.raises(ConfigError, match=r"decode_width: expected int"):
        ModelSpec.from_dict("m", {"backend": "llamacpp", "weights": "w.gguf",
                                  "decode_width": "4"})


QUESTIONS = ("Explain the bug in one sentence.", "Which line is wrong? Answer briefly.",
             "Write the fixed program.", "What does it print for n = 3 and 1 2 3?",
             "Name one edge case.")
PROMPTS = [messages(SYSTEM, ("user", SHARED + q)) for q in QUESTIONS]
# Different lengths, so calls end at different steps and others join mid-way.
PARAMS = [SamplingParams(temperature=0.8, top_p=0.95, max_new_tokens=n, seed=7)
          for n in (14, 6, 20, 9, 12)]
SPEC = dict(name=SMALL, backend="llamacpp", embedded=SMALL, n_threads=1, context_size=1024,
            n_batch=32)


def _model(prefix_dir=None, **spec):
    """The 0.5B with ``SPEC``'s settings and ``spec``'s; a disk prefix cache in
    ``prefix_dir``."""
    pytest.importorskip("llama_cpp")
    try:
        embedded.resolve(SMALL)
    except FileNotFoundError:
        pytest.skip(f"{SMALL} not installed (`python -m ramp models install {SMALL}`)")
    return create_llm(ModelSpec(**SPEC, **spec), prefix_dir=prefix_dir,
                      prefix_max_bytes=2**30 if prefix_dir else 0)


@pytest.fixture(scope="module")
def wide():
    return _model(decode_width=4)


model = pytest.mark.model
slow = pytest.mark.slow


@slow
@model
def test_one_slot_gives_the_library_s_own_texts():
    """Width 1 through the decoder is the library's path step for step: same prompt tokens,
    samplers, stop strings and ends, so the same texts (and the decoder is right)."""
    from ramp.llm.backends.fixed_shape import FixedShapeDecoder

    llm = _model()
    library = llm.complete(PROMPTS, PARAMS)
    llm.wide = FixedShapeDecoder(llm.llm, 1, SPEC["context_size"])
    try:
        decoded = llm.complete(PROMPTS, PARAMS)
    finally:
        llm.wide.close()
    assert [c.text for c in decoded] == [c.text for c in library]
    assert [(c.completion_tokens, c.finish_reason) for c in decoded] == [
        (c.completion_tokens, c.finish_reason) for c in library]


@slow
@model
def test_a_call_s_text_does_not_depend_on_what_decodes_beside_it(wide):
    assert wide.model_id.endswith("/batch32/width4-fa")
    together = wide.complete(PROMPTS, PARAMS)  # the fifth waits for a slot
    alone = [wide.complete([p], q)[0] for p, q in zip(PROMPTS, PARAMS, strict=True)]
    reversed_ = wide.complete(PROMPTS[::-1], PARAMS[::-1])[::-1]  # other slots, other joins
    texts = [c.text for c in together]
    assert [c.text for c in alone] == texts == [c.text for c in reversed_]
    assert all(c.completion_tokens > 0 for c in together)
    # The slots keep their prompts' whole batches: later calls reuse the shared prefix.
    assert all(c.reused_prompt_tokens >= 64 and c.reused_prompt_tokens % 32 == 0
               for c in alone[1:])


@slow
@model
def test_the_width_changes_the_bits_so_it_is_in_the_model_id(wide):
    """Four a step compute other bits than one (benchmarks/batched_bits.py): at T = 0.8 some
    of these answers differ, which is why the model id names the width."""
    one = _model()
    assert one.model_id + "/width4-fa" == wide.model_id
    params = SamplingParams(temperature=0.8, top_p=0.95, max_new_tokens=24, seed=7)
    texts = [c.text for c in one.complete(PROMPTS, params)]
    assert texts != [c.text for c in wide.complete(PROMPTS, params)]


_CHILD = """
import json, sys
from pathlib import Path
from ramp.llm import SamplingParams, create_llm, messages
from ramp.llm.spec import ModelSpec
spec, prompt, params, prefix_dir = json.loads(sys.stdin.read())
llm = create_llm(ModelSpec(**spec), prefix_dir=Path(prefix_dir), prefix_max_bytes=2**30)
(c,) = llm.complete([messages(*prompt)], SamplingParams(**params))
print(json.dumps([c.text, c.reused_prompt_tokens, c.kv_read_bytes]))
"""


@slow
@model
def test_same_text_from_a_prefix_in_the_disk_cache_here_and_in_another_process(tmp_path):
    (fresh,) = _model(decode_width=4).complete(PROMPTS[1:2], PARAMS[1])
    (first,) = _model(tmp_path / "kv", decode_width=4).complete(PROMPTS[:1], PARAMS[0])
    assert first.kv_written_bytes > 0
    # A new job (empty slots) loads the batches the second prompt shares with the first.
    (loaded,) = _model(tmp_path / "kv", decode_width=4).complete(PROMPTS[1:2], PARAMS[1])
    assert loaded.kv_read_bytes > 0 and loaded.reused_prompt_tokens >= 64
    assert loaded.text == fresh.text
    payload = json.dumps([SPEC | {"decode_width": 4}, [[m.role, m.content] for m in PROMPTS[1]],
                          {"temperature": 0.8, "top_p": 0.95, "max_new_tokens": 6, "seed": 7},
                          str(tmp_path / "kv")])
    done = subprocess.run([sys.executable, "-c", _CHILD], input=payload, capture_output=True,
                          text=True, check=True, timeout=600)
    text, reused, read = json.loads(done.stdout.strip().splitlines()[-1])
    assert text == fresh.text and reused >= 64 and read > 0


@slow
@model
def test_an_answer_ends_when_its_program_is_complete(wide):
    check_answer_ends_at_the_program(wide)
    (short,) = wide.complete([PROGRAM_THEN_PROSE], SamplingParams(max_new_tokens=5, seed=1))
    assert (short.completion_tokens, short.finish_reason) == (5, "length")


@slow
@model
def test_a_prompt_over_the_context_is_one_error_naming_the_setting(wide):
    long = messages(SYSTEM, ("user", SHARED * 12 + "Explain the bug."))  # ~2,000 tokens
    with pytest.raises(ContextOverflow,
                       match=r"does not fit its context of 1024 tokens .*context_size"):
        wide.complete([PROMPTS[0], long], PARAMS[:2])
    (answer,) = wide.complete(PROMPTS[:1], PARAMS[0])  # still answers
    assert answer.completion_tokens > 0


@slow
@model
def test_a_build_that_fails_the_check_is_refused_with_the_setting_named(monkeypatch):
    from ramp.llm.backends.fixed_shape import FixedShapeDecoder
    from ramp.llm.base import LLMError

    checked = []
    monkeypatch.setattr(FixedShapeDecoder, "check",
                        lambda self, probe: checked.append(len(probe)) or False)
    with pytest.raises(LLMError, match=r"decode_width 4 is not sound .* "
                                       r"models.entries.qwen2.5-coder-0.5b.decode_width to 1"):
        _model(decode_width=4)
    assert checked and checked[0] > 4


@slow
@model
def test_this_build_passes_the_check_at_widths_4_and_8(wide):
    probe = wide.llm.tokenize(b"puts gets.split.map(&:to_i).sum\n")
    assert wide.wide.check(probe)
    eight = _model(decode_width=8)
    assert eight.wide.check(probe, steps=2)


@slow
@model
def test_a_task_s_candidates_decode_together_and_evaluate_their_prompt_once(tmp_path):
    """Four seeds of one prompt: the first stores its prompt's whole batches as soon as they
    are evaluated, the other three load them from the disk cache; each text is the one its seed
    gives alone."""
    llm = _model(tmp_path / "kv", decode_width=4)
    seeds = [SamplingParams(temperature=1.5, top_p=1.0, max_new_tokens=12, seed=s)
             for s in range(4)]
    together = llm.complete([PROMPTS[0]] * 4, seeds)
    assert together[0].kv_written_bytes > 0 and together[0].reused_prompt_tokens == 0
    assert all(c.kv_read_bytes > 0 and c.reused_prompt_tokens >= 64 for c in together[1:])
    alone = [_model(decode_width=4).complete(PROMPTS[:1], q)[0].text for q in seeds]
    assert [c.text for c in together] == alone
    assert len(set(alone)) > 1  # the seeds do draw different samples
