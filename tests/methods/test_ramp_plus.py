"""RAMP+ with a scripted model and the REAL sandboxed Ruby executor: the gate, grouping, ties,
best-so-far, the stop rules and distinguishing inputs.

The task (tests/agents/scripted.py): print 2n; sample 3 -> 6. The Test Designer's tests below
hold one wrong expected output (5 -> 11), as the generated suites of the 1.5B model do, and a
large test whose expected output is wrong too (only time, memory and crashes count there).
"""

from __future__ import annotations

import json

from ramp.methods import ramp_plus
from ramp.methods.base import MethodContext
from ramp.methods.frames import attempts_frame
from ramp.variants import Variant
from tests.agents.scripted import ScriptedAgents, ruby

TESTS_ONE_WRONG = """### Test 1 (basic)
Input:
```
2
```
Output:
```
4
```
### Test 2 (basic)
Input:
```
5
```
Output:
```
11
```
### Test 3 (edge)
Input:
```
0
```
Output:
```
0
```
### Test 4 (large)
Input:
```
1000000000
```
Output:
```
123
```
"""
RIGHT = "puts gets.to_i * 2"  # rejected by RAMP: 5 -> 10, "expected" 11
RIGHT2 = "n = gets.to_i\nputs n + n"
RIGHT_BIG = "n = gets.to_i\nx = n\ny = x * 2\nputs y"
FITS_WRONG = "n = gets.to_i\nputs n == 5 ? 11 : n * 2"  # passes every generated test
FITS_WRONG_NO_SAMPLE = "n = gets.to_i\nputs n == 5 ? 11 : (n == 3 ? 7 : n * 2)"
FITS_WRONG_NO_SAMPLE2 = "n = gets.to_i\nputs(n == 5 ? 11 : (n == 3 ? 7 : 2 * n))"
SLOW = "n = gets.to_i\ns = 0\nn.times { s += 2 }\nputs s"  # right, but too slow on the large test
WRONG = "puts gets.to_i + 1"


def plus(**fields) -> Variant:
    base = {"method": "ramp_plus", "candidates": 2, "distinguishing_inputs": False}
    return Variant(name="ramp_plus", **{**base, **fields})


def agents(*programs: str, feedback=(), distinguish=(), judge=()) -> ScriptedAgents:
    return ScriptedAgents(reflection=["e0"], test_design=[TESTS_ONE_WRONG],
                          programmer=[ruby(p) for p in programs], feedback=list(feedback),
                          distinguish=list(distinguish), judge=list(judge))


def run(scripted, task, lib, executors, variant, budget=3):
    ctx = MethodContext(scripted.llm, lib, variant, executors, budget, seed=0)
    return ramp_plus.repair(task, ctx)


def selection(attempt) -> dict:
    return json.loads(attempt.selection)


def test_a_right_program_rejected_by_a_wrong_expected_output_is_kept(task, lib, executors):
    # RAMP's verdict on RIGHT: test 2 fails (its expected output is wrong); FITS_WRONG_NO_SAMPLE
    # passes every generated test. The gate drops the latter, agreement keeps RIGHT.
    scripted = agents(RIGHT, FITS_WRONG_NO_SAMPLE, RIGHT2)
    attempts = run(scripted, task, lib, executors, plus(candidates=3))
    (only,) = attempts
    assert only.code.strip() == RIGHT and only.passed_generated
    record = selection(only)
    assert record["stop"] == "confident" and record["chosen"] == "1.0"
    best, other = record["groups"]
    assert best["members"] == ["1.0", "1.2"] and best["votes"] == 2 and best["agreed"] == 2
    assert other["members"] == ["1.1"] and not other["gated"] and other["agreed"] == 3
    # the large test's wrong expected output is not held against it: only 1 test failed
    assert only.verdicts.count("WRONG_ANSWER") == 1 and len(only.verdicts) == 5
    assert scripted.calls == ["reflection", "test_design", "programmer", "programmer",
                              "programmer"]


def test_without_the_gate_the_sample_failing_group_wins(task, lib, executors):
    programs = (RIGHT, FITS_WRONG_NO_SAMPLE, FITS_WRONG_NO_SAMPLE2)
    gated = run(agents(*programs), task, lib, executors, plus(candidates=3), budget=1)
    assert gated[-1].code.strip() == RIGHT
    open_gate = run(agents(*programs), task, lib, executors,
                    plus(candidates=3, sample_gate=False), budget=1)
    assert open_gate[-1].code.strip() == FITS_WRONG_NO_SAMPLE
    record = selection(open_gate[-1])
    assert record["samples"] == 0 and record["evidence"] == 4  # the sample became evidence


