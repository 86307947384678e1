"""Repair methods: RAMP (batch stages, ramp.methods.ramp) and the baselines of Table 1.

A baseline is a module with ``repair(task, ctx) -> attempts`` (see ramp.methods.base); this
plain dict names them, and they are imported only when a run uses them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ramp.methods.base import TaskMethod

RAMP = "ramp"
BASELINES: dict[str, str] = {
    "self_planning": "ramp.methods.self_planning",
    "chatrepair": "ramp.methods.chatrepair",
    "self_collaboration": "ramp.methods.self_collaboration",
    "lantern": "ramp.methods.lantern",
}
METHODS = (RAMP, *BASELINES)


def baseline(name: str) -> TaskMethod:
    """The ``repair`` function of a baseline method."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline method {name!r} (known: {', '.join(BASELINES)})")
    return importlib.import_module(BASELINES[name]).repair
