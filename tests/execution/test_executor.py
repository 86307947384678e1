"""Each verdict on real Ruby, parallel runs, stop-at-first-failure, and the classifier."""

from __future__ import annotations

import logging
import os
import signal

import pytest

from ramp.execution.cgroups import version as cgroup_version
from ramp.execution.executor import SandboxExecutor, classify
from ramp.execution.runtime import ruby_runtime
from ramp.execution.sandbox import RawRun, SandboxConfig
from ramp.tasks import Limits, TestCase, Verdict

FAST = Limits(time_s=0.5, memory_mb=128, output_bytes=1 << 20, wall_factor=2.0, wall_grace_s=0.5)
ADD = TestCase("1 2\r\n", ("3",))


def one(executor: SandboxExecutor, program: str, test: TestCase = ADD, limits: Limits = FAST):
    report = executor.run(program, [test], limits)
    assert len(report.results) == 1
    return report.results[0]


def test_passed(executor: SandboxExecutor) -> None:
    r = one(executor, "a, b = gets.split.map(&:to_i)\nputs a + b\n")
    assert r.verdict is Verdict.PASSED
    assert r.exit_code == 0 and r.signal is None
    assert r.stdout_tail == "3\n"
    assert 0 < r.wall_s < 5 and r.cpu_s > 0
    assert r.peak_memory_mb is not None and 1 < r.peak_memory_mb < 128


def test_wrong_answer(executor: SandboxExecutor) -> None:
    assert one(executor, "puts 4").verdict is Verdict.WRONG_ANSWER


def test_a_test_without_a_known_output_checks_only_that_the_program_ends_well(
    executor: SandboxExecutor,
) -> None:
    unknown = TestCase("1 2\n", (), "large")
    assert one(executor, "puts 4", unknown).verdict is Verdict.PASSED
    assert one(executor, "x = nil\nx.foo\n", unknown).verdict is Verdict.RUNTIME_ERROR
    assert one(executor, "loop {}", unknown).verdict is Verdict.TIME_LIMIT_EXCEEDED


def test_runtime_error_keeps_stderr_tail(executor: SandboxExecutor) -> None:
    r = one(executor, "x = nil\nx.foo\n")
    assert r.verdict is Verdict.RUNTIME_ERROR
    assert r.exit_code == 1
    assert "NoMethodError" in r.stderr_tail and "main.rb:2" in r.stderr_tail


def test_nonzero_exit_is_runtime_error(executor: SandboxExecutor) -> None:
    r = one(executor, "puts 3\nexit 3\n")
    assert (r.verdict, r.exit_code) == (Verdict.RUNTIME_ERROR, 3)


def test_signal_is_runtime_error(executor: SandboxExecutor) -> None:
    r = one(executor, "Process.kill('SEGV', Process.pid)")
    assert r.verdict is Verdict.RUNTIME_ERROR


def test_time_limit_exceeded_by_cpu(executor: SandboxExecutor) -> None:
    r = one(executor, "x = 0\nloop { x += 1 }\n")
    assert r.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert r.signal in (signal.SIGXCPU, signal.SIGKILL)  # RLIMIT_CPU, or the wall backstop


def test_memory_limit_exceeded(executor: SandboxExecutor) -> None:
    r = one(executor, "a = []\nloop { a << 'x' * 1_000_000 }\n")
    assert r.verdict is Verdict.MEMORY_LIMIT_EXCEEDED


def test_output_limit_exceeded(executor: SandboxExecutor) -> None:
    r = one(executor, "loop { puts 'y' * 1000 }")
    assert r.verdict is Verdict.OUTPUT_LIMIT_EXCEEDED


@pytest.mark.parametrize(
    ("program", "message"),
    [
        ("break\nputs 1\n", "Invalid break"),  # passes `ruby -c`, fails to compile
        ("def f(\nputs 1\n", "syntax error"),
    ],
)
def test_compilation_error_for_every_test(
    executor: SandboxExecutor, program: str, message: str
) -> None:
    report = executor.run(program, [ADD, ADD, ADD], FAST)
    assert message in report.compile_error
    assert [r.verdict for r in report.results] == [Verdict.COMPILATION_ERROR] * 3
    assert report.verdict is Verdict.COMPILATION_ERROR and not report.passed


def test_bundled_gems_load(executor: SandboxExecutor) -> None:
    program = "require 'prime'\nrequire 'matrix'\nrequire 'set'\nputs Prime.first(2).sum + 0"
    r = one(executor, program, TestCase("", ("5",)))
    assert r.verdict is Verdict.PASSED, r.stderr_tail


