"""What a study config means: the model, the variants, the budget K, the seed and the workers.

The rules and the stage functions ask here, with Snakemake's ``config`` dict, so that a fact
(K = 11, a variant's method, how many iterations it runs) is answered in one place. Nothing
here runs at import time; the model layer is imported only when a model is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ramp.llm.base import LLM
from ramp.methods import STAGED
from ramp.shards import AUTO, shard_count
from ramp.variants import Variant, variant_from_config

DEFAULT_SEED = 0
DEFAULT_BUDGET = 11
"""The paper's budget K of repair iterations."""
DEFAULT_WORKERS = 2
"""Processes the executor runs one program's tests on."""


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
    k = int((config.get("study") or {}).get("iterations", DEFAULT_BUDGET))
    return variant(config, variant_name).budget(k) if variant_name else k


def staged(config: Mapping[str, Any], variant_name: str) -> bool:
    """Whether a variant runs as the workflow's per-iteration agent stages (RAMP) rather than
    as one run_method job (a baseline)."""
    return variant(config, variant_name).method in STAGED


def variant_names(config: Mapping[str, Any], *, staged_only: bool) -> list[str]:
    """The configured variants that run as agent stages (True) or as one job (False)."""
    return [n for n in (config.get("variants") or {}) if staged(config, n) == staged_only]


def seed(config: Mapping[str, Any]) -> int:
    return int((config.get("study") or {}).get("seed", DEFAULT_SEED))


def workers(config: Mapping[str, Any]) -> int:
    return int((config.get("executor") or {}).get("workers", DEFAULT_WORKERS))


def model_threads(config: Mapping[str, Any]) -> int:
    """Cores a model job claims; equal to the model entry's n_threads (config.yaml says why)."""
    return int((config.get("study") or {}).get("model_threads", 1))


def shards(config: Mapping[str, Any], cores: int | None) -> int:
    """How many shards a run's tasks are split into (config study.shards: a number, or ``auto``:
    as many as the ``cores`` Snakemake was given can run model jobs at once)."""
    setting = (config.get("study") or {}).get("shards", AUTO)
    return shard_count(setting, cores=cores, threads_per_job=model_threads(config))


def study_name(config: Mapping[str, Any]) -> str:
    """A named study's name; "" for the default study (config study.name)."""
    return str((config.get("study") or {}).get("name") or "")
