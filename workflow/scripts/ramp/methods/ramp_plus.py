"""RAMP+: RAMP's agents in a loop that a small model wins with (docs/ramp_plus.md).

Per task: e0 and the Test Designer's tests as in RAMP; then, for t = 1..K,

1. the Programmer writes ``variant.candidates`` programs from one prompt in one call, a seed each
   (:func:`candidate_seed`), refining the best candidate seen when it fails a check;
2. every usable candidate runs on the :class:`Bench`: the statement's sample tests veto (the
   gate), the generated tests' inputs group the candidates by output and their expected
   outputs are evidence, large tests count only for time, memory and crashes;
3. ramp.methods.selection ranks the groups of every candidate so far; when the two best are
   close, the Arbiter may ask for an input that tells them apart and for the output the
   statement implies, which becomes evidence;
4. the loop stops when the variant's stop rule says so; else the Feedback Integrator reflects
   on the chosen candidate's failing checks.

Attempt t records the program the method would return after t iterations (the chosen one),
so the strict score reads RAMP+ as it reads every method; ``passed_generated`` marks the stop
rule firing, and ``selection`` says, as JSON, what was chosen and why.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ramp.agents import arbiter, feedback_integrator, programmer
from ramp.agents.traces import format_traces
from ramp.execution.executor import Executor
from ramp.llm.base import ChatMessage
from ramp.methods.base import MethodContext
from ramp.methods.ramp import (
    design_tests,
    initial_reflections,
    iteration_templates,
    reflection_templates,
    test_design_templates,
)
from ramp.methods.records import Attempt, Call
from ramp.methods.selection import (
    Entry,
    Group,
    Selection,
    canonical_output,
    edit_size,
    program_key,
    select,
)
from ramp.parsing import ExtractedProgram
from ramp.tasks import Limits, Problem, RunReport, TestCase, TestResult, Verdict
from ramp.variants import Variant

ROLE_CANDIDATE = "candidate"
"""The role of an iteration's Programmer calls after its first (cost tables count them apart)."""
SEED_STRIDE = 1000
"""Candidate k of iteration t samples with seed + t + SEED_STRIDE * k: candidate 0 uses RAMP's
seed of iteration t, and no two candidates of a task share a seed while K < SEED_STRIDE."""
JUDGED = "judged"
"""The kind of a test the Arbiter's judge gave its expected output."""
MAX_JUDGED_OUTPUT = 2000
"""A distinguishing input whose outputs are longer than this is not put to the judge."""
EVIDENCE_NOTE = ("The expected outputs of these tests were written by a model and may be "
                 "wrong: the problem statement decides.")
_RAN = (Verdict.PASSED, Verdict.WRONG_ANSWER)


def candidate_seed(seed: int, iteration: int, k: int) -> int:
    return seed + iteration + SEED_STRIDE * k


@dataclass(frozen=True)
class Bench:
    """A task's checks by trust: ``samples`` veto, ``evidence`` inputs group the candidates and
    their expected outputs rank the groups, ``large`` inputs count only for time, memory and
    crashes."""

    samples: tuple[TestCase, ...]
    evidence: tuple[TestCase, ...]
    large: tuple[TestCase, ...]
    inputs_only: bool = False
    """The generated evidence supplies inputs only: its expected outputs count for nothing, and
    a judged input's output is the only expected output (the breadth method's)."""

    @classmethod
    def of(cls, problem: Problem, generated: Sequence[TestCase], *, gate: bool) -> Bench:
        """Without the gate, the sample tests are evidence like the generated ones."""
        large = tuple(t for t in generated if t.kind == "large")
        evidence = tuple(t for t in generated if t.kind != "large")
        if not gate:
            return cls((), (*problem.samples, *evidence), large)
        return cls(tuple(problem.samples), evidence, large)

    @property
    def tests(self) -> tuple[TestCase, ...]:
        return (*self.samples, *self.evidence, *self.large)

    def with_evidence(self, test: TestCase) -> Bench:
        return replace(self, evidence=(*self.evidence, test))

    def scored(self, test: TestCase) -> bool:
        """Whether an evidence test's expected output counts."""
        return not self.inputs_only or test.kind == JUDGED

    @property
    def expected(self) -> int:
        """The evidence tests whose expected outputs count."""
        return sum(map(self.scored, self.evidence))

    def as_checked(self, report: RunReport) -> RunReport:
        """A report on :attr:`tests` with a wrong answer counted as passed where the expected
        output is not checked: the large tests, and evidence that supplies inputs only."""
        unchecked = {*(t for t in self.evidence if not self.scored(t)), *self.large}
        results = tuple(
            replace(r, verdict=Verdict.PASSED)
            if t in unchecked and r.verdict is Verdict.WRONG_ANSWER else r
            for t, r in zip(self.tests, report.results, strict=True))
        return replace(report, results=results)


