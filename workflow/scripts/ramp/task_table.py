"""Tasks and load errors as Parquet: the one place that names their columns and types.

Samples and hidden tests are nested lists of structs, so one row is one whole task and
``pd.read_parquet`` gives a frame with one row per task; ``n_hidden`` and ``n_truncated`` are
flat columns for quick filtering.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ramp.dataset import LoadResult, RowError, load_tasks
from ramp.io import atomic_path
from ramp.tasks import Problem, Task, TestCase

TEST_CASE_TYPE = pa.struct(
    [
        ("input", pa.string()),
        ("outputs", pa.list_(pa.string())),
        ("kind", pa.string()),
        ("truncated", pa.bool_()),
    ]
)

TASK_SCHEMA = pa.schema(
    [
        ("task_id", pa.string()),
        ("problem_id", pa.string()),
        ("lang", pa.string()),
        ("difficulty", pa.int32()),
        ("tags", pa.list_(pa.string())),
        ("time_limit_s", pa.float64()),
        ("memory_mb", pa.int32()),
        ("recorded_outcome", pa.string()),
        ("description", pa.string()),
        ("input_spec", pa.string()),
        ("output_spec", pa.string()),
        ("notes", pa.string()),
        ("buggy_code", pa.string()),
        ("n_samples", pa.int32()),
        ("n_hidden", pa.int32()),
        ("n_truncated", pa.int32()),
        ("samples", pa.list_(TEST_CASE_TYPE)),
        ("hidden_tests", pa.list_(TEST_CASE_TYPE)),
    ]
)

ERROR_SCHEMA = pa.schema(
    [
        ("file", pa.string()),
        ("line", pa.int64()),
        ("field", pa.string()),
        ("message", pa.string()),
    ]
)


def _test_row(t: TestCase) -> dict[str, Any]:
    return {"input": t.input, "outputs": list(t.outputs), "kind": t.kind, "truncated": t.truncated}


def task_to_row(task: Task) -> dict[str, Any]:
    p = task.problem
    return {
        "task_id": p.task_id,
        "problem_id": p.problem_id,
        "lang": p.lang,
        "difficulty": p.difficulty,
        "tags": list(p.tags),
        "time_limit_s": p.time_limit_s,
        "memory_mb": p.memory_mb,
        "recorded_outcome": task.recorded_outcome,
        "description": p.description,
        "input_spec": p.input_spec,
        "output_spec": p.output_spec,
        "notes": p.notes,
        "buggy_code": p.buggy_code,
        "n_samples": len(p.samples),
        "n_hidden": len(task.hidden_tests),
        "n_truncated": task.n_truncated,
        "samples": [_test_row(t) for t in p.samples],
        "hidden_tests": [_test_row(t) for t in task.hidden_tests],
    }


def _test_case(row: Mapping[str, Any]) -> TestCase:
    return TestCase(
        input=row["input"],
        outputs=tuple(row["outputs"]),
        kind=row["kind"],
        truncated=bool(row["truncated"]),
    )


def _missing(value: Any) -> bool:
    # pandas gives NaN/None/pd.NA for a null int; pyarrow gives None.
    return value is None or value != value or str(value) == "<NA>"


def row_to_problem(row: Mapping[str, Any]) -> Problem:
    """The problem of a task row (accepts pyarrow's dicts and pandas' rows alike)."""
    difficulty = row["difficulty"]
    return Problem(
        task_id=row["task_id"],
        problem_id=row["problem_id"],
        lang=row["lang"],
        difficulty=None if _missing(difficulty) else int(difficulty),
        tags=tuple(row["tags"]),
        time_limit_s=float(row["time_limit_s"]),
        memory_mb=int(row["memory_mb"]),
        description=row["description"],
        input_spec=row["input_spec"],
        output_spec=row["output_spec"],
        notes=row["notes"],
        buggy_code=row["buggy_code"],
        samples=tuple(_test_case(t) for t in row["samples"]),
    )


def row_to_task(row: Mapping[str, Any]) -> Task:
    """Inverse of task_to_row."""
    return Task(
        problem=row_to_problem(row),
        hidden_tests=tuple(_test_case(t) for t in row["hidden_tests"]),
        recorded_outcome=row["recorded_outcome"],
    )


def tasks_to_table(tasks: Iterable[Task]) -> pa.Table:
    return pa.Table.from_pylist([task_to_row(t) for t in tasks], schema=TASK_SCHEMA)


# Schema metadata key of a task table: the SHA-256 of the JSONL it was loaded from, so that the
# workflow can tell new bytes in the data set from a new mtime only (built_from).
SOURCE_DIGEST_KEY = b"ramp.source_sha256"


def file_sha256(path: str | os.PathLike[str]) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def write_tasks(
    tasks: Sequence[Task], path: str | os.PathLike[str], *, source_sha256: str | None = None
) -> None:
    """Write the task table; ``source_sha256`` (the loaded file's digest) goes in its metadata."""
    table = tasks_to_table(tasks)
    if source_sha256 is not None:
        meta = dict(table.schema.metadata or {})
        meta[SOURCE_DIGEST_KEY] = source_sha256.encode()
        table = table.replace_schema_metadata(meta)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)


