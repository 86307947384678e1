"""A task's lang -> its runtime: the C++ runtime's command lines and the dialect mapping."""

from __future__ import annotations

import json
import resource
from pathlib import Path

import pytest

from ramp.execution.dialects import CPP_STANDARDS, known_langs, runtime_for_lang
from ramp.execution.runtime import RUNTIMES, cpp_runtime
from ramp.tasks import Limits

CPP_DATA = Path("../shared/data/xcodeeval-apr-cpp/validation.jsonl")


def test_cpp_runtime_compiles_once_like_a_judge() -> None:
    rt = cpp_runtime("c++14")
    assert rt.name == "cpp" and rt.source_name == "main.cpp" and rt.binary_name == "main"
    check = rt.check_command("/w/main.cpp")
    assert check[0].endswith("/g++") and check[1] == "-std=c++14"
    assert {"-O2", "-static", "-DONLINE_JUDGE"} <= set(check)
    assert check[-3:] == ["-o", "main", "/w/main.cpp"]
    assert rt.run_command("/w/main.cpp", "/w/main") == ["/w/main"]
    assert rt.check_tasks and rt.check_tasks > 1  # g++ runs cc1plus, as, collect2, ld
    assert "std::bad_alloc" in rt.memory_markers


def test_cpp_memory_limit_is_address_space_and_stack() -> None:
    limits = dict((res, (soft, hard)) for res, soft, hard in cpp_runtime().run_rlimits(Limits()))
    size = 256 << 20
    assert limits == {resource.RLIMIT_AS: (size, size), resource.RLIMIT_STACK: (size, size)}
    assert RUNTIMES["ruby"]().run_rlimits(Limits()) == ()


def test_missing_compiler_is_a_clear_error() -> None:
    with pytest.raises(FileNotFoundError, match=r"^C\+\+ compiler not found: g\+\+-99 "):
        cpp_runtime(compiler="g++-99")


@pytest.mark.parametrize(
    ("lang", "std"),
    [
        ("GNU C++", "gnu++98"),
        ("GNU C++0x", "c++11"),
        ("GNU C++11", "c++11"),
        ("GNU C++14", "c++14"),
        ("GNU C++17", "c++17"),
        ("MS C++", "gnu++11"),
        ("MS C++ 2017", "gnu++14"),
    ],
)
def test_dialect_standard(lang: str, std: str) -> None:
    rt = runtime_for_lang(lang)
    assert rt.name == "cpp" and f"-std={std}" in rt.check_argv


def test_ruby_and_unknown_langs() -> None:
    assert runtime_for_lang("Ruby").source_name == "main.rb"
    with pytest.raises(ValueError, match=r"^unknown lang 'Cobol': known are .*GNU C\+\+, "):
        runtime_for_lang("Cobol")
    assert "Ruby" in known_langs() and "MS C++ 2017" in known_langs()


@pytest.mark.skipif(not CPP_DATA.exists(), reason="the C++ data set is not beside the project")
def test_every_lang_of_the_cpp_data_is_mapped() -> None:
    with CPP_DATA.open(encoding="utf-8") as f:
        langs = {json.loads(line)["lang"] for line in f if line.strip()}
    assert langs and langs <= set(CPP_STANDARDS)
