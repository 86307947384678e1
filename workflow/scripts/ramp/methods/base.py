"""What every repair method shares: its contract, its context, a check on the sample tests, the
driver.

A method is a function ``repair(problem, ctx) -> attempts`` (:data:`TaskMethod`) that runs one
task's whole loop and records one :class:`Attempt` per iteration, so that the strict and
cumulative curves work for every method alike (the workflow runs RAMP as batch stages instead,
one Snakemake job per iteration, from the same steps):

* ``code``: the candidate of that iteration (the program the method would return now);
* ``passed_generated``: the candidate passed the method's *own* acceptance check (the problem's
  sample tests, or a reviewer's approval); the strict score returns the first such candidate,
  else the last one, exactly as for RAMP;
* ``reflection_in`` / ``next_reflection``: the feedback that went into / came out of the
  iteration (raw failing tests, a review, a plan), so a person can follow the loop in Parquet.

Hidden tests never reach a method: it receives a :class:`Problem`, which has none; only
:func:`sample_tests` (the statement's examples) run. The one exception is explicit: a variant
marked ``hidden_feedback`` gets the hidden tests in its context (ramp.hidden_feedback), and
:func:`feedback_tests` hands them to the methods that check on them.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field

from ramp.execution.executor import Executor, SandboxExecutor
from ramp.execution.runtime import runtime_named
from ramp.hidden_feedback import HiddenFeedback
from ramp.llm.base import LLM
from ramp.llm.batching import BatchingLLM
from ramp.methods.records import Attempt, Call, Check
from ramp.parsing import ExtractedProgram
from ramp.prompting import PromptLibrary
from ramp.tasks import Problem, TestCase
from ramp.variants import Variant

log = logging.getLogger(__name__)


@dataclass
class Executors:
    """One sandboxed executor per language, opened on first use and closed together.

    ``factory(language, workers)`` builds one (the stage passes the sandboxed executor; tests
    may pass anything with the :class:`Executor` protocol)."""

    factory: Callable[[str, int], Executor]
    workers: int = 2
    _open: dict[str, Executor] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def get(self, language: str) -> Executor:
        with self._lock:  # tasks on several threads must share one executor per language
            if language not in self._open:
                self._open[language] = self.factory(language, self.workers)
            return self._open[language]

    def close(self) -> None:
        for executor in self._open.values():
            close = getattr(executor, "close", None)
            if close is not None:
                close()
        self._open.clear()


def sandbox_executors(workers: int = 2) -> Executors:
    """Sandboxed executors for any runtime of ramp.execution.runtime (Ruby, C++, Python)."""

    def build(language: str, n: int) -> Executor:
        return SandboxExecutor(workers=n, runtime=runtime_named(language))

    return Executors(build, workers)


@dataclass(frozen=True)
class MethodContext:
    """Everything one task's repair needs besides the task."""

    llm: LLM
    lib: PromptLibrary
    variant: Variant
    executors: Executors
    budget: int
    seed: int = 0
    hidden: HiddenFeedback | None = None
    """The hidden tests, for a variant marked ``hidden_feedback`` only (None otherwise)."""

    @property
    def ruby(self) -> Executor:
        """Ruby's executor: the Test Designer's input generators are Ruby programs, whatever
        the language of the task."""
        return self.executors.get("ruby")

    def executor(self, problem: Problem) -> Executor:
        """The executor of ``problem``'s programs: its language's runtime."""
        return self.executors.get(problem.language.key)


TaskMethod = Callable[[Problem, MethodContext], Sequence[Attempt]]


def sample_tests(problem: Problem) -> tuple[TestCase, ...]:
    """The tests a baseline may run: the examples of the problem statement."""
    return tuple(problem.samples)


def feedback_tests(problem: Problem, ctx: MethodContext) -> tuple[TestCase, ...]:
    """The tests whose outcomes a checking method feeds back and stops on: the statement's
    samples, or the hidden tests where the variant is marked ``hidden_feedback``."""
    return ctx.hidden.of(problem) if ctx.hidden is not None else sample_tests(problem)


def attempt(
    problem: Problem,
    iteration: int,
    program: ExtractedProgram,
    result: Check,
    *,
    accepted: bool,
    feedback_in: str,
    feedback_out: str,
    calls: Sequence[Call],
) -> Attempt:
    """One iteration's record (see the module docstring for what each field means here)."""
    return Attempt(
        task_id=problem.task_id, iteration=iteration, reflection_in=feedback_in,
        code=program.code, parse_status=program.status, parse_detail=program.detail,
        report=result.report, traces=result.traces, passed_generated=accepted,
        next_reflection=feedback_out, exec_seconds=result.seconds, calls=tuple(calls),
    )


@contextmanager
def _timed(what: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    log.info("%s in %.1f s", what, time.perf_counter() - start)


def solve_tasks(
    method: TaskMethod, tasks: Sequence[Problem], ctx: MethodContext, *, concurrency: int = 1
) -> list[Attempt]:
    """Run ``method`` on every task, logging progress; every task's attempts, in task order.

    ``concurrency`` > 1 runs that many tasks at once on threads whose model calls are gathered
    into batches (:class:`BatchingLLM`): what a batching backend (transformers on a GPU, a
    server) needs to be busy. With 1, tasks run one after another, as on a CPU.
    """
    if concurrency <= 1:
        return [a for i, task in enumerate(tasks, 1) for a in _solve_one(method, task, ctx, i,
                                                                          len(tasks))]
    llm = BatchingLLM(ctx.llm, max_batch=concurrency)
    shared = dataclasses.replace(ctx, llm=llm)

    def run(i: int, task: Problem) -> list[Attempt]:
        llm.join()
        try:
            return _solve_one(method, task, shared, i, len(tasks))
        finally:
            llm.leave()

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="ramp-task") as pool:
        futures = [pool.submit(run, i, task) for i, task in enumerate(tasks, 1)]
        try:
            results = [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise
    if llm.batches:
        log.info("%d model batches, %.1f prompts per batch on average", len(llm.batches),
                 sum(llm.batches) / len(llm.batches))
    return [a for attempts in results for a in attempts]


def _solve_one(
    method: TaskMethod, task: Problem, ctx: MethodContext, i: int, n: int
) -> list[Attempt]:
    with _timed(f"task {i}/{n} {task.task_id} ({ctx.variant.name})"):
        attempts = list(method(task, ctx))
    if not attempts:
        raise RuntimeError(f"method {ctx.variant.method!r} made no attempt on {task.task_id}")
    solved = next((a.iteration for a in attempts if a.passed_generated), None)
    log.info("  %s: %d attempt(s); %s", task.task_id, len(attempts),
             f"accepted at iteration {solved}" if solved else "none accepted")
    return attempts
