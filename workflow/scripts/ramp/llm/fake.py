"""A scripted LLM for tests of the agents: answers from a queue or a function of the prompt."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence

from ramp.llm.base import (
    Completion,
    LLMError,
    Params,
    Prompt,
    SamplingParams,
    finish_text,
    per_prompt,
)


class FakeLLM:
    """``FakeLLM(["a", "b"])`` answers "a" then "b"; ``FakeLLM(respond=f)`` answers ``f(prompt)``.

    Queued answers are used first, then ``respond``; with neither left a call fails. Every
    prompt and its params are kept in ``seen`` in call order, ``batches`` counts the calls.
    Token counts are word counts.
    """

    def __init__(
        self,
        responses: Iterable[str] = (),
        *,
        respond: Callable[[Prompt], str] | None = None,
        model_id: str = "fake",
    ) -> None:
        self._queue: deque[str] = deque(responses)
        self._respond = respond
        self._model_id = model_id
        self.seen: list[tuple[Prompt, SamplingParams]] = []
        self.batches = 0

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def prompts(self) -> list[Prompt]:
        return [p for p, _ in self.seen]

    def _answer(self, prompt: Prompt) -> str:
        if self._queue:
            return self._queue.popleft()
        if self._respond is not None:
            return self._respond(prompt)
        raise LLMError(
            f"FakeLLM {self._model_id}: no scripted response left for call {len(self.seen)}"
        )

    def complete(self, prompts: Sequence[Prompt], params: Params) -> list[Completion]:
        self.batches += 1
        out = []
        for prompt, one in zip(prompts, per_prompt(prompts, params), strict=True):
            self.seen.append((tuple(prompt), one))
            raw = self._answer(prompt)
            text, stopped = finish_text(raw, one)
            words = text.split()
            if len(words) > one.max_new_tokens:
                text, reason = " ".join(words[: one.max_new_tokens]), "length"
            else:
                reason = "stop"
            out.append(
                Completion(
                    text=text,
                    finish_reason=reason if not stopped else "stop",
                    prompt_tokens=sum(len(m.content.split()) for m in prompt),
                    completion_tokens=min(len(words), one.max_new_tokens),
                    seconds=0.0,
                )
            )
        return out
