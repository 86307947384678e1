"""The RAMP authors' released per-task outcomes beside ours, on the tasks both studies ran.

The authors' file (config ``authors.outcomes``) is JSON Lines, one task a line, as their result
file records it: ``bug_code_uid`` (our task id), ``is_solved`` and, optionally, ``src_uid`` (the
problem) and ``difficulty``; other fields are ignored. Their runner checks the hidden tests
after every iteration and stops at a pass, so ``is_solved`` is a cumulative score: our
cumulative column is the one to compare it with, our strict one shows what a run that does not
peek at the hidden tests returns.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

OUTCOME_COLUMNS = ("task_id", "problem_id", "difficulty", "authors_solved")
# How two solved/unsolved columns can agree on a task, in the order the tables show them.
AGREEMENT = ("both solved", "only theirs", "only ours", "neither")


def parse_outcomes(text: str, source: str = "authors' outcomes") -> pd.DataFrame:
    """The authors' JSONL as a frame of :data:`OUTCOME_COLUMNS`; a malformed line is an error
    naming ``source`` and the line."""
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
        difficulty = record.get("difficulty")
        rows.append({"task_id": task_id, "problem_id": record.get("src_uid"),
                     "difficulty": None if difficulty is None else int(difficulty),
                     "authors_solved": solved})
    frame = pd.DataFrame(rows, columns=list(OUTCOME_COLUMNS))
    duplicated = frame["task_id"][frame["task_id"].duplicated()]
    if len(duplicated):
        raise ValueError(f"{source}: task {duplicated.iloc[0]!r} listed twice")
    return frame.astype({"difficulty": "Int64", "authors_solved": "bool"})


def read_outcomes(path: str | os.PathLike[str]) -> pd.DataFrame:
    return parse_outcomes(Path(path).read_text(encoding="utf-8"), str(path))


def side_by_side(authors: pd.DataFrame, ours: pd.DataFrame) -> pd.DataFrame:
    """One row per task in both: the authors' outcome and our strict and cumulative ones.

    ``ours``: one method's task scores (task_id, problem_id, difficulty, strict, cumulative).
    Rows are ordered by difficulty, problem and task, so a problem's tasks sit together."""
    mine = ours[["task_id", "problem_id", "difficulty", "strict", "cumulative"]]
    both = authors[["task_id", "authors_solved"]].merge(mine, on="task_id", how="inner")
    both = both.astype({"authors_solved": bool, "strict": bool, "cumulative": bool})
    columns = ["task_id", "problem_id", "difficulty", "authors_solved", "strict", "cumulative"]
    return both[columns].sort_values(["difficulty", "problem_id", "task_id"],
                                     na_position="last").reset_index(drop=True)


def agreement(theirs: pd.Series, ours: pd.Series) -> dict[str, int]:
    """Tasks both solved, only they solved, only we solved, neither solved."""
    theirs, ours = theirs.astype(bool).to_numpy(), ours.astype(bool).to_numpy()
    counts = (theirs & ours, theirs & ~ours, ~theirs & ours, ~theirs & ~ours)
    return {name: int(c.sum()) for name, c in zip(AGREEMENT, counts, strict=True)}
