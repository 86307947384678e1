"""GGUF on CPU through llama-cpp-python: the fastest CPU backend, and the default there."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from llama_cpp import Llama

from ramp.llm.base import Completion, LLMError, Prompt, SamplingParams
from ramp.llm.spec import ModelSpec
from ramp.llm.weights import model_id, weights_path


def _chat_handler(template_file: str, llm: Llama) -> object:
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    eos = llm.detokenize([llm.token_eos()]).decode("utf-8", errors="ignore")
    bos = llm.detokenize([llm.token_bos()]).decode("utf-8", errors="ignore")
    formatter = Jinja2ChatFormatter(
        template=Path(template_file).read_text(encoding="utf-8"), eos_token=eos, bos_token=bos
    )
    return formatter.to_chat_handler()


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
        self._model_id = model_id(spec)
        self.llm = Llama(
            model_path=str(path),
            n_ctx=spec.context_size,
            n_threads=spec.n_threads or None,
            verbose=False,
        )
        if spec.chat_template:
            self.llm.chat_handler = _chat_handler(spec.chat_template, self.llm)

    @property
    def model_id(self) -> str:
        return self._model_id

    def _one(self, prompt: Prompt, params: SamplingParams) -> Completion:
        start = time.perf_counter()
        # No reset between prompts: llama.cpp reuses the KV cache of a shared prefix (the
        # agents' long system prompts), which changes speed, not which tokens are likely.
        out = self.llm.create_chat_completion(
            messages=[{"role": m.role, "content": m.content} for m in prompt],
            temperature=params.temperature,
            top_p=params.top_p,
            max_tokens=params.max_new_tokens,
            seed=params.seed,
            stop=list(params.stop) or None,
        )
        seconds = time.perf_counter() - start
        choice = out["choices"][0]
        return Completion(
            text=choice["message"]["content"] or "",
            finish_reason="length" if choice["finish_reason"] == "length" else "stop",
            prompt_tokens=out["usage"]["prompt_tokens"],
            completion_tokens=out["usage"]["completion_tokens"],
            seconds=seconds,
        )

    def complete(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[Completion]:
        # llama.cpp's Python API decodes one sequence at a time; on 2 cores nothing is lost.
        return [self._one(p, params) for p in prompts]
