"""The RAMP authors' released per-task outcomes beside ours, on the tasks both studies ran.

The authors' file (config ``authors.outcomes``) is JSON Lines, one task a line, as their result
file records it: ``bug_code_uid`` (our task id), ``is_solved`` and, optionally, ``src_uid`` (the
problem), ``difficulty``, ``final_unit_ok`` (the last candidate passed the hidden tests),
``implementations`` (how many candidates the loop wrote) and, per iteration of their loop
(iteration 0: the first candidate), ``generated_pass_by_iteration`` and
``hidden_pass_by_iteration`` (that candidate passed the Test Designer's tests, the hidden
tests); other fields are ignored.

Their loop does not stop at a hidden pass: in their released run it wrote every candidate of its
budget except on the tasks whose generated tests had accepted one. ``is_solved`` counts a task
solved when any candidate passed the hidden tests, a cumulative score (compare it with our
cumulative column); whether the final candidate passed (``final_unit_ok``) is the nearest they
have to our strict score.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

OUTCOME_COLUMNS = ("task_id", "problem_id", "difficulty", "authors_solved", "authors_final",
                   "authors_candidates", "authors_generated", "authors_hidden")
# A loop's path through its candidates, per task (:func:`trajectory`): how many it wrote, the
# first right one (1: the first candidate), the right and wrong ones its own tests accepted or
# rejected, and whether the last one is right.
TRAJECTORY_COLUMNS = ("candidates", "first_right", "right_accepted", "right_rejected",
                      "wrong_accepted", "final_right")
# How two solved/unsolved columns can agree on a task, in the order the tables show them.
AGREEMENT = ("both solved", "only theirs", "only ours", "neither")


def parse_outcomes(text: str, source: str = "authors' outcomes") -> pd.DataFrame:
    """The authors' JSONL as a frame of :data:`OUTCOME_COLUMNS`; a malformed line is an error
    naming ``source`` and the line. The per-iteration passes (``authors_generated``,
    ``authors_hidden``: lists of booleans, iteration 0 first) are None where a line has none."""
    rows = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as e:
            raise ValueError(f"{source}:{n}: not JSON ({e})") from None
        task_id, solved = record.get("bug_code_uid"), record.get("is_solved")
        if not isinstance(task_id, str) or not isinstance(solved, bool):
            raise ValueError(f"{source}:{n}: needs a string bug_code_uid and a boolean is_solved")
        difficulty, candidates = record.get("difficulty"), record.get("implementations")
        generated = _flags(record, "generated_pass_by_iteration", f"{source}:{n}")
        hidden = _flags(record, "hidden_pass_by_iteration", f"{source}:{n}")
        if generated is not None and hidden is not None and len(generated) != len(hidden):
            raise ValueError(f"{source}:{n}: generated and hidden passes of unequal length")
        rows.append({"task_id": task_id, "problem_id": record.get("src_uid"),
                     "difficulty": None if difficulty is None else int(difficulty),
                     "authors_solved": solved, "authors_final": record.get("final_unit_ok"),
                     "authors_candidates": None if candidates is None else int(candidates),
                     "authors_generated": generated, "authors_hidden": hidden})
    frame = pd.DataFrame(rows, columns=list(OUTCOME_COLUMNS))
    duplicated = frame["task_id"][frame["task_id"].duplicated()]
    if len(duplicated):
        raise ValueError(f"{source}: task {duplicated.iloc[0]!r} listed twice")
    return frame.astype({"difficulty": "Int64", "authors_solved": "bool",
                         "authors_final": "boolean", "authors_candidates": "Int64"})


def _flags(record: dict, key: str, where: str) -> list[bool] | None:
    value = record.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, bool) for v in value):
        raise ValueError(f"{where}: {key} must be a list of booleans")
    return value


def read_outcomes(path: str | os.PathLike[str]) -> pd.DataFrame:
    return parse_outcomes(Path(path).read_text(encoding="utf-8"), str(path))


def side_by_side(authors: pd.DataFrame, ours: pd.DataFrame) -> pd.DataFrame:
    """One row per task in both: the authors' outcome (any candidate right; the final one
    right, NA where their file does not say) and our strict and cumulative ones.

    ``ours``: one method's task scores (task_id, problem_id, difficulty, strict, cumulative).
    Rows are ordered by difficulty, problem and task, so a problem's tasks sit together."""
    mine = ours[["task_id", "problem_id", "difficulty", "strict", "cumulative"]]
    theirs = authors.reindex(columns=["task_id", "authors_solved", "authors_final"])
    both = theirs.merge(mine, on="task_id", how="inner")
    both = both.astype({"authors_solved": bool, "authors_final": "boolean", "strict": bool,
                        "cumulative": bool})
    columns = ["task_id", "problem_id", "difficulty", "authors_solved", "authors_final",
               "strict", "cumulative"]
    return both[columns].sort_values(["difficulty", "problem_id", "task_id"],
                                     na_position="last").reset_index(drop=True)


