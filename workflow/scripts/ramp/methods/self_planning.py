"""Self-Planning (Jiang et al., 2024) as a repair baseline: a plan first, then code from it.

Iteration 1 is the original two-phase method: the planner writes a short numbered repair plan
from one worked example of ours (no code), and the programmer implements the plan. The original
is one-shot; so that every method of Table 1 gets the same budget K, later iterations re-plan
with the previous candidate and its raw failing sample test, until a candidate passes the
problem's sample tests (set ``max_iterations: 1`` in the variant for the one-shot original).
"""

from __future__ import annotations

from ramp.methods.base import MethodContext, attempt, sample_tests
from ramp.methods.records import Attempt, Call, check
from ramp.parsing import clean_reflection, extract_program
from ramp.tasks import Problem
from ramp.variants import Variant

PLANNER = "planner"
PROGRAMMER = "programmer"
PLAN = "baselines/self_planning/plan"
CODE = "baselines/self_planning/code"


def templates(variant: Variant) -> tuple[str, ...]:
    """The templates :func:`repair` renders (ramp.provenance)."""
    return (PLAN, CODE)


def repair(task: Problem, ctx: MethodContext) -> list[Attempt]:
    tests = sample_tests(task)
    lang = task.language
    attempts: list[Attempt] = []
    feedback, previous_code = "", ""
    for t in range(1, ctx.budget + 1):
        seed = ctx.seed + t
        plan_prompt = ctx.lib.render(
            PLAN,
            {"task": task, "view": ctx.variant.programmer_view, "feedback": feedback,
             "previous_code": previous_code},
        )
        (plan_answer,) = ctx.llm.complete([plan_prompt], ctx.variant.analysis_params(seed))
        plan = clean_reflection(plan_answer.text)
        code_prompt = ctx.lib.render(
            CODE,
            {"task": task, "view": ctx.variant.programmer_view, "plan": plan},
        )
        (code_answer,) = ctx.llm.complete([code_prompt], ctx.variant.code_params(seed, lang.key))
        program = extract_program(code_answer.text, lang=lang.key)
        result = check(ctx.executor(task), program, tests, task)
        next_feedback = "" if result.passed else result.traces
        attempts.append(attempt(
            task, t, program, result, accepted=result.passed,
            feedback_in=f"Plan:\n{plan}" if not feedback else f"{feedback}\n\nPlan:\n{plan}",
            feedback_out=next_feedback,
            calls=(Call.of(PLANNER, plan_prompt, plan_answer),
                   Call.of(PROGRAMMER, code_prompt, code_answer)),
        ))
        if result.passed:
            break
        feedback, previous_code = next_feedback, program.code
    return attempts
