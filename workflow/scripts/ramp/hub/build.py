"""Hub rows -> task-file rows: select a language, join each problem's statement and tests.

Pure functions on decoded JSON, so every rule of the join is tested on literal rows. A row may
come raw (the hub's ``apr`` files: the problem named by ``src_uid`` only) or already joined (an
export of the hub's dataset loader, whose hidden tests are ``hidden_unit_test``, singular).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ramp.hub.layout import (
    EMPTY_WHEN_ABSENT,
    ROW_FIELDS,
    SAMPLE_FIELDS,
    STATEMENT_FIELDS,
    Language,
    TaskFileFormat,
)

Row = dict[str, Any]


@dataclass(frozen=True)
class Dropped:
    """A program left out of the task file, and why."""

    bug_code_uid: str
    reason: str


@dataclass(frozen=True)
class Built:
    rows: list[Row]
    dropped: list[Dropped]


def parse_jsonl(text: str) -> list[Row]:
    """The objects of a JSONL text, blank lines skipped."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def problems_by_id(rows: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """``problem_descriptions.jsonl`` rows keyed by their ``src_uid``."""
    return {row["src_uid"]: row for row in rows}


def _statement(problem: Mapping[str, Any]) -> Row:
    out: Row = {f"prob_desc_{name}": problem.get(name) for name in STATEMENT_FIELDS}
    for name in SAMPLE_FIELDS:
        out[f"prob_desc_{name}"] = json.dumps(problem.get(name, []))
    created = problem.get("created_at")
    out["prob_desc_created_at"] = None if created is None else str(created)
    return out


def _joined_statement(row: Mapping[str, Any]) -> Row | None:
    """The statement fields of a row that already carries them, else None."""
    if "prob_desc_description" not in row:
        return None
    out = {f"prob_desc_{n}": row.get(f"prob_desc_{n}") for n in STATEMENT_FIELDS + SAMPLE_FIELDS}
    for name in SAMPLE_FIELDS:
        value = out[f"prob_desc_{name}"]
        if not isinstance(value, str):
            out[f"prob_desc_{name}"] = json.dumps(value if value is not None else [])
    created = row.get("prob_desc_created_at")
    out["prob_desc_created_at"] = None if created is None else str(created)
    return out


def _joined_tests(row: Mapping[str, Any]) -> str | None:
    for name in ("hidden_unit_tests", "hidden_unit_test"):
        value = row.get(name)
        if value is not None:
            return value if isinstance(value, str) else json.dumps(value)
    return None


def task_row(
    row: Mapping[str, Any],
    *,
    problem: Mapping[str, Any] | None,
    tests: list[Any] | None,
    file_name: str,
    fmt: TaskFileFormat,
) -> Row | Dropped:
    """One hub row as a task-file row in ``fmt``'s key order, or why it cannot be one.

    The problem's statement and tests, when given, win over any the row carries itself.
    """
    uid = str(row.get("bug_code_uid", ""))
    statement = _statement(problem) if problem is not None else _joined_statement(row)
    if statement is None:
        return Dropped(uid, f"no statement for problem {row.get('src_uid')}")
    hidden = json.dumps(tests) if tests is not None else _joined_tests(row)
    if hidden is None:
        return Dropped(uid, f"no hidden tests for problem {row.get('src_uid')}")
    out: Row = {name: row.get(name) for name in ROW_FIELDS}
    out.update({name: row.get(name) or "" for name in EMPTY_WHEN_ABSENT})
    out["file_name"] = row.get("file_name") or file_name
    out.update(statement)
    out["hidden_unit_tests"] = hidden
    if isinstance(out["difficulty"], int | float) and not isinstance(out["difficulty"], bool):
        out["difficulty"] = fmt.difficulty(out["difficulty"])
    return {name: out.get(name) for name in fmt.fields}


def build_rows(
    rows: Iterable[Mapping[str, Any]],
    *,
    language: Language,
    problems: Mapping[str, Mapping[str, Any]] | None,
    tests: Mapping[str, list[Any]] | None,
    keep_problems: frozenset[str] | None = None,
) -> Built:
    """The task-file rows of ``language`` among ``rows``, in the hub's order.

    ``problems`` and ``tests`` (keyed by ``src_uid``) are the hub's per-problem files; None when
    the rows are already joined. ``keep_problems``: only programs of these problems are kept.
    """
    built: list[Row] = []
    dropped: list[Dropped] = []
    for row in rows:
        if row.get("lang_cluster") != language.lang_cluster:
            continue
        uid = row.get("src_uid")
        if keep_problems is not None and uid not in keep_problems:
            continue
        result = task_row(
            row,
            problem=problems.get(uid) if problems is not None else None,
            tests=tests.get(uid) if tests is not None else None,
            file_name=language.hub_file,
            fmt=language.format,
        )
        (dropped if isinstance(result, Dropped) else built).append(result)
    return Built(built, dropped)


def dumps(rows: Iterable[Row], fmt: TaskFileFormat) -> str:
    """The task file's text: one JSON object a line, each line ending in a newline."""
    return "".join(json.dumps(row, ensure_ascii=fmt.ensure_ascii) + "\n" for row in rows)
