"""A run: one method (model x variant) on one subset of one study, and the files it writes.

The one definition of a run folder's file names (:data:`RUN_FILES`), used by the rules and by
the stages, and of a run's identity (:class:`RunId`), which every run Parquet carries as columns
so that the gathering stages (oracle, figures) never parse it back out of a folder name.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import astuple, dataclass, fields
from typing import Any

import pandas as pd

from ramp.io import write_parquet

DEFAULT_STUDY = "default"

# Every file of a run folder, relative to it. `iteration` takes the iteration number t.
RUN_FILES: dict[str, str] = {
    "reflections": "reflections.parquet",
    "tests": "tests.parquet",
    "iteration": "iterations/{t}.parquet",
    "method_attempts": "method_attempts.parquet",
    "attempts": "attempts.parquet",
    "hidden": "hidden.parquet",
    "hidden_attempts": "hidden_attempts.parquet",
    "candidates": "candidates.parquet",
    "scores": "scores.parquet",
    "task_scores": "task_scores.parquet",
    "transitions": "transitions.parquet",
    "costs": "costs.parquet",
}

# The run files a model stage writes per shard of the tasks (ramp.shards), each first under
# shards/{shard}/ and then gathered into the run file of the same name: the one a user opens.
SHARDED_FILES = ("reflections", "tests", "iteration", "method_attempts")


def shard_file(name: str) -> str:
    """Where shard ``{shard}`` of a run keeps its part of run file ``name``."""
    if name not in SHARDED_FILES:
        raise ValueError(f"run file {name!r} is not written per shard ({', '.join(SHARDED_FILES)})")
    return f"shards/{{shard}}/{RUN_FILES[name]}"


@dataclass(frozen=True)
class RunId:
    """Which run a row belongs to; the columns of the same names in every run Parquet."""

    study: str
    model: str
    variant: str
    subset: str

    @classmethod
    def of(cls, config: Mapping[str, Any], wildcards: Any) -> RunId:
        """A job's run, from the study config and the job's wildcards (model, variant, subset)."""
        name = str((config.get("study") or {}).get("name") or DEFAULT_STUDY)
        return cls(name, str(wildcards.model), str(wildcards.variant), str(wildcards.subset))

    def stamp(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with this run's identity as its last columns (text, also when empty)."""
        return frame.assign(**{
            f.name: pd.Series([value] * len(frame), index=frame.index, dtype="object")
            for f, value in zip(fields(self), astuple(self), strict=True)
        })

    def write(self, frame: pd.DataFrame, path: str | os.PathLike[str]) -> None:
        """Write a run file: ``frame`` stamped with this run's identity, atomically."""
        write_parquet(self.stamp(frame), path)


IDENTITY_COLUMNS = tuple(f.name for f in fields(RunId))


def identities(frame: pd.DataFrame) -> list[RunId]:
    """The runs a gathered frame holds, in order of first appearance."""
    missing = [c for c in IDENTITY_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"not a run table: no column(s) {', '.join(missing)}")
    rows = frame[list(IDENTITY_COLUMNS)].drop_duplicates().itertuples(index=False)
    return [RunId(*row) for row in rows]
