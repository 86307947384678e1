"""A small stand-in of xCodeEval's hub repository, made by the tests (our own invented rows).

The layout and field names are the hub's: ``apr/validation/<Language>.jsonl`` rows naming their
problem by ``src_uid``, ``problem_descriptions.jsonl`` and ``unittest_db.json`` at the root. It
can be written as a plain folder (a clone) or into a Hugging Face cache, where huggingface_hub
finds it offline exactly as it finds a real download.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _program(uid: str, src_uid: str, lang: str, cluster: str, code: str, outcome: str) -> dict:
    return {
        "similarity_score": 0.5,
        "equal_cnt": 3,
        "replace_cnt": 1,
        "delete_cnt": 0,
        "insert_cnt": 0,
        "fix_ops_cnt": 1,
        "bug_source_code": code,
        "lang": lang,
        "bug_code_uid": uid,
        "src_uid": src_uid,
        "apr_id": f"apr-{uid}",
        "difficulty": 800,
        "tags": ["math"],
        "bug_exec_outcome": outcome,
        "potential_dominant_fix_op": "replace",
        "lang_cluster": cluster,
    }


RUBY_SUM = "a, b = gets.split.map(&:to_i)\nputs a - b\n"
RUBY_DOUBLE = "n = gets.to_i\nputs n + 2\n"
CPP_SUM = "#include <iostream>\nint main(){int a,b;std::cin>>a>>b;std::cout<<a-b;}\n"

RUBY = [
    _program("r1", "sum", "Ruby", "Ruby", RUBY_SUM, "WRONG_ANSWER"),
    _program("r2", "double", "Ruby", "Ruby", RUBY_DOUBLE, "WRONG_ANSWER"),
    _program("r3", "sum", "Ruby", "Ruby", "puts gets.split.sum\n", "RUNTIME_ERROR"),
    # its problem has no hidden tests: left out, and so is the problem from the C++ set
    _program("r4", "untested", "Ruby", "Ruby", "puts 1\n", "WRONG_ANSWER"),
]
CPP = [
    _program("c1", "sum", "GNU C++17", "C++", CPP_SUM, "WRONG_ANSWER"),
    _program("c2", "double", "MS C++", "C++", "int main(){return 1;}\n", "RUNTIME_ERROR"),
    # not a problem of the Ruby set: dropped
    _program("c3", "square", "GNU C++14", "C++", "int main(){}\n", "WRONG_ANSWER"),
    _program("c4", "untested", "Clang++17 Diagnostics", "C++", "int main(){}\n", "WRONG_ANSWER"),
]
PYTHON = [_program("p1", "sum", "Python 3", "Python", "print(0)\n", "WRONG_ANSWER")]


def _problem(uid: str, description: str, sample_in: str, sample_out: str, notes: str | None):
    return {
        "description": description,
        "input_from": "standard input",
        "output_to": "standard output",
        "time_limit": "1 second",
        "memory_limit": "256 megabytes",
        "input_spec": "One line with integers, each 1 ≤ x ≤ 100.",
        "output_spec": "One integer.",
        "notes": notes,
        "sample_inputs": [sample_in],
        "sample_outputs": [sample_out],
        "tags": ["math"],
        "src_uid": uid,
        "difficulty": 800,
        "created_at": 1600000000,
    }


PROBLEMS = [
    _problem("sum", "Print the sum of a and b.", "1 2", "3", None),
    _problem("double", "Print twice n.", "2", "4", "NoteTwice 2 is 4."),
    _problem("square", "Print n squared.", "3", "9", None),
    _problem("untested", "Print 1.", "", "1", None),
]
TESTS: dict[str, list[dict[str, Any]]] = {
    "sum": [{"input": "1 2\r\n", "output": ["3"]}, {"input": "40 2\r\n", "output": ["42"]}],
    "double": [{"input": "2\r\n", "output": ["4"]}, {"input": "50\r\n", "output": ["100"]}],
    "square": [{"input": "3\r\n", "output": ["9"]}],
}


def _jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


def files(ruby=RUBY, cpp=CPP, problems=PROBLEMS, tests=TESTS) -> dict[str, str]:
    """The repository's files by path."""
    return {
        "apr/validation/Ruby.jsonl": _jsonl(ruby),
        "apr/validation/C++.jsonl": _jsonl(cpp),
        "apr/validation/Python.jsonl": _jsonl(PYTHON),
        "problem_descriptions.jsonl": _jsonl(problems),
        "unittest_db.json": json.dumps(tests),
    }


def write_folder(folder: Path, content: dict[str, str] | None = None) -> Path:
    """The repository as a plain folder (what a clone with its LFS files looks like)."""
    for name, text in (content or files()).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def write_cache(
    cache: Path, repo_id: str = "NTU-NLP-sg/xCodeEval", content: dict[str, str] | None = None
) -> Path:
    """The repository as a Hugging Face hub cache holds a download of ``main``."""
    repo = cache / f"datasets--{repo_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(COMMIT)
    write_folder(repo / "snapshots" / COMMIT, content)
    return cache