def source_digest(path: str | os.PathLike[str]) -> str | None:
    """The source digest recorded in a task table, or None if it has none."""
    meta = pq.read_schema(path).metadata or {}
    value = meta.get(SOURCE_DIGEST_KEY)
    return value.decode() if value is not None else None


def built_from(table: str | os.PathLike[str], source: str | os.PathLike[str]) -> bool:
    """Whether the task table was built from exactly the bytes now at ``source``; False when
    either file is missing or unreadable, or the table records no digest."""
    try:
        recorded = source_digest(table)
        return recorded is not None and recorded == file_sha256(source)
    except (OSError, ValueError):
        return False


def _read_table(path: str | os.PathLike[str], columns: Sequence[str]) -> pa.Table:
    names = pq.read_schema(path).names
    missing = set(TASK_SCHEMA.names) - set(names)
    if missing:
        raise ValueError(f"{path}: not a task table (missing columns {sorted(missing)})")
    return pq.read_table(path, columns=list(columns))


def read_tasks(path: str | os.PathLike[str]) -> list[Task]:
    """Every task with its hidden tests: for the scoring stages, and for the hidden-test
    feedback of the variants marked as such (ramp.hidden_feedback), only."""
    return [row_to_task(r) for r in _read_table(path, TASK_SCHEMA.names).to_pylist()]


# The columns a repair method may see: the hidden tests are never even read for it.
PROBLEM_COLUMNS = tuple(f.name for f in dataclasses.fields(Problem))


def read_problems(path: str | os.PathLike[str]) -> list[Problem]:
    """Every task's problem, without hidden tests (not read from the file): for the methods."""
    return [row_to_problem(r) for r in _read_table(path, PROBLEM_COLUMNS).to_pylist()]


def write_errors(errors: Sequence[RowError], path: str | os.PathLike[str]) -> None:
    rows = [dataclasses.asdict(e) for e in errors]
    with atomic_path(path) as tmp:
        pq.write_table(pa.Table.from_pylist(rows, schema=ERROR_SCHEMA), tmp)


class NoTasksError(RuntimeError):
    """Not one row of the data set loaded: nothing downstream could run."""


def build_task_table(
    jsonl: str | os.PathLike[str],
    tasks_out: str | os.PathLike[str],
    errors_out: str | os.PathLike[str],
    *,
    default_memory_mb: int | None = None,
) -> LoadResult:
    """The data stage: load the JSONL, write the task table and the table of bad rows.

    Bad rows are reported, not fatal; only a load with no task at all raises NoTasksError
    (after writing the errors, so that they can be read).
    """
    digest = file_sha256(jsonl)
    result = load_tasks(jsonl, default_memory_mb=default_memory_mb)
    write_errors(result.errors, errors_out)
    if not result.tasks:
        raise NoTasksError(f"{jsonl}: no task loaded ({len(result.errors)} bad rows)")
    write_tasks(result.tasks, tasks_out, source_sha256=digest)
    return result
