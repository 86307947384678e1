"""GGUF on CPU through llama-cpp-python: the fastest CPU backend, and the default there.

An answer must depend on model, prompt, parameters and seed alone. llama.cpp's floating-point
results depend on how a prompt is split into batches, and sampling at T > 0 follows them, so
the library's own KV reuse (any shared prefix, then the rest of the prompt from there) made an
answer depend on the call before it. Here a prompt is always evaluated in the batches of a
fresh evaluation, ``n_batch`` tokens each from position 0, and only whole batches computed that
way are reused: the KV cache they leave is the same bits a fresh evaluation would compute.

The same holds across processes: with a prefix cache (ramp.llm.prefix_cache) each call stores
the KV state of its prompt's whole batches, and a call that finds a longer stored prefix of its
prompt than its own KV cache holds loads that state instead of evaluating those batches.

What this takes from llama-cpp-python's insides (as of the pinned 0.3.36), each checked against
the installed library by tests/llm/test_llamacpp_contract.py, one test an item, which also
checks that this list names everything below that overrides, writes or reads them:

- ``Llama.eval(self, tokens)``: overridden; the library's evaluates ``tokens`` from position
  ``n_tokens`` in batches of ``n_batch``, and this one splits the first so batches end where a
  fresh evaluation's do.
- ``Llama.generate(self, tokens, ...)``: overridden; every completion goes through it, and the
  library's reuses the prefix of ``tokens`` that ``input_ids[:n_tokens]`` holds, so this one
  sets ``n_tokens`` to the reusable prefix first, and ends an answer by yielding the
  end-of-generation token.
- ``Llama.n_tokens``: written; how many leading tokens of ``input_ids`` the KV cache holds.
- ``Llama.input_ids``: written; the evaluated tokens (those of a state loaded from disk).
- ``Llama.chat_handler``: written after load; a template file's handler needs the model's
  tokens.
- ``Llama._ctx``: read; the context, for the two items below.
- ``LlamaContext.kv_cache_seq_rm(self, seq_id, p0, p1)``: called; drops KV rows from ``p0``.
- ``LlamaContext.ctx``: read; the ``llama_context_p`` the state functions (kv_state) take.
"""

from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import json
import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import llama_cpp
from llama_cpp import Llama

from ramp.io import write_text
from ramp.llm.answer_end import EndWatch, cut_at_end
from ramp.llm.backends.kv_state import read_state, write_state
from ramp.llm.base import (
    Completion,
    LLMError,
    Params,
    Prompt,
    SamplingParams,
    per_prompt,
)
from ramp.llm.prefix_cache import COUNTERS, TAIL, Grain, PrefixCache, reusable_prefix
from ramp.llm.spec import ModelSpec
from ramp.llm.weights import model_id, weights_path

#: What :func:`reuse_grain` checks the build on at load (any text will do).
_PROBE = "def total(values):\n    return sum(v for v in values if v % 2 == 0)\n"

#: llama-cpp-python's default batch: answers recorded before n_batch was a setting used it.
DEFAULT_N_BATCH = 512


def _chat_handler(template_file: str, llm: Llama) -> object:
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    eos = llm.detokenize([llm.token_eos()]).decode("utf-8", errors="ignore")
    bos = llm.detokenize([llm.token_bos()]).decode("utf-8", errors="ignore")
    formatter = Jinja2ChatFormatter(
        template=Path(template_file).read_text(encoding="utf-8"), eos_token=eos, bos_token=bos
    )
    return formatter.to_chat_handler()


def over_context(e: ValueError) -> bool:
    """Whether llama-cpp-python raised ``e`` for a prompt longer than the context."""
    return "exceed context window" in str(e)


def check_build(system_info: str) -> None:
    """Refuse a llama.cpp built with its Intel AMX kernels (``system_info`` is its
    ``llama_print_system_info``): they crash the process (SIGSEGV in ggml_backend_amx_mul_mat,
    llama.cpp issue 20824) on the first prompt of more than one token, with no message. A
    native build compiles them in wherever the CPU has AMX; ``ramp.sh setup`` builds without.
    """
    if "AMX_INT8 = 1" in system_info:
        raise LLMError(
            "llama-cpp-python was built with llama.cpp's AMX kernels, which crash on this CPU's "
            "first prompt: rebuild it without them (./ramp.sh setup does; by hand: CFLAGS and "
            "CXXFLAGS '-mno-amx-tile -mno-amx-int8 -mno-amx-bf16', pip install --no-cache-dir "
            "--force-reinstall --no-deps llama-cpp-python)"
        )