@dataclass
class Runner:
    """Runs programs on tests, each program on each test once (a judged test added later runs
    only on itself), and sums the time spent."""

    executor: Executor
    limits: Limits
    seconds: float = 0.0
    _runs: dict[str, dict[TestCase, TestResult]] = field(default_factory=dict)
    _compile_errors: dict[str, str] = field(default_factory=dict)

    def report(self, code: str, tests: Sequence[TestCase]) -> RunReport:
        done = self._runs.setdefault(code, {})
        missing = [t for t in dict.fromkeys(tests) if t not in done]
        if missing:
            start = time.perf_counter()
            ran = self.executor.run(code, missing, self.limits)
            self.seconds += time.perf_counter() - start
            if ran.compile_error:
                self._compile_errors[code] = ran.compile_error
            done.update(zip(missing, ran.results, strict=True))
        results = tuple(replace(done[t], index=i) for i, t in enumerate(tests))
        return RunReport(results, compile_error=self._compile_errors.get(code, ""))

    def output(self, code: str, stdin: str) -> tuple[str, str]:
        start = time.perf_counter()
        try:
            return self.executor.output_of(code, stdin, self.limits)
        finally:
            self.seconds += time.perf_counter() - start


@dataclass(frozen=True)
class Candidate:
    """One Programmer answer: ``id`` is "t.k" (iteration, index), ``edit`` lines changed."""

    id: str
    seed: int
    program: ExtractedProgram
    edit: int


def entry(candidate: Candidate, bench: Bench, runner: Runner, *,
          reject_unchanged: bool = False) -> Entry:
    """What selection reads of a candidate: the gate, its outputs and agreement on the
    evidence, its status on the large tests. ``reject_unchanged``: the buggy program unchanged
    (an edit of 0 lines) is gated out, known wrong (Variant.reject_unchanged)."""
    report = runner.report(candidate.program.code, bench.tests)
    n_samples, n_evidence = len(bench.samples), len(bench.evidence)
    samples = report.results[:n_samples]
    evidence = report.results[n_samples:n_samples + n_evidence]
    large = report.results[n_samples + n_evidence:]
    return Entry(
        id=candidate.id, code=candidate.program.code, edit=candidate.edit,
        gated=not (reject_unchanged and candidate.edit == 0) and not report.compile_error
        and all(r.verdict is Verdict.PASSED for r in samples),
        outputs=tuple(canonical_output(r.stdout_tail) if r.verdict in _RAN
                      else f"!{r.verdict.value}" for r in evidence),
        agreed=sum(r.verdict is Verdict.PASSED
                   for t, r in zip(bench.evidence, evidence, strict=True) if bench.scored(t)),
        large=tuple("ok" if r.verdict in _RAN else r.verdict.value for r in large),
    )


def traces(bench: Bench, report: RunReport) -> str:
    """What the chosen candidate failed, as the Programmer and the Feedback Integrator read it:
    the sample tests it fails (trusted) if any, else the evidence and large tests it fails,
    flagged as model-written; "" when it fails none."""
    if report.compile_error:
        return format_traces(bench.tests, report)
    n = len(bench.samples)
    on_samples = RunReport(report.results[:n])
    if not on_samples.passed:
        return format_traces(bench.samples, on_samples)
    rest = RunReport(tuple(replace(r, index=i) for i, r in enumerate(report.results[n:])))
    if rest.passed:
        return ""
    return f"{format_traces((*bench.evidence, *bench.large), rest)}\n{EVIDENCE_NOTE}"


@dataclass(frozen=True)
class Distinction:
    """An Arbiter round: the judged test it adds (None if none), what happened, its calls."""

    test: TestCase | None
    log: dict[str, object]
    calls: tuple[Call, ...]


def distinguish(
    problem: Problem, a: Entry, b: Entry, ctx: MethodContext, runner: Runner, seed: int
) -> Distinction:
    """Ask for inputs on which programs ``a`` and ``b`` differ; put the first input on which
    they really print different outputs to the judge (output A: ``a``'s)."""
    params = ctx.variant.analysis_params(seed)
    messages = arbiter.inputs_prompt(ctx.lib, problem, a.code, b.code)
    (answer,) = ctx.llm.complete([messages], params)
    calls = [Call.of(arbiter.ROLE_INPUTS, messages, answer)]
    inputs = arbiter.parse_inputs(answer.text)
    log: dict[str, object] = {"between": [a.id, b.id], "inputs": len(inputs)}
    for stdin in inputs:
        (out_a, err_a), (out_b, err_b) = runner.output(a.code, stdin), runner.output(b.code, stdin)
        if err_a or err_b or canonical_output(out_a) == canonical_output(out_b):
            continue
        if max(len(out_a), len(out_b)) > MAX_JUDGED_OUTPUT:
            continue
        judge = arbiter.judge_prompt(ctx.lib, problem, stdin, out_a, out_b)
        (verdict,) = ctx.llm.complete([judge], params)
        calls.append(Call.of(arbiter.ROLE_JUDGE, judge, verdict))
        choice = arbiter.parse_choice(verdict.text)
        log.update(input=stdin, output_a=out_a, output_b=out_b, choice=choice)
        if choice:
            chosen = out_a if choice == "A" else out_b
            return Distinction(TestCase(stdin, (chosen,), kind=JUDGED), log, tuple(calls))
        break
    return Distinction(None, log, tuple(calls))


