"""Typed command-line overrides: Snakemake reads a nested ``--config`` value, e.g.
``--config 'study={name: k2, iterations: 2}'``, with YAML's BaseLoader, which leaves every scalar
below the top level as text ('2', not 2). ``typed_scalars`` reads such a text as YAML where the
config schema asks for an integer, a number or a boolean, before the schema checks the config;
a text that is not one (``iterations: two``) stays as it is, for the schema to report."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

_CHECKS = {
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
}


def _types(schema: Mapping[str, Any]) -> list[str]:
    """The JSON-schema types a value may have: its ``type``, or its ``anyOf`` branches' types."""
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else list(kind or [])
    for branch in schema.get("anyOf") or []:
        kinds += _types(branch)
    return kinds


def _typed_text(text: str, schema: Mapping[str, Any]) -> Any:
    kinds = _types(schema)
    enum = schema.get("enum") or []
    if "string" in kinds or text in enum:
        return text
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    if any(_CHECKS[k](value) for k in kinds if k in _CHECKS):
        return value
    if any(value == e and type(value) is type(e) for e in enum):
        return value
    return text


def typed_scalars(value: Any, schema: Mapping[str, Any]) -> Any:
    """VALUE (a config, or part of one) with its texts typed as SCHEMA asks; a new object, VALUE
    is not changed. Keys the schema does not describe keep their values as they are."""
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        extra = extra if isinstance(extra, Mapping) else {}
        return {k: typed_scalars(v, props.get(k, extra)) for k, v in value.items()}
    if isinstance(value, list):
        items = schema.get("items")
        return [typed_scalars(v, items) for v in value] if isinstance(items, Mapping) else value
    if isinstance(value, str):
        return _typed_text(value, schema)
    return value


def typed_config(config: Mapping[str, Any], schema_path: str | Path) -> dict[str, Any]:
    """``typed_scalars`` with the schema read from its YAML file."""
    schema = yaml.safe_load(Path(schema_path).read_text(encoding="utf-8"))
    return typed_scalars(dict(config), schema)