class _OverContext(Exception):
    """A prompt of ``prompt_tokens`` leaves less than its answer's cap in the context."""

    def __init__(self, prompt_tokens: int) -> None:
        super().__init__(f"{prompt_tokens} prompt tokens leave too little of the context")
        self.prompt_tokens = prompt_tokens


_REQUESTED = re.compile(r"Requested tokens \((\d+)\)")


class BlockReuseLlama(Llama):
    """``Llama`` whose prompt evaluation keeps an answer a function of the prompt alone.

    A prompt is evaluated in the batches of a fresh evaluation (each ending at a multiple of
    ``n_batch``) wherever its evaluation starts. ``generate`` (which every completion call goes
    through) reuses only whole grains of the KV cache (:func:`reusable_prefix` under ``grain``:
    whole batches unless :func:`reuse_grain` found a finer one), or of a state stored in
    ``prefix_cache`` when that holds more of the prompt, and ends the answer where
    ``end_watch`` says it is complete by yielding an end-of-generation token, which the library
    treats as end of turn.
    """

    def __init__(self, *args: Any, prefix_cache: PrefixCache | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.grain = Grain(self.n_batch, self.n_batch)  # how reused tokens must lie
        self.whole = 0  # leading KV-cache tokens evaluated in whole grains from position 0
        self.reused = 0  # prompt tokens the last call took from a KV cache (memory or disk)
        self.read_bytes = 0  # bytes the last call loaded from the prefix cache
        self.prefix_cache = prefix_cache
        self.end_watch: EndWatch | None = None
        self.answer_cap = 0  # the next call's max_tokens, as asked (before the library's cut)

    def eval(self, tokens: Sequence[int]) -> None:
        # The library's batches run n_batch tokens from where evaluation starts; a fresh
        # evaluation's end at multiples of n_batch, and so do these.
        head = -self.n_tokens % self.n_batch
        if 0 < head < len(tokens):
            super().eval(tokens[:head])
            tokens = tokens[head:]
        super().eval(tokens)

    def reset_kv(self) -> None:
        """Forget every evaluated token."""
        self._ctx.kv_cache_seq_rm(-1, 0, -1)
        self.n_tokens = self.whole = 0

    def generate(self, tokens: Sequence[int], *args: Any, **kwargs: Any) -> Iterator[int]:
        tokens = list(tokens)
        # The library has shortened the answer's cap to what the context leaves, silently:
        # such a call is refused before any token is evaluated (LlamaCppLLM._one).
        if len(tokens) + self.answer_cap > self.n_ctx():
            raise _OverContext(len(tokens))
        reuse = reusable_prefix(self.input_ids[: self.n_tokens], self.whole, tokens, self.grain)
        self.read_bytes = 0
        reuse = self._load_stored(tokens, reuse)
        # The library reuses the longest prefix it still holds: hold only the reusable one.
        self.n_tokens = self.reused = self.whole = reuse
        inner = super().generate(tokens, *args, **kwargs)
        return self._watched(inner, tokens)

    def _load_stored(self, tokens: list[int], reuse: int) -> int:
        """Load the longest stored whole-grain prefix of ``tokens`` if it is longer than the
        ``reuse`` tokens the KV cache holds; the tokens now reusable."""
        limit = (len(tokens) - 1) // self.grain.block * self.grain.block
        if self.prefix_cache is None or limit <= reuse:
            return reuse
        hit = self.prefix_cache.find(tokens, longer_than=reuse, limit=limit)
        n = 0 if hit is None else self.grain.fit(hit.tokens, len(tokens))
        if hit is None or n <= reuse:
            return reuse
        self._ctx.kv_cache_seq_rm(-1, 0, -1)
        if not write_state(self._ctx.ctx, 0, hit.state):
            self._ctx.kv_cache_seq_rm(-1, 0, -1)  # a state this context cannot take: start over
            return 0
        self.input_ids[:n] = tokens[:n]  # the library drops what the state holds past that
        self.read_bytes = hit.bytes_read
        return n

    def store_prefix(self) -> int:
        """After a call: store the KV state of its prompt's whole grains unless it was all
        reused; the bytes written. Only those grains are ever reused, so the KV cache keeps
        just them (the rest of the prompt and the answer are dropped first)."""
        if self.prefix_cache is None or self.whole <= self.reused:
            return 0
        self._ctx.kv_cache_seq_rm(-1, self.whole, -1)
        self.n_tokens = self.whole
        return self.prefix_cache.put(self.input_ids[: self.whole].tolist(),
                                     read_state(self._ctx.ctx, 0))

    def _watched(self, inner: Iterator[int], prompt: list[int]) -> Iterator[int]:
        watch, answer = self.end_watch, []
        for token in inner:
            # The first token comes once the whole prompt is evaluated (from `reuse`, in the
            # batches of a fresh evaluation): its whole grains may serve the next call.
            self.whole = self.grain.whole(self.reused, len(prompt))
            yield token
            if watch is not None:
                answer.append(token)
                text = self.detokenize(answer, prev_tokens=prompt)
                if watch.feed(text.decode("utf-8", errors="ignore")) is not None:
                    yield self.token_eos()  # complete: the caller ends the turn here
                    return


#: Grains of reuse tried at load, finest first; whole batches (``n_batch``) always hold.
GRAINS = (4, 8, 16, 32)


def _last_logits(llm: BlockReuseLlama) -> bytes:
    ptr = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
    return ctypes.string_at(ptr, llm.n_vocab() * ctypes.sizeof(ctypes.c_float))


def reuse_grain(llm: BlockReuseLlama, probe: Sequence[int]) -> Grain:
    """The finest grain of :data:`GRAINS` (dividing ``n_batch``) at which reusing a prompt's
    evaluated tokens gives the bits of a fresh evaluation on this build, else whole batches.

    llama.cpp's kernels take a batch's tokens a group at a time (four at once on the builds
    measured, the rest of a batch one by one), and batches of a few tokens take other kernels,
    so a token's bits depend on its place in its batch modulo the group and on whether its
    batch is small, not on the batch's length or content: tokens reused in whole groups, the
    rest evaluated in batches ending where a fresh evaluation's do, none of them under
    :data:`TAIL` tokens where a fresh evaluation's is not, compute a fresh evaluation's bits.
    Checked here on ``probe`` (at least ``2 * max(GRAINS) + 3 * TAIL`` tokens): the last
    logits of a prefix of it evaluated fresh, and after reusing the first grains of a prompt
    that goes on differently, must be the same bits.
    """
    other = list(probe[::-1])
    try:
        for g in (g for g in GRAINS if llm.n_batch % g == 0 and g < llm.n_batch):
            for reuse, end, differ in ((g, g + TAIL + 1, TAIL + 3),
                                       (2 * g, 2 * g + TAIL + 6, TAIL + g + 1),
                                       (g, g + 2 * TAIL + 3, 2 * TAIL)):
                llm.reset_kv()
                llm.eval(probe[:end])
                fresh = _last_logits(llm)
                llm.reset_kv()
                llm.eval(list(probe[:reuse]) + other[:differ])
                llm._ctx.kv_cache_seq_rm(-1, reuse, -1)
                llm.n_tokens = reuse
                llm.eval(probe[reuse:end])
                if _last_logits(llm) != fresh:
                    break
            else:
                return Grain(g, llm.n_batch, TAIL)
        return Grain(llm.n_batch, llm.n_batch)
    finally:
        llm.reset_kv()


class LlamaCppLLM:
    """``spec``'s GGUF on llama.cpp; with ``prefix_dir``, whole batches of prompt prefixes are
    shared through a disk cache there of at most ``prefix_max_bytes`` (ramp.llm.prefix_cache).
    """

    def __init__(
        self, spec: ModelSpec, *, prefix_dir: Path | None = None, prefix_max_bytes: int = 0
    ) -> None:
        if spec.quantization != "none":
            raise LLMError(
                f"model {spec.name}: backend 'llamacpp' takes the quantization the GGUF file "
                f"has; set quantization: none (got {spec.quantization!r})"
            )
        self.spec = spec
        check_build(llama_cpp.llama_print_system_info().decode("utf-8", "replace"))
        path = weights_path(spec)
        if not path.is_file():
            raise LLMError(f"model {spec.name}: weights file {path} does not exist")
        # The batch size decides the floating-point results, so it is part of the identity.
        suffix = "" if spec.n_batch == DEFAULT_N_BATCH else f"/batch{spec.n_batch}"
        self._model_id = model_id(spec) + suffix
        self.llm = BlockReuseLlama(
            model_path=str(path),
            n_ctx=spec.context_size,
            # Prompts too: the library's default for them is every core of the machine, so a
            # 1-thread job evaluated its prompts on 2 threads and two such jobs oversubscribed a
            # 2-core machine. The count changes speed only (every dot product is one thread's).
            n_threads=spec.n_threads or None,
            n_threads_batch=spec.n_threads or None,
            n_batch=spec.n_batch,
            n_ubatch=spec.n_batch,
            verbose=False,
        )
        if spec.chat_template:
            self.llm.chat_handler = _chat_handler(spec.chat_template, self.llm)
        probe = self.llm.tokenize((_PROBE * 16).encode("utf-8"))
        if prefix_dir is not None and prefix_max_bytes > 0:
            self.llm.grain = self._kept_grain(probe, prefix_dir)
            self.llm.prefix_cache = PrefixCache(
                prefix_dir, self.state_identity, self.llm.grain.block, prefix_max_bytes)
        else:
            self.llm.grain = reuse_grain(self.llm, probe)

    def _kept_grain(self, probe: Sequence[int], folder: Path) -> Grain:
        """:func:`reuse_grain` here, measured once for the state identity (model, build, CPU
        features: what decides it) and kept in ``folder``, where a study's jobs find it."""
        identity = self.state_identity
        path = folder / f"grain-{hashlib.sha256(identity.encode()).hexdigest()[:16]}.json"
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
            if kept.pop("identity") == identity and all(type(v) is int for v in kept.values()):
                return Grain(**kept)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            pass  # not measured yet, or unreadable: measured again
        grain = reuse_grain(self.llm, probe)
        write_text(path, json.dumps({"identity": identity, **dataclasses.asdict(grain)}))
        return grain

    @property
    def state_identity(self) -> str:
        """What decides the bits of a stored KV state: the model (batch size included), the
        context it was laid out in, the threads, the library that computed it and the CPU
        features its build uses (a native build takes AVX-512 kernels where the CPU has them and
        others where not: nodes of a cluster sharing the folder may differ)."""
        features = llama_cpp.llama_print_system_info().decode("utf-8", "replace")
        return (f"{self._model_id}|n_ctx={self.llm.n_ctx()}|n_threads={self.llm.n_threads}"
                f"|n_threads_batch={self.llm.n_threads_batch}"
                f"|llama_cpp={llama_cpp.__version__}|cpu={' '.join(features.split())}")

    @property
    def model_id(self) -> str:
        return self._model_id

    def _one(self, prompt: Prompt, params: SamplingParams) -> Completion:
        start = time.perf_counter()
        self.llm.end_watch = EndWatch(params.stop_when) if params.stop_when else None
        # A prompt that leaves less than the answer's cap in the context is not generated
        # (the library would shorten the cap silently): its outcome says so, the call counted.
        self.llm.answer_cap = params.max_new_tokens
        try:
            out = self.llm.create_chat_completion(
                messages=[{"role": m.role, "content": m.content} for m in prompt],
                temperature=params.temperature,
                top_p=params.top_p,
                max_tokens=params.max_new_tokens,
                seed=params.seed,
                stop=list(params.stop) or None,
            )
        except _OverContext as e:
            return Completion.over_context(e.prompt_tokens)
        except ValueError as e:  # the prompt alone is over the context
            if not over_context(e):
                raise
            requested = _REQUESTED.search(str(e))
            return Completion.over_context(int(requested[1]) if requested else 0)
        finally:
            self.llm.end_watch = None
            self.llm.answer_cap = 0
        written = self.llm.store_prefix()
        seconds = time.perf_counter() - start
        choice = out["choices"][0]
        text, ended = cut_at_end(choice["message"]["content"] or "", params.stop_when)
        return Completion(
            text=text,
            finish_reason="length" if choice["finish_reason"] == "length" and not ended
            else "stop",
            prompt_tokens=out["usage"]["prompt_tokens"],
            completion_tokens=out["usage"]["completion_tokens"],
            seconds=seconds,
            counters=dict(zip(COUNTERS, (self.llm.reused, self.llm.read_bytes, written),
                              strict=True)),
        )

    def complete(self, prompts: Sequence[Prompt], params: Params) -> list[Completion]:
        # One after another: a sequence's bits depend on how many sequences a step decodes, so
        # decoding several together would make an answer depend on its company. Several
        # samples of one prompt share its evaluated batches all the same (the KV reuse above),
        # so n candidates of a task evaluate their prompt once.
        return [self._one(p, q) for p, q in zip(prompts, per_prompt(prompts, params),
                                                 strict=True)]
