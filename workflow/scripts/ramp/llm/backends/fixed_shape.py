"""Several calls decoded together, in a step of a fixed shape (llama.cpp, one context).

Decoding several sequences a step reads the weights once for all of them, which pays on a CPU
whose one-thread step is bound by memory (``benchmarks/batched_decoding.py``). But llama.cpp's
kernels for a step depend on how many sequences it decodes, and so do a sequence's bits
(``benchmarks/batched_bits.py``: on one build 1-3 sequences give the bits of one alone, 4-7
another kind, 8 a third); a decoder that lets calls come and go would make an answer depend on
how many others were decoding beside it. So every step here decodes exactly ``width`` rows,
shared evenly by the live calls (:func:`rows_each`; llama.cpp splits a batch whose sequences
have unequal rows): a call's first row is its last token, its others drafts of its next tokens
looked up in its own prompt and answer (ramp.llm.lookup), kept while they agree with what it
samples; rows no call takes carry paddings. The context uses flash attention, whose kernel takes
rows one by one, so a row's bits depend neither on its slot, nor on what the other rows hold,
nor on which sequences they belong to (measured, and checked by the tests on the real model):
drafts change how many tokens a step gives, never which, and an answer is a function of model,
prompt, parameters, seed and ``width`` alone; ``width`` is part of the model's id.

Each slot has a KV buffer of its own (llama.cpp's ``kv_unified`` off). A prompt is evaluated
alone in its slot, in the batches of a fresh evaluation (``n_batch`` tokens each from position
0), reusing only whole batches: those its slot still holds from its last call, or a state of the
disk prefix cache (ramp.llm.prefix_cache) if that holds more; its whole batches go to that cache
as soon as they are evaluated, so a call of the same prompt starting in another slot meanwhile
(one of a task's candidates) loads them. Its first token is sampled from that evaluation; from
then on it moves with the others, a token a step and one more for each draft it agrees with.
Sampling is llama-cpp-python's own chain (top-k 40, typical 1, top-p, min-p 0.05, temperature, a
seeded draw, one draw per token kept; greedy at temperature 0), one per call; prompts are built
and stop strings chosen by the library's chat handler, and an answer ends as the library's would
(an end-of-generation token, a stop string, ``max_new_tokens``, the context) or where
``stop_when`` says it is complete.
"""

from __future__ import annotations

import ctypes
import time
import weakref
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import llama_cpp

from ramp.llm.answer_end import EndWatch, cut_at_end
from ramp.llm.backends.kv_state import read_state, write_state
from ramp.llm.base import SamplingParams, truncate_at_stop
from ramp.llm.lookup import Lookup
from ramp.llm.prefix_cache import PrefixCache, reusable_prefix

# llama-cpp-python's create_chat_completion defaults for the samplers ramp does not set.
_TOP_K, _MIN_P, _TYPICAL_P = 40, 0.05, 1.0


@dataclass(frozen=True)
class Request:
    """A formatted prompt: its tokens, the stop strings (the template's and the caller's), and
    how to sample; ``max_tokens`` already bounded by the context."""

    tokens: tuple[int, ...]
    stop: tuple[str, ...]
    params: SamplingParams
    max_tokens: int


@dataclass
class Answer:
    """What one request generated (``tokens`` without the end-of-generation token) and how its
    prompt was had: ``reused`` tokens from a KV cache, ``read_bytes``/``written_bytes`` from and
    to the disk prefix cache."""

    text: str = ""
    finish_reason: str = ""
    tokens: list[int] = field(default_factory=list)
    reused: int = 0
    read_bytes: int = 0
    written_bytes: int = 0


@dataclass
class DecodeStats:
    """Where a decoder's time went (evaluating prompts, steps of the fixed shape), how many
    steps it took and how many of its tokens were drafts it accepted."""

    prompt_seconds: float = 0.0
    step_seconds: float = 0.0
    steps: int = 0
    drafted: int = 0


@dataclass
class _Slot:
    held: list[int] = field(default_factory=list)  # whole-batch tokens its KV buffer holds
    call: int | None = None  # index of the request it decodes
    pos: int = 0  # position of its call's next input token
    last: int = 0  # its call's last sampled token (that input)
    sampler: Any = None
    watch: EndWatch | None = None
    lookup: Lookup | None = None  # its call's prompt and answer, for drafts