def test_many_tests_in_order_with_several_accepted_outputs(executor: SandboxExecutor) -> None:
    tests = [TestCase(f"{i} {i}\n", (str(2 * i), "never")) for i in range(8)]
    tests.append(TestCase("1 1\n", ("3", "1 1")))  # 2 is not accepted
    report = executor.run("a, b = gets.split.map(&:to_i)\nputs a + b", tests, FAST)
    assert [r.index for r in report.results] == list(range(9))
    assert [r.verdict for r in report.results] == [Verdict.PASSED] * 8 + [Verdict.WRONG_ANSWER]
    assert report.skipped == 0 and report.verdict is Verdict.WRONG_ANSWER


def test_stop_at_first_failure_skips_the_rest() -> None:
    tests = [TestCase("", ("1",))] * 6
    with SandboxExecutor(workers=1) as ex:
        report = ex.run("puts 2", tests, FAST, stop_at_first_failure=True)
        full = ex.run("puts 2", tests, FAST)
    assert len(report.results) == 1 and report.skipped == 5
    assert len(full.results) == 6 and full.skipped == 0


def test_empty_test_list(executor: SandboxExecutor) -> None:
    report = executor.run("puts 1", [], FAST)
    assert report.results == () and report.passed


def _raw(**kw: object) -> RawRun:
    base = dict(
        exit_code=0, signal=None, cpu_s=0.1, wall_s=0.1, peak_memory_mb=10.0, stdout=b"", stderr=b""
    )
    return RawRun(**{**base, **kw})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("raw", "verdict"),
    [
        (_raw(), None),
        (
            _raw(wall_killed=True, exit_code=None, signal=signal.SIGKILL),
            Verdict.TIME_LIMIT_EXCEEDED,
        ),
        (_raw(exit_code=None, signal=signal.SIGXCPU), Verdict.TIME_LIMIT_EXCEEDED),
        (_raw(cpu_s=0.6), Verdict.TIME_LIMIT_EXCEEDED),
        (
            _raw(exit_code=None, signal=signal.SIGXFSZ, output_exceeded=True),
            Verdict.OUTPUT_LIMIT_EXCEEDED,
        ),
        (
            _raw(exit_code=None, signal=signal.SIGKILL, oom_killed=True),
            Verdict.MEMORY_LIMIT_EXCEEDED,
        ),
        (
            _raw(exit_code=1, stderr=b"failed to allocate memory (NoMemoryError)"),
            Verdict.MEMORY_LIMIT_EXCEEDED,
        ),
        (_raw(exit_code=1), Verdict.RUNTIME_ERROR),
        (_raw(exit_code=None, signal=signal.SIGSEGV), Verdict.RUNTIME_ERROR),
    ],
)
def test_classify(raw: RawRun, verdict: Verdict | None) -> None:
    runtime = ruby_runtime(gem_dirs=[])
    assert classify(raw, FAST, runtime) is verdict


needs_v1_root = pytest.mark.skipif(
    os.geteuid() != 0 or cgroup_version() != "v1", reason="needs root and cgroup v1"
)
FORK_PATH = SandboxConfig(use_launcher=False)


class _RestoreOnRetry(logging.Handler):
    """Calls ``fix`` when the sandbox logs that it retries a start (deterministic, no timing)."""

    def __init__(self, fix) -> None:
        super().__init__()
        self.fix, self.retries = fix, 0

    def emit(self, record: logging.LogRecord) -> None:
        if "retrying" in record.getMessage():
            self.retries += 1
            self.fix()


@needs_v1_root
def test_transient_start_failure_is_retried() -> None:
    """A start that fails before exec is the machine's fault, not the program's: retried. Here
    the launcher's fork really fails (EAGAIN: the slot's pids.max leaves no room), and room
    is made when the sandbox logs its retry."""
    with SandboxExecutor(workers=1) as ex:
        sandbox, ruby = ex.sandbox, [*ex.runtime.run_argv[:-1], "-e", "puts gets.to_i * 2"]
        assert sandbox.execute(ruby, b"2", FAST).stdout == b"4\n"  # limits written and cached
        pids = sandbox._all_slots[0].cgroup.pids / "pids.max"
        room = pids.read_text()
        pids.write_text("1")  # only the launcher's serving thread: its fork gets EAGAIN
        handler = _RestoreOnRetry(lambda: pids.write_text(room))
        logger = logging.getLogger("ramp.execution.sandbox")
        logger.addHandler(handler)
        try:
            assert sandbox.execute(ruby, b"21", FAST).stdout == b"42\n"
        finally:
            logger.removeHandler(handler)
        assert handler.retries == 1


