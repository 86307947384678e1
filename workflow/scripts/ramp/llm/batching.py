"""Batches for methods that run task by task: concurrent calls of several threads, one batch.

RAMP's stages hand every open task's prompt to the model at once; a baseline runs each task's
loop on its own, one prompt at a time. Run several tasks on threads and give them a
:class:`BatchingLLM`: calls that arrive together go to the model as one call, each prompt with
its own sampling parameters (a GPU backend generates those it can in one pass). A call waits
until every task that is running is waiting on the model, the batch is full, or ``wait_s`` has
passed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

from ramp.llm.base import LLM, Completion, Params, Prompt, SamplingParams, per_prompt


@dataclass
class _Request:
    prompts: list[Prompt]
    params: list[SamplingParams]  # one per prompt
    future: Future[list[Completion]] = field(default_factory=Future)


class BatchingLLM:
    """An LLM shared by ``participants`` threads (see the module docstring); thread-safe.

    ``join()``/``leave()`` count the threads that may still call; one ``complete`` then waits
    for the others instead of going to the model alone.
    """

    def __init__(self, inner: LLM, max_batch: int, *, wait_s: float = 1.0) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be >= 1, got {max_batch}")
        self.inner = inner
        self.max_batch = max_batch
        self.wait_s = wait_s
        self.batches: list[int] = []  # prompts per batch sent to the model, for the logs/tests
        self._pending: list[_Request] = []
        self._participants = 0
        self._busy = False  # one batch at a time goes to the model
        self._cond = threading.Condition()

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def join(self) -> None:
        with self._cond:
            self._participants += 1

    def leave(self) -> None:
        with self._cond:
            self._participants -= 1
            self._cond.notify_all()

    def complete(self, prompts: Sequence[Prompt], params: Params) -> list[Completion]:
        request = _Request(list(prompts), per_prompt(prompts, params))
        deadline = time.monotonic() + self.wait_s
        with self._cond:
            self._pending.append(request)
            self._cond.notify_all()
        while True:
            with self._cond:
                while True:
                    if request.future.done():
                        return request.future.result()
                    now = time.monotonic()
                    if not self._busy and self._pending and (self._ready() or now >= deadline):
                        batch = self._take()
                        self._busy = True
                        break
                    # Until the deadline, or (past it) until the batch in flight is answered.
                    self._cond.wait(timeout=deadline - now if deadline > now else None)
            # This thread sends a batch (its own request may or may not be in it).
            self._send(batch)

    def _send(self, batch: list[_Request]) -> None:
        try:
            prompts = [p for r in batch for p in r.prompts]
            self.batches.append(len(prompts))
            answers = self.inner.complete(prompts, [q for r in batch for q in r.params])
            start = 0
            for r in batch:
                r.future.set_result(answers[start : start + len(r.prompts)])
                start += len(r.prompts)
        except BaseException as e:
            for r in batch:
                if not r.future.done():
                    r.future.set_exception(e)
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def _ready(self) -> bool:
        """Every participant is waiting, or a batch is full."""
        waiting = len(self._pending)
        prompts = sum(len(r.prompts) for r in self._pending)
        return waiting >= self._participants or prompts >= self.max_batch

    def _take(self) -> list[_Request]:
        """The oldest requests, up to max_batch prompts (always at least the oldest)."""
        batch: list[_Request] = []
        size = 0
        for r in list(self._pending):
            if batch and size + len(r.prompts) > self.max_batch:
                break
            batch.append(r)
            size += len(r.prompts)
            self._pending.remove(r)
        return batch
