"""ChatRepair (Xia and Zhang 2024), adapted to whole-program repair of competitive programs.

The original repairs a function in a conversation with the model, feeding back only the raw
result of a failing test (no analysis), and once a patch passes the tests (a *plausible* patch)
asks for alternative patches, listing those found so far. Here:

* turn 1: the problem, the buggy program and the first sample test it fails with the raw
  result (the buggy program is run on the samples first, as ChatRepair shows the failing test);
* each turn: the candidate runs on the sample tests; if it fails, its first failing test and
  output are appended to the conversation and the model is asked again;
* after the first plausible patch, with ``variant.alternatives`` every remaining turn is a fresh
  prompt listing the plausible patches found and asking for a different one (a failing
  alternative is not fed back, as in the original); without it, the method stops.

Adaptations, so that a K = 11 run fits a 4096-token model: there is no fault localisation (the
whole program is the patch); the conversation keeps the first prompt and the last
``MAX_EXCHANGES`` exchanges, earlier answers kept as their program only (what was tested); the
alternative prompt lists the last ``MAX_LISTED`` plausible patches. Attempt t is turn t's
candidate, accepted when it passes the samples; the strict score returns the first accepted one.
"""

from __future__ import annotations

from collections.abc import Sequence

from ramp.agents.traces import format_traces
from ramp.languages import Language
from ramp.llm.base import ChatMessage
from ramp.methods.base import MethodContext, attempt, feedback_tests
from ramp.methods.records import Attempt, Call, Check, check
from ramp.parsing import ExtractedProgram, extract_program
from ramp.tasks import Problem, TestCase
from ramp.variants import Variant

ROLE = "programmer"
INITIAL = "baselines/chatrepair/initial"
ALTERNATIVE = "baselines/chatrepair/alternative"
FEEDBACK = "baselines/chatrepair/feedback"
MAX_EXCHANGES = 2
"""Earlier (answer, feedback) pairs kept in the conversation after the first prompt."""
MAX_LISTED = 2
"""Plausible patches listed in an alternative-patch prompt (the most recent ones)."""
MAX_ANSWER_CHARS = 1500
"""An earlier answer without a usable program is kept in the conversation clipped to this."""


def failure_text(tests: Sequence[TestCase], result: Check) -> str:
    """What ChatRepair shows of a run: the first failing test and its raw output ("" = passed)."""
    if result.report is not None:
        return "" if result.report.passed else format_traces(tests, result.report,
                                                             max_failures=1)
    return result.traces or "There are no sample tests to run it on."


def history_answer(answer: str, program: ExtractedProgram, language: Language) -> str:
    """An earlier answer as the conversation keeps it: its program, since that is what ran."""
    if program.ok:
        return f"```{language.fence}\n{program.code.rstrip()}\n```"
    return answer.strip()[:MAX_ANSWER_CHARS] or "(empty answer)"


def conversation(
    first: Sequence[ChatMessage], exchanges: Sequence[tuple[ChatMessage, ChatMessage]]
) -> tuple[ChatMessage, ...]:
    """The prompt of the next turn: the first prompt and the last MAX_EXCHANGES exchanges."""
    return (*first, *(m for pair in exchanges[-MAX_EXCHANGES:] for m in pair))


def _same_program(a: str, b: str) -> bool:
    def norm(code: str) -> list[str]:
        return [line.rstrip() for line in code.strip().splitlines() if line.strip()]

    return norm(a) == norm(b)


def _listing(patches: Sequence[str], language: Language) -> str:
    body = "\n\n".join(f"```{language.fence}\n{p.rstrip()}\n```" for p in patches)
    return f"Asked for an alternative to {len(patches)} plausible patch(es):\n{body}"


def templates(variant: Variant) -> tuple[str, ...]:
    """The templates :func:`repair` renders for ``variant`` (ramp.provenance)."""
    return (INITIAL, FEEDBACK, *((ALTERNATIVE,) if variant.alternatives else ()))


def repair(task: Problem, ctx: MethodContext) -> list[Attempt]:
    """Up to ``ctx.budget`` turns of the conversation; one attempt per turn. The tests run and
    fed back are the statement's samples (the hidden ones for a ``hidden_feedback`` variant)."""
    tests = feedback_tests(task, ctx)
    lang, executor = task.language, ctx.executor(task)
    buggy = check(executor, ExtractedProgram(task.buggy_code, "ok"), tests, task)
    bug = failure_text(tests, buggy) if buggy.report is not None else ""
    base = {"task": task, "view": ctx.variant.programmer_view, "failure": bug}
    first = ctx.lib.render(INITIAL, base)
    exchanges: list[tuple[ChatMessage, ChatMessage]] = []
    plausible: list[str] = []
    feedback_in = bug
    attempts: list[Attempt] = []
    for t in range(1, ctx.budget + 1):
        if plausible:
            # The authors' hidden-test protocol: a task leaves the loop once they pass.
            if not ctx.variant.alternatives or ctx.hidden is not None:
                break
            listed = plausible[-MAX_LISTED:]
            messages = ctx.lib.render(ALTERNATIVE, {**base, "patches": listed})
            feedback_in = _listing(listed, lang)
        else:
            messages = conversation(first, exchanges)
        (answer,) = ctx.llm.complete([messages], ctx.variant.code_params(ctx.seed + t, lang.key))
        program = extract_program(answer.text, lang=lang.key)
        result = check(executor, program, tests, task)
        failure = failure_text(tests, result)
        if result.passed:
            if not any(_same_program(program.code, p) for p in plausible):
                plausible.append(program.code)
        elif not plausible:
            (ask,) = ctx.lib.render(FEEDBACK, {"failure": failure,
                                              "ran": result.report is not None})
            exchanges.append((ChatMessage("assistant",
                                          history_answer(answer.text, program, lang)), ask))
        attempts.append(attempt(
            task, t, program, result, accepted=result.passed, feedback_in=feedback_in,
            feedback_out=failure, calls=(Call.of(ROLE, messages, answer),),
        ))
        feedback_in = failure
    return attempts
