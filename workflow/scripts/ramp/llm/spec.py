"""Model entries of the config: one typed, validated record per backbone name."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

QUANTIZATIONS = ("none", "nf4")
CACHE_MODES = ("off", "read-write", "replay-only")


class ConfigError(ValueError):
    """A `models:` entry is malformed; the message names the entry and the key."""


@dataclass(frozen=True)
class ModelSpec:
    """One backbone: which backend runs which weights, and how."""

    name: str
    #: registry name of the backend: ``llamacpp``, ``transformers`` or ``openai``.
    backend: str
    #: an embedded model's catalogue name (``ramp models list``); exclusive with ``weights``.
    embedded: str = ""
    #: a local path or hub id (transformers, llamacpp), or the served model name (openai).
    weights: str = ""
    #: ``none``, or ``nf4``: 4-bit NormalFloat via bitsandbytes (the paper's setup), on a CUDA
    #: GPU or the CPU (transformers backend).
    quantization: str = "none"
    #: a Jinja chat-template file; empty uses the template that ships with the weights.
    chat_template: str = ""
    #: context window in tokens (llamacpp allocates it up front).
    context_size: int = 4096
    #: CPU threads for prompt evaluation and generation; 0 lets the library choose (every
    #: core, for llama.cpp's prompt evaluation).
    n_threads: int = 0
    #: prompt tokens per llama.cpp batch. A prompt is evaluated in these batches from its first
    #: token and only whole ones are reused by the next call, so a smaller batch reuses more of
    #: a shared prefix; it changes the floating-point results, so the model id names it.
    n_batch: int = 512
    #: prompts generated together per forward pass (transformers).
    batch_size: int = 8
    #: ``auto``, ``cpu`` or ``cuda`` (transformers).
    device: str = "auto"
    #: OpenAI-compatible server URL; empty falls back to $RAMP_OPENAI_BASE_URL.
    base_url: str = ""
    #: environment variable holding the API key (local servers accept any key).
    api_key_env: str = "OPENAI_API_KEY"
    #: seconds before one HTTP request is abandoned (then retried).
    timeout_s: float = 600.0
    #: retries with exponential backoff on connection errors, 429 and 5xx.
    max_retries: int = 4
    #: requests in flight at once against the server.
    concurrency: int = 4

    def __post_init__(self) -> None:
        if self.quantization not in QUANTIZATIONS:
            raise ConfigError(
                f"models.entries.{self.name}.quantization: {self.quantization!r} is not one of "
                f"{', '.join(QUANTIZATIONS)}"
            )
        if bool(self.embedded) == bool(self.weights):
            raise ConfigError(
                f"models.entries.{self.name}: give exactly one of 'embedded' or 'weights'"
            )
        for key in ("context_size", "n_batch", "batch_size", "concurrency"):
            if getattr(self, key) < 1:
                raise ConfigError(f"models.entries.{self.name}.{key}: must be >= 1")

    @property
    def template_digest(self) -> str:
        """Short hash of the custom chat template, so editing it changes the cache key."""
        if not self.chat_template:
            return "builtin"
        return hashlib.sha256(Path(self.chat_template).read_bytes()).hexdigest()[:12]

    @classmethod
    def from_dict(cls, name: str, raw: Mapping[str, Any]) -> ModelSpec:
        if not isinstance(raw, Mapping):
            raise ConfigError(
                f"models.entries.{name}: expected a mapping, got {type(raw).__name__}"
            )
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(k for k in raw if k not in fields or k == "name")
        if unknown:
            raise ConfigError(
                f"models.entries.{name}: unknown key {unknown[0]!r} "
                f"(known: {', '.join(k for k in fields if k != 'name')})"
            )
        if "backend" not in raw:
            raise ConfigError(f"models.entries.{name}: missing key 'backend'")
        values: dict[str, Any] = {}
        for key, value in raw.items():
            want = type(fields[key].default) if key != "backend" else str
            if want is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, want) or isinstance(value, bool):
                raise ConfigError(
                    f"models.entries.{name}.{key}: expected {want.__name__}, got {value!r}"
                )
            values[key] = value
        return cls(name=name, **values)


@dataclass(frozen=True)
class CacheConfig:
    mode: str = "read-write"
    dir: str = "results/cache/llm"
    committed: tuple[str, ...] = ()
    """Files or folders of committed answers (ramp.llm.answers) asked after ``dir``."""
    kv_dir: str = "results/cache/kv"
    """The disk cache of prompt prefixes' KV state (ramp.llm.prefix_cache), shared by the jobs
    of a study; it changes speed, never an answer."""
    kv_max_mb: int = 16384
    """Its bound in MiB (least recently used evicted first); 0 turns it off."""

    def __post_init__(self) -> None:
        if self.mode not in CACHE_MODES:
            raise ConfigError(
                f"models.cache.mode: {self.mode!r} is not one of {', '.join(CACHE_MODES)}"
            )
        if isinstance(self.kv_max_mb, bool) or not isinstance(self.kv_max_mb, int) \
                or self.kv_max_mb < 0:
            raise ConfigError(f"models.cache.kv_max_mb: expected an integer >= 0, got "
                              f"{self.kv_max_mb!r}")


@dataclass(frozen=True)
class ModelsConfig:
    """The `models:` section: which backbones the study uses, their entries, the cache."""

    use: tuple[str, ...]
    entries: Mapping[str, ModelSpec]
    cache: CacheConfig

    def spec(self, name: str) -> ModelSpec:
        try:
            return self.entries[name]
        except KeyError:
            raise ConfigError(
                f"unknown model {name!r} (configured: {', '.join(sorted(self.entries))})"
            ) from None

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> ModelsConfig:
        known = {"use", "entries", "cache"}
        for key in raw:
            if key not in known:
                raise ConfigError(
                    f"models: unknown key {key!r} (known: {', '.join(sorted(known))})"
                )
        entries_raw = raw.get("entries") or {}
        entries = {str(n): ModelSpec.from_dict(str(n), e) for n, e in entries_raw.items()}
        use = tuple(str(u) for u in raw.get("use") or ())
        for name in use:
            if name not in entries:
                raise ConfigError(f"models.use: {name!r} has no entry under models.entries")
        cache_raw = dict(raw.get("cache") or {})
        cache_keys = [f.name for f in dataclasses.fields(CacheConfig)]
        for key in cache_raw:
            if key not in cache_keys:
                raise ConfigError(
                    f"models.cache: unknown key {key!r} (known: {', '.join(sorted(cache_keys))})")
        if "committed" in cache_raw:
            cache_raw["committed"] = tuple(str(p) for p in cache_raw["committed"] or ())
        if cache_raw.get("mode") is False:  # YAML 1.1 reads a bare `off` as false
            cache_raw["mode"] = "off"
        return cls(use=use, entries=entries, cache=CacheConfig(**cache_raw))


def load_models_config(path: Path) -> ModelsConfig:
    """Read the `models:` section of a study config file."""
    import yaml

    with path.open(encoding="utf-8") as f:
        raw = yaml.safe_load(f) or {}
    if "models" not in raw:
        raise ConfigError(f"{path}: no 'models' section")
    return ModelsConfig.from_dict(raw["models"])
