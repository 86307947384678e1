"""The Test Executor: the one agent with no LLM. A program and tests in, a RunReport out.

It syntax-checks (or compiles) the program once, runs each test in the sandbox (tests of one
program in parallel across the workers), turns each raw run into a verdict and judges the
output.
"""

from __future__ import annotations

import copy
import dataclasses
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Protocol

from ..tasks import Limits, RunReport, TestCase, TestResult, Verdict
from .elf import load_size
from .judge import judge
from .runtime import CHECK_LIMITS, Runtime, ruby_runtime
from .sandbox import Isolation, RawRun, Sandbox, SandboxConfig, Staged

__all__ = ["CHECK_LIMITS", "Executor", "Prepared", "SandboxExecutor", "classify"]


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


AT_LIMIT_MB = 2.0
"""A run whose touched memory came this close to its limit reached it: the binary's own
mappings and a last allocation the program never touched make up the rest of the space."""


def _at_memory_limit(raw: RawRun, limits: Limits) -> bool:
    return raw.peak_memory_mb is not None and raw.peak_memory_mb >= limits.memory_mb - AT_LIMIT_MB


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
    if failed and raw.signal is None and runtime.address_space and _at_memory_limit(raw, limits):
        # It gave up at the address-space limit without saying so (a malloc that returned
        # NULL, checked): the limit's verdict. Not so a SIGSEGV there: that is a stack that
        # could not grow, which Codeforces calls a runtime error (9 of the 10 such programs
        # of the C++ data were recorded RUNTIME_ERROR; docs/cpp.md).
        return Verdict.MEMORY_LIMIT_EXCEEDED
    if raw.cpu_s > limits.time_s or raw.signal in (signal.SIGXCPU, signal.SIGKILL):
        # SIGKILL without OOM or wall kill: the hard RLIMIT_CPU.
        return Verdict.TIME_LIMIT_EXCEEDED
    if failed:
        return Verdict.RUNTIME_ERROR
    return None