@needs_v1_root
def test_persistent_start_failure_is_an_error_not_a_verdict() -> None:
    with SandboxExecutor(workers=1) as ex:
        sandbox, ruby = ex.sandbox, [*ex.runtime.run_argv[:-1], "-e", "puts 1"]
        assert sandbox.execute(ruby, b"", FAST).exit_code == 0
        (sandbox._all_slots[0].cgroup.pids / "pids.max").write_text("1")
        with pytest.raises(
            RuntimeError,
            match=r"could not start .* after 3 attempts: .*at (fork|spawn): BlockingIOError",
        ):
            sandbox.execute(ruby, b"", FAST)


def test_a_failing_set_up_step_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the child's set-up fails, the error says which step and why (here a real
    setrlimit in the launcher's child: a soft limit above the hard one)."""
    from ramp.execution.sandbox import Sandbox

    monkeypatch.setattr(Sandbox, "_rlimits", lambda self, limits, slot: ((7, 64, 32),))
    with SandboxExecutor(workers=1) as ex:
        assert ex.isolation.launcher
        with pytest.raises(RuntimeError, match=r"set-up failed at setrlimit 7: OSError\(22"):
            one(ex, "puts 1\n")


def test_fork_path_transient_start_failure_is_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same guarantees where the executor forks the programs itself (no launcher)."""
    import subprocess

    real = subprocess.Popen
    failures = iter([subprocess.SubprocessError("Exception occurred in preexec_fn.")])

    def flaky(*args, **kwargs):
        err = next(failures, None)
        if err is not None:
            raise err
        return real(*args, **kwargs)

    with SandboxExecutor(workers=1, config=FORK_PATH) as ex:
        assert not ex.isolation.launcher
        monkeypatch.setattr(subprocess, "Popen", flaky)
        assert one(ex, "a, b = gets.split.map(&:to_i)\nputs a + b\n").verdict is Verdict.PASSED


def test_fork_path_persistent_start_failure_is_an_error_not_a_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import subprocess

    def broken(*args, **kwargs):
        raise BlockingIOError(11, "Resource temporarily unavailable")

    with SandboxExecutor(workers=1, config=FORK_PATH) as ex:
        monkeypatch.setattr(subprocess, "Popen", broken)
        with pytest.raises(RuntimeError, match=r"could not start .* after 3 attempts"):
            one(ex, "puts 1\n")


def test_fork_path_names_a_failing_set_up_step(monkeypatch: pytest.MonkeyPatch) -> None:
    from ramp.execution import spawner

    def refuse(res, limits):
        raise PermissionError(1, "refused for the test")

    with SandboxExecutor(workers=1, config=FORK_PATH) as ex:
        monkeypatch.setattr(spawner.resource, "setrlimit", refuse)
        with pytest.raises(RuntimeError, match=r"set-up failed at setrlimit \d+: PermissionError"):
            one(ex, "puts 1\n")


TORCH_THEN_RUBY = """
import torch
torch.set_num_threads(2)
torch.ones(300, 300) @ torch.ones(300, 300)  # starts OpenMP's worker threads
from ramp.execution.executor import SandboxExecutor
from ramp.tasks import Limits, TestCase
with SandboxExecutor(workers=2) as ex:
    report = ex.run("puts gets.to_i * 2\\n", [TestCase("2\\n", ("4\\n",))] * 4, Limits(time_s=1))
print(report.verdict)
"""


def test_runs_beside_a_loaded_torch() -> None:
    """Regression: with torch's threads in the parent, forked children shared their file-system
    attributes and setns() into the mount namespace failed (EINVAL) on every run."""
    import subprocess
    import sys

    pytest.importorskip("torch")
    out = subprocess.run([sys.executable, "-c", TORCH_THEN_RUBY], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "PASSED"
    assert "set-up failed" not in out.stderr


def test_an_error_s_text_does_not_name_the_staging_folder(executor):
    """A program's traceback names its file; the folder it was staged in (p-0, p-1, ... in
    staging order) must not leak into it, or the same program's traces, and the agents' prompts
    that quote them, would depend on how many programs ran before it."""
    program = "x = gets\nputs x.split.first.upcase + nil\n"
    tests = [TestCase("a b\n", ("A\n",))]
    first, second = (executor.run(program, tests, Limits(time_s=2)) for _ in range(2))
    text = first.results[0].stderr_tail
    assert "main.rb:2" in text and "/p-" not in text
    assert second.results[0].stderr_tail == text