def test_candidates_use_distinct_seeds_and_one_prompt(task, lib, executors):
    scripted = agents(WRONG, WRONG, WRONG, feedback=["no"])
    attempts = run(scripted, task, lib, executors, plus(candidates=3), budget=1)
    seeds = [p.seed for m, p in scripted.llm.seen if "repairs buggy programs" in m[0].content]
    assert seeds == [1, 1001, 2001]
    prompts = scripted.prompts["programmer"]
    assert prompts[0] == prompts[1] == prompts[2]
    roles = [c.role for c in attempts[0].calls]
    assert roles == ["programmer", "candidate", "candidate", "reflection", "test_design"]
    # The three candidates went to the model as one call: reflection, tests, candidates.
    assert scripted.llm.batches == 3


def test_large_tests_judge_time_only_and_ties_go_to_the_smallest_edit(task, lib, executors):
    # SLOW prints the right outputs but runs out of time on the large test: another group,
    # one failure down. RIGHT_BIG and RIGHT agree: RIGHT, the smaller edit, represents them.
    scripted = agents(RIGHT_BIG, SLOW, RIGHT)
    (attempt,) = run(scripted, task, lib, executors, plus(candidates=3), budget=1)
    record = selection(attempt)
    best, slow = record["groups"]
    assert best["members"] == ["1.2", "1.0"] and best["edit"] == 1
    assert slow["members"] == ["1.1"] and slow["large_failures"] == 1
    assert attempt.code.strip() == RIGHT


def test_ties_between_groups_go_to_the_smallest_edit(task, lib, executors):
    # RIGHT: 2 expected outputs + 1 vote; FITS_WRONG: 3 + 1. RIGHT2 joins RIGHT: 2 + 2 = 4 each.
    scripted = agents(FITS_WRONG, RIGHT, RIGHT2)
    (attempt,) = run(scripted, task, lib, executors, plus(candidates=3), budget=1)
    first, second = selection(attempt)["groups"]
    assert first["score"] == second["score"] == 4
    assert first["members"] == ["1.1", "1.2"] and first["edit"] < second["edit"]
    assert attempt.code.strip() == RIGHT
    assert not attempt.passed_generated  # close: not confident


def test_the_best_seen_is_refined_and_returned_not_the_last(task, lib, executors):
    scripted = agents(RIGHT, WRONG, WRONG, "puts 7", feedback=["test 2 may be wrong"])
    attempts = run(scripted, task, lib, executors, plus(), budget=2)
    assert [a.code.strip() for a in attempts] == [RIGHT, RIGHT]
    assert [a.passed_generated for a in attempts] == [False, False]  # one vote: not confident
    assert selection(attempts[1])["stop"] == "budget"
    # the Programmer of iteration 2 refines RIGHT, with the test it fails, flagged as evidence
    second = scripted.prompts["programmer"][2][-1].content
    assert f"Your previous attempt:\n```ruby\n{RIGHT}\n```" in second
    assert "Expected output:\n11" in second and "may be wrong" in second
    assert "test 2 may be wrong" in second
    feedback = scripted.prompts["feedback"][0][-1].content
    assert RIGHT in feedback


def test_without_best_so_far_the_latest_choice_is_returned(task, lib, executors):
    scripted = agents(RIGHT, WRONG, WRONG, "puts 7", feedback=["f"])
    attempts = run(scripted, task, lib, executors, plus(refine_from_best=False), budget=2)
    assert attempts[0].code.strip() == RIGHT and attempts[1].code.strip() == WRONG
    assert selection(attempts[1])["pool"] == "iteration"


