"""Hostile C++ programs (and compile-time bombs): each gets the right verdict AND leaves
nothing behind: no process of the sandbox's uids, nothing in its work area, no file outside.

Time limits are judged on CPU time, so a busy machine cannot change a verdict; the memory
hogs get far more CPU time than they need, so that the memory limit is what stops them.
"""

from __future__ import annotations

import dataclasses
import signal
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ramp.execution.executor import SandboxExecutor
from ramp.execution.runtime import cpp_runtime
from ramp.tasks import Limits, RunReport, TestCase, TestResult, Verdict

from .conftest import processes_of
from .cpp_fixtures import cpp  # noqa: F401  (a fixture)

LIMITS = Limits(time_s=0.5, memory_mb=64, output_bytes=1 << 20, wall_factor=2.0, wall_grace_s=0.5)
HOG_LIMITS = dataclasses.replace(LIMITS, time_s=10.0)
# Bombs are stopped by the compile limits; small ones keep the suite quick.
BOMB_COMPILE = Limits(time_s=3.0, memory_mb=384, output_bytes=16 << 20, wall_factor=2.0)


@pytest.fixture
def clean(cpp: SandboxExecutor) -> Iterator[SandboxExecutor]:  # noqa: F811
    yield cpp
    assert processes_of(cpp.sandbox.uids) == []
    assert cpp.sandbox.leftovers() == []


def run(executor: SandboxExecutor, program: str, limits: Limits = LIMITS) -> TestResult:
    report = executor.run(program, [TestCase("", ("ok",))], limits)
    assert not report.compile_error, report.compile_error
    return report.results[0]


def compile_bomb(executor: SandboxExecutor, program: str) -> RunReport:
    rt = dataclasses.replace(cpp_runtime(), check_limits=BOMB_COMPILE)
    return executor.with_runtime(rt).run(program, [TestCase("", ("ok",))], LIMITS)


def test_fork_and_exec_cannot_start_another_process(clean: SandboxExecutor) -> None:
    program = (
        "#include <cstdio>\n#include <cstdlib>\n#include <unistd.h>\nint main() {\n"
        "  pid_t p = fork(); if (p == 0) { _exit(0); }\n"
        "  int s = system(\"echo escaped\");\n"
        "  printf(\"%s\", p < 0 && s != 0 ? \"ok\" : \"forked\");\n}\n"
    )
    r = run(clean, program)
    assert r.verdict is Verdict.PASSED, r.stdout_tail + r.stderr_tail


def test_fork_bomb(clean: SandboxExecutor) -> None:
    """No fork succeeds (pids.max), but each failed one allocates a kernel stack charged to the
    slot's memory, freed only after an RCU grace period: where the kernel frees lazily
    (CONFIG_RCU_LAZY), ~4000 failed forks fill 64 MB before 0.5 s of CPU is spent."""
    r = run(clean, "#include <unistd.h>\nint main() { for (;;) fork(); }")
    assert r.verdict in (Verdict.TIME_LIMIT_EXCEEDED, Verdict.MEMORY_LIMIT_EXCEEDED), r


def test_raw_network_syscalls_reach_nothing(clean: SandboxExecutor) -> None:
    if not clean.isolation.network_namespace:
        pytest.skip("no network namespace (not root)")
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        server.settimeout(0.3)
        program = (
            "#include <cstdio>\n#include <cerrno>\n#include <cstring>\n#include <unistd.h>\n"
            "#include <sys/syscall.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\n"
            "int main() {\n"
            "  long fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);\n"
            "  sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(" + str(port) + ");\n"
            "  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);\n"
            "  long c = syscall(SYS_connect, fd, (sockaddr*)&a, sizeof a);\n"
            "  if (c == 0) { syscall(SYS_write, fd, \"hi\", 2); puts(\"connected\"); return 0; }\n"
            "  printf(\"%s\", strerror(errno)); return 3;\n}\n"
        )
        r = run(clean, program)
        with pytest.raises(TimeoutError):
            server.accept()
    assert r.verdict is Verdict.RUNTIME_ERROR and "connected" not in r.stdout_tail
    assert "Network is unreachable" in r.stdout_tail


