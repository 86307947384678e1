"""The join and the selection, on literal rows in the hub's field names."""

from __future__ import annotations

import json

from ramp.hub.build import Dropped, build_rows, dumps, parse_jsonl, problems_by_id, task_row
from ramp.hub.layout import LANGUAGES, TASK_FIELDS

from . import standin

RUBY = LANGUAGES["ruby"]
CPP = LANGUAGES["cpp"]
PROBLEMS = problems_by_id(standin.PROBLEMS)


def test_a_raw_row_is_joined_with_its_problem_and_tests_in_the_task_file_layout() -> None:
    row = task_row(
        standin.RUBY[0],
        problem=PROBLEMS["sum"],
        tests=standin.TESTS["sum"],
        file_name="Ruby.jsonl",
        fmt=RUBY.format,
    )
    assert isinstance(row, dict)
    assert tuple(row) == TASK_FIELDS
    assert row["prob_desc_description"] == "Print the sum of a and b."
    assert row["prob_desc_time_limit"] == "1 second"
    assert row["prob_desc_notes"] is None  # the loader reads null notes as ""
    assert row["prob_desc_sample_inputs"] == '["1 2"]'  # JSON text, as the loader parses it
    assert row["prob_desc_created_at"] == "1600000000"
    assert json.loads(row["hidden_unit_tests"]) == standin.TESTS["sum"]
    assert row["fix_source_code"] == row["fix_code_uid"] == row["fix_exec_outcome"] == ""
    assert row["file_name"] == "Ruby.jsonl"
    assert row["difficulty"] == 800.0 and isinstance(row["difficulty"], float)
    assert row["bug_source_code"] == standin.RUBY_SUM
    assert row["tags"] == ["math"]  # the program's own tags, not the problem's


def test_the_cpp_layout_sorts_keys_and_keeps_an_integer_difficulty() -> None:
    row = task_row(
        standin.CPP[0],
        problem=PROBLEMS["sum"],
        tests=standin.TESTS["sum"],
        file_name="C++.jsonl",
        fmt=CPP.format,
    )
    assert isinstance(row, dict)
    assert list(row) == sorted(TASK_FIELDS)
    assert row["difficulty"] == 800 and isinstance(row["difficulty"], int)


def test_an_already_joined_row_keeps_its_statement_and_singular_hidden_tests() -> None:
    # The hub's dataset loader joins the rows itself and names the tests `hidden_unit_test`.
    joined = dict(standin.RUBY[0])
    joined.update(
        prob_desc_description="Joined.",
        prob_desc_input_spec="in",
        prob_desc_output_spec="out",
        prob_desc_notes="",
        prob_desc_time_limit="2 seconds",
        prob_desc_memory_limit="256 megabytes",
        prob_desc_input_from="standard input",
        prob_desc_output_to="standard output",
        prob_desc_sample_inputs=["1"],
        prob_desc_sample_outputs='["2"]',
        prob_desc_created_at=1,
        hidden_unit_test='[{"input": "1", "output": ["2"]}]',
        file_name="Ruby.jsonl",
    )
    row = task_row(joined, problem=None, tests=None, file_name="x", fmt=RUBY.format)
    assert isinstance(row, dict)
    assert row["prob_desc_description"] == "Joined."
    assert row["hidden_unit_tests"] == '[{"input": "1", "output": ["2"]}]'
    assert row["prob_desc_sample_inputs"] == '["1"]' and row["prob_desc_sample_outputs"] == '["2"]'
    assert row["prob_desc_created_at"] == "1"
    assert "hidden_unit_test" not in row


def test_a_row_without_statement_or_tests_is_dropped_with_its_reason() -> None:
    no_tests = task_row(
        standin.RUBY[3],
        problem=PROBLEMS["untested"],
        tests=None,
        file_name="Ruby.jsonl",
        fmt=RUBY.format,
    )
    assert no_tests == Dropped("r4", "no hidden tests for problem untested")
    no_statement = task_row(
        standin.RUBY[0],
        problem=None,
        tests=standin.TESTS["sum"],
        file_name="Ruby.jsonl",
        fmt=RUBY.format,
    )
    assert no_statement == Dropped("r1", "no statement for problem sum")


def test_build_keeps_the_language_in_hub_order_and_only_the_kept_problems() -> None:
    rows = standin.RUBY + standin.PYTHON
    ruby = build_rows(rows, language=RUBY, problems=PROBLEMS, tests=standin.TESTS)
    assert [r["bug_code_uid"] for r in ruby.rows] == ["r1", "r2", "r3"]
    assert [d.bug_code_uid for d in ruby.dropped] == ["r4"]
    keep = frozenset(r["src_uid"] for r in ruby.rows)
    cpp = build_rows(
        standin.CPP, language=CPP, problems=PROBLEMS, tests=standin.TESTS, keep_problems=keep
    )
    assert [(r["bug_code_uid"], r["lang"]) for r in cpp.rows] == [
        ("c1", "GNU C++17"),
        ("c2", "MS C++"),
    ]
    assert cpp.dropped == []  # other problems are not dropped programs: they are not asked for


def test_dumps_escapes_as_the_format_says_and_parses_back() -> None:
    ruby = build_rows(standin.RUBY, language=RUBY, problems=PROBLEMS, tests=standin.TESTS).rows
    text = dumps(ruby, RUBY.format)
    assert text.endswith("\n") and text.count("\n") == 3
    assert "\\u2264" in text and "≤" not in text  # Ruby: ASCII only, as the measured file
    assert parse_jsonl(text) == ruby
    cpp = dumps(ruby, CPP.format)
    assert "≤" in cpp and "\\u2264" not in cpp  # C++: UTF-8, as the measured file
