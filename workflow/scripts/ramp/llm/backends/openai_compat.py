"""OpenAI-compatible servers (vLLM, Ollama, llama.cpp server...) through the `openai` client.

The client already retries connection errors, 408/409/429 and 5xx with exponential backoff and
honours timeouts; we add bounded concurrency and an error that names the URL.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import openai

from ramp.llm.answer_end import cut_at_end
from ramp.llm.base import (
    Completion,
    LLMError,
    Params,
    Prompt,
    SamplingParams,
    per_prompt,
)
from ramp.llm.spec import ModelSpec

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"

# How servers refuse a prompt over the context (HTTP 400): OpenAI's error code, the message of
# vLLM and llama-cpp-python's server, the error type and message of llama.cpp's own server.
OVER_CONTEXT = ("context_length_exceeded", "maximum context length", "exceed_context_size",
                "exceeds the available context size")


def over_context(e: openai.APIStatusError) -> bool:
    """Whether the server refused the request because it does not fit the model's context."""
    said = f"{e.code} {e.type} {e.message}"
    return e.status_code == 400 and any(words in said for words in OVER_CONTEXT)


def base_url_of(spec: ModelSpec) -> str:
    return spec.base_url or os.environ.get("RAMP_OPENAI_BASE_URL") or DEFAULT_BASE_URL


class OpenAICompatLLM:
    def __init__(self, spec: ModelSpec) -> None:
        if spec.quantization != "none" or spec.chat_template:
            raise LLMError(
                f"model {spec.name}: quantization and chat_template are the server's business "
                "for backend 'openai'; drop them from the entry"
            )
        self.spec = spec
        self.base_url = base_url_of(spec)
        # Local servers ignore the key, but the client insists on one.
        api_key = os.environ.get(spec.api_key_env) or "not-needed"
        self._client = openai.OpenAI(
            base_url=self.base_url,
            api_key=api_key,
            timeout=spec.timeout_s,
            max_retries=spec.max_retries,
        )

    @property
    def model_id(self) -> str:
        return f"openai/{self.spec.weights}"

    def _one(self, prompt: Prompt, params: SamplingParams) -> Completion:
        start = time.perf_counter()
        try:
            response = self._client.chat.completions.create(
                model=self.spec.weights,
                messages=[{"role": m.role, "content": m.content} for m in prompt],
                temperature=params.temperature,
                top_p=params.top_p,
                max_tokens=params.max_new_tokens,
                seed=params.seed,
                stop=list(params.stop) or None,
            )
        except openai.APIConnectionError as e:
            raise LLMError(
                f"cannot reach the OpenAI-compatible server at {self.base_url} "
                f"(after {self.spec.max_retries} retries): {e}"
            ) from e
        except openai.APIStatusError as e:
            if over_context(e):  # the server counts the answer's cap too: not generated
                return Completion.over_context(0)
            raise LLMError(
                f"server at {self.base_url} answered HTTP {e.status_code} for model "
                f"{self.spec.weights!r}: {e.message}"
            ) from e
        seconds = time.perf_counter() - start
        choice = response.choices[0]
        usage = response.usage
        # The server knows no stop_when: the answer is cut here (the server generated on).
        text, ended = cut_at_end(choice.message.content or "", params.stop_when)
        return Completion(
            text=text,
            finish_reason="length" if choice.finish_reason == "length" and not ended else "stop",
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            seconds=seconds,
        )

    def complete(self, prompts: Sequence[Prompt], params: Params) -> list[Completion]:
        each = per_prompt(prompts, params)
        if len(prompts) <= 1:
            return [self._one(p, q) for p, q in zip(prompts, each, strict=True)]
        with ThreadPoolExecutor(max_workers=min(self.spec.concurrency, len(prompts))) as pool:
            return list(pool.map(self._one, prompts, each))