def _stop(selection: Selection, ctx: MethodContext) -> str:
    rule = ctx.variant.stop_rule
    if rule == "confident" and selection.confident(ctx.variant.confident_votes):
        return "confident"
    if rule == "generated" and selection.passes_every_check():
        return "generated"
    if rule == "settled" and selection.settled(ctx.variant.confident_votes):
        return "settled"
    return ""


def _generate(
    problem: Problem, messages: tuple[ChatMessage, ...], t: int, ctx: MethodContext
) -> tuple[list[Candidate], list[Call]]:
    """The iteration's n candidates: one call, the prompt once per candidate seed."""
    seeds = [candidate_seed(ctx.seed, t, k) for k in range(ctx.variant.candidates)]
    answers = ctx.llm.complete([messages] * len(seeds),
                               [ctx.variant.code_params(s, problem.language.key) for s in seeds])
    made, calls = [], []
    for k, (seed, answer) in enumerate(zip(seeds, answers, strict=True)):
        program = programmer.parse(answer.text, problem.language)
        edit = edit_size(problem.buggy_code, program.code) if program.ok else -1
        made.append(Candidate(f"{t}.{k}", seed, program, edit))
        calls.append(Call.of(programmer.ROLE if k == 0 else ROLE_CANDIDATE, messages, answer))
    return made, calls


@dataclass(frozen=True)
class Choice:
    """An iteration's choice: the ranked groups, the bench they were ranked on (with any judged
    input), the Arbiter's round if there was one, and the stop rule's verdict ("" = go on)."""

    selection: Selection
    bench: Bench
    distinction: Distinction | None
    stop: str


def choose(
    problem: Problem, considered: Sequence[Candidate], bench: Bench, runner: Runner,
    ctx: MethodContext, t: int, asked: set[tuple[str, str]],
) -> Choice:
    """Rank ``considered`` on ``bench``; when the two best groups are close, or else (with
    ``split_groups``) the chosen group holds programs that may differ (:func:`split_pair`),
    and that pair was not put to the Arbiter yet (``asked``, updated), ask it and rank again:
    one Arbiter round at most. Where the evidence supplies inputs only, the judged outputs
    rank first, so a judged input splits a group and its judged-right part ranks first."""
    v = ctx.variant

    def ranked(bench: Bench) -> Selection:
        return select([entry(c, bench, runner, reject_unchanged=v.reject_unchanged)
                       for c in considered],
                      evidence=bench.expected, use_votes=v.agreement_selection,
                      agreement_first=bench.inputs_only)

    selection = ranked(bench)
    best, pair = selection.best, None
    if v.distinguishing_inputs and selection.close:
        assert best is not None and selection.runner_up is not None
        pair = (best.representative, selection.runner_up.representative)
    elif v.split_groups and best is not None and best.gated:
        pair = split_pair(best)
    if pair is None or (pair[0].id, pair[1].id) in asked:
        return Choice(selection, bench, None, _stop(selection, ctx))
    asked.add((pair[0].id, pair[1].id))
    distinction = distinguish(problem, *pair, ctx, runner, ctx.seed + t)
    if not selection.close:
        distinction = replace(distinction, log={**distinction.log, "split": True})
    if distinction.test is not None:
        bench = bench.with_evidence(distinction.test)
        selection = ranked(bench)
    return Choice(selection, bench, distinction, _stop(selection, ctx))


def split_pair(group: Group) -> tuple[Entry, Entry] | None:
    """The chosen group's representative and the member least like it (the most lines
    changed between them; the earlier on a tie), or None when its members are one program:
    programs that agree on every input so far may still differ (Variant.split_groups)."""
    a = group.representative
    others = [e for e in group.members[1:] if program_key(e.code) != program_key(a.code)]
    if not others:
        return None
    return a, max(others, key=lambda e: edit_size(a.code, e.code))


