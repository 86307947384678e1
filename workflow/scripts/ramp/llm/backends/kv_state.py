"""A sequence's KV state in a llama.cpp context, as bytes and back (what the prefix cache
stores)."""

from __future__ import annotations

import ctypes
from typing import Any

import llama_cpp


def read_state(ctx: Any, seq: int) -> bytes:
    """Sequence ``seq``'s KV state in context ``ctx`` (a ``llama_context_p``)."""
    size = llama_cpp.llama_state_seq_get_size(ctx, seq)
    buffer = (ctypes.c_uint8 * size)()
    n = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, seq)
    return ctypes.string_at(buffer, n)


def write_state(ctx: Any, seq: int, state: bytes) -> bool:
    """Set sequence ``seq`` of context ``ctx`` (emptied by the caller) to ``state``; False
    when the context cannot take it (another model or shape): the caller empties it again."""
    buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
    return bool(llama_cpp.llama_state_seq_set_data(ctx, buffer, len(state), seq))