def test_a_candidate_passing_every_check_stops_ramp_s_rule_but_not_the_confident_one(
    task, lib, executors
):
    ramp_stop = run(agents(FITS_WRONG, WRONG), task, lib, executors,
                    plus(stop_rule="generated"))
    assert len(ramp_stop) == 1 and ramp_stop[0].passed_generated
    assert ramp_stop[0].code.strip() == FITS_WRONG
    assert selection(ramp_stop[0])["stop"] == "generated"
    # The confident rule wants a second program agreeing: FITS_WRONG alone is not enough.
    scripted = agents(FITS_WRONG, WRONG, RIGHT, RIGHT2)
    confident = run(scripted, task, lib, executors, plus(), budget=2)
    assert [a.passed_generated for a in confident] == [False, False]
    assert confident[0].code.strip() == FITS_WRONG
    # iteration 1's choice failed no check: iteration 2 samples afresh, without it
    assert "Your previous attempt" not in scripted.prompts["programmer"][2][-1].content
    # RIGHT + RIGHT2 (2 + 2) tie FITS_WRONG (3 + 1): close, so not confident; RIGHT wins the tie
    assert confident[1].code.strip() == RIGHT and selection(confident[1])["close"]


def test_budget_stop_rule_runs_every_iteration(task, lib, executors):
    scripted = agents(RIGHT, RIGHT2, RIGHT, RIGHT2, feedback=["f"])
    attempts = run(scripted, task, lib, executors, plus(stop_rule="budget"), budget=2)
    assert len(attempts) == 2 and not any(a.passed_generated for a in attempts)
    assert selection(attempts[0])["confident"]  # it would have stopped


def test_a_distinguishing_input_is_judged_and_becomes_evidence(task, lib, executors):
    scripted = agents(FITS_WRONG, RIGHT,
                      distinguish=["Try:\n```\n2\n```\nand\n```\n5\n```\n"],
                      judge=["5 doubled is 10.\nAnswer: B"], feedback=["f"])
    attempts = run(scripted, task, lib, executors, plus(distinguishing_inputs=True), budget=1)
    record = selection(attempts[0])
    assert record["distinguish"]["between"] == ["1.0", "1.1"]
    assert record["distinguish"]["input"] == "5\n" and record["distinguish"]["choice"] == "B"
    # the judge saw the outputs (A: the leading group's) but no program
    judge = scripted.prompts["judge"][0][-1].content
    assert "Output A:\n```\n11\n```" in judge and "Output B:\n```\n10\n```" in judge
    assert record["evidence"] == 4  # 3 generated + the judged input
    assert attempts[0].code.strip() == RIGHT
    assert [c.role for c in attempts[0].calls][:4] == ["programmer", "candidate", "distinguish",
                                                       "judge"]


def test_no_usable_program_is_recorded_with_its_reason(task, lib, executors):
    scripted = ScriptedAgents(reflection=["e0"], test_design=[TESTS_ONE_WRONG],
                              programmer=["I cannot.", "No idea", ruby(RIGHT), ruby(RIGHT2)],
                              feedback=["f"])
    attempts = run(scripted, task, lib, executors, plus(), budget=2)
    assert attempts[0].code == "" and attempts[0].parse_status == "no_code_block"
    assert attempts[0].report is None and selection(attempts[0])["chosen"] is None
    assert "no usable Ruby program" in scripted.prompts["programmer"][2][-1].content
    assert attempts[1].passed_generated and attempts[1].code.strip() == RIGHT


def test_the_selection_reaches_the_attempts_table(task, lib, executors):
    attempts = run(agents(RIGHT, RIGHT2), task, lib, executors, plus())
    frame = attempts_frame(attempts)
    record = json.loads(frame.selection[0])
    assert record["chosen"] == "1.0" and record["stop"] == "confident"
    assert [c["role"] for c in frame.other_calls[0]] == ["candidate", "reflection",
                                                         "test_design"]


def test_without_generated_inputs_agreement_is_not_confidence(task, lib, executors):
    scripted = ScriptedAgents(reflection=["e0"], test_design=["I would test with n = 2."],
                              programmer=[ruby(RIGHT2), ruby(RIGHT), ruby(WRONG), ruby(RIGHT)],
                              feedback=[])
    attempts = run(scripted, task, lib, executors, plus(), budget=2)
    first = selection(attempts[0])
    assert first["evidence"] == 0 and first["samples"] == 1
    assert first["groups"][0]["votes"] == 2 and not first["confident"]
    assert [a.code.strip() for a in attempts] == [RIGHT, RIGHT]  # the smaller edit
    assert not any(a.passed_generated for a in attempts)
    assert "feedback" not in scripted.calls  # it failed no check: nothing to reflect on
