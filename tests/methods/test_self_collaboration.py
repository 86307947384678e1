"""Self-Collaboration (analyst, coder, tester) with a scripted model and the REAL sandbox."""

from __future__ import annotations

import pytest

from ramp.methods import self_collaboration as sc
from ramp.methods.base import MethodContext
from ramp.variants import Variant
from tests.agents.scripted import ScriptedAgents, ruby

RIGHT = "puts gets.to_i * 2"
WRONG = "puts gets.to_i + 1"  # 3 -> 4, not 6
ANALYSIS = "Read n and print 2n. The buggy program multiplies by 3 instead of 2."


@pytest.mark.parametrize(
    ("answer", "approved", "found"),
    [
        ("Reads n and doubles it.\nVERDICT: PASS", True, True),
        ("The loop is off by one.\nVERDICT: FAIL", False, True),
        ("**Verdict:** pass", True, True),
        ("- `VERDICT: FAIL` - the loop is wrong", False, True),
        ("Final verdict: PASSED", True, True),
        ("VERDICT: FAIL (it does not pass sample 2)", False, True),
        ("VERDICT: PASS\nOn second thought the loop is wrong.\nVERDICT: FAIL", False, True),
        ("VERDICT: FAIL\nActually the guard handles it.\nverdict: pass", True, True),
        ("The program is correct.", False, False),
        ("The code passes all cases.", False, False),
        ("VERDICT: PASS / FAIL", False, False),
        ("VERDICT: PASS or FAIL", False, False),
        ("Verdict:\nPASS", False, False),
        ("", False, False),
    ],
)
def test_parse_review(answer, approved, found):
    review = sc.parse_review(answer)
    assert (review.approved, review.found) == (approved, found)
    assert review.feedback.endswith(sc.MISSING_VERDICT) == (not found)


def test_review_text_drops_code_and_notes_a_missing_verdict():
    review = sc.parse_review("Use this instead:\n```ruby\nputs 1\n```\nLooks wrong.")
    assert review.text == "Use this instead:\n[code omitted]\nLooks wrong."
    assert review.feedback == (
        "Use this instead:\n[code omitted]\nLooks wrong.\n\n"
        "(The review has no VERDICT line, so it counts as FAIL.)"
    )
    assert sc.parse_review("").feedback == sc.MISSING_VERDICT


def run(agents, task, lib, executors, *, budget=4):
    variant = Variant(name="self_collaboration", method="self_collaboration")
    ctx = MethodContext(agents.llm, lib, variant, executors, budget, seed=3)
    return sc.repair(task, ctx)


def test_approved_at_iteration_1(task, lib, executors):
    agents = ScriptedAgents(analyst=[ANALYSIS], coder=[ruby(RIGHT)],
                            tester=["It doubles n.\nVERDICT: PASS"])
    attempts = run(agents, task, lib, executors)
    assert agents.calls == ["analyst", "coder", "tester"]
    (first,) = attempts
    assert first.iteration == 1 and first.passed_generated
    assert [c.role for c in first.calls] == ["analyst", "programmer", "tester"]
    assert first.reflection_in == ANALYSIS and first.verdicts == ("PASSED",)
    coder = agents.prompts["coder"][0][-1].content
    assert ANALYSIS in coder and "puts gets.to_i * 3" in coder
    tester = agents.prompts["tester"][0][-1].content
    assert RIGHT in tester and "puts gets.to_i * 3" not in tester
    assert [p.seed for _, p in agents.llm.seen] == [4, 4, 4]  # ctx.seed + t


