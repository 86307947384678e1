"""Load the xCodeEval APR JSONL into Task objects, one row at a time.

A bad row never stops the load: it becomes a RowError naming the file, line and field, and
the other rows still load. Parsing is pure functions so each quirk of the data has a test.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ramp.tasks import Problem, Task, TestCase

# The data set cut some long hidden inputs to 255 characters (or 511) and appended "...";
# a real input that merely ends in dots (problem 5fdaf8ee) has other lengths and a newline.
TRUNCATED_LENGTHS = frozenset({258, 514})
TRUNCATION_MARK = "..."

_TIME_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*seconds?\s*$", re.IGNORECASE)
_MEMORY_RE = re.compile(r"^\s*(\d+)\s*megabytes?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class RowError:
    """Why one line of the JSONL did not become a Task."""

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"field '{self.field}': " if self.field else ""
        return f"{self.file}:{self.line}: {where}{self.message}"


@dataclass(frozen=True)
class LoadResult:
    tasks: list[Task]
    errors: list[RowError]


class FieldError(ValueError):
    """A field of one row is missing, ill-typed or unparsable."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def parse_time_limit(text: str) -> float:
    """'2 seconds' -> 2.0, '0.5 second' -> 0.5."""
    m = _TIME_RE.match(text)
    if not m:
        raise ValueError(f"cannot parse {text!r}")
    return float(m.group(1))


def parse_memory_limit(text: str) -> int:
    """'256 megabytes' -> 256."""
    m = _MEMORY_RE.match(text)
    if not m:
        raise ValueError(f"cannot parse {text!r}")
    return int(m.group(1))


def is_truncated_input(text: str) -> bool:
    """True for a hidden input the data set cut off (see TRUNCATED_LENGTHS)."""
    return text.endswith(TRUNCATION_MARK) and len(text) in TRUNCATED_LENGTHS


def _get(row: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    if name not in row:
        raise FieldError(name, "missing")
    value = row[name]
    if not isinstance(value, kind) or isinstance(value, bool):
        want = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise FieldError(name, f"expected {want}, got {type(value).__name__}")
    return value


def _json_field(row: Mapping[str, Any], name: str) -> Any:
    text = _get(row, name, str)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FieldError(name, f"not valid JSON ({e.msg} at char {e.pos})") from None


def _str_list(value: Any, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FieldError(name, "expected a list of strings")
    return value


def parse_samples(row: Mapping[str, Any]) -> tuple[TestCase, ...]:
    inputs = _str_list(_json_field(row, "prob_desc_sample_inputs"), "prob_desc_sample_inputs")
    outputs = _str_list(_json_field(row, "prob_desc_sample_outputs"), "prob_desc_sample_outputs")
    if len(inputs) != len(outputs):
        raise FieldError(
            "prob_desc_sample_outputs",
            f"{len(outputs)} outputs for {len(inputs)} sample inputs",
        )
    return tuple(TestCase(i, (o,), kind="sample") for i, o in zip(inputs, outputs, strict=True))


def parse_hidden_tests(row: Mapping[str, Any]) -> tuple[TestCase, ...]:
    name = "hidden_unit_tests"
    raw = _json_field(row, name)
    if not isinstance(raw, list):
        raise FieldError(name, "expected a JSON list of tests")
    tests = []
    for n, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("input"), str):
            raise FieldError(name, f"test {n}: expected an object with a string 'input'")
        outputs = item.get("output")
        if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
            raise FieldError(name, f"test {n}: 'output' must be a list of strings")
        text = item["input"]
        tests.append(
            TestCase(text, tuple(outputs), kind="hidden", truncated=is_truncated_input(text))
        )
    return tuple(tests)


def _difficulty(row: Mapping[str, Any]) -> int | None:
    value = row.get("difficulty")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FieldError("difficulty", f"expected a number, got {type(value).__name__}")
    if not math.isfinite(value):
        raise FieldError("difficulty", f"expected a finite number, got {value}")
    return int(value)


def _limit(row: Mapping[str, Any], name: str, parse: Any, default: Any) -> Any:
    text = row.get(name)
    if (text is None or text == "") and default is not None:
        return default
    text = _get(row, name, str)
    try:
        return parse(text)
    except ValueError as e:
        raise FieldError(name, str(e)) from None


def parse_row(row: Mapping[str, Any], *, default_memory_mb: int | None = None) -> Task:
    """Turn one decoded JSON object into a Task; raises FieldError on a bad field."""
    tags = _get(row, "tags", list)
    if not all(isinstance(t, str) for t in tags):
        raise FieldError("tags", "expected a list of strings")
    problem = Problem(
        task_id=_get(row, "bug_code_uid", str),
        problem_id=_get(row, "src_uid", str),
        description=_get(row, "prob_desc_description", str),
        input_spec=_get(row, "prob_desc_input_spec", str),
        output_spec=_get(row, "prob_desc_output_spec", str),
        # 76 problems have no notes: null in the data, "" for us.
        notes=row.get("prob_desc_notes") or "",
        samples=parse_samples(row),
        time_limit_s=_limit(row, "prob_desc_time_limit", parse_time_limit, None),
        memory_mb=_limit(row, "prob_desc_memory_limit", parse_memory_limit, default_memory_mb),
        tags=tuple(tags),
        difficulty=_difficulty(row),
        buggy_code=_get(row, "bug_source_code", str),
        lang=row.get("lang") or "Ruby",
    )
    recorded = _get(row, "bug_exec_outcome", str)
    return Task(problem, hidden_tests=parse_hidden_tests(row), recorded_outcome=recorded)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if line.strip():
                yield number, line


def load_tasks(path: str | Path, *, default_memory_mb: int | None = None) -> LoadResult:
    """Read every row of the JSONL at ``path``; bad rows become errors, not exceptions.

    A task id seen twice is an error on the later line, because every artifact is keyed by it.
    """
    path = Path(path)
    tasks: list[Task] = []
    errors: list[RowError] = []
    seen: set[str] = set()
    for number, line in _lines(path):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(RowError(path.name, number, "", f"not valid JSON ({e.msg})"))
            continue
        if not isinstance(row, dict):
            errors.append(RowError(path.name, number, "", "expected a JSON object"))
            continue
        try:
            task = parse_row(row, default_memory_mb=default_memory_mb)
        except FieldError as e:
            errors.append(RowError(path.name, number, e.field, e.message))
            continue
        if task.task_id in seen:
            errors.append(
                RowError(path.name, number, "bug_code_uid", f"duplicate id {task.task_id!r}")
            )
            continue
        seen.add(task.task_id)
        tasks.append(task)
    return LoadResult(tasks, errors)