def rows_each(width: int, live: int) -> int:
    """Rows of a step of ``width`` each of ``live`` calls gets: the most that divides
    ``width`` (llama.cpp splits a batch whose sequences have unequal rows into several)."""
    return max(r for r in range(1, width // live + 1) if width % r == 0)


def pick_slot(free: Sequence[int], held: Sequence[Sequence[int]], tokens: Sequence[int],
              block: int) -> int:
    """The free slot that holds most of ``tokens``'s whole batches (the first of equals)."""
    return max(free, key=lambda s: (reusable_prefix(held[s], len(held[s]), tokens, block), -s))


def _free(ctx: Any, batch: Any) -> None:
    llama_cpp.llama_batch_free(batch)
    llama_cpp.llama_free(ctx)


class FixedShapeDecoder:
    """``width`` slots over ``llama``'s model (a ``Llama``: its context parameters, tokenizer,
    samplers), ``n_ctx`` tokens each; ``prefix_cache`` shares prompt prefixes across jobs."""

    def __init__(self, llama: Any, width: int, n_ctx: int,
                 prefix_cache: PrefixCache | None = None) -> None:
        if width < 1:
            raise ValueError(f"width must be >= 1, got {width}")
        self.llama, self.width = llama, width
        self.prefix_cache = prefix_cache
        self.block = llama.n_batch
        params = llama_cpp.llama_context_params.from_buffer_copy(llama.context_params)
        # Drafts may run up to width - 1 positions past a call's last token.
        params.n_ctx = (n_ctx + width - 1) * width
        params.n_seq_max, params.kv_unified = width, False
        if width > 1:
            # Its kernel takes a step's rows one by one, so a row's bits do not depend on how
            # the rows are shared among sequences (without it, four rows of one sequence
            # compute other bits than one row of each of four): a call's spare rows can
            # carry drafts.
            params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED
        self._ctx = llama_cpp.llama_init_from_model(llama._model.model, params)
        if not self._ctx:
            raise RuntimeError(f"llama.cpp could not make a context of {width} x {n_ctx} tokens")
        self._mem = llama_cpp.llama_get_memory(self._ctx)
        self._vocab = llama_cpp.llama_model_get_vocab(llama._model.model)
        self._batch = llama_cpp.llama_batch_init(max(self.block, width), 0, 1)
        self._finalizer = weakref.finalize(self, _free, self._ctx, self._batch)
        self._slots = [_Slot() for _ in range(width)]
        self._pad = llama.token_bos() if llama.token_bos() >= 0 else 0
        self.stats = DecodeStats()

    def reset(self) -> None:
        """Empty every slot, as in a new job (the disk cache stays)."""
        llama_cpp.llama_memory_clear(self._mem, True)
        self._slots = [_Slot() for _ in range(self.width)]

    def close(self) -> None:
        self._finalizer()

    def check(self, probe: Sequence[int], steps: int = 4) -> bool:
        """Whether this build computes a sequence's bits regardless of its slot, its company
        and its rows, as the design needs (a property of the kernels and the CPU, measured on
        one build): ``probe`` decoded greedily in slot 0 beside paddings, in the last slot
        beside other sequences, and alone with drafts in its spare rows (all but the last of
        them right) must give the same logits, bit for bit, at every token."""
        if self.width == 1:
            return True
        probe, last = list(probe), self.width - 1
        others = {s: probe[::-1][: 2 + s] for s in range(last)}  # unlike it, and unlike lengths
        seen, greedy = [], []
        try:
            for watched, prompts in ((0, {0: probe}), (last, {**others, last: probe})):
                self.reset()
                logits, pos = {}, {}
                for s in range(self.width):  # each prompt alone in its slot, as a call's is
                    tokens = prompts.get(s, [self._pad])
                    logits[s], pos[s] = self._prompt(s, tokens), len(tokens)
                bits = [logits[watched].tobytes()]
                for _ in range(steps):
                    greedy.append(int(logits[watched].argmax()))
                    self._decode([(int(logits[s].argmax()), pos[s], s, True)
                                  for s in range(self.width)])
                    for s in range(self.width):
                        logits[s], pos[s] = self._logits(s), pos[s] + 1
                    bits.append(logits[watched].tobytes())
                seen.append(b"".join(bits))
            seen.append(b"".join(self._drafted(probe, greedy[:steps], steps)))
        finally:
            self.reset()
        return seen[0] == seen[1] == seen[2]

    def _prompt(self, slot: int, tokens: Sequence[int]) -> Any:
        """Evaluate ``tokens`` alone in ``slot`` in batches from position 0; the last logits."""
        for _ in self._evaluate(slot, tokens, 0):
            pass
        return self._logits((len(tokens) - 1) % self.block)

    def _evaluate(self, slot: int, tokens: Sequence[int], start: int) -> Iterator[int]:
        """Evaluate ``tokens[start:]`` (``start`` a multiple of the block) in ``slot``, in the
        batches of a fresh evaluation; yields where each batch ends. The library keeps each
        batch's last logits; so does this, for the same bits."""
        for begin in range(start, len(tokens), self.block):
            chunk = tokens[begin:begin + self.block]
            self._decode([(t, begin + i, slot, i == len(chunk) - 1)
                          for i, t in enumerate(chunk)])
            yield begin + len(chunk)

    def _drafted(self, probe: list[int], greedy: list[int], steps: int) -> list[bytes]:
        """The logits of ``probe``'s first ``steps`` + 1 tokens decoded in slot 0 alone, all
        rows its own: ``greedy`` (its greedy tokens) as drafts, the last of each step wrong."""
        self.reset()
        bits = [self._prompt(0, probe).tobytes()]
        pos, done = len(probe), 0
        while done < steps:
            drafts = (greedy + [self._pad] * self.width)[done + 1:done + self.width]
            drafts[-1] = self._pad if drafts[-1] != self._pad else self._pad + 1
            self._decode([(t, pos + i, 0, True)
                          for i, t in enumerate([greedy[done], *drafts])])
            agreed = self.width - 2  # rows of right inputs after the first
            for i in range(1 + agreed):
                bits.append(self._logits(i).tobytes())
            pos, done = pos + 1 + agreed, done + 1 + agreed
            llama_cpp.llama_memory_seq_rm(self._mem, 0, pos, -1)
        return bits[: steps + 1]

    def _logits(self, i: int) -> Any:
        """A copy of the last decode's ``i``-th kept logits (numpy)."""
        import numpy as np

        n_vocab = llama_cpp.llama_vocab_n_tokens(self._vocab)
        ptr = ctypes.cast(llama_cpp.llama_get_logits_ith(self._ctx, i),
                          ctypes.POINTER(ctypes.c_float))
        return np.ctypeslib.as_array(ptr, shape=(n_vocab,)).copy()

    def _decode(self, items: Sequence[tuple[int, int, int, bool]]) -> None:
        """One ``llama_decode`` of (token, position, slot, whether its logits are kept)."""
        b = self._batch
        for i, (token, pos, seq, logits) in enumerate(items):
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = token, pos, 1, logits
            b.seq_id[i][0] = seq
        b.n_tokens = len(items)
        if llama_cpp.llama_decode(self._ctx, b) != 0:
            raise RuntimeError("llama_decode failed")

    def run(self, requests: Sequence[Request]) -> list[Answer]:
        """Every request's answer, in order; up to ``width`` at a time, the others waiting for
        a slot in order."""
        answers = [Answer() for _ in requests]
        waiting = deque(range(len(requests)))
        try:
            while waiting or any(s.call is not None for s in self._slots):
                while waiting and (free := [i for i, s in enumerate(self._slots)
                                            if s.call is None]):
                    call = waiting.popleft()
                    tokens = requests[call].tokens
                    slot = pick_slot(free, [s.held for s in self._slots], tokens, self.block)
                    self._start(slot, call, requests[call], answers[call])
                if any(s.call is not None for s in self._slots):
                    self._step(requests, answers)
        except BaseException:
            self.reset()  # no call left half-decoded in a slot
            raise
        return answers

    def _start(self, index: int, call: int, request: Request, answer: Answer) -> None:
        """Evaluate ``request``'s prompt alone in slot ``index`` and sample its first token."""
        slot, tokens = self._slots[index], list(request.tokens)
        reuse = reusable_prefix(slot.held, len(slot.held), tokens, self.block)
        reuse, answer.read_bytes = self._load_stored(index, tokens, reuse)
        llama_cpp.llama_memory_seq_rm(self._mem, index, reuse, -1)
        answer.reused = reuse
        whole = len(tokens) // self.block * self.block
        began = time.perf_counter()
        for end in self._evaluate(index, tokens, reuse):
            if end == whole:
                # Stored now, not when the call ends: a call of the same prompt starting in
                # another slot meanwhile (a task's candidates) loads it instead of evaluating.
                self.stats.prompt_seconds += time.perf_counter() - began
                answer.written_bytes = self._store(index, tokens[:whole])
                began = time.perf_counter()
        self.stats.prompt_seconds += time.perf_counter() - began
        slot.held = tokens[:whole]
        slot.call, slot.pos = call, len(tokens)
        self.llama.set_seed(request.params.seed)
        slot.sampler = self.llama._init_sampler(
            top_k=_TOP_K, top_p=request.params.top_p, min_p=_MIN_P, typical_p=_TYPICAL_P,
            temp=request.params.temperature)
        slot.watch = EndWatch(request.params.stop_when) if request.params.stop_when else None
        slot.lookup = Lookup(tokens)
        self._take(index, request, answer, (len(tokens) - 1) % self.block)

    def _load_stored(self, index: int, tokens: list[int], reuse: int) -> tuple[int, int]:
        """Load into slot ``index`` the longest stored whole-batch prefix of ``tokens`` if it is
        longer than the ``reuse`` tokens the slot holds; the tokens now reusable, bytes read."""
        limit = (len(tokens) - 1) // self.block * self.block
        if self.prefix_cache is None or limit <= reuse:
            return reuse, 0
        hit = self.prefix_cache.find(tokens, longer_than=reuse, limit=limit)
        # Its prompts are evaluated in whole batches from where reuse ends (the cache's grain
        # may be finer: ramp.llm.backends.llamacpp.reuse_grain).
        n = 0 if hit is None else hit.tokens // self.block * self.block
        if hit is None or n <= reuse:
            return reuse, 0
        llama_cpp.llama_memory_seq_rm(self._mem, index, 0, -1)
        if not write_state(self._ctx, index, hit.state):
            llama_cpp.llama_memory_seq_rm(self._mem, index, 0, -1)
            return 0, 0  # a state this context cannot take: start over
        return n, hit.bytes_read  # the caller drops what the state holds past that

    def _step(self, requests: Sequence[Request], answers: list[Answer]) -> None:
        """One step of the fixed shape: ``width`` rows, shared evenly by the live calls (the
        call's last token, then drafts of its next ones), the rest by paddings, in slot order;
        then each call takes its next token, and the next after each draft it agreed with."""
        live = [i for i, s in enumerate(self._slots) if s.call is not None]
        rows = rows_each(self.width, len(live))
        pads = [i for i, s in enumerate(self._slots) if s.call is None]
        pads = pads[: self.width // rows - len(live)]
        items, drafts = [], {}
        for index, slot in enumerate(self._slots):
            if slot.call is not None:
                assert slot.lookup is not None
                guess = slot.lookup.draft(rows - 1)
                drafts[index] = guess + [self._pad] * (rows - 1 - len(guess))
                items += [(t, slot.pos + i, index, True)
                          for i, t in enumerate([slot.last, *drafts[index]])]
            elif index in pads:  # past what the slot holds, dropped again next step
                end = len(slot.held)
                llama_cpp.llama_memory_seq_rm(self._mem, index, end, -1)
                items += [(self._pad, end + i, index, True) for i in range(rows)]
        began = time.perf_counter()
        self._decode(items)
        self.stats.step_seconds += time.perf_counter() - began
        self.stats.steps += 1
        row = 0
        for index, slot in enumerate(self._slots):
            if slot.call is None:
                row += rows if index in pads else 0
                continue
            call, taken = slot.call, 0
            # The token after the last input, then after each draft while they agree: the
            # rows after the first disagreement were computed from a wrong guess.
            while True:
                going = self._take(index, requests[call], answers[call], row + taken)
                taken += 1
                if not going or taken == rows or slot.last != drafts[index][taken - 1]:
                    break
            self.stats.drafted += taken - 1
            if going:
                slot.pos += taken
                llama_cpp.llama_memory_seq_rm(self._mem, index, slot.pos, -1)
            row += rows

    def _take(self, index: int, request: Request, answer: Answer, logits: int) -> bool:
        """Sample slot ``index``'s next token from the last decode's ``logits``-th output, and
        end its call where the library would end it, or where ``stop_when`` says; whether the
        call goes on."""
        slot = self._slots[index]
        token = llama_cpp.llama_sampler_sample(slot.sampler.sampler, self._ctx, logits)
        if llama_cpp.llama_vocab_is_eog(self._vocab, token):
            self._finish(index, request, answer, "stop")
            return False
        answer.tokens.append(token)
        assert slot.lookup is not None
        slot.lookup.extend([token])
        slot.last = token
        text = self._text(request, answer)
        if truncate_at_stop(text, request.stop)[1] or (
                slot.watch is not None and slot.watch.feed(text) is not None):
            self._finish(index, request, answer, "stop")
        elif len(answer.tokens) >= request.max_tokens:
            self._finish(index, request, answer, "length")
        return slot.call is not None

    def _text(self, request: Request, answer: Answer) -> str:
        raw = self.llama.detokenize(answer.tokens, prev_tokens=list(request.tokens))
        return raw.decode("utf-8", errors="ignore")

    def _finish(self, index: int, request: Request, answer: Answer, reason: str) -> None:
        """End slot ``index``'s call: its text cut as the library cuts it, then where
        ``stop_when`` says; its prompt's whole batches kept for the slot's next call."""
        slot = self._slots[index]
        text, stopped = truncate_at_stop(self._text(request, answer), request.stop)
        text, ended = cut_at_end(text, request.params.stop_when)
        answer.text = text
        answer.finish_reason = "stop" if reason == "stop" or stopped or ended else "length"
        llama_cpp.llama_memory_seq_rm(self._mem, index, len(slot.held), -1)
        slot.call, slot.sampler, slot.watch, slot.lookup = None, None, None, None

    def _store(self, index: int, held: list[int]) -> int:
        """Put slot ``index``'s KV state, which holds exactly ``held`` (whole batches), in the
        disk cache; the bytes written."""
        if self.prefix_cache is None:
            return 0
        return self.prefix_cache.put(held, read_state(self._ctx, index))
