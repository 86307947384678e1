"""The Test Executor: the one agent with no LLM. A program and tests in, a RunReport out.

It syntax-checks the program once, runs each test in the sandbox (tests of one program in
parallel across the workers), turns each raw run into a verdict and judges the output.
"""

from __future__ import annotations

import dataclasses
import signal
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from ..tasks import Limits, RunReport, TestCase, TestResult, Verdict
from .judge import judge
from .runtime import Runtime, ruby_runtime
from .sandbox import Isolation, RawRun, Sandbox, SandboxConfig

# Generous: compiling is not the program's time; the check only guards against a hang.
CHECK_LIMITS = Limits(time_s=10.0, memory_mb=512, wall_factor=2.0)


class Executor(Protocol):
    """Runs a program on tests under limits (the seam the agents and methods depend on)."""

    def run(
        self,
        program: str,
        tests: Sequence[TestCase],
        limits: Limits,
        *,
        stop_at_first_failure: bool = False,
    ) -> RunReport: ...

    def output_of(self, program: str, stdin: str, limits: Limits) -> tuple[str, str]:
        """Run a program once: ``(its whole stdout, "")``, or ``("", why it failed)``."""
        ...


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _tail(text: str, chars: int) -> str:
    return text if len(text) <= chars else "…" + text[-chars:]


def classify(raw: RawRun, limits: Limits, runtime: Runtime) -> Verdict | None:
    """The verdict a raw run earns before its output is judged; None = exited 0, judge it.

    Order matters: a run killed for its wall time may also show a SIGKILL, a run that hit the
    output cap dies of SIGXFSZ, a run killed by the OOM killer shows a plain SIGKILL.
    """
    if raw.wall_killed:
        return Verdict.TIME_LIMIT_EXCEEDED
    if raw.output_exceeded:
        return Verdict.OUTPUT_LIMIT_EXCEEDED
    failed = raw.exit_code != 0
    stderr = _text(raw.stderr).lower()
    if raw.oom_killed or (failed and any(m in stderr for m in runtime.memory_markers)):
        return Verdict.MEMORY_LIMIT_EXCEEDED
    if raw.cpu_s > limits.time_s or raw.signal in (signal.SIGXCPU, signal.SIGKILL):
        # SIGKILL without OOM or wall kill: the hard RLIMIT_CPU.
        return Verdict.TIME_LIMIT_EXCEEDED
    if failed:
        return Verdict.RUNTIME_ERROR
    return None


def _note(raw: RawRun, verdict: Verdict) -> str:
    if raw.signal is not None:
        return f"killed by {signal.Signals(raw.signal).name}"
    if verdict is Verdict.RUNTIME_ERROR:
        return f"exit code {raw.exit_code}"
    return ""


