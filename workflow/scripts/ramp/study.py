"""From a study config to the objects a stage needs: the model, the variant, the executor.

Stage scripts call these with Snakemake's ``config`` dict; nothing here runs at import time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ramp.llm.base import LLM
from ramp.variants import Variant, variant_from_config

DEFAULT_SEED = 0


def build_llm(config: Mapping[str, Any], name: str) -> LLM:
    """The configured model ``name``, behind the record/replay cache unless it is off."""
    from ramp.llm.registry import open_model
    from ramp.llm.spec import ModelsConfig

    return open_model(ModelsConfig.from_dict(config.get("models") or {}), name)


def batch_size(config: Mapping[str, Any], name: str) -> int:
    """How many prompts model ``name``'s backend takes at once (1 for llama.cpp on a CPU)."""
    from ramp.llm.registry import batch_size as of_spec
    from ramp.llm.spec import ModelsConfig

    return of_spec(ModelsConfig.from_dict(config.get("models") or {}).spec(name))


def variant(config: Mapping[str, Any], name: str) -> Variant:
    variants = config.get("variants") or {}
    if name not in variants:
        raise ValueError(f"config variants: no variant {name!r} (known: {', '.join(variants)})")
    return variant_from_config(name, variants[name])


def budget(config: Mapping[str, Any], variant_name: str | None = None) -> int:
    """The study's budget K, or the iterations a variant runs under it."""
    k = int((config.get("study") or {}).get("iterations", 11))
    return variant(config, variant_name).budget(k) if variant_name else k


def seed(config: Mapping[str, Any]) -> int:
    return int((config.get("study") or {}).get("seed", DEFAULT_SEED))


def workers(config: Mapping[str, Any]) -> int:
    return int((config.get("executor") or {}).get("workers", 2))
