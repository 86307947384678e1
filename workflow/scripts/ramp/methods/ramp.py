"""RAMP (paper section 3.1) as three batch steps over many tasks at once.

1. :func:`initial_reflections`  Feedback Integrator, e0 = R_f(C, d)
2. :func:`design_tests`          Test Designer, T_g = G(C, S)
3. :func:`iterate`               one iteration t: Programmer r_t = P(C, d, e_t); Test Executor on
                                 T_g; Feedback Integrator e_{t+1} = R_f(C, d, tau_t) for failures.

Each step takes every still-open task of a stage in one batch of prompts (a GPU generates a batch
far faster than one by one) and returns plain records that the stage writes to Parquet. Hidden
tests never appear here. :func:`repair` chains the steps for one task, as the paper's loop.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from ramp.agents import feedback_integrator, programmer, test_designer
from ramp.agents.traces import format_traces
from ramp.execution.executor import Executor
from ramp.llm.base import LLM, ChatMessage, Completion
from ramp.parsing import ExtractedProgram
from ramp.prompting import PromptLibrary
from ramp.tasks import RunReport, Task, TestCase
from ramp.variants import Variant


def prompt_json(messages: Sequence[ChatMessage]) -> str:
    return json.dumps([asdict(m) for m in messages], ensure_ascii=False)


@dataclass(frozen=True)
class Call:
    """One agent call as it goes to Parquet: role, prompt, raw answer, usage."""

    role: str
    prompt: str
    response: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float

    @classmethod
    def of(cls, role: str, messages: Sequence[ChatMessage], c: Completion) -> Call:
        return cls(role, prompt_json(messages), c.text, c.prompt_tokens, c.completion_tokens,
                   c.seconds)


@dataclass(frozen=True)
class Reflection:
    task_id: str
    text: str
    call: Call | None


def initial_reflections(
    tasks: Sequence[Task], *, llm: LLM, lib: PromptLibrary, variant: Variant, seed: int
) -> list[Reflection]:
    """e0 for every task; an empty reflection when the variant has no first reflection."""
    if not variant.initial_reflection:
        return [Reflection(t.task_id, "", None) for t in tasks]
    prompts = [feedback_integrator.initial_prompt(lib, t, variant) for t in tasks]
    answers = llm.complete(prompts, variant.other_params(seed))
    return [
        Reflection(t.task_id, feedback_integrator.parse(a.text),
                   Call.of(feedback_integrator.ROLE_INITIAL, p, a))
        for t, p, a in zip(tasks, prompts, answers, strict=True)
    ]


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


def design_tests(
    tasks: Sequence[Task],
    *,
    llm: LLM,
    lib: PromptLibrary,
    variant: Variant,
    executor: Executor,
    seed: int,
) -> list[TestDesign]:
    if not variant.test_generation:
        return [TestDesign(t.task_id, (), (), "none", None) for t in tasks]
    prompts = [test_designer.prompt(lib, t, variant) for t in tasks]
    answers = llm.complete(prompts, variant.other_params(seed))
    out = []
    for t, p, a in zip(tasks, prompts, answers, strict=True):
        parsed = test_designer.parse(a.text)
        tests: list[TestCase] = []
        dropped = list(parsed.dropped)
        for i, g in enumerate(parsed.tests, 1):
            if not g.generator:
                tests.append(g.to_case())
                continue
            generated, error = executor.output_of(g.generator, "", t.limits)
            if error:
                dropped.append(f"test {i}: its input generator failed: {error}")
            else:
                tests.append(g.to_case(generated))
        source = "generated"
        if not tests:
            tests, source = list(t.samples), "samples"
        out.append(TestDesign(t.task_id, tuple(tests), tuple(dropped), source,
                              Call.of(test_designer.ROLE, p, a)))
    return out


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
    task: Task,
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
    report = executor.run(program.code, tests, task.limits)
    seconds = time.perf_counter() - start
    return Check(report, "" if report.passed else format_traces(tests, report), seconds)


@dataclass(frozen=True)
class OpenTask:
    """A task entering iteration t: its guiding tests and the reflection e_t."""

    task: Task
    tests: tuple[TestCase, ...]
    reflection: str


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

    @property
    def verdicts(self) -> tuple[str, ...]:
        return tuple(r.verdict.value for r in self.report.results) if self.report else ()


def iterate(
    open_tasks: Sequence[OpenTask],
    iteration: int,
    *,
    budget: int,
    llm: LLM,
    lib: PromptLibrary,
    variant: Variant,
    executor: Executor,
    seed: int,
) -> list[Attempt]:
    """One RAMP iteration for every open task (Steps 3 and 4)."""
    prompts = [programmer.prompt(lib, o.task, variant, o.reflection) for o in open_tasks]
    answers = llm.complete(prompts, variant.code_params(seed + iteration))
    partial = []
    for o, p, a in zip(open_tasks, prompts, answers, strict=True):
        prog = programmer.parse(a.text)
        ran = check(executor, prog, o.tests, o.task,
                    unusable="The previous answer contained no usable Ruby program")
        partial.append((o, prog, ran.report, ran.traces, ran.seconds, ran.passed,
                        Call.of(programmer.ROLE, p, a)))

    # Step 4: reflect on every failure, unless the budget is spent (nothing would read it).
    failing = [i for i, x in enumerate(partial) if not x[5] and iteration < budget]
    next_reflections = {i: partial[i][3] for i in failing}  # w/o self-reflection: raw traces
    feedback_calls: dict[int, Call] = {}
    if variant.feedback_reflection and failing:
        fprompts = [
            feedback_integrator.feedback_prompt(
                lib, partial[i][0].task, variant, candidate=partial[i][1].code,
                traces=partial[i][3], previous="",
            )
            for i in failing
        ]
        fanswers = llm.complete(fprompts, variant.other_params(seed + iteration))
        for i, p, a in zip(failing, fprompts, fanswers, strict=True):
            next_reflections[i] = feedback_integrator.parse(a.text)
            feedback_calls[i] = Call.of(feedback_integrator.ROLE_FEEDBACK, p, a)

    attempts = []
    for i, (o, prog, report, traces, seconds, passed, call) in enumerate(partial):
        calls = (call, feedback_calls[i]) if i in feedback_calls else (call,)
        attempts.append(
            Attempt(o.task.task_id, iteration, o.reflection, prog.code, prog.status,
                    prog.detail, report, traces, passed, next_reflections.get(i, ""),
                    seconds, calls)
        )
    return attempts


@dataclass(frozen=True)
class RepairResult:
    task_id: str
    reflection: Reflection
    tests: TestDesign
    attempts: tuple[Attempt, ...]

    @property
    def final(self) -> Attempt:
        return self.attempts[-1]


def repair(
    task: Task,
    *,
    budget: int,
    llm: LLM,
    lib: PromptLibrary,
    variant: Variant,
    executor: Executor,
    seed: int = 0,
) -> RepairResult:
    """The paper's loop for one task: stop when a candidate passes T_g or t = K."""
    reflection = initial_reflections([task], llm=llm, lib=lib, variant=variant, seed=seed)[0]
    design = design_tests([task], llm=llm, lib=lib, variant=variant, executor=executor,
                          seed=seed)[0]
    state = OpenTask(task, design.tests, reflection.text)
    attempts: list[Attempt] = []
    for t in range(1, budget + 1):
        (attempt,) = iterate([state], t, budget=budget, llm=llm, lib=lib, variant=variant,
                             executor=executor, seed=seed)
        attempts.append(attempt)
        if attempt.passed_generated:
            break
        state = OpenTask(task, design.tests, attempt.next_reflection)
    return RepairResult(task.task_id, reflection, design, tuple(attempts))

