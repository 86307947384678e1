"""GGUF on CPU through llama-cpp-python: the fastest CPU backend, and the default there.

An answer must depend on model, prompt, parameters and seed alone. llama.cpp's floating-point
results depend on how a prompt is split into batches, and sampling at T > 0 follows them, so
the library's own KV reuse (any shared prefix, then the rest of the prompt from there) made an
answer depend on the call before it. Here a prompt is always evaluated in the batches of a
fresh evaluation, ``n_batch`` tokens each from position 0, and only whole batches computed that
way are reused: the KV cache they leave is the same bits a fresh evaluation would compute.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from llama_cpp import Llama

from ramp.llm.answer_end import EndWatch, cut_at_end
from ramp.llm.base import Completion, LLMError, Prompt, SamplingParams
from ramp.llm.spec import ModelSpec
from ramp.llm.weights import model_id, weights_path

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


def reusable_prefix(cached: Sequence[int], whole: int, tokens: Sequence[int], block: int) -> int:
    """How many leading tokens of ``tokens`` may come from a KV cache that holds ``cached``, of
    which the first ``whole`` were evaluated in whole ``block``-token batches from position 0.

    A multiple of ``block``, and short of the whole prompt: its last token is always evaluated
    (its logits start the answer), in the batch a fresh evaluation puts it in (pure).
    """
    limit = min(whole, len(tokens) - 1, len(cached))
    common = 0
    while common < limit and cached[common] == tokens[common]:
        common += 1
    return common // block * block


class BlockReuseLlama(Llama):
    """``Llama`` whose prompt evaluation keeps an answer a function of the prompt alone.

    ``generate`` (which every completion call goes through) reuses only whole batches of the
    KV cache (:func:`reusable_prefix`), and ends the answer where ``end_watch`` says it is
    complete by yielding an end-of-generation token, which the library treats as end of turn.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.whole = 0  # leading KV-cache tokens evaluated in whole batches from position 0
        self.reused = 0  # prompt tokens the last call took from the cache
        self.end_watch: EndWatch | None = None

    def generate(self, tokens: Sequence[int], *args: Any, **kwargs: Any) -> Iterator[int]:
        tokens = list(tokens)
        reuse = reusable_prefix(self.input_ids[: self.n_tokens], self.whole, tokens, self.n_batch)
        # The library reuses the longest prefix it still holds: hold only the reusable one.
        self.n_tokens = self.reused = self.whole = reuse
        inner = super().generate(tokens, *args, **kwargs)
        return self._watched(inner, tokens)

    def _watched(self, inner: Iterator[int], prompt: list[int]) -> Iterator[int]:
        watch, answer = self.end_watch, []
        for token in inner:
            # The first token comes once the whole prompt is evaluated (from `reuse`, in
            # batches of n_batch): its whole batches may serve the next call.
            self.whole = len(prompt) // self.n_batch * self.n_batch
            yield token
            if watch is not None:
                answer.append(token)
                text = self.detokenize(answer, prev_tokens=prompt)
                if watch.feed(text.decode("utf-8", errors="ignore")) is not None:
                    yield self.token_eos()  # complete: the caller ends the turn here
                    return


class LlamaCppLLM:
    def __init__(self, spec: ModelSpec) -> None:
        if spec.quantization != "none":
            raise LLMError(
                f"model {spec.name}: backend 'llamacpp' takes the quantization the GGUF file "
                f"has; set quantization: none (got {spec.quantization!r})"
            )
        self.spec = spec
        path = weights_path(spec)
        if not path.is_file():
            raise LLMError(f"model {spec.name}: weights file {path} does not exist")
        # The batch size decides the floating-point results, so it is part of the identity.
        suffix = "" if spec.n_batch == DEFAULT_N_BATCH else f"/batch{spec.n_batch}"
        self._model_id = model_id(spec) + suffix
        self.llm = BlockReuseLlama(
            model_path=str(path),
            n_ctx=spec.context_size,
            n_threads=spec.n_threads or None,
            n_batch=spec.n_batch,
            n_ubatch=spec.n_batch,
            verbose=False,
        )
        if spec.chat_template:
            self.llm.chat_handler = _chat_handler(spec.chat_template, self.llm)

    @property
    def model_id(self) -> str:
        return self._model_id

    def _one(self, prompt: Prompt, params: SamplingParams) -> Completion:
        start = time.perf_counter()
        self.llm.end_watch = EndWatch(params.stop_when) if params.stop_when else None
        try:
            out = self.llm.create_chat_completion(
                messages=[{"role": m.role, "content": m.content} for m in prompt],
                temperature=params.temperature,
                top_p=params.top_p,
                max_tokens=params.max_new_tokens,
                seed=params.seed,
                stop=list(params.stop) or None,
            )
        finally:
            self.llm.end_watch = None
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
            reused_prompt_tokens=self.llm.reused,
        )

    def complete(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[Completion]:
        # llama.cpp's Python API decodes one sequence at a time; on 2 cores nothing is lost.
        return [self._one(p, params) for p in prompts]
