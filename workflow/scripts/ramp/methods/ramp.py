"""RAMP (paper section 3.1) as three batch steps over many tasks at once, and as one method.

1. :func:`initial_reflections`  Feedback Integrator, e0 = R_f(C, d)
2. :func:`design_tests`          Test Designer, T_g = G(C, S)
3. :func:`iterate`               one iteration t: Programmer r_t = P(C, d, e_0..e_t, r_t-1,
                                 tau_t-1) (section 3.1.3: "prior reflections", refining its own
                                 solutions; the variant's programmer_context ``latest`` reads
                                 r_t = P(C, d, e_t) literally); Test Executor on T_g; Feedback
                                 Integrator e_t+1 = R_f(C, d, tau_t) for failures (the variant's
                                 feedback_history adds e_0..e_t).

Each step takes every still-open task of a stage in one batch of prompts (a GPU generates a batch
far faster than one by one) and returns plain records that the stage writes to Parquet; the
workflow runs them as its agent stages. :func:`repair` chains the steps for one task, as the
paper's loop, behind the contract every method has (ramp.methods.base.TaskMethod).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ramp.agents import feedback_integrator, programmer, test_designer
from ramp.execution.executor import Executor
from ramp.hidden_feedback import SOURCE as HIDDEN_SOURCE
from ramp.hidden_feedback import HiddenFeedback
from ramp.llm.base import LLM, ChatMessage
from ramp.methods.base import Executors, MethodContext
from ramp.methods.records import (
    Attempt,
    Call,
    Candidate,
    Check,
    OpenTask,
    Reflection,
    TestDesign,
    check,
)
from ramp.parsing import ExtractedProgram
from ramp.prompting import PromptLibrary
from ramp.tasks import Problem, TestCase
from ramp.variants import Variant


def reflection_templates(variant: Variant) -> tuple[str, ...]:
    """The templates :func:`initial_reflections` renders (ramp.provenance): the rule reflect's."""
    return (feedback_integrator.initial_template(variant),) if variant.initial_reflection else ()


def test_design_templates(variant: Variant) -> tuple[str, ...]:
    """The templates :func:`design_tests` renders: the rule design_tests's."""
    return (test_designer.TEMPLATE,) if variant.test_generation else ()


def iteration_templates(variant: Variant) -> tuple[str, ...]:
    """The templates :func:`iterate` renders: the rule repair_iteration's."""
    feedback = (feedback_integrator.FEEDBACK_TEMPLATE,) if variant.feedback_reflection else ()
    return (programmer.template(variant), *feedback)


def templates(variant: Variant) -> tuple[str, ...]:
    """The templates :func:`repair` renders: every step's."""
    return (*reflection_templates(variant), *test_design_templates(variant),
            *iteration_templates(variant))


def initial_reflections(
    problems: Sequence[Problem], *, llm: LLM | None, lib: PromptLibrary, variant: Variant,
    seed: int,
) -> list[Reflection]:
    """e0 for every task; an empty reflection when the variant has no first reflection."""
    if not variant.initial_reflection:
        return [Reflection(p.task_id, "", None) for p in problems]
    assert llm is not None
    prompts = [feedback_integrator.initial_prompt(lib, p, variant) for p in problems]
    answers = llm.complete(prompts, variant.analysis_params(seed))
    return [
        Reflection(p.task_id, feedback_integrator.parse(a.text),
                   Call.of(feedback_integrator.ROLE_INITIAL, m, a))
        for p, m, a in zip(problems, prompts, answers, strict=True)
    ]


def design_tests(
    problems: Sequence[Problem],
    *,
    llm: LLM | None,
    lib: PromptLibrary,
    variant: Variant,
    executor: Executor,
    seed: int,
    hidden: HiddenFeedback | None = None,
) -> list[TestDesign]:
    """T_g for every task; ``executor`` runs the large tests' input generators (Ruby programs,
    whatever the task's language). ``hidden`` (a ``hidden_feedback`` variant's only): no Test
    Designer, the hidden tests are the guiding tests (the Discussion's upper bound)."""
    if hidden is not None:
        return [TestDesign(p.task_id, hidden.of(p), (), HIDDEN_SOURCE, None) for p in problems]
    if not variant.test_generation:
        return [TestDesign(p.task_id, (), (), "none", None) for p in problems]
    assert llm is not None
    prompts = [test_designer.prompt(lib, p) for p in problems]
    answers = llm.complete(prompts, variant.test_params(seed))
    out = []
    for p, m, a in zip(problems, prompts, answers, strict=True):
        parsed = test_designer.parse(a.text)
        tests: list[TestCase] = []
        dropped = list(parsed.dropped)
        for i, g in enumerate(parsed.tests, 1):
            if not g.generator:
                tests.append(g.to_case())
                continue
            generated, error = executor.output_of(g.generator, "", p.limits)
            if error:
                dropped.append(f"test {i}: its input generator failed: {error}")
            else:
                tests.append(g.to_case(generated))
        source = "generated"
        if not tests:
            tests, source = list(p.samples), "samples"
        out.append(TestDesign(p.task_id, tuple(tests), tuple(dropped), source,
                              Call.of(test_designer.ROLE, m, a)))
    return out


@dataclass(frozen=True)
class _Candidate:
    """Step 3's result for one open task, before its reflection (Step 4)."""

    task: OpenTask
    program: ExtractedProgram
    result: Check
    call: Call


