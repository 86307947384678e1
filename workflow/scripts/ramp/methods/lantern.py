"""LANTERN-style cross-language repair (Luo et al., 2025), written by us from its description.

LANTERN repairs a program in a language the model knows better than the buggy program's own:
translate, repair there with execution feedback, translate back, check. Ours, per task (the
task's own language is its program's, Ruby or C++; "source" below):

1. the translator turns the buggy source program into ``variant.target_language`` (Python),
   faithfully, bugs included (one call, recorded in iteration 1);
2. each iteration t = 1..K: the repairer repairs the target-language program (t = 1: the
   translation; later: the last usable repair, with its raw failing sample tests), the repair
   runs on the sample tests with that language's executor, and the programmer translates it
   back to the source language: that program is the iteration's candidate and is accepted when
   it passes the sample tests.

When the target-language program passes the sample tests but its source translation does not,
the fault is the translation, not the repair: the next iteration skips the repairer (a passing
program would only be perturbed) and asks for the back-translation again, showing the failed
source program and its failing tests. Every call sees only the current program and its latest
feedback, never a growing history, so a K = 11 run fits a 4096-token context.

Records: ``code``/``report``/``traces`` are the source candidate and its run; ``reflection_in``
and ``next_reflection`` show the target-language program the iteration started from / ended
with and its verdict on the sample tests (``next_reflection`` of t is ``reflection_in`` of
t + 1); ``exec_seconds`` adds both runs. Left out of the original (see docs/baselines.md): the
multilingual repair database and the decision module that picks the target language.
"""

from __future__ import annotations

from dataclasses import dataclass

from ramp.languages import Language, language
from ramp.llm.base import ChatMessage, Completion
from ramp.methods.base import MethodContext, attempt, feedback_tests
from ramp.methods.records import Attempt, Call, Check, check
from ramp.parsing import ExtractedProgram, extract_program
from ramp.tasks import Problem, TestCase
from ramp.variants import Variant

TRANSLATOR = "translator"
REPAIRER = "repairer"
PROGRAMMER = "programmer"
"""The back-translation: it writes each iteration's candidate in the task's language."""
STEPS = {step: f"baselines/lantern/{step}" for step in ("translate", "repair", "back_translate")}
"""Each call's template."""


def templates(variant: Variant) -> tuple[str, ...]:
    """The templates :func:`repair` renders (ramp.provenance)."""
    return tuple(STEPS.values())


def target_vars(target: Language) -> dict[str, str]:
    """The target language as the prompts name it (``Python``) and tag its fences."""
    return {"language_name": target.name, "fence": target.fence}


@dataclass(frozen=True)
class Turn:
    """The target-language program the next step works on, and what is known about it.

    ``back_failure`` is set when ``program`` passes the sample tests and its translation back
    into the source language did not: the next step then retries the back-translation instead
    of repairing again."""

    program: str
    feedback: str
    back_failure: str = ""

    def record(self, target: Language, source: Language) -> str:
        """The readable text of this state, as the attempt columns keep it."""
        status = self.feedback
        if self.back_failure:
            status += f"\nIts {source.name} translation does not:\n{self.back_failure}"
        if not self.program:
            return status
        return (f"{target.name} program:\n```{target.fence}\n{self.program.rstrip()}\n```\n"
                f"{status}")


def _ask(
    ctx: MethodContext, name: str, variables: dict[str, object], seed: int, lang: Language
) -> tuple[tuple[ChatMessage, ...], Completion]:
    """A call answered by a ``lang`` program."""
    prompt = ctx.lib.render(STEPS[name], variables)
    (answer,) = ctx.llm.complete([prompt], ctx.variant.code_params(seed, lang.key))
    return prompt, answer


def _verdict(result: Check, tests: tuple[TestCase, ...]) -> str:
    if result.passed:
        return f"It passes the {len(tests)} sample test(s)."
    if result.report is None and not result.traces:
        return "It was not run: the problem has no sample tests."
    return f"It fails the sample tests:\n{result.traces}"


