"""`python -m ramp run`: exit codes, table and JSON output, one-line bad-input errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ramp.execution.cli import BadInput, parse_test_line, read_tests
from ramp.tasks import TestCase

from .conftest import ramp_run


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    program = tmp_path / "add.rb"
    program.write_text("a, b = gets.split.map(&:to_i)\nputs a + b\n")
    tests = tmp_path / "tests.jsonl"
    lines = [
        {"input": "1 2\n", "output": "3"},
        {"input": "2 2\n", "outputs": ["5", "4"]},
        {"input": "0 0\n", "output": ["0"]},
    ]
    tests.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return program, tests


def test_all_pass_exits_0_with_a_table(files: tuple[Path, Path]) -> None:
    done = ramp_run(files[0], "--tests", files[1])
    assert done.returncode == 0, done.stderr
    assert "3/3 passed" in done.stdout and "PASSED" in done.stdout


def test_failure_exits_1_and_json_has_every_record(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    wrong = tmp_path / "wrong.rb"
    wrong.write_text("puts 3\n")
    done = ramp_run(wrong, "--tests", files[1], "--json", "--workers", "1")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert [r["verdict"] for r in report["results"]] == ["PASSED", "WRONG_ANSWER", "WRONG_ANSWER"]
    assert report["verdict"] == "WRONG_ANSWER" and report["passed"] is False
    assert {"cpu_s", "wall_s", "peak_memory_mb", "stderr_tail"} <= set(report["results"][0])
    assert "network_namespace" in report["isolation"]


def test_stop_at_first_failure_and_limits(files: tuple[Path, Path], tmp_path: Path) -> None:
    slow = tmp_path / "slow.rb"
    slow.write_text("loop {}\n")
    done = ramp_run(
        slow, "--tests", files[1], "--json", "--stop-at-first-failure", "--workers", "1",
        "--time-limit", "0.3", "--memory-mb", "64",
    )  # fmt: skip
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert report["skipped"] == 2 and report["verdict"] == "TIME_LIMIT_EXCEEDED"


def test_compile_error_exits_1(files: tuple[Path, Path], tmp_path: Path) -> None:
    bad = tmp_path / "bad.rb"
    bad.write_text("break\n")
    done = ramp_run(bad, "--tests", files[1])
    assert done.returncode == 1
    assert "compile error" in done.stdout and "Invalid break" in done.stdout


def test_missing_program_exits_2(files: tuple[Path, Path], tmp_path: Path) -> None:
    done = ramp_run(tmp_path / "nope.rb", "--tests", files[1])
    assert done.returncode == 2
    assert "nope.rb: cannot read" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_bad_json_line_names_file_and_line(files: tuple[Path, Path], tmp_path: Path) -> None:
    tests = tmp_path / "broken.jsonl"
    tests.write_text('{"input": "1", "output": "1"}\n\n{"input": "1", "output": "1"}\n'
                     '{"input": "1", "output": "1"}\n\n\n{"input": 1\n')  # fmt: skip
    done = ramp_run(files[0], "--tests", tests)
    assert done.returncode == 2
    assert done.stderr.strip().startswith(f"ramp run: {tests}:7: not JSON")
    assert len(done.stderr.strip().splitlines()) == 1


def test_missing_tests_file_exits_2(files: tuple[Path, Path], tmp_path: Path) -> None:
    done = ramp_run(files[0], "--tests", tmp_path / "none.jsonl")
    assert done.returncode == 2 and "none.jsonl: cannot read" in done.stderr


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[1]", "expected an object"),
        ('{"output": "1"}', "'input' must be a string"),
        ('{"input": "1"}', "'output' must be"),
        ('{"input": "1", "output": []}', "'output' must be"),
        ('{"input": "1", "output": [1]}', "'output' must be"),
        ("{", "not JSON"),
    ],
)
def test_parse_test_line_errors(line: str, message: str) -> None:
    with pytest.raises(BadInput, match=f"^t.jsonl:3: .*{message}"):
        parse_test_line(line, "t.jsonl:3")


def test_parse_accepts_output_and_outputs(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"input": "a", "output": "b"}\n{"input": "c", "outputs": ["d", "e"]}\n')
    assert read_tests(path) == [TestCase("a", ("b",)), TestCase("c", ("d", "e"))]
    path.write_text("\n")
    with pytest.raises(BadInput, match="no tests"):
        read_tests(path)
