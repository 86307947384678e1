"""What the workflow's `benchmark:` files measured, as one table per study subset.

Snakemake writes one tab-separated file per job of a rule with a `benchmark:` directive (wall
seconds, CPU seconds, peak memory, ...; one row per repetition). Each file is read with the
labels that say which job it was (its rule and wildcards), given by the caller.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

import pandas as pd

# Snakemake's benchmark columns kept, and their names in the table (max_rss is in MB).
MEASURES = {"s": "wall_s", "cpu_time": "cpu_s", "max_rss": "max_rss_mb", "mean_load": "mean_load"}


def read_benchmark(path: str | os.PathLike[str]) -> dict[str, float]:
    """One benchmark file's measures (the mean over its repetitions; NaN where Snakemake
    could not measure: it writes NA or a dash)."""
    frame = pd.read_csv(path, sep="\t", na_values=["NA", "-"])
    missing = [c for c in MEASURES if c not in frame.columns]
    if missing or frame.empty:
        lacking = ", ".join(missing) or "row"
        raise ValueError(f"{path}: not a Snakemake benchmark file (no {lacking})")
    means = frame[list(MEASURES)].apply(pd.to_numeric, errors="coerce").mean()
    return {MEASURES[c]: float(v) for c, v in means.items()}


def runtime_table(
    entries: Iterable[tuple[Mapping[str, str], str | os.PathLike[str]]],
) -> pd.DataFrame:
    """One row per benchmark file: its labels (rule, model, variant, iteration...) and its
    measures, ordered by labels; label columns in order of first appearance."""
    rows = [{**labels, **read_benchmark(path)} for labels, path in entries]
    if not rows:
        return pd.DataFrame(columns=["rule", *MEASURES.values()])
    frame = pd.DataFrame(rows)
    labels = [c for c in frame.columns if c not in MEASURES.values()]
    frame[labels] = frame[labels].fillna("")
    return frame[[*labels, *MEASURES.values()]].sort_values(
        labels, kind="stable", ignore_index=True, key=lambda column: column.map(_natural))


def _natural(value: object) -> str:
    """A sort key that puts iteration 2 before iteration 10."""
    text = str(value)
    return f"{int(text):012d}" if text.isdigit() else text
