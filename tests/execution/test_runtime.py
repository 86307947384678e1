"""Runtimes as data: the Python runtime's command lines and the name registry."""

from __future__ import annotations

import pytest

from ramp.execution.runtime import RUNTIMES, python_runtime, runtime_named


def test_python_runtime_is_the_system_interpreter_isolated() -> None:
    rt = python_runtime()
    assert rt.name == "python" and rt.source_name == "main.py"
    exe = rt.run_argv[0]
    assert exe.startswith(("/usr/bin/", "/bin/", "/usr/local/bin/"))  # never a shim in a home
    assert rt.run_command("/w/main.py") == [exe, "-I", "-S", "-B", "/w/main.py"]
    check = rt.check_command("/w/main.py")
    assert check[:5] == [exe, "-I", "-S", "-B", "-c"] and check[-1] == "/w/main.py"
    assert "compile(" in check[5] and "memoryerror" in rt.memory_markers


def test_python_runtime_accepts_a_path_with_a_slash() -> None:
    exe = python_runtime().run_argv[0]
    assert python_runtime(exe).run_argv[0] == exe


def test_missing_interpreter_is_a_clear_error() -> None:
    with pytest.raises(FileNotFoundError, match=r"^Python interpreter not found: python9\.99 "):
        python_runtime("python9.99")


def test_runtime_named() -> None:
    assert set(RUNTIMES) == {"ruby", "python", "cpp"}
    assert runtime_named("python").source_name == "main.py"
    assert runtime_named("ruby").source_name == "main.rb"
    known = r"known languages are cpp, python, ruby$"
    with pytest.raises(ValueError, match=r"^unknown language 'cobol': " + known):
        runtime_named("cobol")
