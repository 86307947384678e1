"""Record / replay: a content-addressed store of completions, as a wrapper around any LLM.

A key is the sha256 of the model identity, the prompt and the sampling parameters; the entry
is one JSON file ``<dir>/<key[:2]>/<key>.json``. A stored completion is returned exactly as it
was recorded (seconds included), so a stage rerun from the cache writes identical Parquet.

The model's context size is not in the key: it changes an answer only where the context cut it,
and :func:`replayable` checks that instead. An answer the context cut when it was recorded is
asked again; one that fitted is replayed under any context that still holds its prompt and cap;
where the context no longer does, the call's outcome is ``over_context``, as the model's would be.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from ramp.io import write_text
from ramp.llm.base import (
    LENGTH,
    LLM,
    OVER_CONTEXT,
    Completion,
    LLMError,
    Params,
    Prompt,
    SamplingParams,
    fits,
    per_prompt,
)
from ramp.llm.spec import CACHE_MODES

log = logging.getLogger(__name__)

_KEY_VERSION = 1  # bump when the key's recipe changes, so old entries are never misread
_UNKEYED_DEFAULTS = {"stop_when": ""}


def cache_key(model_id: str, prompt: Prompt, params: SamplingParams) -> str:
    fields = dataclasses.asdict(params)
    # A field added after version 1 joins the key only when it is set, so that entries recorded
    # before it existed keep their keys (unset, it changes no text).
    for name in _UNKEYED_DEFAULTS:
        if fields[name] == _UNKEYED_DEFAULTS[name]:
            del fields[name]
    payload = {
        "v": _KEY_VERSION,
        "model": model_id,
        "messages": [[m.role, m.content] for m in prompt],
        "params": fields,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def replayable(
    stored: Completion, params: SamplingParams, context_size: int | None
) -> Completion | None:
    """``stored`` as the model would answer now under ``context_size`` (None: unknown, taken
    as is), or None when it must be asked again: it was cut short by the context it was
    recorded under (``length`` before its cap: the model, given the room, would go on), or it
    was not sent for want of a room the context now has."""
    if stored.finish_reason == LENGTH and stored.completion_tokens < params.max_new_tokens:
        return None
    if context_size is None:
        return stored
    room = fits(stored.prompt_tokens, params, context_size)
    if stored.finish_reason == OVER_CONTEXT:
        return None if room else stored
    return stored if room else Completion.over_context(stored.prompt_tokens)


class CachedLLM:
    """Wraps ``inner``; ``mode`` is ``read-write`` (hits served, misses recorded),
    ``replay-only`` (a miss is an error naming model and key) or ``off`` (pass-through). An
    answer is looked up in ``directory``, then in the ``committed`` answers.

    Misses go to the model ``chunk_size`` prompts at a time (the backend's own batch) and each
    chunk is recorded as soon as it is done, so an interrupted stage loses at most one chunk
    and its rerun replays the rest; progress is logged per chunk. A committed answer that is
    replayed is copied into the folder, so that the folder holds exactly the answers its studies
    used, and ``ramp answers`` packs those and no stale ones. ``context_size``: the
    model's, against which a stored answer is checked before it is replayed (:func:`replayable`).
    """

    def __init__(
        self,
        inner: LLM,
        directory: Path,
        mode: str = "read-write",
        *,
        chunk_size: int = 1,
        committed: Mapping[str, Completion] | None = None,
        context_size: int | None = None,
    ) -> None:
        if mode not in CACHE_MODES:
            raise ValueError(f"cache mode {mode!r} is not one of {', '.join(CACHE_MODES)}")
        if chunk_size < 1:
            raise ValueError(f"cache chunk_size must be >= 1, not {chunk_size}")
        self.chunk_size = chunk_size
        self.inner = inner
        self.directory = Path(directory)
        self.mode = mode
        self.committed = dict(committed or {})
        """Answers committed with the repository (ramp.llm.answers), asked after the folder."""
        self.context_size = context_size
        self.hits = 0
        self.misses = 0
        self.refused = 0
        """Stored answers not replayed: cut by a smaller context than the model's now."""

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def path_of(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def _load(self, key: str) -> Completion | None:
        path = self.path_of(key)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            committed = self.committed.get(key)
            if committed is not None:  # the folder holds every answer a study used
                self._record(key, committed)
            return committed
        except ValueError as e:
            raise LLMError(f"{path}: corrupt cache entry ({e}); delete it to re-record") from e
        try:
            return Completion.from_json(raw["completion"])
        except (KeyError, TypeError) as e:
            raise LLMError(f"{path}: corrupt cache entry ({e}); delete it to re-record") from e

    def _record(self, key: str, completion: Completion) -> None:
        entry = {"model_id": self.model_id, "key": key,
                 "completion": completion.to_json()}
        write_text(self.path_of(key), json.dumps(entry, ensure_ascii=False))

    def complete(self, prompts: Sequence[Prompt], params: Params) -> list[Completion]:
        if self.mode == "off":
            return self.inner.complete(prompts, params)
        each = per_prompt(prompts, params)
        keys = [cache_key(self.model_id, p, q) for p, q in zip(prompts, each, strict=True)]
        found: list[Completion | None] = []
        for key, p in zip(keys, each, strict=True):
            stored = self._load(key)
            found.append(None if stored is None else replayable(stored, p, self.context_size))
            self.refused += stored is not None and found[-1] is None
        todo = [i for i, c in enumerate(found) if c is None]
        self.hits += len(prompts) - len(todo)
        self.misses += len(todo)
        if todo and self.mode == "replay-only":
            raise LLMError(
                f"replay-only cache miss for model {self.model_id}: key {keys[todo[0]]} "
                f"({len(todo)} of {len(prompts)} prompts not recorded under {self.directory}, "
                f"or recorded cut short by a smaller context than {self.context_size})"
            )
        start = time.perf_counter()
        for n in range(0, len(todo), self.chunk_size):
            chunk = todo[n : n + self.chunk_size]
            fresh = self.inner.complete([prompts[i] for i in chunk], [each[i] for i in chunk])
            for i, completion in zip(chunk, fresh, strict=True):
                found[i] = completion
                self._record(keys[i], completion)
            if len(todo) > len(chunk):
                done = n + len(chunk)
                elapsed = time.perf_counter() - start
                log.info(
                    "model calls: %d/%d new done, %d replayed from the cache (%.0f s, ~%.0f min "
                    "left)",
                    done, len(todo), len(prompts) - len(todo), elapsed,
                    elapsed / done * (len(todo) - done) / 60,
                )
        return [c for c in found if c is not None]
