"""Backends by name, imported only when a model entry asks for them."""

from __future__ import annotations

import importlib
from pathlib import Path

from ramp.llm.answers import load as load_answers
from ramp.llm.base import LLM
from ramp.llm.cache import CachedLLM
from ramp.llm.spec import ConfigError, ModelsConfig, ModelSpec

BACKENDS: dict[str, str] = {
    "llamacpp": "ramp.llm.backends.llamacpp:LlamaCppLLM",
    "transformers": "ramp.llm.backends.hf:TransformersLLM",
    "openai": "ramp.llm.backends.openai_compat:OpenAICompatLLM",
}


# How many prompts a backend takes at once to good effect (the cache records after each such
# chunk): a GPU batch, a server's concurrency; llama.cpp one prompt at a time.
CHUNK_OF = {
    "llamacpp": lambda spec: 1,
    "transformers": lambda spec: spec.batch_size,
    "openai": lambda spec: spec.concurrency,
}


def backend_class(name: str) -> type:
    try:
        target = BACKENDS[name]
    except KeyError:
        raise ConfigError(
            f"unknown backend {name!r} (known: {', '.join(sorted(BACKENDS))})"
        ) from None
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ConfigError(
            f"backend {name!r} needs {e.name or 'a missing package'}: "
            "install the extra with `pip install -e '.[models]'`"
        ) from e
    return getattr(module, class_name)


# Backends that share the KV state of prompt prefixes through a disk cache (models.cache.kv_dir).
PREFIX_CACHE_BACKENDS = ("llamacpp",)


def create_llm(spec: ModelSpec, *, prefix_dir: Path | None = None,
               prefix_max_bytes: int = 0) -> LLM:
    """Build (and load) the model an entry describes; a backend that can keeps prompt
    prefixes' KV state in ``prefix_dir`` (at most ``prefix_max_bytes``; 0: no disk cache)."""
    cls = backend_class(spec.backend)
    if prefix_dir is not None and prefix_max_bytes > 0 and spec.backend in PREFIX_CACHE_BACKENDS:
        return cls(spec, prefix_dir=prefix_dir, prefix_max_bytes=prefix_max_bytes)
    return cls(spec)


def batch_size(spec: ModelSpec) -> int:
    """Prompts the entry's backend takes at once (its batch, or requests in flight); 1 if none."""
    return int(CHUNK_OF.get(spec.backend, lambda s: 1)(spec))


def open_model(config: ModelsConfig, name: str, *, root: Path = Path(".")) -> LLM:
    """The model a stage uses: the entry's backend, behind the configured cache."""
    spec = config.spec(name)
    llm = create_llm(spec, prefix_dir=root / config.cache.kv_dir,
                     prefix_max_bytes=config.cache.kv_max_mb * 2**20)
    if config.cache.mode == "off":
        return llm
    committed = load_answers([root / p for p in config.cache.committed])
    # A server's context is its own (the entry's context_size does not set it): not checked.
    context = None if spec.backend == "openai" else spec.context_size
    return CachedLLM(llm, root / config.cache.dir, config.cache.mode, chunk_size=batch_size(spec),
                     committed=committed, context_size=context)
