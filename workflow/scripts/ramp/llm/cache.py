"""Record / replay: a content-addressed store of completions, as a wrapper around any LLM.

A key is the sha256 of the model identity, the prompt and the sampling parameters; the entry
is one JSON file ``<dir>/<key[:2]>/<key>.json``. A stored completion is returned exactly as it
was recorded (seconds included), so a stage rerun from the cache writes identical Parquet.
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
from ramp.llm.base import LLM, Completion, LLMError, Params, Prompt, SamplingParams, per_prompt
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


class CachedLLM:
    """Wraps ``inner``; ``mode`` is ``read-write`` (hits served, misses recorded),
    ``replay-only`` (a miss is an error naming model and key) or ``off`` (pass-through). An
    answer is looked up in ``directory``, then in the ``committed`` answers.

    Misses go to the model ``chunk_size`` prompts at a time (the backend's own batch) and each
    chunk is recorded as soon as it is done, so an interrupted stage loses at most one chunk
    and its rerun replays the rest; progress is logged per chunk."""

    def __init__(
        self,
        inner: LLM,
        directory: Path,
        mode: str = "read-write",
        *,
        chunk_size: int = 1,
        committed: Mapping[str, Completion] | None = None,
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
        self.hits = 0
        self.misses = 0

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
            return self.committed.get(key)
        except ValueError as e:
            raise LLMError(f"{path}: corrupt cache entry ({e}); delete it to re-record") from e
        try:
            return Completion.from_json(raw["completion"])
        except (KeyError, TypeError) as e:
            raise LLMError(f"{path}: corrupt cache entry ({e}); delete it to re-record") from e

    def complete(self, prompts: Sequence[Prompt], params: Params) -> list[Completion]:
        if self.mode == "off":
            return self.inner.complete(prompts, params)
        each = per_prompt(prompts, params)
        keys = [cache_key(self.model_id, p, q) for p, q in zip(prompts, each, strict=True)]
        found: list[Completion | None] = [self._load(k) for k in keys]
        todo = [i for i, c in enumerate(found) if c is None]
        self.hits += len(prompts) - len(todo)
        self.misses += len(todo)
        if todo and self.mode == "replay-only":
            raise LLMError(
                f"replay-only cache miss for model {self.model_id}: key {keys[todo[0]]} "
                f"({len(todo)} of {len(prompts)} prompts not recorded under {self.directory})"
            )
        start = time.perf_counter()
        for n in range(0, len(todo), self.chunk_size):
            chunk = todo[n : n + self.chunk_size]
            fresh = self.inner.complete([prompts[i] for i in chunk], [each[i] for i in chunk])
            for i, completion in zip(chunk, fresh, strict=True):
                found[i] = completion
                entry = {
                    "model_id": self.model_id,
                    "key": keys[i],
                    "completion": completion.to_json(),
                }
                write_text(self.path_of(keys[i]), json.dumps(entry, ensure_ascii=False))
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