@dataclass(frozen=True)
class Prepared:
    """A staged program after its check: the command that runs it, or why it cannot run."""

    argv: tuple[str, ...] = ()
    compile_error: str = ""
    load_bytes: int = 0
    """A compiled binary's static size (elf.load_size); 0 for an interpreted program."""
    directory: str = ""
    """Where the program was staged (a per-stage name: p-0, p-1, ... in staging order): left
    out of what the program prints, so that a run's text never depends on how many programs
    its process staged before it (the agents read it; the model's answer follows it)."""

    def scrub(self, text: str) -> str:
        return text.replace(f"{self.directory}/", "") if self.directory else text

    def too_big(self, limits: Limits) -> bool:
        """Whether the binary alone is over the memory limit (it cannot even be loaded)."""
        return self.load_bytes > limits.memory_mb << 20


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
        self._owner = True

    def with_runtime(self, runtime: Runtime) -> SandboxExecutor:
        """This executor's sandbox and workers, running ``runtime``'s programs (e.g. another
        C++ dialect); closing it closes nothing. ValueError if the sandbox hides a path the
        runtime needs (list it in ``SandboxConfig.visible_paths``)."""
        hidden = set(self.isolation.hidden)
        for path in runtime.host_paths():
            if f"/{PurePosixPath(path).parts[1]}" in hidden:
                raise ValueError(f"the sandbox hides {path}, which runtime {runtime.name} needs")
        view = copy.copy(self)
        view.runtime = runtime
        view._owner = False
        return view

    @property
    def isolation(self) -> Isolation:
        return self.sandbox.isolation

    def check(self, source_path: str) -> str:
        """The runtime's message if the program does not compile, else ''."""
        staged = PurePosixPath(source_path).parent
        return self._check(str(staged), self.runtime.check_command(source_path))[1]

    def _check(self, directory: str, argv: Sequence[str]) -> tuple[RawRun, str]:
        """Run the check (or compiler) once under the runtime's own limits: the raw run and
        the message agents see ('' if it passed). Paths are shown relative to the program's
        directory, as the compiler would print them had it compiled in place."""
        rt = self.runtime
        keep = (rt.binary_name,) if rt.binary_name else ()
        raw, _ = self._execute(
            argv, b"", rt.check_limits, max_tasks=rt.check_tasks, keep=keep, rlimits=()
        )
        # A limit, never a marker: a compiler's error may quote `std::bad_alloc` from the source.
        verdict = classify(raw, rt.check_limits, dataclasses.replace(rt, memory_markers=()))
        message = _text(raw.stderr).replace(f"{directory}/", "").strip()
        if verdict is None and all(name in raw.files for name in keep):
            return raw, ""
        limits = rt.check_limits
        exceeded: dict[Verdict | None, str] = {
            Verdict.TIME_LIMIT_EXCEEDED: f"its time limit ({limits.time_s:g} s CPU)",
            Verdict.MEMORY_LIMIT_EXCEEDED: f"its memory limit ({limits.memory_mb} MB)",
            Verdict.OUTPUT_LIMIT_EXCEEDED: f"its output limit ({limits.output_bytes >> 20} MB)",
        }
        why = exceeded.get(verdict)
        if why is not None:
            # Whatever the compiler managed to say comes first; the limit is the news.
            head = _tail(message, 1000) + "\n" if message else ""
            return raw, f"{head}{rt.name} check stopped: it exceeded {why}"
        return raw, message or f"syntax check failed ({_note(raw, Verdict.RUNTIME_ERROR)})"

    def prepare(self, staged: Staged) -> Prepared:
        """Check (compile) a staged program once; a compiled binary is put beside it, read
        only, so that every test runs the same untouched file."""
        rt = self.runtime
        source = f"{staged.path}/{rt.source_name}"
        if not rt.binary_name:
            error = self.check(source)
            argv = () if error else tuple(rt.run_command(source))
            return Prepared(argv=argv, compile_error=error, directory=staged.path)
        raw, error = self._check(staged.path, rt.check_command(source))
        if error:
            return Prepared(compile_error=error, directory=staged.path)
        image = raw.files[rt.binary_name]
        staged.put(rt.binary_name, image, executable=True)
        binary = f"{staged.path}/{rt.binary_name}"
        load = load_size(image) if rt.address_space else 0
        return Prepared(argv=tuple(rt.run_command(source, binary)), load_bytes=load,
                        directory=staged.path)

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
            prepared = self.prepare(staged)
            error = prepared.compile_error
            if error:
                results = tuple(
                    TestResult(index=i, verdict=Verdict.COMPILATION_ERROR, stderr_tail=error)
                    for i in range(len(tests))
                )
                return RunReport(results=results, compile_error=error)
            if prepared.too_big(limits):
                return RunReport(results=self._unloadable(prepared, len(tests), limits))
            argv = prepared.argv
            stop = threading.Event()

            def one(index: int) -> TestResult | None:
                if stop_at_first_failure and stop.is_set():
                    return None
                result = self.run_one(argv, index, tests[index], limits, scrub=prepared.scrub)
                if result.verdict is not Verdict.PASSED:
                    stop.set()
                return result

            done = [r for r in self._pool.map(one, range(len(tests))) if r is not None]
        return RunReport(
            results=tuple(done),
            skipped=len(tests) - len(done),
            extra={"wall_s": round(time.perf_counter() - start, 4)},
        )

    @staticmethod
    def _unloadable(prepared: Prepared, n: int, limits: Limits) -> tuple[TestResult, ...]:
        mb = prepared.load_bytes / 2**20
        note = f"not run: its static data alone ({mb:.0f} MB) is over {limits.memory_mb} MB"
        return tuple(
            TestResult(index=i, verdict=Verdict.MEMORY_LIMIT_EXCEEDED, peak_memory_mb=mb, note=note)
            for i in range(n)
        )

    def output_of(self, program: str, stdin: str, limits: Limits) -> tuple[str, str]:
        """Run a program once and keep its whole output (e.g. a test-input generator)."""
        source = program.replace("\r\n", "\n").encode("utf-8", errors="surrogateescape")
        with self.sandbox.stage({self.runtime.source_name: source}) as staged:
            prepared = self.prepare(staged)
            if prepared.compile_error:
                error = _tail(prepared.compile_error, 300)
                return "", f"{Verdict.COMPILATION_ERROR.value}: {error}"
            if prepared.too_big(limits):
                return "", self._unloadable(prepared, 1, limits)[0].note
            raw, _ = self._execute(
                prepared.argv, stdin.encode("utf-8", "surrogateescape"), limits
            )
        verdict = classify(raw, limits, self.runtime)
        if verdict is not None:
            detail = _tail(prepared.scrub(_text(raw.stderr)).strip(), 300) or _note(raw, verdict)
            return "", f"{verdict.value}: {detail}" if detail else verdict.value
        return _text(raw.stdout), ""

    def _execute(
        self,
        argv: Sequence[str],
        stdin: bytes,
        limits: Limits,
        *,
        max_tasks: int | None = None,
        keep: Sequence[str] = (),
        rlimits: Sequence[tuple[int, int, int]] | None = None,
    ) -> tuple[RawRun, str]:
        """One sandboxed run, twice if the wall clock stopped it before it used its CPU time:
        that is a loaded machine (model jobs beside us) or a program that blocks; load alone
        must never make a time-out, and a program that blocks is stopped again. The second
        element says so ("" when run once). ``rlimits`` default to the runtime's for a run."""
        extra = self.runtime.run_rlimits(limits) if rlimits is None else rlimits

        def once() -> RawRun:
            return self.sandbox.execute(
                argv, stdin, limits, rlimits=extra, max_tasks=max_tasks, keep=keep
            )

        raw = once()
        if not (raw.wall_killed and raw.cpu_s < limits.time_s):
            return raw, ""
        first = f"run twice (first: {raw.wall_s:.2f} s wall, {raw.cpu_s:.2f} s CPU)"
        return once(), first

    def run_one(
        self,
        argv: Sequence[str],
        index: int,
        test: TestCase,
        limits: Limits,
        *,
        scrub: Callable[[str], str] = str,
    ) -> TestResult:
        """Run one test of an already-staged program and judge it (``scrub``: Prepared.scrub,
        which takes the staging folder out of what it printed)."""
        stdin = test.input.encode("utf-8", errors="surrogateescape")
        raw, rerun = self._execute(argv, stdin, limits)
        verdict = classify(raw, limits, self.runtime)
        stdout = _text(raw.stdout)
        if verdict is None:  # ended normally; a test with no known output asks no more
            passed = not test.outputs or judge(stdout, test.outputs)
            verdict = Verdict.PASSED if passed else Verdict.WRONG_ANSWER
        tail = self.config.tail_chars
        return TestResult(
            index=index,
            verdict=verdict,
            exit_code=raw.exit_code,
            signal=raw.signal,
            cpu_s=round(raw.cpu_s, 4),
            wall_s=round(raw.wall_s, 4),
            peak_memory_mb=raw.peak_memory_mb,
            stdout_tail=_tail(scrub(stdout), tail),
            stderr_tail=_tail(scrub(_text(raw.stderr)), tail),
            note="; ".join(n for n in (_note(raw, verdict), rerun) if n),
        )

    def close(self) -> None:
        if not self._owner:
            return
        self._pool.shutdown(wait=True)
        self.sandbox.close()

    def __enter__(self) -> SandboxExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


SandboxExecutor = SandboxExecutor
"""The language-neutral name: ``SandboxExecutor(runtime=python_runtime())`` runs Python."""
