"""The records every repair method shares: its calls, checks, reflections, test designs and
attempts, and the open tasks RAMP's stages hand from one iteration to the next.

RAMP and every baseline write these; ramp.methods.frames turns them into Parquet rows.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from ramp.agents.traces import format_traces
from ramp.execution.executor import Executor
from ramp.llm.base import ChatMessage, Completion
from ramp.llm.prefix_cache import COUNTERS
from ramp.parsing import ExtractedProgram
from ramp.tasks import Problem, RunReport, TestCase


def prompt_json(messages: Sequence[ChatMessage]) -> str:
    return json.dumps([asdict(m) for m in messages], ensure_ascii=False)


@dataclass(frozen=True)
class Call:
    """One agent call as it goes to Parquet: role, prompt, raw answer, usage (the prompt tokens
    taken from a KV cache, and the bytes of the disk cache of prefixes read and written)."""

    role: str
    prompt: str
    response: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    finish_reason: str = ""
    """How the answer ended (ramp.llm.base.FINISH_REASONS): ``length`` cut by its cap,
    ``over_context`` not sent for want of room in the context; "" in tables made before."""
    # COUNTERS, 0 where the backend does not count them (tests/methods/test_records.py)
    reused_prompt_tokens: int = 0
    kv_read_bytes: int = 0
    kv_written_bytes: int = 0

    @classmethod
    def of(cls, role: str, messages: Sequence[ChatMessage], c: Completion) -> Call:
        return cls(role, prompt_json(messages), c.text, c.prompt_tokens, c.completion_tokens,
                   c.seconds, c.finish_reason, *(c.counters.get(name, 0) for name in COUNTERS))


@dataclass(frozen=True)
class Reflection:
    task_id: str
    text: str
    call: Call | None


@dataclass(frozen=True)
class TestDesign:
    """The guiding tests of one task. ``source`` is ``generated``, ``samples`` (fallback when
    no generated test survived parsing) or ``none`` (the variant has no test generation)."""

    __test__ = False

    task_id: str
    tests: tuple[TestCase, ...]
    dropped: tuple[str, ...]
    source: str
    call: Call | None


@dataclass(frozen=True)
class Check:
    """A candidate run on some tests: the report, its failing traces, and the time it took."""

    report: RunReport | None
    traces: str
    seconds: float

    @property
    def passed(self) -> bool:
        return self.report is not None and self.report.passed


def check(
    executor: Executor,
    program: ExtractedProgram,
    tests: Sequence[TestCase],
    problem: Problem,
    *,
    unusable: str = "The answer contained no usable program",
) -> Check:
    """Run a parsed candidate on ``tests`` (none: nothing runs and nothing passes); an unusable
    answer fails with ``unusable`` and the parser's reason as its one-line trace."""
    if not program.ok:
        return Check(None, f"{unusable} ({program.detail}).", 0.0)
    if not tests:
        return Check(None, "", 0.0)
    start = time.perf_counter()
    report = executor.run(program.code, tests, problem.limits)
    seconds = time.perf_counter() - start
    return Check(report, "" if report.passed else format_traces(tests, report), seconds)


@dataclass(frozen=True)
class Candidate:
    """A program a method tried, and the failing traces its check left ("" when none)."""

    code: str
    traces: str


@dataclass(frozen=True)
class OpenTask:
    """A task entering iteration t: its problem, guiding tests, the reflections e_0 .. e_t so
    far (e_t last; "" where a variant wrote none) and the previous iteration's candidate."""

    problem: Problem
    tests: tuple[TestCase, ...]
    reflections: tuple[str, ...]
    previous: Candidate | None = None

    @property
    def reflection(self) -> str:
        """e_t, the latest reflection."""
        return self.reflections[-1] if self.reflections else ""


@dataclass(frozen=True)
class Attempt:
    """What iteration t did for one task."""

    task_id: str
    iteration: int
    reflection_in: str
    code: str
    parse_status: str
    parse_detail: str
    report: RunReport | None
    traces: str
    passed_generated: bool
    next_reflection: str
    exec_seconds: float
    calls: tuple[Call, ...] = field(default_factory=tuple)
    earlier_reflections: tuple[str, ...] = ()
    """e_0 .. e_{t-1}, the reflections before ``reflection_in`` (RAMP; empty for a baseline)."""
    selection: str = ""
    """What a method that chooses among candidates (RAMP+) chose at iteration t and why, as
    JSON: the groups, the chosen candidate, the stop decision ("" for the other methods)."""

    @property
    def verdicts(self) -> tuple[str, ...]:
        return tuple(r.verdict.value for r in self.report.results) if self.report else ()
