"""The C++ runtime in the sandbox: compiled once, run per test, judged like Ruby."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ramp.execution.executor import SandboxExecutor
from ramp.execution.runtime import cpp_runtime
from ramp.tasks import Limits, TestCase, Verdict

from .conftest import processes_of
from .cpp_fixtures import cpp  # noqa: F401  (a fixture)

LIMITS = Limits(time_s=1.0, memory_mb=64)
SUM = (
    "#include <iostream>\n"
    "int main() { long long a, b; std::cin >> a >> b; std::cout << a + b; }\n"
)
TESTS = [TestCase("1 2\n", ("3",)), TestCase("5 5\n", ("10",)), TestCase("2 2\n", ("5",))]


def test_compiled_once_and_judged_per_test(cpp: SandboxExecutor) -> None:  # noqa: F811
    report = cpp.run(SUM, TESTS, LIMITS)
    assert [r.verdict for r in report.results] == [
        Verdict.PASSED, Verdict.PASSED, Verdict.WRONG_ANSWER
    ]
    assert report.compile_error == ""
    assert cpp.sandbox.leftovers() == [] and processes_of(cpp.sandbox.uids) == []


def test_compiler_error_is_the_trace_agents_see(cpp: SandboxExecutor) -> None:  # noqa: F811
    report = cpp.run("int main() {\n  return missing;\n}\n", TESTS, LIMITS)
    assert report.verdict is Verdict.COMPILATION_ERROR
    assert all(r.verdict is Verdict.COMPILATION_ERROR for r in report.results)
    # The path is the file's name, as if compiled in place: no sandbox directory shows.
    assert "main.cpp:2:10: error:" in report.compile_error
    assert "missing" in report.compile_error and "/tmp/" not in report.compile_error


def test_the_dialect_decides_what_compiles(cpp: SandboxExecutor) -> None:  # noqa: F811
    program = "#include <cstdio>\nint main() { auto x = 3; std::printf(\"%d\", x); }\n"
    old = cpp.with_runtime(cpp_runtime("gnu++98"))
    assert old.run(program, TESTS[:1], LIMITS).verdict is Verdict.COMPILATION_ERROR
    assert cpp.run(program, TESTS[:1], LIMITS).verdict is Verdict.PASSED  # prints 3
    old.close()  # a view: closing it leaves the executor running
    assert cpp.run(SUM, TESTS[:1], LIMITS).verdict is Verdict.PASSED


def test_online_judge_is_defined(cpp: SandboxExecutor) -> None:  # noqa: F811
    program = (
        "#include <cstdio>\nint main() {\n#ifndef ONLINE_JUDGE\n"
        "  freopen(\"input.txt\", \"r\", stdin);\n#endif\n  int a; scanf(\"%d\", &a);"
        " printf(\"%d\", a * 2);\n}\n"
    )
    assert cpp.run(program, [TestCase("21\n", ("42",))], LIMITS).verdict is Verdict.PASSED


def test_time_limit_is_cpu_time(cpp: SandboxExecutor) -> None:  # noqa: F811
    r = cpp.run("int main() { volatile long x = 0; for (;;) x++; }", TESTS[:1], LIMITS).results[0]
    assert r.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert r.cpu_s > LIMITS.time_s or "run twice" in r.note  # a starved machine: wall clock


def test_new_over_the_limit_is_memory_limit(cpp: SandboxExecutor) -> None:  # noqa: F811
    # 80 MB asked of a 64 MB limit, never touched: a judge counting reserved memory refuses it.
    program = "#include <vector>\nint main() { std::vector<char> v(80 << 20); return v[1]; }"
    r = cpp.run(program, TESTS[:1], LIMITS).results[0]
    assert r.verdict is Verdict.MEMORY_LIMIT_EXCEEDED, (r.note, r.stderr_tail)


def test_just_under_the_limit_passes(cpp: SandboxExecutor) -> None:  # noqa: F811
    program = (
        "#include <cstdio>\n#include <cstring>\nstatic char a[56 << 20];\n"
        "int main() { std::memset(a, 1, sizeof a); std::printf(\"%d\", a[12345] + 2); }"
    )
    r = cpp.run(program, [TestCase("", ("3",))], LIMITS).results[0]
    assert r.verdict is Verdict.PASSED, (r.note, r.stderr_tail)
    assert r.peak_memory_mb is not None and 56 <= r.peak_memory_mb < 64


def test_static_array_over_the_limit_is_not_even_run(cpp: SandboxExecutor) -> None:  # noqa: F811
    program = "int a[100000000];\nint main() { a[5] = 1; return a[4]; }"
    report = cpp.run(program, TESTS, LIMITS)
    assert [r.verdict for r in report.results] == [Verdict.MEMORY_LIMIT_EXCEEDED] * 3
    assert "static data alone (382 MB) is over 64 MB" in report.results[0].note
    out, why = cpp.output_of(program, "", LIMITS)
    assert out == "" and "over 64 MB" in why


def test_output_of_a_compiled_generator(cpp: SandboxExecutor) -> None:  # noqa: F811
    program = "#include <cstdio>\nint main() { for (int i = 0; i < 3; i++) printf(\"%d\\n\", i); }"
    assert cpp.output_of(program, "", LIMITS) == ("0\n1\n2\n", "")
    out, why = cpp.output_of("int main() { x; }", "", LIMITS)
    assert out == "" and why.startswith("COMPILATION_ERROR: main.cpp:")


def test_each_test_runs_an_untouched_binary(cpp: SandboxExecutor) -> None:  # noqa: F811
    # A program that tries to overwrite its own binary (or write beside it) cannot.
    program = (
        "#include <cstdio>\nint main(int, char** argv) {\n"
        "  FILE* f = fopen(argv[0], \"wb\"); FILE* g = fopen(\"/proc/self/exe\", \"wb\");\n"
        "  printf(\"%s\", f || g ? \"changed\" : \"ok\");\n}\n"
    )
    report = cpp.run(program, [TestCase("", ("ok",))] * 3, LIMITS)
    assert [r.verdict for r in report.results] == [Verdict.PASSED] * 3


def test_compile_has_its_own_limits(cpp: SandboxExecutor) -> None:  # noqa: F811
    tight = Limits(time_s=1.0, memory_mb=64, wall_factor=2.0)
    small = cpp.with_runtime(dataclasses.replace(cpp_runtime(), check_limits=tight))
    report = small.run("#include <bits/stdc++.h>\nint main() {}\n", TESTS[:1], LIMITS)
    assert report.verdict is Verdict.COMPILATION_ERROR
    assert "cpp check stopped: it exceeded its" in report.compile_error


def test_the_data_set_is_hidden_from_the_compiler(cpp: SandboxExecutor) -> None:  # noqa: F811
    here = Path(__file__).resolve()
    program = f'#include "{here}"\nint main() {{}}\n'
    report = cpp.run(program, TESTS[:1], LIMITS)
    assert report.verdict is Verdict.COMPILATION_ERROR
    assert "No such file or directory" in report.compile_error
