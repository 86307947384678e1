"""Where a run's files live: results/runs/{model}/{variant}/{subset}/."""

from __future__ import annotations

from pathlib import Path


def run_key(path: str | Path) -> tuple[str, str, str]:
    """(model, variant, subset) of a run folder or of a file inside one."""
    parts = Path(path).parts
    try:
        i = parts.index("runs")
        model, variant, subset = parts[i + 1 : i + 4]
    except ValueError:
        raise ValueError(
            f"{path}: not inside results/runs/{{model}}/{{variant}}/{{subset}}"
        ) from None
    return model, variant, subset