def test_fail_review_goes_to_the_coder_and_sample_results_stay_out(task, lib, executors):
    review = "It adds 1 instead of doubling n."
    agents = ScriptedAgents(analyst=[ANALYSIS], coder=[ruby(WRONG), ruby(RIGHT)],
                            tester=[f"{review}\nVERDICT: FAIL", "VERDICT: PASS"])
    attempts = run(agents, task, lib, executors)
    assert agents.calls == ["analyst", "coder", "tester", "coder", "tester"]
    assert [a.passed_generated for a in attempts] == [False, True]
    first, second = attempts
    # the sample run is recorded, with its real verdict and traces
    assert first.verdicts == ("WRONG_ANSWER",) and "Actual output:\n4" in first.traces
    assert first.next_reflection == f"{review}\nVERDICT: FAIL" == second.reflection_in
    assert [c.role for c in second.calls] == ["programmer", "tester"]
    coder = agents.prompts["coder"][1][-1].content
    assert review in coder and WRONG in coder and ANALYSIS in coder
    assert "Buggy Ruby program" not in coder
    # no prompt carries a test result: the tester reads, it does not run
    every = [m.content for p in agents.llm.prompts for m in p]
    assert not any("WRONG_ANSWER" in t or "Actual output" in t for t in every)


def test_acceptance_is_the_testers_verdict_not_the_samples(task, lib, executors):
    agents = ScriptedAgents(analyst=[ANALYSIS], coder=[ruby(RIGHT), ruby(WRONG)],
                            tester=["VERDICT: FAIL", "VERDICT: PASS"])
    first, second = run(agents, task, lib, executors)
    assert first.verdicts == ("PASSED",) and not first.passed_generated
    assert second.verdicts == ("WRONG_ANSWER",) and second.passed_generated


def test_missing_verdict_fails_and_says_so(task, lib, executors):
    agents = ScriptedAgents(analyst=[ANALYSIS], coder=[ruby(RIGHT), ruby(RIGHT)],
                            tester=["Looks fine to me.", "VERDICT: PASS"])
    first, second = run(agents, task, lib, executors)
    assert not first.passed_generated and second.passed_generated
    assert sc.MISSING_VERDICT in agents.prompts["coder"][1][-1].content


def test_budget_respected_and_prompts_do_not_grow(task, lib, executors):
    programs = [f"puts gets.to_i + {10 * k}" for k in range(1, 4)]
    reviews = [f"Review number {k}: wrong.\nVERDICT: FAIL" for k in range(1, 4)]
    agents = ScriptedAgents(analyst=[ANALYSIS], coder=[ruby(p) for p in programs],
                            tester=reviews)
    attempts = run(agents, task, lib, executors, budget=3)
    assert [a.iteration for a in attempts] == [1, 2, 3]
    assert not any(a.passed_generated for a in attempts)
    assert agents.calls == ["analyst"] + ["coder", "tester"] * 3
    third = agents.prompts["coder"][2][-1].content
    assert programs[1] in third and "Review number 2" in third
    assert programs[0] not in third and "Review number 1" not in third


def test_unusable_coder_answer_skips_the_tester(task, lib, executors):
    agents = ScriptedAgents(analyst=[ANALYSIS], coder=["Multiply by 2.", ruby(RIGHT)],
                            tester=["VERDICT: PASS"])
    first, second = run(agents, task, lib, executors)
    assert agents.calls == ["analyst", "coder", "coder", "tester"]
    assert first.parse_status == "no_code_block" and first.report is None
    assert not first.passed_generated and second.passed_generated
    coder = agents.prompts["coder"][1][-1].content
    assert "no usable Ruby program (the answer has no fenced code block)" in coder
    assert "Buggy Ruby program" in coder  # no program of its own yet: the buggy one is shown


def test_only_the_sample_tests_run(task, lib, executors):
    agents = ScriptedAgents(analyst=[ANALYSIS], coder=[ruby(WRONG), ruby(RIGHT)],
                            tester=["VERDICT: FAIL", "VERDICT: PASS"])
    attempts = run(agents, task, lib, executors)
    assert len(attempts) == 2
    assert len([m for p in agents.llm.prompts for m in p]) == 10
    assert all(len(a.report.results) == 1 for a in attempts)  # only the one sample ran
