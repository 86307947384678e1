"""The breadth method with a scripted model and the REAL sandboxed Ruby executor: the draws,
debugging on the samples, choosing by behaviour on inputs only, the judged input, the stop rule.

The task (tests/agents/scripted.py): print 2n; sample 3 -> 6. The Test Designer's tests hold one
wrong expected output (5 -> 11), as the 1.5B's suites do; the method uses their inputs only.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from ramp.agents import programmer
from ramp.analysis.candidates import candidate_programs
from ramp.methods import breadth
from ramp.methods.base import Executors, MethodContext
from ramp.methods.frames import attempts_frame
from ramp.tasks import Task, TestCase
from ramp.variants import Variant
from tests.agents.scripted import ScriptedAgents, ruby
from tests.methods.test_ramp_plus import (
    FITS_WRONG,
    RIGHT,
    RIGHT2,
    RIGHT_BIG,
    TESTS_ONE_WRONG,
    WRONG,
)

FITS_WRONG2 = "n = gets.to_i\nputs(n == 5 ? 11 : 2 * n)"  # FITS_WRONG's behaviour, other text
HIDDEN_INPUT = "777\n"


def wide(**fields) -> Variant:
    base = {"method": "breadth", "candidates": 2, "distinguishing_inputs": False,
            "stop_rule": "settled"}
    return Variant(name="breadth", **{**base, **fields})


def agents(*programs: str, debug=(), distinguish=(), judge=()) -> ScriptedAgents:
    return ScriptedAgents(test_design=[TESTS_ONE_WRONG], programmer=[ruby(p) for p in programs],
                          debug=[ruby(p) for p in debug], distinguish=list(distinguish),
                          judge=list(judge))


def run(scripted, task, lib, executors, variant, budget=1):
    ctx = MethodContext(scripted.llm, lib, variant, executors, budget, seed=0)
    return breadth.repair(task, ctx)


def record(attempt) -> dict:
    return json.loads(attempt.selection)


def test_a_right_program_beats_a_larger_wrong_group_once_a_judged_input_separates_them(
    task, lib, executors
):
    # Two wrong programs agree on every generated input (and match the wrong expected 11);
    # the one right program is a group of one. The two are close; the judged input 5 decides.
    scripted = agents(FITS_WRONG, FITS_WRONG2, RIGHT,
                      distinguish=["Try:\n```\n5\n```\n"], judge=["5 doubled is 10.\nAnswer: B"])
    (only,) = run(scripted, task, lib, executors, wide(candidates=3, distinguishing_inputs=True))
    assert only.code.strip() == RIGHT
    rec = record(only)
    assert rec["distinguish"]["between"] == ["1.0", "1.2"] and rec["distinguish"]["choice"] == "B"
    right, wrong = rec["groups"]
    assert right["members"] == ["1.2"] and right["agreed"] == 1 and right["votes"] == 1
    assert wrong["members"] == ["1.0", "1.1"] and wrong["agreed"] == 0 and wrong["votes"] == 2
    assert not rec["close"] and rec["evidence"] == 1 and rec["inputs"] == 3


def test_without_a_judge_the_larger_group_wins(task, lib, executors):
    (only,) = run(agents(FITS_WRONG, FITS_WRONG2, RIGHT), task, lib, executors,
                  wide(candidates=3))
    assert only.code.strip() == FITS_WRONG and record(only)["groups"][0]["votes"] == 2


def test_model_written_expected_outputs_decide_nothing(task, lib, executors):
    # RAMP+ would pick FITS_WRONG: it matches every generated expected output, RIGHT fails one.
    (only,) = run(agents(FITS_WRONG, RIGHT), task, lib, executors, wide())
    rec = record(only)
    assert rec["evidence"] == 0 and all(g["agreed"] == 0 for g in rec["groups"])
    assert only.code.strip() == RIGHT  # a tie of single votes: the smaller edit
    assert "WRONG_ANSWER" not in only.verdicts  # the wrong 5 -> 11 is not held against it


def test_a_draw_failing_a_sample_is_debugged_on_the_samples_alone(task, lib, executors):
    scripted = agents(WRONG, RIGHT, debug=[RIGHT2])
    (only,) = run(scripted, task, lib, executors, wide(debug_rounds=2))
    assert scripted.calls == ["test_design", "programmer", "programmer", "debug"]
    (prompt,) = scripted.prompts["debug"]
    shown = prompt[-1].content
    assert WRONG in shown and "6" in shown and "11" not in shown  # samples only, no test of T_g
    rec = record(only)
    assert [c["id"] for c in rec["candidates"]] == ["1.0", "1.0.1", "1.1"]
    assert [c["draw"] for c in rec["candidates"]] == [1, 1, 2]
    assert rec["groups"][0]["members"] == ["1.1", "1.0.1"] and rec["stop"] == "settled"
    assert [c.role for c in only.calls] == ["programmer", "debug", "candidate", "test_design"]


def test_debugging_stops_once_the_samples_pass(task, lib, executors):
    scripted = agents(WRONG, RIGHT, debug=[WRONG, RIGHT2])
    run(scripted, task, lib, executors, wide(debug_rounds=3))
    assert scripted.calls.count("debug") == 2  # the second rewrite passes: no third


def test_the_stop_rule_ends_a_task_once_a_group_of_two_has_no_rival(task, lib, executors):
    (only,) = run(agents(RIGHT, RIGHT2), task, lib, executors, wide(), budget=3)
    assert only.passed_generated and record(only)["stop"] == "settled"
    attempts = run(agents(RIGHT, RIGHT2, RIGHT, WRONG, RIGHT2, RIGHT), task, lib, executors,
                   wide(stop_rule="budget"), budget=3)
    assert len(attempts) == 3 and not any(a.passed_generated for a in attempts)
    assert [c["id"] for c in record(attempts[2])["candidates"]] == ["3.0", "3.1"]
    assert record(attempts[2])["groups"][0]["votes"] == 2  # distinct programs, not copies


def test_one_vote_or_a_close_rival_does_not_settle(task, lib, executors):
    attempts = run(agents(RIGHT, WRONG, FITS_WRONG, RIGHT2, RIGHT_BIG, WRONG), task, lib,
                   executors, wide(), budget=3)
    first, second, third = (record(a) for a in attempts)
    assert not first["settled"] and first["stop"] == ""  # RIGHT alone passes the sample
    assert second["close"] and second["stop"] == ""  # 2 votes against FITS_WRONG's 1
    assert third["stop"] == "settled" and third["groups"][0]["votes"] == 3
    assert attempts[2].code.strip() == RIGHT


def test_the_buggy_program_unchanged_is_gated_out_when_the_switch_is_on(task, lib, executors):
    # BUGGY passes the sample and agrees with RIGHT2 on every generated input (it is wrong on
    # 777 alone): one group, whose smallest edit, the buggy program itself, is returned and
    # settles it. Gated out as known wrong, it leaves RIGHT2 alone in the choice, one vote.
    buggy = "n = gets.to_i\nputs(n == 777 ? 1 : 2 * n)"
    problem = dataclasses.replace(task, buggy_code=buggy + "\n\n")  # blank lines aside
    (kept,) = run(agents(buggy, RIGHT2), problem, lib, executors, wide())
    assert kept.code.strip() == buggy and record(kept)["stop"] == "settled"
    assert record(kept)["groups"][0]["members"] == ["1.0", "1.1"]
    (gated,) = run(agents(buggy, RIGHT2), problem, lib, executors,
                   wide(reject_unchanged=True))
    rec = record(gated)
    assert gated.code.strip() == RIGHT2 and not rec["settled"]  # one vote does not settle
    assert [(g["members"], g["gated"], g["votes"]) for g in rec["groups"]] == [
        (["1.1"], True, 1), (["1.0"], False, 1)]


def test_draws_cycle_through_the_styles_with_the_coverage_seeds(task, lib, executors):
    scripted = agents(RIGHT, WRONG, FITS_WRONG, FITS_WRONG2)
    run(scripted, task, lib, executors,
        wide(candidates=4, draw_styles=("zero_shot", "few_shot"), stop_rule="budget"))
    seen = [(p, params) for p, params in scripted.llm.seen
            if p[0].content.startswith("You are an expert Ruby programmer. Repair")]
    assert [params.seed for _, params in seen] == [1, 3, 2, 4]  # batched by style
    zero = programmer.prompt(lib, task, Variant(programmer_style="zero_shot"), [])
    assert seen[0][0] == zero and seen[1][0] == zero  # the coverage stage's draws 1 and 3
    assert seen[2][0] != zero and "few_shot" in breadth.templates(wide(
        draw_styles=("zero_shot", "few_shot")))[1]


def test_hidden_tests_never_reach_the_method(task, lib, executors):
    # What runs is the samples, the generated inputs and nothing else: a Problem has no hidden
    # tests, and the method has no way to the Task that holds them.
    ran: list[str] = []

    class Spy:
        def __init__(self, inner):
            self.inner = inner

        def run(self, code, tests, limits):
            ran.extend(t.input for t in tests)
            return self.inner.run(code, tests, limits)

        def output_of(self, code, stdin, limits):
            ran.append(stdin)
            return self.inner.output_of(code, stdin, limits)

    spied = Executors(lambda lang, n: Spy(executors.get(lang)))
    scored = Task(task, (TestCase(HIDDEN_INPUT, ("1554\n",)),))
    run(agents(FITS_WRONG, RIGHT), scored.problem, lib, spied, wide())
    assert ran and HIDDEN_INPUT not in ran
    assert set(ran) <= {"3\n", "2\n", "5\n", "0\n", "1000000000\n"}
    with pytest.raises(ValueError, match="hidden_feedback"):
        Variant(method="breadth", hidden_feedback=True)


def test_every_program_it_wrote_reaches_the_candidates_analysis(task, lib, executors):
    # Round 2's draws pass the sample: only draw 1 is rewritten. Two groups of two tie; the
    # smaller edit (RIGHT, 1.1) is returned.
    attempts = run(agents(WRONG, RIGHT, FITS_WRONG, RIGHT2, debug=[FITS_WRONG2]),
                   task, lib, executors, wide(debug_rounds=1, stop_rule="budget"), budget=2)
    programs = candidate_programs(attempts_frame(attempts), [Task(task)])
    assert list(programs.candidate) == ["1.0", "1.0.1", "1.1", "2.0", "2.1"]
    assert list(programs[programs.returned].code.str.strip()) == [RIGHT]
    ranks = programs.set_index("candidate").final_rank.dropna().astype(int).to_dict()
    assert ranks == {"1.0.1": 2, "1.1": 1, "2.0": 2, "2.1": 1}  # 1.0 counts as rewritten


BUGGY_777 = "n = gets.to_i\nputs(n == 777 ? 1 : 2 * n)"  # wrong on 777 alone
NEAR_777 = "n = gets.to_i\nputs(n == 777 ? 0 : 2 * n)"  # one line from it, wrong on 777 too
NEAR_777B = "n = gets.to_i\nputs(n == 777 ? 2 : 2 * n)"


def test_a_judged_input_splits_the_chosen_group_and_keeps_its_right_minority(
    task, lib, executors
):
    # Three programs agree on every generated input: one group, whose smallest edit (NEAR_777)
    # is wrong. With split_groups its representative and the member least like it (RIGHT) go
    # to the Arbiter; the 1.5B's way of writing an input (a ```ruby block under "Input 1:")
    # is read; on 777 they differ and the judge takes RIGHT's output, which now ranks first
    # against the two wrong programs' votes.
    problem = dataclasses.replace(task, buggy_code=BUGGY_777)
    draws = (NEAR_777, NEAR_777B, RIGHT)
    (kept,) = run(agents(*draws), problem, lib, executors, wide(candidates=3))
    assert kept.code.strip() == NEAR_777 and record(kept)["distinguish"] is None
    scripted = agents(*draws, distinguish=["### Input 1:\n```ruby\n777\n```\n"],
                      judge=["777 doubled is 1554.\nAnswer: B"])
    (split,) = run(scripted, problem, lib, executors, wide(candidates=3, split_groups=True))
    assert split.code.strip() == RIGHT
    rec = record(split)
    assert rec["distinguish"]["between"] == ["1.0", "1.2"] and rec["distinguish"]["split"]
    assert rec["distinguish"]["output_b"].strip() == "1554"
    assert [(g["members"], g["agreed"]) for g in rec["groups"]] == [
        (["1.2"], 1), (["1.0"], 0), (["1.1"], 0)]


def test_a_group_is_split_once_a_pair_and_never_when_its_programs_are_one(
    task, lib, executors
):
    problem = dataclasses.replace(task, buggy_code=BUGGY_777)
    # The judge cannot tell (no answer): the pair is not asked again in round 2.
    scripted = agents(NEAR_777, RIGHT, NEAR_777, NEAR_777,
                      distinguish=["Input 1:\n```\n777\n```\n"], judge=["I am not sure."])
    attempts = run(scripted, problem, lib, executors,
                   wide(split_groups=True, stop_rule="budget"), budget=2)
    assert scripted.calls.count("distinguish") == 1 and scripted.calls.count("judge") == 1
    assert record(attempts[1])["distinguish"] is None
    # Copies of one program (blank lines aside) are one vote: nothing to split.
    copies = agents(RIGHT, RIGHT + "\n\n")
    run(copies, task, lib, executors, wide(split_groups=True))
    assert "distinguish" not in copies.calls
