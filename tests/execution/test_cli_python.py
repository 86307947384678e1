"""`python -m ramp run`: the program's file name picks its language, ``--lang`` overrides it (the
rule `ramp repair` follows too), and a name it cannot tell is a one-line error."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ramp_run


@pytest.fixture
def tests_file(tmp_path: Path) -> Path:
    path = tmp_path / "tests.jsonl"
    lines = [
        {"input": "1 2\n", "output": "3"},
        {"input": "2 2\n", "outputs": ["5", "4"]},
        {"input": "0 0\n", "output": ["0"]},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def test_python_program_passes(tests_file: Path, tmp_path: Path) -> None:
    program = tmp_path / "add.py"
    program.write_text("a, b = map(int, input().split())\nprint(a + b)\n")
    done = ramp_run(program, "--tests", tests_file, "--lang", "python")
    assert done.returncode == 0, done.stderr
    assert "3/3 passed" in done.stdout and "PASSED" in done.stdout


def test_python_failures_in_json(tests_file: Path, tmp_path: Path) -> None:
    program = tmp_path / "wrong.py"
    program.write_text("import sys\nif input() == '0 0':\n    sys.exit(3)\nprint(3)\n")
    done = ramp_run(program, "--tests", tests_file, "--lang", "python", "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    verdicts = [r["verdict"] for r in report["results"]]
    assert verdicts == ["PASSED", "WRONG_ANSWER", "RUNTIME_ERROR"]


def test_lang_chooses_the_runtime(tests_file: Path, tmp_path: Path) -> None:
    """The same Ruby source: fine by default, a Python syntax error with --lang python."""
    program = tmp_path / "add.rb"
    program.write_text("a, b = gets.split.map(&:to_i)\nputs a + b\n")
    assert ramp_run(program, "--tests", tests_file).returncode == 0
    done = ramp_run(program, "--tests", tests_file, "--lang", "python", "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "COMPILATION_ERROR"
    assert 'File "main.py", line 1' in report["compile_error"]
    assert "SyntaxError" in report["compile_error"]


def test_unknown_lang_exits_2(tests_file: Path, tmp_path: Path) -> None:
    program = tmp_path / "x.py"
    program.write_text("print(1)\n")
    done = ramp_run(program, "--tests", tests_file, "--lang", "cobol")
    assert done.returncode == 2
    assert "invalid choice: 'cobol'" in done.stderr and "python" in done.stderr


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++")
def test_a_cpp_file_runs_as_cpp_without_lang(tests_file: Path, tmp_path: Path) -> None:
    program = tmp_path / "ok.cpp"
    program.write_text(
        "#include <iostream>\nint main() {\n    long long a, b;\n"
        "    std::cin >> a >> b;\n    std::cout << a + b << std::endl;\n}\n"
    )
    done = ramp_run(program, "--tests", tests_file)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3/3 passed" in done.stdout


def test_a_python_file_runs_as_python_without_lang(tests_file: Path, tmp_path: Path) -> None:
    program = tmp_path / "add.py"
    program.write_text("a, b = map(int, input().split())\nprint(a + b)\n")
    done = ramp_run(program, "--tests", tests_file)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_name_it_cannot_tell_is_one_line_naming_the_choices(
    tests_file: Path, tmp_path: Path
) -> None:
    program = tmp_path / "add.txt"
    program.write_text("puts 1\n")
    done = ramp_run(program, "--tests", tests_file)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert "add.txt: cannot tell the program's language" in done.stderr
    for choice in (".rb ruby", ".cpp .cc .cxx .c++ cpp", ".py python", "--lang"):
        assert choice in done.stderr


def test_the_help_names_every_language() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ramp", "--help"], capture_output=True, text=True, check=False
    )
    assert "Ruby, C++ or Python program" in done.stdout
    assert "Ruby or C++ program" in done.stdout  # ramp repair: the study languages
    done = ramp_run("--help")
    assert ".rb ruby; .cpp .cc .cxx .c++ cpp; .py python" in " ".join(done.stdout.split())
