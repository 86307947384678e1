"""Breadth: independent draws, debugged on the statement's samples, chosen by behaviour
(docs/breadth.md).

Per task: the Test Designer's tests as in RAMP, of which only the *inputs* are used; then, for
round t = 1..K:

1. **draw** ``variant.candidates`` programs, each from the problem alone with no chain between
   them: draw i (counted over the task's rounds) is the Programmer call of style
   ``draw_styles[(i - 1) mod m]`` with seed ``seed + i``. With ``zero_shot`` alone, draw i is
   the coverage stage's draw i (ramp.methods.draws), so committed draws replay;
2. **debug** a draw that fails a sample test: shown those failures, the model rewrites it, up to
   ``debug_rounds`` times or until it passes them (the gate's samples, whether or not they
   gate). The statement's samples are the only tests
   whose outputs it sees; hidden tests never reach the method;
3. **choose** among every program so far (each draw counts once: as debugged), as RAMP+ does
   (ramp.methods.selection): the samples gate, programs with the same outputs on the
   model-written inputs form a group, a group scores its distinct programs (``agreement_selection``;
   off: none, so the smallest edit that passes the samples wins). No model-written expected
   output counts; when the two best groups are close, the Arbiter asks for an input on which they
   differ and judges it (``distinguishing_inputs``), and that judged output is the one expected
   output that counts;
4. **stop** once the evidence settles it (``stop_rule: settled``: the chosen group passes the
   samples, has ``confident_votes`` distinct programs and no close rival), so easy tasks cost
   little; ``budget`` draws every round.

Attempt t records the program the method would return after round t (the chosen one), its
``selection`` record lists every program of the round in the order of its calls (the first
draw's in ``programmer_response``, the others as ``candidate`` and ``debug`` calls), so the
candidates analysis scores every program the method wrote.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ramp.agents import arbiter, programmer
from ramp.agents.traces import format_traces
from ramp.methods.base import MethodContext
from ramp.methods.ramp import design_tests, test_design_templates
from ramp.methods.ramp_plus import (
    ROLE_CANDIDATE,
    SEED_STRIDE,
    Bench,
    Candidate,
    Choice,
    Runner,
    choose,
    traces,
)
from ramp.methods.records import Attempt, Call
from ramp.methods.selection import edit_size
from ramp.parsing import ExtractedProgram
from ramp.tasks import Problem, RunReport
from ramp.variants import Variant


def draw_seed(seed: int, i: int, debug: int = 0) -> int:
    """Draw i's seed (the coverage stage's ``seed + i``), and its d-th rewrite's."""
    return seed + i + SEED_STRIDE * debug


def draw_style(variant: Variant, i: int) -> str:
    return variant.draw_styles[(i - 1) % len(variant.draw_styles)]


def templates(variant: Variant) -> tuple[str, ...]:
    """The templates :func:`repair` renders (ramp.provenance): the draws' styles, the Test
    Designer's, the debugging prompt and the Arbiter's when they are on."""
    judged = ((arbiter.INPUTS_TEMPLATE, arbiter.JUDGE_TEMPLATE)
              if variant.distinguishing_inputs or variant.split_groups else ())
    return (*dict.fromkeys(f"programmer/{s}" for s in variant.draw_styles),
            *test_design_templates(variant),
            *((programmer.DEBUG_TEMPLATE,) if variant.debug_rounds else ()), *judged)


def sample_failures(problem: Problem, runner: Runner, program: ExtractedProgram) -> str:
    """What a program fails of the statement's samples, as the debugging prompt shows it (""
    when it passes them all)."""
    if not program.ok:
        return (f"Your answer contained no usable {problem.language.name} program "
                f"({program.detail}).")
    report = runner.report(program.code, problem.samples)
    return "" if report.passed else format_traces(problem.samples, report)


@dataclass(frozen=True)
class Lineage:
    """Draw i and its rewrites, in the order made; the last is the draw as it counts."""

    draw: int
    style: str
    versions: tuple[Candidate, ...]

    @property
    def last(self) -> Candidate:
        return self.versions[-1]


def _made(problem: Problem, c_id: str, seed: int, text: str) -> Candidate:
    program = programmer.parse(text, problem.language)
    edit = edit_size(problem.buggy_code, program.code) if program.ok else -1
    return Candidate(c_id, seed, program, edit)


