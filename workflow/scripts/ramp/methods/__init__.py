"""Repair methods: RAMP and the baselines of Table 1, each a module with the same contract,
``repair(problem, ctx) -> attempts`` (ramp.methods.base), beside ``templates(variant)``: the
prompt templates its ``repair`` renders for a variant (ramp.provenance declares them).

This plain dict names them; a method's module is imported only when a run uses it. RAMP is also
run by the workflow as batch stages (its ``initial_reflections``, ``design_tests`` and
``iterate``), which :data:`STAGED` names.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

METHODS: dict[str, str] = {
    "ramp": "ramp.methods.ramp",
    "self_planning": "ramp.methods.self_planning",
    "chatrepair": "ramp.methods.chatrepair",
    "self_collaboration": "ramp.methods.self_collaboration",
    "lantern": "ramp.methods.lantern",
    "ramp_plus": "ramp.methods.ramp_plus",
    "breadth": "ramp.methods.breadth",
}
# Methods the workflow runs as per-iteration batch stages (reflect, design_tests,
# repair_iteration) rather than as one run_method job.
STAGED = frozenset({"ramp"})


def _module(name: str) -> Any:
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r} (known: {', '.join(METHODS)})")
    return importlib.import_module(METHODS[name])


def method(name: str) -> Callable[..., Sequence[Any]]:
    """The ``repair`` function of a method (ramp.methods.base.TaskMethod)."""
    return _module(name).repair


def method_templates(name: str, variant: Any) -> tuple[str, ...]:
    """The templates (names under prompts/, without ``.j2``) method ``name``'s ``repair``
    renders for ``variant`` (a ramp.variants.Variant)."""
    return tuple(_module(name).templates(variant))
