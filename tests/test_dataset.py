"""The loader: limits, truncation flags, bad rows, and the task table's round trip."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from ramp.dataset import (
    is_truncated_input,
    load_tasks,
    parse_memory_limit,
    parse_time_limit,
)
from ramp.task_table import (
    NoTasksError,
    build_task_table,
    built_from,
    read_tasks,
    row_to_task,
    source_digest,
    write_tasks,
)

ROOT = Path(__file__).resolve().parents[1]
TINY = Path(__file__).parent / "data" / "tiny.jsonl"
REAL = ROOT / "../shared/data/xcodeeval-apr-ruby/validation.jsonl"
needs_real = pytest.mark.skipif(not REAL.exists(), reason="the xCodeEval data set is not here")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("2 seconds", 2.0), ("1 second", 1.0), ("0.5 second", 0.5), ("0.4 seconds", 0.4)],
)
def test_parse_time_limit(text: str, seconds: float) -> None:
    assert parse_time_limit(text) == seconds


@pytest.mark.parametrize("text", ["two seconds", "2", "", "2 minutes", "-1 seconds"])
def test_parse_time_limit_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="cannot parse"):
        parse_time_limit(text)


def test_parse_memory_limit() -> None:
    assert parse_memory_limit("256 megabytes") == 256
    assert parse_memory_limit("64 megabyte") == 64
    with pytest.raises(ValueError, match="cannot parse '1 gigabyte'"):
        parse_memory_limit("1 gigabyte")


def test_truncation_needs_the_cut_length_not_just_dots() -> None:
    assert is_truncated_input("1" * 255 + "...")
    assert is_truncated_input("7 " * 255 + "1...")
    assert not is_truncated_input("1" * 258)
    assert not is_truncated_input("4\r\n....\r\n...")
    assert not is_truncated_input("1" * 256 + "...")


def test_tiny_loads_good_rows_and_reports_bad_ones() -> None:
    result = load_tasks(TINY)
    assert [t.task_id for t in result.tasks] == ["t-wrong", "t-crash", "t-dots"]
    assert [str(e) for e in result.errors] == [
        "tiny.jsonl:4: field 'prob_desc_time_limit': cannot parse 'two seconds'",
        "tiny.jsonl:5: not valid JSON (Expecting value)",
        "tiny.jsonl:6: field 'hidden_unit_tests': missing",
        "tiny.jsonl:7: field 'bug_code_uid': duplicate id 't-wrong'",
    ]


def test_tiny_task_fields() -> None:
    wrong, _, dots = load_tasks(TINY).tasks
    assert wrong.problem_id == "p-double"
    assert wrong.limits.time_s == 1.0 and wrong.limits.memory_mb == 256
    assert wrong.difficulty == 800 and wrong.problem.tags == ("math", "implementation")
    assert wrong.recorded_outcome == "WRONG_ANSWER"
    samples = wrong.problem.samples
    assert [(s.input, s.outputs, s.kind) for s in samples] == [("3", ("6",), "sample")]
    assert wrong.hidden_tests[2].outputs == ("200", "200\n")
    assert {t.kind for t in wrong.hidden_tests} == {"hidden"}
    assert dots.difficulty is None and dots.problem.notes == ""
    assert dots.limits.time_s == 0.5 and dots.limits.memory_mb == 64
    assert [t.truncated for t in dots.hidden_tests] == [False, True, False]


def _write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _first_row() -> dict:
    return json.loads(TINY.read_text(encoding="utf-8").splitlines()[0])


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("tags", "math", "field 'tags': expected list, got str"),
        ("difficulty", "hard", "field 'difficulty': expected a number, got str"),
        ("difficulty", float("nan"), "field 'difficulty': expected a finite number"),
        ("hidden_unit_tests", "[{", "field 'hidden_unit_tests': not valid JSON"),
        ("hidden_unit_tests", '[{"input": "1", "output": "2"}]', "'output' must be a list"),
        ("prob_desc_sample_outputs", "[]", "0 outputs for 1 sample inputs"),
        ("prob_desc_memory_limit", None, "field 'prob_desc_memory_limit': expected str"),
    ],
)
def test_ill_typed_fields_name_the_field(
    tmp_path: Path, field: str, value: object, message: str
) -> None:
    row = _first_row()
    row[field] = value
    result = load_tasks(_write_rows(tmp_path / "x.jsonl", [_first_row(), row]))
    assert len(result.tasks) == 1
    (error,) = result.errors
    assert str(error).startswith("x.jsonl:2: ")
    assert message in str(error)


def test_missing_memory_limit_takes_the_default(tmp_path: Path) -> None:
    row = _first_row()
    row["prob_desc_memory_limit"] = ""
    path = _write_rows(tmp_path / "x.jsonl", [row])
    assert load_tasks(path, default_memory_mb=128).tasks[0].limits.memory_mb == 128
    assert "cannot parse ''" in str(load_tasks(path).errors[0])


def test_round_trip_through_parquet(tmp_path: Path) -> None:
    tasks = load_tasks(TINY).tasks
    out = tmp_path / "tasks.parquet"
    write_tasks(tasks, out)
    assert read_tasks(out) == tasks
    df = pd.read_parquet(out)
    assert list(df["n_hidden"]) == [3, 3, 3]
    assert list(df["n_truncated"]) == [0, 0, 1]
    assert df["difficulty"].isna().tolist() == [False, False, True]


def test_build_fails_only_when_nothing_loads(tmp_path: Path) -> None:
    good = build_task_table(TINY, tmp_path / "t.parquet", tmp_path / "e.parquet")
    assert len(good.tasks) == 3
    assert pd.read_parquet(tmp_path / "e.parquet")["line"].tolist() == [4, 5, 6, 7]
    bad = _write_rows(tmp_path / "bad.jsonl", [{"bug_code_uid": "x"}])
    with pytest.raises(NoTasksError, match=r"bad\.jsonl: no task loaded"):
        build_task_table(bad, tmp_path / "t2.parquet", tmp_path / "e2.parquet")
    assert not (tmp_path / "t2.parquet").exists()
    assert len(pd.read_parquet(tmp_path / "e2.parquet")) == 1


@needs_real
def test_real_data_loads_whole() -> None:
    result = load_tasks(REAL)
    assert len(result.tasks) == 343 and result.errors == []
    assert len({t.problem_id for t in result.tasks}) == 52
    assert Counter(t.recorded_outcome for t in result.tasks)["WRONG_ANSWER"] == 276
    by_problem = {t.problem_id: t.hidden_tests for t in result.tasks}
    assert sum(len(ts) for ts in by_problem.values()) == 2469


@needs_real
def test_real_data_flags_exactly_the_117_cut_tests() -> None:
    by_problem = {t.problem_id: t.hidden_tests for t in load_tasks(REAL).tasks}
    flagged = [(p, i) for p, ts in by_problem.items() for i, t in enumerate(ts) if t.truncated]
    assert len(flagged) == 117
    assert {p[:8] for p, _ in flagged} == {"78d013b0", "7419c426", "d3c10d1b"}
    dots = next(ts for p, ts in by_problem.items() if p.startswith("5fdaf8ee"))
    assert not any(t.truncated for t in dots)


@needs_real
def test_real_table_round_trip(tmp_path: Path) -> None:
    tasks = load_tasks(REAL).tasks
    write_tasks(tasks, tmp_path / "tasks.parquet")
    assert read_tasks(tmp_path / "tasks.parquet") == tasks


def test_pandas_rows_turn_back_into_tasks(tmp_path: Path) -> None:
    tasks = load_tasks(TINY).tasks
    write_tasks(tasks, tmp_path / "tasks.parquet")
    records = pd.read_parquet(tmp_path / "tasks.parquet").to_dict("records")
    assert [row_to_task(r) for r in records] == tasks


def test_the_task_table_records_the_digest_of_its_source(tmp_path: Path) -> None:
    source = tmp_path / "data.jsonl"
    source.write_bytes(TINY.read_bytes())
    build_task_table(source, tmp_path / "tasks.parquet", tmp_path / "errors.parquet")
    expected = hashlib.sha256(TINY.read_bytes()).hexdigest()
    assert source_digest(tmp_path / "tasks.parquet") == expected
    write_tasks(read_tasks(tmp_path / "tasks.parquet"), tmp_path / "plain.parquet")
    assert source_digest(tmp_path / "plain.parquet") is None


def test_built_from_compares_the_recorded_digest_with_the_bytes_now(tmp_path: Path) -> None:
    source = tmp_path / "data.jsonl"
    source.write_bytes(TINY.read_bytes())
    table = tmp_path / "tasks.parquet"
    build_task_table(source, table, tmp_path / "errors.parquet")
    assert built_from(table, source)
    source.write_bytes(TINY.read_bytes() + b"\n")
    assert not built_from(table, source)
    assert not built_from(table, tmp_path / "missing.jsonl")
    assert not built_from(tmp_path / "missing.parquet", source)
    assert not built_from(source, source)  # not a Parquet file