def test_writes_stay_inside_the_private_directory(clean: SandboxExecutor, tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    targets = [f"/tmp/{token}", f"/var/tmp/{token}", f"/dev/shm/{token}", f"{tmp_path}/{token}",
               f"/{token}", f"{Path.cwd()}/{token}"]  # fmt: skip
    paths = ", ".join(f'"{t}"' for t in targets)
    program = (
        "#include <cstdio>\n#include <fcntl.h>\n#include <unistd.h>\nint main() {\n"
        f"  const char* paths[] = {{{paths}}}; int escaped = 0;\n"
        "  for (const char* p : paths) { int fd = open(p, O_WRONLY | O_CREAT, 0644);\n"
        "    if (fd >= 0) { escaped++; write(fd, \"x\", 1); close(fd); } }\n"
        "  FILE* f = fopen(\"local.txt\", \"w\"); fputs(\"fine\", f); fclose(f);\n"
        "  printf(\"%s\", escaped ? \"escaped\" : \"ok\");\n}\n"
    )
    r = run(clean, program)
    assert r.verdict is Verdict.PASSED, r.stdout_tail + r.stderr_tail
    for target in targets:
        assert not Path(target).exists(), target


@pytest.mark.parametrize(
    "program",
    [
        # new[] + touch: the address-space limit stops it (std::bad_alloc)
        "#include <cstring>\nint main() { for (;;) { char* p = new char[1 << 20];"
        " std::memset(p, 1, 1 << 20); } }",
        # a vector doubling its capacity
        "#include <vector>\nint main() { std::vector<long> v; for (;;) v.push_back(v.size()); }",
        # reserving without touching counts too, as on the judge the data comes from
        "#include <vector>\n#include <cstdio>\nint main() { std::vector<std::vector<char>> v;"
        " for (;;) v.emplace_back(1 << 20); }",
    ],
    ids=["touch", "vector", "reserve"],
)
def test_memory_hog(clean: SandboxExecutor, program: str) -> None:
    r = run(clean, program, HOG_LIMITS)
    assert r.verdict is Verdict.MEMORY_LIMIT_EXCEEDED, (r.note, r.stderr_tail)
    assert r.cpu_s < HOG_LIMITS.time_s


def test_deep_recursion_uses_the_memory_limit_as_stack(clean: SandboxExecutor) -> None:
    # 16 MB of stack (beyond a default 8 MB) is fine under a 64 MB limit, as on the judge;
    # an endless recursion grows the stack to the memory limit and dies of SIGSEGV there,
    # a runtime error (a stack overflow) as Codeforces recorded such programs.
    program = (
        "#include <cstdio>\nint f(int n) { volatile char pad[160]; pad[0] = n;"
        " return n ? f(n - 1) + pad[0] % 2 : 0; }\n"
        "int main() { printf(\"%s\", f(100000) >= 0 ? \"ok\" : \"no\"); }"
    )
    assert run(clean, program, HOG_LIMITS).verdict is Verdict.PASSED
    endless = "int f(int n) { volatile char pad[160]; pad[0] = n; return f(n + 1) + pad[0]; }\n" \
        "int main() { return f(0); }"
    r = run(clean, endless, HOG_LIMITS)
    assert r.verdict is Verdict.RUNTIME_ERROR and r.note == "killed by SIGSEGV"
    assert r.peak_memory_mb is not None and r.peak_memory_mb > HOG_LIMITS.memory_mb - 8


def test_malloc_returning_null_at_the_limit(clean: SandboxExecutor) -> None:
    # C code that checks malloc and exits with an error has reached the limit all the same.
    program = (
        "#include <cstdlib>\n#include <cstring>\nint main() { for (;;) {"
        " char* p = (char*)std::malloc(1 << 20); if (!p) return 3; std::memset(p, 1, 1 << 20); } }"
    )
    r = run(clean, program, HOG_LIMITS)
    assert r.verdict is Verdict.MEMORY_LIMIT_EXCEEDED and r.exit_code == 3


def test_a_crash_far_from_the_limit_is_a_runtime_error(clean: SandboxExecutor) -> None:
    r = run(clean, "int main() { volatile int* p = 0; *p = 1; }", HOG_LIMITS)
    assert r.verdict is Verdict.RUNTIME_ERROR and r.note == "killed by SIGSEGV"


def test_output_flood(clean: SandboxExecutor) -> None:
    program = (
        "#include <cstdio>\n"
        "int main() { static char z[65536]; for (;;) fwrite(z, 1, sizeof z, stdout); }"
    )
    assert run(clean, program).verdict is Verdict.OUTPUT_LIMIT_EXCEEDED


def test_infinite_loop_ignoring_signals(clean: SandboxExecutor) -> None:
    program = (
        "#include <csignal>\n#include <initializer_list>\nint main() {\n"
        "  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGALRM}) std::signal(s, SIG_IGN);\n"
        "  volatile long x = 0; for (;;) x++;\n}\n"
    )
    r = run(clean, program, dataclasses.replace(LIMITS, wall_factor=6.0))
    # SIGXCPU is ignored, so the hard CPU limit (or, on a starved machine, the wall clock)
    # kills it: SIGKILL either way, which no handler can ignore.
    assert r.verdict is Verdict.TIME_LIMIT_EXCEEDED and r.signal == signal.SIGKILL


def test_sleep_forever_hits_the_wall_clock(clean: SandboxExecutor) -> None:
    r = run(clean, "#include <unistd.h>\nint main() { for (;;) pause(); }")
    assert r.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert r.cpu_s < LIMITS.time_s and r.wall_s < LIMITS.wall_s + 2


def test_environment_is_scrubbed(clean: SandboxExecutor, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "s3cret-" + uuid.uuid4().hex
    monkeypatch.setenv("RAMP_PLANTED_SECRET", secret)
    program = "#include <cstdio>\nextern char** environ;\nint main() {" \
        " for (char** e = environ; *e; e++) puts(*e); }"
    r = run(clean, program)
    assert secret not in r.stdout_tail and "LANG=C.UTF-8" in r.stdout_tail


@pytest.mark.parametrize(
    ("program", "says"),
    [
        # an endless include: the compiler reads until its memory limit stops it
        ('#include "/dev/zero"\nint main() {}', "exceeded its memory limit"),
        ('#include </dev/urandom>\nint main() {}', "exceeded its memory limit"),
        # exponentially many template instantiations, each under the depth limit
        ("template<int N, unsigned M> struct B { static const unsigned v ="
         " B<N - 1, M * 2>::v + B<N - 1, M * 2 + 1>::v; };\n"
         "template<unsigned M> struct B<0, M> { static const unsigned v = M; };\n"
         "int main() { return B<40, 1>::v; }", "check stopped: it exceeded its"),
        # a constexpr evaluation of 4e10 steps: on a fast, idle machine g++ reaches its own
        # operation count limit (2^25) before the compile's CPU limit; either bound is a stop
        ("constexpr long f() { long s = 0; for (long i = 0; i < 200000; i++)"
         " for (long j = 0; j < 200000; j++) s += i ^ j; return s; }\n"
         "constexpr long x = f();\nint main() { return x; }",
         "check stopped: it exceeded its|evaluation operation count exceeds"),
        # deep template recursion: the compiler's own depth limit
        ("template<int N> struct D { static const int v = D<N + 1>::v; };\n"
         "int main() { return D<0>::v; }", "template instantiation depth exceeds"),
        # a huge initialised array: the object file hits the compile's output limit
        ("char a[1 << 28] = {1, 2, 3};\nint main() { return a[5]; }", "File size limit exceeded"),
    ],
    ids=[
        "dev-zero", "dev-urandom", "template-explosion", "constexpr", "template-depth", "huge-data"
    ],
)
def test_compile_time_bomb(clean: SandboxExecutor, program: str, says: str) -> None:
    report = compile_bomb(clean, program)
    assert report.verdict is Verdict.COMPILATION_ERROR
    assert any(one in report.compile_error for one in says.split("|")), report.compile_error