def _back_failure(program: ExtractedProgram, result: Check, source: Language) -> str:
    shown = f"```{source.fence}\n{program.code.rstrip()}\n```\n" if program.ok else ""
    return shown + result.traces


def translate(task: Problem, ctx: MethodContext, lang: Language) -> tuple[Call, Turn]:
    """Step 1: the buggy program in the target language ``lang``, or why there is none."""
    prompt, answer = _ask(ctx, "translate",
                          {"task": task, "code": task.buggy_code, **target_vars(lang)},
                          ctx.seed + 1, lang)
    program = extract_program(answer.text, lang=lang.key)
    call = Call.of(TRANSLATOR, prompt, answer)
    if not program.ok:
        return call, Turn("", f"The translation into {lang.name} gave no usable program "
                              f"({program.detail}); write the repaired program in {lang.name}.")
    return call, Turn(program.code, f"It is the buggy {task.language.name} program translated "
                                    f"into {lang.name}; it has not been run yet.")


def repair_in_target(
    task: Problem, ctx: MethodContext, lang: Language, turn: Turn, seed: int
) -> tuple[Call, ExtractedProgram, Check]:
    """Step 2: the repairer's program and its run on the sample tests (none if unusable)."""
    prompt, answer = _ask(ctx, "repair", {"task": task, "view": ctx.variant.programmer_view,
                                          "program": turn.program, "feedback": turn.feedback,
                                          **target_vars(lang)}, seed, lang)
    program = extract_program(answer.text, lang=lang.key)
    result = Check(None, "", 0.0)
    if program.ok:
        result = check(ctx.executors.get(lang.key), program, feedback_tests(task, ctx), task)
    return Call.of(REPAIRER, prompt, answer), program, result


def repair(task: Problem, ctx: MethodContext) -> list[Attempt]:
    """One attempt per iteration, up to ``ctx.budget``; stops at the first accepted candidate
    (a program in the task's language)."""
    lang, source = language(ctx.variant.target_language), task.language
    tests = feedback_tests(task, ctx)
    first_call, turn = translate(task, ctx, lang)
    attempts: list[Attempt] = []
    for t in range(1, ctx.budget + 1):
        seed = ctx.seed + t
        calls = [first_call] if t == 1 else []
        if turn.back_failure:  # the program passes already: only its translation is retried
            target, verdict, target_passed, target_check = (
                turn.program, turn.feedback, True, Check(None, "", 0.0))
        else:
            call, repaired, target_check = repair_in_target(task, ctx, lang, turn, seed)
            calls.append(call)
            if not repaired.ok:
                after = Turn(turn.program, f"The last repair answer contained no usable "
                                           f"{lang.name} program ({repaired.detail}).")
                nothing = ExtractedProgram("", repaired.status,
                                           f"the {lang.name} repair: {repaired.detail}")
                attempts.append(attempt(
                    task, t, nothing, Check(None, after.feedback, 0.0), accepted=False,
                    feedback_in=turn.record(lang, source),
                    feedback_out=after.record(lang, source), calls=calls))
                turn = after
                continue
            target, verdict = repaired.code, _verdict(target_check, tests)
            target_passed = target_check.passed
        prompt, answer = _ask(ctx, "back_translate", {"task": task, "program": target,
                                                      "failure": turn.back_failure,
                                                      **target_vars(lang)}, seed, source)
        calls.append(Call.of(PROGRAMMER, prompt, answer))
        back = extract_program(answer.text, lang=source.key)
        back_check = check(ctx.executor(task), back, tests, task)
        if back_check.passed:
            after = Turn(target, f"{verdict}\nIts {source.name} translation passes them: "
                                 "accepted.")
        else:
            after = Turn(target, verdict,
                         _back_failure(back, back_check, source) if target_passed else "")
        result = Check(back_check.report, back_check.traces,
                       back_check.seconds + target_check.seconds)
        attempts.append(attempt(
            task, t, back, result, accepted=back_check.passed,
            feedback_in=turn.record(lang, source), feedback_out=after.record(lang, source),
            calls=calls))
        if back_check.passed:
            break
        turn = after
    return attempts