def draw_round(
    problem: Problem, first: int, runner: Runner, ctx: MethodContext, t: int,
) -> tuple[list[Lineage], list[Call]]:
    """Round t's draws ``first`` .. ``first + candidates - 1`` (one call a style), then their
    rewrites (one call a debugging round, of every draw still failing a sample); the calls in
    the order of the programs they made (a draw, then its rewrites)."""
    v = ctx.variant
    draws = range(first, first + v.candidates)
    lang = problem.language.key
    made: dict[int, list[tuple[Call, Candidate]]] = {}
    for style in dict.fromkeys(draw_style(v, i) for i in draws):
        mine = [i for i in draws if draw_style(v, i) == style]
        messages = programmer.prompt(ctx.lib, problem, replace(v, programmer_style=style), [])
        answers = ctx.llm.complete([messages] * len(mine),
                                   [v.code_params(draw_seed(ctx.seed, i), lang) for i in mine])
        for i, answer in zip(mine, answers, strict=True):
            k = i - first
            role = programmer.ROLE if k == 0 else ROLE_CANDIDATE
            made[i] = [(Call.of(role, messages, answer),
                        _made(problem, f"{t}.{k}", draw_seed(ctx.seed, i), answer.text))]
    for d in range(1, v.debug_rounds + 1):
        failing = {i: sample_failures(problem, runner, made[i][-1][1].program) for i in draws}
        todo = [(i, programmer.debug_prompt(ctx.lib, problem, v, made[i][-1][1].program.code,
                                            failing[i])) for i in draws if failing[i]]
        if not todo:
            break
        seeds = [draw_seed(ctx.seed, i, d) for i, _ in todo]
        answers = ctx.llm.complete([m for _, m in todo], [v.code_params(s, lang) for s in seeds])
        for (i, messages), seed, answer in zip(todo, seeds, answers, strict=True):
            made[i].append((Call.of(programmer.ROLE_DEBUG, messages, answer),
                            _made(problem, f"{t}.{i - first}.{d}", seed, answer.text)))
    lineages = [Lineage(i, draw_style(v, i), tuple(c for _, c in made[i])) for i in draws]
    return lineages, [call for i in draws for call, _ in made[i]]


def _record(t: int, made: Sequence[Lineage], choice: Choice, ctx: MethodContext) -> str:
    """The attempt's ``selection`` column: every program of the round in call order (a draw,
    then its rewrites), the groups of the pool so far, the choice and the stop decision."""
    v, sel, bench = ctx.variant, choice.selection, choice.bench
    return json.dumps({
        "iteration": t, "pool": "all",
        "candidates": [{"id": c.id, "seed": c.seed, "parse_status": c.program.status,
                        "edit": c.edit, "draw": lin.draw, "style": lin.style}
                       for lin in made for c in lin.versions],
        "samples": len(bench.samples), "inputs": len(bench.evidence) - bench.expected,
        "evidence": bench.expected, "large": len(bench.large),
        "groups": sel.summary(),
        "chosen": sel.best.representative.id if sel.best else None, "close": sel.close,
        "settled": sel.settled(v.confident_votes),
        "distinguish": choice.distinction.log if choice.distinction else None,
        "stop": choice.stop or ("budget" if t == ctx.budget else ""),
    }, ensure_ascii=False)


def repair(problem: Problem, ctx: MethodContext) -> list[Attempt]:
    """Breadth behind the contract every method has: one attempt per round (module doc)."""
    v = ctx.variant
    design = design_tests([problem], llm=ctx.llm, lib=ctx.lib, variant=v, executor=ctx.ruby,
                          seed=ctx.seed)[0]
    generated = design.tests if design.source == "generated" else ()
    bench = replace(Bench.of(problem, generated, gate=v.sample_gate), inputs_only=True)
    runner = Runner(ctx.executor(problem), problem.limits)
    pool: list[Candidate] = []
    asked: set[tuple[str, str]] = set()
    attempts: list[Attempt] = []
    for t in range(1, ctx.budget + 1):
        spent = runner.seconds
        made, calls = draw_round(problem, (t - 1) * v.candidates + 1, runner, ctx, t)
        pool.extend(lin.last for lin in made if lin.last.program.ok)
        choice = choose(problem, pool, bench, runner, ctx, t, asked)
        bench = choice.bench
        calls.extend(choice.distinction.calls if choice.distinction else ())
        best = choice.selection.best
        report: RunReport | None = None
        if best is not None:
            program = next(c for c in pool if c.id == best.representative.id).program
            report = bench.as_checked(runner.report(program.code, bench.tests))
            failing = traces(bench, report)
        else:  # no usable program yet: the first draw's parse says why
            program = made[0].versions[0].program
            failing = f"No usable {problem.language.name} program yet ({program.detail})."
        attempts.append(Attempt(
            task_id=problem.task_id, iteration=t, reflection_in="", code=program.code,
            parse_status=program.status, parse_detail=program.detail, report=report,
            traces=failing, passed_generated=bool(choice.stop), next_reflection="",
            exec_seconds=runner.seconds - spent,
            calls=tuple(calls) + ((design.call,) if t == 1 and design.call else ()),
            selection=_record(t, made, choice, ctx),
        ))
        if choice.stop:
            break
    return attempts
