"""`ramp repair` on one program of ours, in Ruby or C++ by its file name: a scripted model, the
real sandbox (g++ for C++), the files it writes."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from ramp import repair_cli, study_config
from ramp.llm.fake import FakeLLM
from ramp.problem_file import ProblemFileError, load_problem

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "double-it"
# The buggy programs overflow 32-bit ints on a_i = 10^9 (C++) / index from 1 (Ruby); these pass.
FIXED = {
    "cpp": "#include <iostream>\nint main() {\n    long long n, x;\n    std::cin >> n;\n"
           "    for (long long i = 0; i < n; i++) {\n        std::cin >> x;\n"
           "        std::cout << x * 2 << (i + 1 < n ? \" \" : \"\\n\");\n    }\n}\n",
    "rb": "n = gets.to_i\na = gets.split.map(&:to_i)\nputs a[0, n].map { |x| x * 2 }.join(\" \")\n",
}
FENCE = {"cpp": "cpp", "rb": "ruby"}
NAME = {"cpp": "C++", "rb": "Ruby"}


def _args(program: Path, out: Path) -> argparse.Namespace:
    return argparse.Namespace(problem=EXAMPLE / "problem.md", program=program,
                              config=REPO / "config" / "config.yaml", model="fake",
                              variant="chatrepair", budget=1, seed=0, out=out, lang=None)


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++")
@pytest.mark.parametrize("suffix", ["cpp", "rb"])
def test_repair_follows_the_programs_language(suffix, tmp_path, monkeypatch, capsys):
    answer = f"The loop is wrong.\n```{FENCE[suffix]}\n{FIXED[suffix]}```\n"
    llm = FakeLLM(respond=lambda prompt: answer)
    monkeypatch.setattr(study_config, "build_llm", lambda config, model: llm)
    program = EXAMPLE / f"buggy.{suffix}"
    out = tmp_path / "out"
    status = repair_cli.main(_args(program, out))
    prompt = "\n".join(m.content for m in llm.prompts[0])
    assert f"```{FENCE[suffix]}" in prompt and NAME[suffix] in prompt
    assert (out / f"repaired.{suffix}").read_text() == FIXED[suffix]
    assert f"+++ repaired.{suffix}" in (out / "repair.diff").read_text()
    trace = json.loads((out / "trace.json").read_text())
    assert trace["attempts"][-1]["code"] == FIXED[suffix]
    # ChatRepair-style checks a candidate on the statement's samples (in the sandbox, compiled
    # by g++ for C++): the fixed program passes them.
    assert status == 0, trace["attempts"][-1]["verdicts"]
    assert "+++ repaired" in capsys.readouterr().out


def test_a_program_of_an_unknown_language_is_a_clear_error(tmp_path):
    program = tmp_path / "buggy.java"
    program.write_text("class A {}\n")
    with pytest.raises(ProblemFileError, match=r"buggy\.java: cannot tell the program's language"):
        load_problem(EXAMPLE / "problem.md", program)


def test_lang_overrides_the_file_name(tmp_path):
    program = tmp_path / "buggy.txt"
    program.write_text((EXAMPLE / "buggy.cpp").read_text())
    assert load_problem(EXAMPLE / "problem.md", program, "cpp").language.key == "cpp"
    assert load_problem(EXAMPLE / "problem.md", EXAMPLE / "buggy.rb", "cpp").lang == "GNU C++17"


def test_the_help_names_every_language_repair_takes():
    parser = argparse.ArgumentParser()
    repair_cli.add_arguments(parser)
    text = repair_cli.HELP + parser.format_help()
    assert "Ruby or C++" in repair_cli.HELP and ".rb ruby" in text and ".cpp" in text


def test_a_cpp_program_is_a_cpp_problem():
    problem = load_problem(EXAMPLE / "problem.md", EXAMPLE / "buggy.cpp")
    assert problem.language.key == "cpp" and problem.lang == "GNU C++17"
    assert load_problem(EXAMPLE / "problem.md", EXAMPLE / "buggy.rb").language.key == "ruby"