class SandboxExecutor:
    """The sandboxed executor (reusable, thread-safe; close() or use as a context manager).

    ``runtime`` defaults to Ruby; pass another Runtime to run another language the same way.
    """

    def __init__(
        self,
        workers: int = 2,
        *,
        runtime: Runtime | None = None,
        config: SandboxConfig | None = None,
    ) -> None:
        self.runtime = runtime or ruby_runtime()
        config = config or SandboxConfig()
        self.config = dataclasses.replace(
            config, visible_paths=(*config.visible_paths, *self.runtime.host_paths())
        )
        self.sandbox = Sandbox(workers, self.config)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ramp-exec")

    @property
    def isolation(self) -> Isolation:
        return self.sandbox.isolation

    def check(self, source_path: str) -> str:
        """The runtime's message if the program does not compile, else ''."""
        raw = self.sandbox.execute(self.runtime.check_command(source_path), b"", CHECK_LIMITS)
        if raw.exit_code == 0:
            return ""
        message = _text(raw.stderr).strip()
        return message or f"syntax check failed ({_note(raw, Verdict.RUNTIME_ERROR)})"

    def run(
        self,
        program: str,
        tests: Sequence[TestCase],
        limits: Limits,
        *,
        stop_at_first_failure: bool = False,
    ) -> RunReport:
        start = time.perf_counter()
        # ExecEval normalises the source's line ends before running it; so do we.
        source = program.replace("\r\n", "\n").encode("utf-8", errors="surrogateescape")
        with self.sandbox.stage({self.runtime.source_name: source}) as staged:
            path = f"{staged.path}/{self.runtime.source_name}"
            error = self.check(path)
            if error:
                results = tuple(
                    TestResult(index=i, verdict=Verdict.COMPILATION_ERROR, stderr_tail=error)
                    for i in range(len(tests))
                )
                return RunReport(results=results, compile_error=error)
            argv = self.runtime.run_command(path)
            stop = threading.Event()

            def one(index: int) -> TestResult | None:
                if stop_at_first_failure and stop.is_set():
                    return None
                result = self.run_one(argv, index, tests[index], limits)
                if result.verdict is not Verdict.PASSED:
                    stop.set()
                return result

            done = [r for r in self._pool.map(one, range(len(tests))) if r is not None]
        return RunReport(
            results=tuple(done),
            skipped=len(tests) - len(done),
            extra={"wall_s": round(time.perf_counter() - start, 4)},
        )

    def output_of(self, program: str, stdin: str, limits: Limits) -> tuple[str, str]:
        """Run a program once and keep its whole output (e.g. a test-input generator)."""
        source = program.replace("\r\n", "\n").encode("utf-8", errors="surrogateescape")
        with self.sandbox.stage({self.runtime.source_name: source}) as staged:
            path = f"{staged.path}/{self.runtime.source_name}"
            error = self.check(path)
            if error:
                return "", f"{Verdict.COMPILATION_ERROR.value}: {_tail(error, 300)}"
            raw, _ = self._execute(
                self.runtime.run_command(path), stdin.encode("utf-8", "surrogateescape"), limits
            )
        verdict = classify(raw, limits, self.runtime)
        if verdict is not None:
            detail = _tail(_text(raw.stderr).strip(), 300) or _note(raw, verdict)
            return "", f"{verdict.value}: {detail}" if detail else verdict.value
        return _text(raw.stdout), ""

    def _execute(self, argv: Sequence[str], stdin: bytes, limits: Limits) -> tuple[RawRun, str]:
        """One sandboxed run, twice if the wall clock stopped it before it used its CPU time:
        that is a loaded machine (model jobs beside us) or a program that blocks; load alone
        must never make a time-out, and a program that blocks is stopped again. The second
        element says so ("" when run once)."""
        raw = self.sandbox.execute(argv, stdin, limits)
        if not (raw.wall_killed and raw.cpu_s < limits.time_s):
            return raw, ""
        first = f"run twice (first: {raw.wall_s:.2f} s wall, {raw.cpu_s:.2f} s CPU)"
        return self.sandbox.execute(argv, stdin, limits), first

    def run_one(
        self, argv: Sequence[str], index: int, test: TestCase, limits: Limits
    ) -> TestResult:
        """Run one test of an already-staged program and judge it."""
        stdin = test.input.encode("utf-8", errors="surrogateescape")
        raw, rerun = self._execute(argv, stdin, limits)
        verdict = classify(raw, limits, self.runtime)
        stdout = _text(raw.stdout)
        if verdict is None:
            verdict = Verdict.PASSED if judge(stdout, test.outputs) else Verdict.WRONG_ANSWER
        tail = self.config.tail_chars
        return TestResult(
            index=index,
            verdict=verdict,
            exit_code=raw.exit_code,
            signal=raw.signal,
            cpu_s=round(raw.cpu_s, 4),
            wall_s=round(raw.wall_s, 4),
            peak_memory_mb=raw.peak_memory_mb,
            stdout_tail=_tail(stdout, tail),
            stderr_tail=_tail(_text(raw.stderr), tail),
            note="; ".join(n for n in (_note(raw, verdict), rerun) if n),
        )

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self.sandbox.close()

    def __enter__(self) -> SandboxExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


SandboxExecutor = SandboxExecutor
"""The language-neutral name: ``SandboxExecutor(runtime=python_runtime())`` runs Python."""
