"""Hostile programs: each gets the right verdict AND leaves nothing behind.

"Nothing behind" means: no process running as the sandbox's uids, nothing in the sandbox's
work area, no file created outside it; and after close(), no cgroup directories.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ramp.execution.executor import SandboxExecutor
from ramp.tasks import Limits, TestCase, TestResult, Verdict

from .conftest import processes_of

LIMITS = Limits(time_s=0.5, memory_mb=128, output_bytes=1 << 20, wall_factor=2.0, wall_grace_s=0.5)


@pytest.fixture
def clean(executor: SandboxExecutor) -> Iterator[SandboxExecutor]:
    yield executor
    assert processes_of(executor.sandbox.uids) == []
    assert executor.sandbox.leftovers() == []


def run(
    executor: SandboxExecutor, program: str, stdin: str = "", limits: Limits = LIMITS
) -> TestResult:
    report = executor.run(program, [TestCase(stdin, ("ok",))], limits)
    assert not report.compile_error, report.compile_error
    return report.results[0]


def test_fork_bomb(clean: SandboxExecutor) -> None:
    r = run(clean, "loop { fork { loop { fork } } rescue nil }")
    assert r.verdict in (Verdict.TIME_LIMIT_EXCEEDED, Verdict.RUNTIME_ERROR)


def test_no_child_process_can_start(clean: SandboxExecutor) -> None:
    r = run(clean, "begin; fork { exit 0 }; puts 'forked'; rescue => e; puts 'ok'; end")
    assert "forked" not in r.stdout_tail
    assert r.verdict in (Verdict.PASSED, Verdict.TIME_LIMIT_EXCEEDED)


def test_infinite_loop(clean: SandboxExecutor) -> None:
    assert run(clean, "loop {}").verdict is Verdict.TIME_LIMIT_EXCEEDED


def test_sleep_forever_hits_the_wall_clock(clean: SandboxExecutor) -> None:
    r = run(clean, "sleep 1000")
    assert r.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert r.cpu_s < LIMITS.time_s and r.wall_s < LIMITS.wall_s + 2


def test_memory_hog(clean: SandboxExecutor) -> None:
    r = run(clean, "s = 'x' * 10; loop { s += s }")
    assert r.verdict is Verdict.MEMORY_LIMIT_EXCEEDED


def test_output_flood(clean: SandboxExecutor) -> None:
    r = run(clean, "$stdout.sync = true; loop { print 'z' * 65536 }")
    assert r.verdict is Verdict.OUTPUT_LIMIT_EXCEEDED


def test_stderr_flood(clean: SandboxExecutor) -> None:
    r = run(clean, "loop { $stderr.print 'e' * 65536 }")
    assert r.verdict is Verdict.OUTPUT_LIMIT_EXCEEDED


def test_no_network(clean: SandboxExecutor) -> None:
    if not clean.isolation.network_namespace:
        pytest.skip("no network namespace (not root)")
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        server.settimeout(0.3)
        program = f"require 'socket'\nTCPSocket.new('127.0.0.1', {port}).puts 'hi'\nputs 'ok'"
        r = run(clean, program)
        with pytest.raises(TimeoutError):
            server.accept()
    assert r.verdict is Verdict.RUNTIME_ERROR
    assert "ENETUNREACH" in r.stderr_tail or "Network is unreachable" in r.stderr_tail


def test_writes_stay_inside_the_private_directory(clean: SandboxExecutor, tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    targets = [
        f"/tmp/{token}",
        f"/var/tmp/{token}",
        f"/dev/shm/{token}",
        f"{tmp_path}/{token}",
        f"/{token}",
        f"{Path.cwd()}/{token}",
    ]
    program = (
        f"ok = 0\n%w[{' '.join(targets)}].each {{ |p| File.write(p, 'x') rescue ok += 1 }}\n"
        "File.write('local.txt', 'fine')\nputs ok == " + str(len(targets)) + " ? 'ok' : 'escaped'"
    )
    r = run(clean, program)
    assert r.verdict is Verdict.PASSED, r.stdout_tail + r.stderr_tail
    for target in targets:
        assert not Path(target).exists(), target


def test_environment_is_scrubbed(clean: SandboxExecutor, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "s3cret-" + uuid.uuid4().hex
    monkeypatch.setenv("RAMP_PLANTED_SECRET", secret)
    program = (
        "puts ENV.to_h.inspect\n"
        "[Process.ppid, 1].each { |p| puts File.read(\"/proc/#{p}/environ\") rescue puts 'denied' }"
    )
    r = run(clean, program)
    assert r.verdict is Verdict.WRONG_ANSWER
    assert secret not in r.stdout_tail and "RAMP_PLANTED_SECRET" not in r.stdout_tail
    assert '"LANG"=>"C.UTF-8"' in r.stdout_tail
    if clean.isolation.unprivileged_uid:
        assert r.stdout_tail.count("denied") == 2


def test_trapping_term_does_not_help(clean: SandboxExecutor) -> None:
    r = run(clean, "%w[TERM INT HUP XCPU].each { |s| trap(s) {} }\nloop {}")
    assert r.verdict is Verdict.TIME_LIMIT_EXCEEDED


def test_deep_recursion(clean: SandboxExecutor) -> None:
    r = run(clean, "def f(n) = f(n + 1)\nf(0)")
    assert r.verdict is Verdict.RUNTIME_ERROR
    assert "stack level too deep" in r.stderr_tail


def test_reading_stdin_forever(clean: SandboxExecutor) -> None:
    # stdin is a file: reads hit end-of-file instead of blocking, so this is a busy loop.
    r = run(clean, "loop { $stdin.read }", stdin="1\n")
    assert r.verdict is Verdict.TIME_LIMIT_EXCEEDED


def test_closing_stdout(clean: SandboxExecutor) -> None:
    r = run(clean, "$stdout.close\nputs 'ok'")
    assert r.verdict is Verdict.RUNTIME_ERROR
    assert "closed stream" in r.stderr_tail


def test_invalid_utf8_in_input_and_output(clean: SandboxExecutor) -> None:
    stdin = "ok \udcff\udcfe\n"  # surrogate-escaped bytes 0xff 0xfe reach the program raw
    r = run(clean, "s = $stdin.read.b\n$stdout.write(s)\nexit(s.bytesize == 6 ? 0 : 5)", stdin)
    assert r.exit_code == 0
    assert r.verdict is Verdict.WRONG_ANSWER  # 'ok' plus two undecodable bytes
    assert r.stdout_tail.startswith("ok \ufffd")


def test_close_removes_cgroups_and_work_area() -> None:
    ex = SandboxExecutor(workers=2)
    dirs = ex.sandbox.cgroup_dirs
    assert run(ex, "puts 'ok'").verdict is Verdict.PASSED
    ex.close()
    assert all(not d.exists() for d in dirs)
    if ex.isolation.cgroup:
        assert dirs
    assert processes_of(ex.sandbox.uids) == []


def test_isolation_is_recorded(executor: SandboxExecutor) -> None:
    iso = executor.isolation
    assert iso.env_scrubbed
    if os.geteuid() == 0:
        assert iso.network_namespace and iso.unprivileged_uid