def _record(t: int, made: Sequence[Candidate], choice: Choice, ctx: MethodContext) -> str:
    """The attempt's ``selection`` column: what was made, grouped, chosen and why it stopped."""
    v, sel, bench = ctx.variant, choice.selection, choice.bench
    return json.dumps({
        "iteration": t, "pool": "all" if v.refine_from_best else "iteration",
        "candidates": [{"id": c.id, "seed": c.seed, "parse_status": c.program.status,
                        "edit": c.edit} for c in made],
        "samples": len(bench.samples), "evidence": len(bench.evidence),
        "large": len(bench.large), "groups": sel.summary(),
        "chosen": sel.best.representative.id if sel.best else None, "close": sel.close,
        "confident": sel.confident(v.confident_votes),
        "distinguish": choice.distinction.log if choice.distinction else None,
        "stop": choice.stop or ("budget" if t == ctx.budget else ""),
    }, ensure_ascii=False)


def templates(variant: Variant) -> tuple[str, ...]:
    """The templates :func:`repair` renders (ramp.provenance): RAMP's, and the Arbiter's when
    it is asked to tell groups apart."""
    arbiter_templates = ((arbiter.INPUTS_TEMPLATE, arbiter.JUDGE_TEMPLATE)
                         if variant.distinguishing_inputs or variant.split_groups else ())
    return (*reflection_templates(variant), *test_design_templates(variant),
            *iteration_templates(variant), *arbiter_templates)


def repair(problem: Problem, ctx: MethodContext) -> list[Attempt]:
    """RAMP+ behind the contract every method has: one attempt per iteration (module doc)."""
    v = ctx.variant
    reflection = initial_reflections([problem], llm=ctx.llm, lib=ctx.lib, variant=v,
                                     seed=ctx.seed)[0]
    design = design_tests([problem], llm=ctx.llm, lib=ctx.lib, variant=v, executor=ctx.ruby,
                          seed=ctx.seed)[0]
    setup_calls = tuple(c for c in (reflection.call, design.call) if c is not None)
    bench = Bench.of(problem, design.tests if design.source == "generated" else (),
                     gate=v.sample_gate)
    runner = Runner(ctx.executor(problem), problem.limits)
    pool: list[Candidate] = []
    reflections = [reflection.text]
    previous, previous_traces = "", ""
    asked: set[tuple[str, str]] = set()
    attempts: list[Attempt] = []
    for t in range(1, ctx.budget + 1):
        spent = runner.seconds
        messages = programmer.prompt(ctx.lib, problem, v, reflections, previous_code=previous,
                                     previous_traces=previous_traces)
        made, calls = _generate(problem, messages, t, ctx)
        usable = [c for c in made if c.program.ok]
        pool.extend(usable)
        considered = pool if v.refine_from_best else usable
        choice = choose(problem, considered, bench, runner, ctx, t, asked)
        bench = choice.bench
        calls.extend(choice.distinction.calls if choice.distinction else ())
        best = choice.selection.best
        if best is not None:
            program = next(c for c in considered if c.id == best.representative.id).program
            report = bench.as_checked(runner.report(program.code, bench.tests))
            failing = traces(bench, report)
        else:  # no usable program yet: the first answer's parse says why
            program, report = made[0].program, None
            failing = (f"The previous answers contained no usable {problem.language.name} "
                       f"program ({program.detail}).")

        next_reflection = ""
        if not choice.stop and t < ctx.budget and failing and v.feedback_reflection:
            fmessages = feedback_integrator.feedback_prompt(
                ctx.lib, problem, candidate=program.code, traces=failing,
                earlier=reflections if v.feedback_history else ())
            (fanswer,) = ctx.llm.complete([fmessages], v.analysis_params(ctx.seed + t))
            next_reflection = feedback_integrator.parse(fanswer.text)
            calls.append(Call.of(feedback_integrator.ROLE_FEEDBACK, fmessages, fanswer))

        attempts.append(Attempt(
            task_id=problem.task_id, iteration=t, reflection_in=reflections[-1],
            code=program.code, parse_status=program.status, parse_detail=program.detail,
            report=report, traces=failing, passed_generated=bool(choice.stop),
            next_reflection=next_reflection, exec_seconds=runner.seconds - spent,
            calls=tuple(calls) + (setup_calls if t == 1 else ()),
            earlier_reflections=tuple(reflections[:-1]), selection=_record(t, made, choice, ctx),
        ))
        if choice.stop:
            break
        reflections.append(next_reflection)
        # Refine the chosen candidate while it fails a check; once it fails none, sample afresh
        # so that new votes come from independent programs, not from copies of it.
        refine = best is not None and (bool(failing) or not v.refine_from_best)
        previous = program.code if refine else ""
        previous_traces = failing if refine or best is None else ""
    return attempts
