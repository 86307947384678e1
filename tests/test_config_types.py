"""Nested --config overrides arrive as text; the schema's types are restored before validation."""

from __future__ import annotations

from pathlib import Path

from ramp.config_types import typed_config, typed_scalars

ROOT = Path(__file__).resolve().parents[1]

SCHEMA = {
    "type": "object",
    "properties": {
        "study": {
            "type": "object",
            "properties": {
                "iterations": {"type": "integer", "minimum": 1},
                "name": {"type": "string"},
                "variants": {"type": "array", "items": {"type": "string"}},
            },
        },
        "subsets": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
        "cache": {"type": "object", "properties": {"mode": {"enum": ["off", False, "read-write"]}}},
        "variants": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "alternatives": {"type": "boolean"},
                    "code_temperature": {"type": "number"},
                },
            },
        },
    },
}


def test_texts_become_the_schema_types():
    config = {
        "study": {"iterations": "3", "name": "007", "variants": ["ramp", "1"]},
        "variants": {"hot": {"alternatives": "false", "code_temperature": "0.8"}},
        "cache": {"mode": "false"},
    }
    assert typed_scalars(config, SCHEMA) == {
        "study": {"iterations": 3, "name": "007", "variants": ["ramp", "1"]},
        "variants": {"hot": {"alternatives": False, "code_temperature": 0.8}},
        "cache": {"mode": False},
    }


def test_texts_that_are_not_the_type_are_left_for_the_schema_to_report():
    config = {"study": {"iterations": "two"}, "variants": {"v": {"alternatives": "3"}}}
    assert typed_scalars(config, SCHEMA) == config
    assert typed_scalars({"study": {"iterations": "true"}}, SCHEMA) == {
        "study": {"iterations": "true"}
    }


def test_strings_allowed_by_the_schema_and_unknown_keys_are_kept():
    config = {"subsets": ["paper10", "5"], "cache": {"mode": "off"}, "other": {"x": "1"}}
    assert typed_scalars(config, SCHEMA) == config


def test_values_already_typed_are_unchanged_and_the_input_is_not_modified():
    config = {"study": {"iterations": 4, "name": "k4"}}
    out = typed_scalars(config, SCHEMA)
    assert out == config and out is not config and out["study"] is not config["study"]


def test_the_project_schema_types_a_nested_override():
    config = {"study": {"iterations": "2", "model_threads": "1", "seed": "-1"}}
    typed = typed_config(config, ROOT / "config/schemas/config.schema.yaml")
    assert typed["study"] == {"iterations": 2, "model_threads": 1, "seed": -1}

