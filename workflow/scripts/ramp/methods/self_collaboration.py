"""Self-Collaboration (Dong et al. 2024) as a repair baseline: analyst -> coder -> tester.

The original makes a virtual team of one model: the analyst decomposes the requirement and
plans, the coder writes the code, and the tester reviews it and reports back to the coder, until
the tester is satisfied or the interactions run out. Here, for repair:

* t = 1: the analyst explains the problem and what the buggy program must do (no code); the
  coder writes a repaired program from that analysis;
* t >= 2: the coder improves its latest program from the tester's last review (only the latest
  program and review are shown, so prompts do not grow);
* every iteration ends with the tester's review of the candidate, in words: it sees no test at
  all (neither hidden nor sample results) and runs nothing. Its ``VERDICT: PASS`` /
  ``VERDICT: FAIL`` line (:func:`parse_review`) is the attempt's acceptance, as in the
  original; a missing verdict counts as FAIL, and the feedback to the coder says so. The loop
  stops at the first PASS.

Each candidate is also run on the sample tests *for the record only* (report, traces,
exec_seconds); those results reach no prompt. So an accepted attempt may fail the samples, and
the strict score returns the first candidate the tester approved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ramp.methods.base import MethodContext, attempt, sample_tests
from ramp.methods.records import Attempt, Call, check
from ramp.parsing import clean_reflection, extract_program
from ramp.tasks import Problem
from ramp.variants import Variant

ROLE_ANALYST = "analyst"
ROLE_CODER = "programmer"
ROLE_TESTER = "tester"
MAX_TEXT_CHARS = 2000
"""The analysis and each review are clipped to this before they go into the coder's prompt."""
MISSING_VERDICT = "(The review has no VERDICT line, so it counts as FAIL.)"
ANALYST = "baselines/self_collaboration/analyst"
CODER = "baselines/self_collaboration/coder"
TESTER = "baselines/self_collaboration/tester"

# A line "VERDICT: PASS", "**Final verdict:** fail ..." (markdown emphasis, backticks allowed).
_VERDICT = re.compile(
    r"^[ \t>*_#`-]*(?:final[ \t]+)?verdict[ \t*_`]*[:=\-–]?[ \t*_`]*"
    r"(?P<word>pass(?:ed)?|fail(?:ed)?)\b(?P<rest>.*)$",
    re.IGNORECASE | re.MULTILINE,
)
# "VERDICT: PASS / FAIL", "PASS or FAIL": the template echoed, not a decision.
_BOTH = re.compile(r"[ \t*_`]*(?:/|\||or\b)[ \t*_`]*(?:pass|fail)", re.IGNORECASE)


@dataclass(frozen=True)
class Review:
    """The tester's review: approved only on an explicit PASS verdict (``found`` = one given)."""

    approved: bool
    found: bool
    text: str

    @property
    def feedback(self) -> str:
        """What goes to the coder: the review, and a note when it gave no verdict."""
        if self.found:
            return self.text
        return f"{self.text}\n\n{MISSING_VERDICT}" if self.text else MISSING_VERDICT


def parse_review(answer: str) -> Review:
    """The tester's answer as a review; its last unambiguous verdict line decides (pure)."""
    decisions = [m["word"].lower().startswith("pass") for m in _VERDICT.finditer(answer)
                 if not _BOTH.match(m["rest"])]
    text = clean_reflection(answer, max_chars=MAX_TEXT_CHARS)
    if not decisions:
        return Review(False, False, text)
    return Review(decisions[-1], True, text)


def templates(variant: Variant) -> tuple[str, ...]:
    """The templates :func:`repair` renders (ramp.provenance)."""
    return (ANALYST, CODER, TESTER)


def repair(task: Problem, ctx: MethodContext) -> list[Attempt]:
    """Analyst once, then coder and tester per iteration, until the tester approves or t = K."""
    tests = sample_tests(task)
    variant, lang = ctx.variant, task.language
    base = {"task": task, "view": variant.programmer_view}
    analyst_prompt = ctx.lib.render(ANALYST, base)
    (analyst_answer,) = ctx.llm.complete([analyst_prompt], variant.analysis_params(ctx.seed + 1))
    analysis = clean_reflection(analyst_answer.text, max_chars=MAX_TEXT_CHARS)
    pending: list[Call] = [Call.of(ROLE_ANALYST, analyst_prompt, analyst_answer)]
    latest, review = "", ""  # the coder's latest usable program and the review going to it
    feedback_in = analysis
    attempts: list[Attempt] = []
    for t in range(1, ctx.budget + 1):
        calls, pending = pending, []
        coder_prompt = ctx.lib.render(CODER, {**base, "analysis": analysis, "program": latest,
                                              "review": review})
        (coder_answer,) = ctx.llm.complete([coder_prompt],
                                           variant.code_params(ctx.seed + t, lang.key))
        calls.append(Call.of(ROLE_CODER, coder_prompt, coder_answer))
        program = extract_program(coder_answer.text, lang=lang.key)
        result = check(ctx.executor(task), program, tests, task)  # for the record only
        if program.ok:
            latest = program.code
            tester_prompt = ctx.lib.render(TESTER, {**base, "program": program.code})
            (tester_answer,) = ctx.llm.complete([tester_prompt],
                                                variant.analysis_params(ctx.seed + t))
            calls.append(Call.of(ROLE_TESTER, tester_prompt, tester_answer))
            verdict = parse_review(tester_answer.text)
            accepted, review = verdict.approved, verdict.feedback
        else:
            accepted = False
            review = (f"Your answer contained no usable {lang.name} program ({program.detail}). "
                      f"Give the complete program in one ```{lang.fence} block.")
        attempts.append(attempt(task, t, program, result, accepted=accepted,
                                feedback_in=feedback_in, feedback_out=review, calls=calls))
        if accepted:
            break
        feedback_in = review
    return attempts
