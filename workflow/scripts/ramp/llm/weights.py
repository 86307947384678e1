"""Where an entry's weights are, and the identity string the cache keys on."""

from __future__ import annotations

from pathlib import Path

from ramp.llm import embedded
from ramp.llm.spec import ModelSpec


def weights_path(spec: ModelSpec) -> Path:
    """A verified local file for embedded entries; the configured path otherwise."""
    if spec.embedded:
        return embedded.resolve(spec.embedded)
    return Path(spec.weights)


def model_id(spec: ModelSpec) -> str:
    """Backend + weights + quantization + template: what changes the answers.

    Embedded weights are named by their sha256, so the identity survives moving the cache.
    """
    weights = (
        f"{spec.embedded}@{embedded.lookup(spec.embedded).sha256[:16]}"
        if spec.embedded
        else spec.weights
    )
    return f"{spec.backend}/{weights}/{spec.quantization}/{spec.template_digest}"