def iterate(
    open_tasks: Sequence[OpenTask],
    iteration: int,
    *,
    budget: int,
    llm: LLM,
    lib: PromptLibrary,
    variant: Variant,
    executors: Executors,
    seed: int,
) -> list[Attempt]:
    """One RAMP iteration for every open task (Steps 3 and 4); each task's candidate runs on
    the executor of its language."""
    prompts = [_programmer_prompt(lib, o, variant) for o in open_tasks]
    languages = [o.problem.language for o in open_tasks]
    answers = llm.complete(prompts, [variant.code_params(seed + iteration, lang.key)
                                     for lang in languages])
    candidates = []
    for o, lang, m, a in zip(open_tasks, languages, prompts, answers, strict=True):
        program = programmer.parse(a.text, lang)
        result = check(executors.get(lang.key), program, o.tests, o.problem,
                       unusable=f"The previous answer contained no usable {lang.name} program")
        candidates.append(_Candidate(o, program, result, Call.of(programmer.ROLE, m, a)))

    # Step 4: reflect on every failure, unless the budget is spent (nothing would read it).
    failing = [i for i, c in enumerate(candidates) if not c.result.passed and iteration < budget]
    # W/o self-reflection, no reflection is written: under the history context the Programmer
    # sees the raw traces beside its candidate; the formula-literal one hands them on as e_t+1.
    raw = variant.programmer_context == "latest"
    next_reflections = {i: candidates[i].result.traces if raw else "" for i in failing}
    feedback_calls: dict[int, Call] = {}
    if variant.feedback_reflection and failing:
        fprompts: list[tuple[ChatMessage, ...]] = [
            feedback_integrator.feedback_prompt(
                lib, candidates[i].task.problem, candidate=candidates[i].program.code,
                traces=candidates[i].result.traces,
                earlier=candidates[i].task.reflections if variant.feedback_history else (),
            )
            for i in failing
        ]
        fanswers = llm.complete(fprompts, variant.analysis_params(seed + iteration))
        for i, m, a in zip(failing, fprompts, fanswers, strict=True):
            next_reflections[i] = feedback_integrator.parse(a.text)
            feedback_calls[i] = Call.of(feedback_integrator.ROLE_FEEDBACK, m, a)

    return [
        Attempt(
            c.task.problem.task_id, iteration, c.task.reflection, c.program.code,
            c.program.status, c.program.detail, c.result.report, c.result.traces,
            c.result.passed, next_reflections.get(i, ""), c.result.seconds,
            (c.call, feedback_calls[i]) if i in feedback_calls else (c.call,),
            c.task.reflections[:-1],
        )
        for i, c in enumerate(candidates)
    ]


def next_state(task: OpenTask, attempt: Attempt) -> OpenTask:
    """The task entering iteration t+1 after ``attempt`` failed in iteration t."""
    return OpenTask(task.problem, task.tests, (*task.reflections, attempt.next_reflection),
                    Candidate(attempt.code, attempt.traces))


def _programmer_prompt(
    lib: PromptLibrary, task: OpenTask, variant: Variant
) -> tuple[ChatMessage, ...]:
    if variant.programmer_context == "latest":  # r_t = P(C, d, e_t), read literally
        return programmer.prompt(lib, task.problem, variant, [task.reflection])
    previous = task.previous or Candidate("", "")
    return programmer.prompt(lib, task.problem, variant, task.reflections,
                             previous_code=previous.code, previous_traces=previous.traces)


@dataclass(frozen=True)
class RepairResult:
    """One task's whole loop: e0, the guiding tests T_g and every iteration's attempt."""

    reflection: Reflection
    tests: TestDesign
    attempts: tuple[Attempt, ...]

    @property
    def final(self) -> Attempt:
        return self.attempts[-1]


def run_loop(problem: Problem, ctx: MethodContext) -> RepairResult:
    """The paper's loop for one task: stop when a candidate passes T_g or t = K."""
    reflection = initial_reflections([problem], llm=ctx.llm, lib=ctx.lib, variant=ctx.variant,
                                     seed=ctx.seed)[0]
    design = design_tests([problem], llm=ctx.llm, lib=ctx.lib, variant=ctx.variant,
                          executor=ctx.ruby, seed=ctx.seed, hidden=ctx.hidden)[0]
    state = OpenTask(problem, design.tests, (reflection.text,))
    attempts: list[Attempt] = []
    for t in range(1, ctx.budget + 1):
        (attempt,) = iterate([state], t, budget=ctx.budget, llm=ctx.llm, lib=ctx.lib,
                             variant=ctx.variant, executors=ctx.executors, seed=ctx.seed)
        attempts.append(attempt)
        if attempt.passed_generated:
            break
        state = next_state(state, attempt)
    return RepairResult(reflection, design, tuple(attempts))


def repair(problem: Problem, ctx: MethodContext) -> list[Attempt]:
    """RAMP behind the contract every method has: :func:`run_loop`'s attempts, e0's and T_g's
    calls recorded with the first one (whose ``reflection_in`` is e0)."""
    result = run_loop(problem, ctx)
    first, *rest = result.attempts
    calls = tuple(c for c in (result.reflection.call, result.tests.call) if c is not None)
    return [replace(first, calls=first.calls + calls), *rest]