def agreement(theirs: pd.Series, ours: pd.Series) -> dict[str, int]:
    """Tasks both solved, only they solved, only we solved, neither solved."""
    theirs, ours = theirs.astype(bool).to_numpy(), ours.astype(bool).to_numpy()
    counts = (theirs & ours, theirs & ~ours, ~theirs & ours, ~theirs & ~ours)
    return {name: int(c.sum()) for name, c in zip(AGREEMENT, counts, strict=True)}


def agreement_pairs(frame: pd.DataFrame) -> list[tuple[str, str, pd.Series, pd.Series]]:
    """Which of the authors' outcomes each of our scores is compared with: our cumulative with
    their ``is_solved`` (any candidate right), our strict with their final candidate where their
    file records it (else with ``is_solved``). Items: our score, theirs, their flags, ours."""
    final = frame["authors_final"]
    strict_theirs = (("final candidate", final.astype(bool)) if final.notna().all()
                     else ("is_solved", frame["authors_solved"]))
    return [("cumulative", "is_solved", frame["authors_solved"], frame["cumulative"]),
            ("strict", *strict_theirs, frame["strict"])]


def trajectory(generated: Sequence[bool], hidden: Sequence[bool]) -> dict[str, object]:
    """One task's candidates in the order the loop wrote them: whether its own tests accepted
    each (``generated``) and whether each passes every hidden test (``hidden``), as
    :data:`TRAJECTORY_COLUMNS` (``first_right`` counts from 1, None when none is right;
    ``final_right`` None when no candidate was written)."""
    gen, hid = np.asarray(generated, dtype=bool), np.asarray(hidden, dtype=bool)
    if gen.shape != hid.shape:
        raise ValueError("one accepted/rejected flag per candidate, and one hidden verdict")
    right = np.flatnonzero(hid)
    return {"candidates": int(hid.size),
            "first_right": int(right[0]) + 1 if right.size else None,
            "right_accepted": int((gen & hid).sum()), "right_rejected": int((~gen & hid).sum()),
            "wrong_accepted": int((gen & ~hid).sum()),
            "final_right": bool(hid[-1]) if hid.size else None}


# Per task id, its candidates' flags in the order written: (accepted by the loop's own tests,
# passes every hidden test).
Flags = dict[str, tuple[list[bool], list[bool]]]


def authors_flags(authors: pd.DataFrame) -> Flags:
    """The per-iteration passes of the authors' outcomes, per task that records them (none for
    a file without the per-iteration fields)."""
    flags = {}
    for r in authors.itertuples(index=False):
        if not (_missing(r.authors_generated) or _missing(r.authors_hidden)):
            flags[r.task_id] = ([bool(v) for v in r.authors_generated],
                                [bool(v) for v in r.authors_hidden])
    return flags


def _missing(flags: object) -> bool:
    # A frame read back from Parquet holds arrays; one written before the field existed, None.
    return flags is None or (isinstance(flags, float) and np.isnan(flags))


def our_flags(hidden_attempts: pd.DataFrame) -> Flags:
    """One method's scored attempts (``hidden_attempts.parquet``: task_id, iteration,
    passed_generated, passed_hidden) per task; a candidate without a verdict of its own tests
    counts as rejected."""
    flags = {}
    for task_id, group in hidden_attempts.sort_values("iteration").groupby("task_id", sort=True):
        flags[str(task_id)] = (group["passed_generated"].fillna(False).astype(bool).tolist(),
                               group["passed_hidden"].fillna(False).astype(bool).tolist())
    return flags


def trajectories(flags: Flags) -> pd.DataFrame:
    """Per task, its :func:`trajectory` (task_id first)."""
    rows = [{"task_id": task_id, **trajectory(gen, hid)}
            for task_id, (gen, hid) in flags.items()]
    frame = pd.DataFrame(rows, columns=["task_id", *TRAJECTORY_COLUMNS])
    return frame.astype({"candidates": "int64", "first_right": "Int64", "right_accepted": "int64",
                         "right_rejected": "int64", "wrong_accepted": "int64",
                         "final_right": "boolean"})
