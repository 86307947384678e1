"""A study's scored tables, gathered from every run folder into one frame each.

Run folders are ``results/runs/{model}/{variant}/{subset}``; each frame gains ``model`` and
``variant`` columns taken from that path, so a method is a (model, variant) pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ramp.analysis.paths import run_key

RUN_FILES = ("scores", "task_scores", "transitions", "costs", "hidden_attempts")


@dataclass(frozen=True)
class Method:
    model: str
    variant: str

    @property
    def label(self) -> str:
        return f"{self.variant} ({self.model})"


@dataclass(frozen=True)
class Study:
    """Every run's tables of one subset; ``oracle`` is empty when that stage did not run."""

    subset: str
    methods: tuple[Method, ...]
    scores: pd.DataFrame
    task_scores: pd.DataFrame
    transitions: pd.DataFrame
    costs: pd.DataFrame
    hidden_attempts: pd.DataFrame
    oracle: pd.DataFrame
    oracle_programs: pd.DataFrame

    @property
    def main(self) -> Method:
        """The method figures 3-5 describe: the `ramp` variant of the first model, if run."""
        for m in self.methods:
            if m.variant == "ramp":
                return m
        return self.methods[0]

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.model for m in self.methods))

    def name(self, method: Method) -> str:
        """A method's name in plots: the variant alone when the study has one model."""
        return method.variant if len(self.models) == 1 else method.label

    def of(self, frame: pd.DataFrame, method: Method) -> pd.DataFrame:
        return frame[(frame["model"] == method.model) & (frame["variant"] == method.variant)]

    def solved(self, method: Method) -> set[str]:
        """The tasks a method repaired (cumulative: some candidate passed every hidden test)."""
        return set(self.of(self.task_scores, method).query("cumulative")["task_id"])


def _gather(paths: Sequence[str | Path]) -> pd.DataFrame:
    frames = []
    for p in paths:
        model, variant, _ = run_key(p)
        df = pd.read_parquet(p)
        frames.append(df.assign(model=model, variant=variant))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def load_study(
    subset: str,
    run_dirs: Sequence[str | Path],
    oracle: str | Path | None = None,
    oracle_programs: str | Path | None = None,
) -> Study:
    if not run_dirs:
        raise ValueError(f"subset {subset!r}: no run to render")
    dirs = [Path(d) for d in run_dirs]
    methods = tuple(Method(*run_key(d)[:2]) for d in dirs)
    frames = {name: _gather([d / f"{name}.parquet" for d in dirs]) for name in RUN_FILES}
    return Study(
        subset=subset,
        methods=methods,
        oracle=pd.read_parquet(oracle) if oracle else pd.DataFrame(),
        oracle_programs=pd.read_parquet(oracle_programs) if oracle_programs else pd.DataFrame(),
        **frames,
    )
