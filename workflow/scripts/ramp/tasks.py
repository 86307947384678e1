"""The nouns of the study: tasks, test cases, limits, verdicts and run reports.

Everything that crosses a module boundary is one of these frozen dataclasses, so that a
stage's Parquet rows, the executor's input and the agents' prompts all speak one vocabulary.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ramp.languages import Language, language_of


class Verdict(enum.StrEnum):
    """What happened to one program on one test (ExecEval's names, plus output-limit)."""

    PASSED = "PASSED"
    WRONG_ANSWER = "WRONG_ANSWER"
    RUNTIME_ERROR = "RUNTIME_ERROR"
    TIME_LIMIT_EXCEEDED = "TIME_LIMIT_EXCEEDED"
    MEMORY_LIMIT_EXCEEDED = "MEMORY_LIMIT_EXCEEDED"
    OUTPUT_LIMIT_EXCEEDED = "OUTPUT_LIMIT_EXCEEDED"
    COMPILATION_ERROR = "COMPILATION_ERROR"


@dataclass(frozen=True)
class TestCase:
    """One input and every output accepted for it.

    ``kind`` says where the test came from: ``sample``, ``hidden``, or a generated
    category (``basic``, ``edge``, ``large``). ``truncated`` marks a hidden test whose input
    was cut off in the data set, so that no program can pass it.
    """

    __test__ = False  # not a pytest class

    input: str
    outputs: tuple[str, ...]
    kind: str = ""
    truncated: bool = False


@dataclass(frozen=True)
class Limits:
    """Resource limits for one run of a program on one input.

    ``time_s`` is CPU seconds (the problem's time limit); the wall-clock backstop is
    ``time_s * wall_factor + wall_grace_s``, for programs that sleep or block.
    """

    time_s: float = 2.0
    memory_mb: int = 256
    output_bytes: int = 8 * 1024 * 1024
    wall_factor: float = 3.0
    wall_grace_s: float = 1.0

    @property
    def wall_s(self) -> float:
        return self.time_s * self.wall_factor + self.wall_grace_s


@dataclass(frozen=True)
class Problem:
    """What a repair method may see of a task: the statement, its sample tests, the limits and
    the buggy program. It has no hidden test, so no method or agent can reach one: they are
    typed to take a Problem, and only the scoring stages hold a :class:`Task`."""

    task_id: str
    problem_id: str
    description: str
    input_spec: str
    output_spec: str
    notes: str
    samples: tuple[TestCase, ...]
    time_limit_s: float
    memory_mb: int
    tags: tuple[str, ...]
    difficulty: int | None
    buggy_code: str
    lang: str = "Ruby"

    @property
    def limits(self) -> Limits:
        return Limits(time_s=self.time_limit_s, memory_mb=self.memory_mb)

    @property
    def language(self) -> Language:
        """The language of the program (from ``lang``, its dialect): the prompts' wording and
        examples, the parser and the runtime of its repairs follow it (ramp.languages)."""
        return language_of(self.lang)


@dataclass(frozen=True)
class Task:
    """One buggy program to repair: its :class:`Problem`, and what only scoring may see (the
    hidden tests, and the outcome the data set recorded for the buggy program)."""

    problem: Problem
    hidden_tests: tuple[TestCase, ...] = ()
    recorded_outcome: str = ""

    @property
    def task_id(self) -> str:
        return self.problem.task_id

    @property
    def problem_id(self) -> str:
        return self.problem.problem_id

    @property
    def difficulty(self) -> int | None:
        return self.problem.difficulty

    @property
    def limits(self) -> Limits:
        return self.problem.limits

    @property
    def lang(self) -> str:
        """The language the program was submitted in: it picks the executor's runtime."""
        return self.problem.lang

    @property
    def n_truncated(self) -> int:
        return sum(t.truncated for t in self.hidden_tests)


@dataclass(frozen=True)
class TestResult:
    """The executor's record of one program on one test."""

    __test__ = False

    index: int
    verdict: Verdict
    exit_code: int | None = None
    signal: int | None = None
    cpu_s: float = 0.0
    wall_s: float = 0.0
    peak_memory_mb: float | None = None
    stdout_tail: str = ""
    stderr_tail: str = ""
    note: str = ""


@dataclass(frozen=True)
class RunReport:
    """The executor's record of one program on a list of tests.

    A program that does not compile has ``compile_error`` set and one COMPILATION_ERROR
    result per test, so that per-test tables stay rectangular.
    """

    results: tuple[TestResult, ...]
    compile_error: str = ""
    skipped: int = 0
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return (
            not self.compile_error
            and self.skipped == 0
            and all(r.verdict is Verdict.PASSED for r in self.results)
        )

    @property
    def verdict(self) -> Verdict:
        """The first non-passing verdict, or PASSED (how a judge summarises a submission)."""
        for r in self.results:
            if r.verdict is not Verdict.PASSED:
                return r.verdict
        return Verdict.PASSED
