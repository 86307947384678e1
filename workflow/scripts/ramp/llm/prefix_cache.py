"""A bounded disk cache of KV state for token prefixes, shared by the jobs of a study.

A task's calls share most of their prompt (system text, worked example, problem, buggy program,
earlier reflections), but each stage of a study is a job of its own, so without this every job
evaluates it again. A backend saves the KV state of a prompt's whole batches (``block`` tokens
each, from position 0: what a fresh evaluation computes, so loading it changes speed only) and a
later call, in any process, loads the longest stored prefix of its own prompt.

Entries live in one `diskcache <https://grantjenks.com/docs/diskcache/>`_ folder (SQLite and
files: safe under several processes at once, bounded, least recently used evicted first):

- ``<identity>:state:<digest>``: one saved state, the tokens it holds and the backend's bytes;
- ``<identity>:prefix:<digest>``: for each whole-block prefix of a stored state, that state's
  key, so that a prompt sharing only part of it finds it.

A digest is the sha256 of the identity (the model and every setting that decides the state's
bits), the block size and the prefix's tokens. A state is checked against the prompt before it
is used, so an evicted or replaced entry is only a miss.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

_MAGIC = b"RAMPKV1\n"
_COUNT = struct.Struct("<I")


#: What a backend with this cache counts of each call (``Completion.counters``), and the cost
#: tables sum per agent (ramp.analysis.costs): the prompt tokens it took from a KV cache (the
#: call before, or this cache) instead of evaluating them, and the bytes it read from this cache
#: and wrote to it.
COUNTERS = ("reused_prompt_tokens", "kv_read_bytes", "kv_written_bytes")

#: The fewest tokens a batch that starts inside a fresh evaluation's batch may hold: smaller
#: batches take other kernels (measured: under 8 tokens on one build).
TAIL = 16


@dataclass(frozen=True)
class Grain:
    """How reused KV rows must lie for the rest of a prompt to compute a fresh evaluation's
    bits: whole ``block``-token grains from position 0; the rest evaluated in batches ending at
    multiples of ``batch``, the first of which, where it starts inside a batch of a fresh
    evaluation, holds at least ``tail`` tokens (small batches take other kernels). With
    ``block == batch`` that is whole batches, which always hold."""

    block: int
    batch: int
    tail: int = 0

    def fit(self, reuse: int, length: int) -> int:
        """The most of ``reuse`` (a multiple of ``block``) that a prompt of ``length`` tokens
        may reuse under the ``tail`` rule."""
        if reuse % self.batch == 0:
            return reuse
        start = reuse // self.batch * self.batch
        end = min(length, start + self.batch)
        if end - reuse >= self.tail:
            return reuse
        return max(start, (end - self.tail) // self.block * self.block)

    def whole(self, reuse: int, length: int) -> int:
        """How many leading tokens of a prompt of ``length`` tokens, evaluated from ``reuse``,
        a later prompt may reuse: whole grains, but none of a last batch under ``tail``."""
        last = max(reuse, (length - 1) // self.batch * self.batch)
        if length - last < self.tail:
            return last // self.block * self.block
        return length // self.block * self.block


def reusable_prefix(cached: Sequence[int], whole: int, tokens: Sequence[int],
                    grain: int | Grain) -> int:
    """How many leading tokens of ``tokens`` may come from a KV cache that holds ``cached``, of
    which the first ``whole`` were evaluated in whole grains from position 0 (``grain``
    tokens each, or a :class:`Grain`).

    A multiple of the grain, and short of the whole prompt: its last token is always evaluated
    (its logits start the answer), in the batch a fresh evaluation puts it in (pure).
    """
    rule = grain if isinstance(grain, Grain) else Grain(grain, grain)
    limit = min(whole, len(tokens) - 1, len(cached))
    common = 0
    while common < limit and cached[common] == tokens[common]:
        common += 1
    return rule.fit(common // rule.block * rule.block, len(tokens))


@dataclass(frozen=True)
class PrefixHit:
    """The first ``tokens`` of a prompt are in ``state`` (which may hold more: the caller drops
    the rest), read as ``bytes_read`` bytes from the disk."""

    tokens: int
    state: bytes
    bytes_read: int


def pack(tokens: Sequence[int], state: bytes) -> bytes:
    """A stored entry: a header, the tokens (little-endian int32) and the state."""
    return b"".join((_MAGIC, _COUNT.pack(len(tokens)), struct.pack(f"<{len(tokens)}i", *tokens),
                     state))


def unpack(blob: bytes) -> tuple[tuple[int, ...], bytes]:
    """The tokens and state of an entry :func:`pack` made; ValueError if it is not one."""
    if not blob.startswith(_MAGIC) or len(blob) < len(_MAGIC) + _COUNT.size:
        raise ValueError("not a prefix-cache entry")
    (n,) = _COUNT.unpack_from(blob, len(_MAGIC))
    start = len(_MAGIC) + _COUNT.size
    if len(blob) < start + 4 * n:
        raise ValueError("truncated prefix-cache entry")
    return struct.unpack_from(f"<{n}i", blob, start), blob[start + 4 * n:]


def block_digests(identity: str, tokens: Sequence[int], block: int) -> Iterator[tuple[int, str]]:
    """``(length, digest)`` of every whole-``block`` prefix of ``tokens``, shortest first."""
    h = hashlib.sha256(f"{identity}\nblock={block}\n".encode())
    for end in range(block, len(tokens) + 1, block):
        h.update(struct.pack(f"<{block}i", *tokens[end - block:end]))
        yield end, h.copy().hexdigest()


class PrefixCache:
    """Stored prefixes of one model identity, ``block`` tokens a batch, in ``directory``
    (shared with other identities) kept under ``max_bytes``."""

    def __init__(self, directory: Path, identity: str, block: int, max_bytes: int) -> None:
        import diskcache

        if block < 1 or max_bytes < 1:
            raise ValueError(f"prefix cache: block and max_bytes must be >= 1 ({block}, "
                             f"{max_bytes})")
        self.identity, self.block, self.max_bytes = identity, block, max_bytes
        self.directory = Path(directory)
        self._tag = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]
        self._cache = diskcache.Cache(str(self.directory), size_limit=max_bytes,
                                      eviction_policy="least-recently-used")

    def _key(self, kind: str, digest: str) -> str:
        return f"{self._tag}:{kind}:{digest}"

    def find(self, tokens: Sequence[int], *, longer_than: int, limit: int) -> PrefixHit | None:
        """The longest stored whole-block prefix of ``tokens`` of at most ``limit`` tokens and
        more than ``longer_than``; None if there is none."""
        prefixes = [(n, d) for n, d in block_digests(self.identity, tokens[:limit], self.block)
                    if n > longer_than]
        for n, digest in reversed(prefixes):
            state_key = self._cache.get(self._key("prefix", digest))
            if state_key is None:
                continue
            blob = self._cache.get(state_key)
            if blob is None:
                continue  # evicted since the link was read
            try:
                held, state = unpack(blob)
            except ValueError:
                continue
            if len(held) >= n and tuple(held[:n]) == tuple(tokens[:n]):
                return PrefixHit(n, state, len(blob))
        return None

    def put(self, tokens: Sequence[int], state: bytes) -> int:
        """Store the state of ``tokens`` (whole blocks) and point each of its whole-block
        prefixes at it; the bytes written (0 if it was stored already or could never fit)."""
        if not tokens or len(tokens) % self.block:
            raise ValueError(f"prefix cache: {len(tokens)} tokens is not a whole number of "
                             f"{self.block}-token blocks")
        digests = list(block_digests(self.identity, tokens, self.block))
        state_key = self._key("state", digests[-1][1])
        blob = pack(tokens, state)
        if len(blob) > self.max_bytes:
            return 0
        written = 0
        if state_key not in self._cache:  # another job may have stored the same prefix
            self._cache.set(state_key, blob)
            written = len(blob)
        with self._cache.transact():
            for _, digest in digests:
                self._cache.set(self._key("prefix", digest), state_key)
        self._cache.cull()
        return written

    def volume(self) -> int:
        """Bytes the cache folder holds (every identity's entries and the index)."""
        return int(self._cache.volume())

    def close(self) -> None:
        self._cache.close()
