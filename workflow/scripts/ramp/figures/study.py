"""A study's scored tables, gathered from every run into one frame each.

Every run table carries its run's identity as columns (ramp.runs.RunId: study, model, variant,
subset), so a method is a (model, variant) pair read from the data, not from a folder name.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from ramp.analysis.authors import read_outcomes
from ramp.runs import identities

RUN_FILES = ("scores", "task_scores", "transitions", "costs", "hidden_attempts", "candidates")
# Frames a study drawn before they existed lacks: read as empty, their tables say "not run".
LATER_RUN_FILES = ("candidates",)


HIDDEN_TAG = " [hidden-test feedback]"
"""How a method fed the hidden tests' outcomes (ramp.hidden_feedback) is named everywhere."""


@dataclass(frozen=True)
class Method:
    model: str
    variant: str
    hidden_feedback: bool = False
    """Its checks ran the hidden tests: labelled everywhere, never a strict score."""

    @property
    def shown(self) -> str:
        """The variant as tables and figures name it (tagged when fed the hidden tests)."""
        return self.variant + (HIDDEN_TAG if self.hidden_feedback else "")

    @property
    def label(self) -> str:
        return f"{self.shown} ({self.model})"


@dataclass(frozen=True)
class Study:
    """Every run's tables of one subset; ``oracle`` is empty when that stage did not run;
    ``authors``: the RAMP authors' released per-task outcomes (ramp.analysis.authors), None
    when none were given; ``candidates``: every program each run wrote, on the hidden tests
    (ramp.analysis.candidates), empty in studies drawn before that stage existed."""

    subset: str
    methods: tuple[Method, ...]
    scores: pd.DataFrame
    task_scores: pd.DataFrame
    transitions: pd.DataFrame
    costs: pd.DataFrame
    hidden_attempts: pd.DataFrame
    oracle: pd.DataFrame
    oracle_programs: pd.DataFrame
    authors: pd.DataFrame | None = None
    candidates: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def tested_oracle(self) -> pd.DataFrame:
        """The oracle frame without the runs fed the hidden tests: their tests are the hidden
        ones, so neither reading of Table 3, nor the oracle coverage, says anything of them."""
        hidden = {(m.model, m.variant) for m in self.methods if m.hidden_feedback}
        if self.oracle.empty or not hidden:
            return self.oracle
        keys = zip(self.oracle["model"], self.oracle["variant"], strict=True)
        return self.oracle[[k not in hidden for k in keys]]

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
        return method.shown if len(self.models) == 1 else method.label

    def of(self, frame: pd.DataFrame, method: Method) -> pd.DataFrame:
        return frame[(frame["model"] == method.model) & (frame["variant"] == method.variant)]

    @property
    def language(self) -> str | None:
        """The tasks' language (ramp.languages key), or None in frames written before the
        per-task scores carried it (or when they mix languages)."""
        if "language" not in self.task_scores.columns:
            return None
        found = set(self.task_scores["language"].dropna())
        return found.pop() if len(found) == 1 else None

    def solved(self, method: Method) -> set[str]:
        """The tasks a method repaired (cumulative: some candidate passed every hidden test)."""
        return set(self.of(self.task_scores, method).query("cumulative")["task_id"])

    def tokens_a_task(self, method: Method) -> float | None:
        """The model tokens (prompt and answer) a method spent a task in its full run, or None
        where it has no costs or tasks."""
        c = self.of(self.costs, method)
        c = c[(c["policy"] == "full") & (c["stage"] == "total")]
        tasks = self.of(self.task_scores, method)["task_id"].nunique()
        if c.empty or not tasks:
            return None
        return float((c["prompt_tokens"] + c["completion_tokens"]).sum()) / tasks


def hidden_runs(scores: pd.DataFrame) -> set:
    """The runs whose scores say they were fed the hidden tests (column ``hidden_feedback``,
    absent from frames written before it)."""
    if "hidden_feedback" not in scores.columns:
        return set()
    return set(identities(scores[scores["hidden_feedback"].astype(bool)]))


def methods_of(scores: pd.DataFrame) -> tuple[Method, ...]:
    """The methods a scores frame holds, in order of first appearance, each marked when its
    run was fed the hidden tests."""
    hidden = {(r.model, r.variant) for r in hidden_runs(scores)}
    return tuple(Method(m, v, (m, v) in hidden) for m, v in dict.fromkeys(
        zip(scores["model"], scores["variant"], strict=True)))


def _gather(paths: Sequence[str | os.PathLike[str]]) -> pd.DataFrame:
    frames = [pd.read_parquet(p) for p in paths]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def load_study(
    subset: str,
    runs: Mapping[str, Sequence[str | os.PathLike[str]]],
    oracle: str | os.PathLike[str] | None = None,
    oracle_programs: str | os.PathLike[str] | None = None,
    authors: str | os.PathLike[str] | None = None,
) -> Study:
    """``runs`` maps each name of :data:`RUN_FILES` to that table of every run of the subset;
    ``authors``: the authors' outcomes file (JSON Lines), if any."""
    frames = {name: _gather(runs.get(name, ())) for name in RUN_FILES}
    if frames["scores"].empty:
        raise ValueError(f"subset {subset!r}: no run to render")
    methods = methods_of(frames["scores"])
    return Study(
        subset=subset,
        methods=methods,
        oracle=pd.read_parquet(oracle) if oracle else pd.DataFrame(),
        oracle_programs=pd.read_parquet(oracle_programs) if oracle_programs else pd.DataFrame(),
        authors=read_outcomes(authors) if authors else None,
        **frames,
    )
