"""RAMP's loop with a scripted model and the REAL Ruby executor."""

from __future__ import annotations

import itertools

import pytest

from ramp.methods.base import Executors, MethodContext
from ramp.methods.ramp import repair, run_loop
from ramp.variants import Variant
from tests.agents.scripted import TESTS_OK, ScriptedAgents, ruby

RIGHT = "puts gets.to_i * 2"
WRONG = "puts gets.to_i * 3"


def context(agents, lib, executors: Executors, variant=None, budget=3) -> MethodContext:
    return MethodContext(llm=agents.llm, lib=lib, variant=variant or Variant(),
                         executors=executors, budget=budget)


def run(agents, task, lib, executors, variant=None, budget=3):
    return run_loop(task, context(agents, lib, executors, variant, budget))


def test_the_method_contract_records_e0_and_the_test_design_with_attempt_1(task, lib, executors):
    agents = ScriptedAgents(reflection=["Wrong factor."], test_design=[TESTS_OK],
                            programmer=[ruby(WRONG), ruby(RIGHT)], feedback=["Use 2."])
    first, second = repair(task, context(agents, lib, executors))
    assert [c.role for c in first.calls] == ["programmer", "feedback", "reflection",
                                             "test_design"]
    assert first.reflection_in == "Wrong factor." and second.reflection_in == "Use 2."
    assert [c.role for c in second.calls] == ["programmer"] and second.passed_generated


def test_solved_at_iteration_1(task, lib, executors):
    agents = ScriptedAgents(reflection=["It multiplies by 3."], test_design=[TESTS_OK],
                            programmer=[ruby(RIGHT)])
    result = run(agents, task, lib, executors)
    assert [a.iteration for a in result.attempts] == [1]
    assert result.final.passed_generated and result.final.verdicts == ("PASSED", "PASSED")
    assert agents.calls == ["reflection", "test_design", "programmer"]
    # e0 reached the Programmer
    assert "It multiplies by 3." in agents.prompts["programmer"][0][-1].content


def test_solved_at_iteration_3_after_feedback(task, lib, executors):
    agents = ScriptedAgents(
        reflection=["Wrong factor."], test_design=[TESTS_OK],
        programmer=[ruby(WRONG), ruby("puts gets.to_i +"), ruby(RIGHT)],
        feedback=["Still multiplies by 3: use 2.", "It does not compile: finish the expression."],
    )
    result = run(agents, task, lib, executors)
    assert [a.passed_generated for a in result.attempts] == [False, False, True]
    first, second, third = result.attempts
    assert first.verdicts[0] == "WRONG_ANSWER"
    assert second.report.compile_error and set(second.verdicts) == {"COMPILATION_ERROR"}
    # the feedback prompt carried the failing test: its input, expected and actual output
    fb = agents.prompts["feedback"][0][-1].content
    assert "Test 1 (basic): WRONG_ANSWER" in fb and "Expected output:\n4" in fb
    assert "Actual output:\n6" in fb
    assert "does not compile" in agents.prompts["feedback"][1][-1].content
    # the next Programmer call got the reflection on that failure
    assert "Still multiplies by 3: use 2." in agents.prompts["programmer"][1][-1].content
    assert third.reflection_in == "It does not compile: finish the expression."


def test_budget_exhausted(task, lib, executors):
    agents = ScriptedAgents(reflection=["r"], test_design=[TESTS_OK],
                            programmer=[ruby(WRONG)] * 2, feedback=["f1"])
    result = run(agents, task, lib, executors, budget=2)
    assert len(result.attempts) == 2 and not result.final.passed_generated
    # no reflection after the last iteration: nothing would read it
    assert agents.calls.count("feedback") == 1 and result.final.next_reflection == ""


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        ("The bug is the factor; use 2.", "no_code_block"),
        ("```python\nprint(int(input()) * 2)\n```", "wrong_language"),
        ("", "empty"),
    ],
)
def test_unusable_answers_are_fed_back(task, lib, executors, answer, status):
    agents = ScriptedAgents(reflection=["r"], test_design=[TESTS_OK],
                            programmer=[answer, ruby(RIGHT)], feedback=["write Ruby"])
    result = run(agents, task, lib, executors)
    first = result.attempts[0]
    assert first.parse_status == status and first.report is None and not first.passed_generated
    assert "no usable Ruby program" in agents.prompts["feedback"][0][-1].content
    assert result.final.passed_generated and len(result.attempts) == 2


def test_malformed_generated_tests_fall_back_to_samples(task, lib, executors):
    agents = ScriptedAgents(reflection=["r"], test_design=["I am not sure what to test."],
                            programmer=[ruby(RIGHT)])
    result = run(agents, task, lib, executors)
    assert result.tests.source == "samples" and result.tests.dropped
    assert [t.kind for t in result.tests.tests] == ["sample"]
    assert result.final.passed_generated


def test_large_test_generator_runs_in_sandbox(task, lib, executors):
    design = TESTS_OK + "### Test 3 (large)\nGenerator:\n```ruby\nputs 500000000\n```\n" \
             "Output:\n```\n1000000000\n```\n"
    agents = ScriptedAgents(reflection=["r"], test_design=[design], programmer=[ruby(RIGHT)])
    result = run(agents, task, lib, executors)
    large = result.tests.tests[2]
    assert large.kind == "large" and large.input == "500000000\n"
    assert result.final.verdicts == ("PASSED",) * 3


ABLATIONS = {
    "ramp": (Variant(), ["reflection", "test_design", "programmer", "feedback", "programmer"]),
    "no_testgen": (Variant(test_generation=False),
                   ["reflection", "programmer", "feedback", "programmer"]),
    "no_self_reflection": (Variant(feedback_reflection=False),
                           ["reflection", "test_design", "programmer", "programmer"]),
    "no_first_reflection": (Variant(initial_reflection=False),
                            ["test_design", "programmer", "feedback", "programmer"]),
    "no_reflection": (Variant(initial_reflection=False, feedback_reflection=False),
                      ["test_design", "programmer", "programmer"]),
}


@pytest.mark.parametrize("name", sorted(ABLATIONS))
def test_each_ablation_changes_which_agents_are_called(task, lib, executors, name):
    variant, expected = ABLATIONS[name]
    agents = ScriptedAgents(reflection=["r"], test_design=[TESTS_OK],
                            programmer=[ruby(WRONG), ruby(RIGHT)], feedback=["f"])
    result = run(agents, task, lib, executors, variant, budget=2)
    assert agents.calls == expected
    if name == "no_self_reflection":
        # the raw traces replace the reflection
        assert "WRONG_ANSWER" in agents.prompts["programmer"][1][-1].content
    if name == "no_testgen":
        assert all(a.report is None for a in result.attempts)


def test_prompt_components_follow_the_variant(task, lib):
    from ramp.agents import programmer

    full = programmer.prompt(lib, task, Variant(include_samples=True), ["e"])[-1].content
    bare = programmer.prompt(lib, task, Variant(include_io_spec=False, include_limits=False),
                             ["e"])[-1].content
    assert "Limits: 1.0 seconds, 256 megabytes." in full and "Sample input 1" in full
    assert "One integer n" in full and "One integer n" not in bare and "Limits:" not in bare
    scot = programmer.prompt(lib, task, Variant(programmer_style="scot"), ["e"])
    assert "sequence, branch, loop" in scot[-1].content


def test_failing_generator_drops_its_test(task, lib, executors):
    design = TESTS_OK + "### Test 3 (large)\nGenerator:\n```ruby\nraise 'boom'\n```\n" \
             "Output:\n```\n1\n```\n"
    agents = ScriptedAgents(reflection=["r"], test_design=[design], programmer=[ruby(RIGHT)])
    result = run(agents, task, lib, executors)
    assert len(result.tests.tests) == 2
    (reason,) = result.tests.dropped
    assert reason.startswith("test 3: its input generator failed: RUNTIME_ERROR")
    assert "boom" in reason




def _two_failures(task, lib, executors, variant):
    agents = ScriptedAgents(reflection=["E0: multiplies by 3."], test_design=[TESTS_OK],
                            programmer=[ruby(WRONG), ruby("puts 1"), ruby(RIGHT)],
                            feedback=["E1: still times 3.", "E2: prints a constant."])
    run(agents, task, lib, executors, variant, budget=3)
    return agents


def test_the_programmer_sees_every_reflection_and_its_previous_candidate(task, lib, executors):
    agents = _two_failures(task, lib, executors, Variant())
    second = agents.prompts["programmer"][1][-1].content
    assert "E0: multiplies by 3." in second and "E1: still times 3." in second
    assert second.index("E0: multiplies") < second.index("E1: still")
    assert f"Your previous attempt:\n```ruby\n{WRONG}\n```" in second
    assert "It failed these tests:\nTest 1 (basic): WRONG_ANSWER" in second
    third = agents.prompts["programmer"][2][-1].content
    assert all(e in third for e in ("E0:", "E1:", "E2:"))
    assert third.count("Your previous attempt:\n```ruby\nputs 1\n```") == 1  # the latest only
    # the buggy program and the reflections come before the previous candidate (fixed first)
    assert second.index("Buggy Ruby program") < second.index("Analysis 1") < second.index(
        "Your previous attempt")


def test_a_task_s_next_programmer_prompt_extends_its_last_one(task, lib, executors):
    """What a task's prompt says before its previous candidate is the same text, grown: a
    prefix cache (ramp.llm.prefix_cache) reuses it."""
    agents = _two_failures(task, lib, executors, Variant())
    prompts = [p[-1].content for p in agents.prompts["programmer"]]
    for before, after in itertools.pairwise(prompts):
        fixed = before.split("\n\nYour previous attempt:")[0].split("\n\nLet's think")[0]
        assert after.startswith(fixed)


def test_the_feedback_integrator_sees_the_paper_s_context_alone(task, lib, executors):
    """Step 4, e_t+1 = R_f(C, d, tau_t): the problem, the buggy program, the current candidate
    and its traces; no earlier reflection."""
    agents = _two_failures(task, lib, executors, Variant())
    first, second = (p[-1].content for p in agents.prompts["feedback"])
    for prompt in (first, second):
        assert "Earlier analysis" not in prompt and "E0:" not in prompt
        assert "WRONG_ANSWER" in prompt and "Latest attempted fix" in prompt
    assert "E1:" not in second


def test_the_history_switch_shows_every_earlier_reflection(task, lib, executors):
    agents = _two_failures(task, lib, executors, Variant(feedback_history=True))
    first, second = (p[-1].content for p in agents.prompts["feedback"])
    assert "Earlier analysis 1:\nE0: multiplies by 3." in first
    assert "Earlier analysis 1:\nE0: multiplies" in second
    assert "Earlier analysis 2:\nE1: still times 3." in second


def test_the_formula_literal_context_shows_the_latest_reflection_only(task, lib, executors):
    agents = _two_failures(task, lib, executors, Variant(programmer_context="latest"))
    second = agents.prompts["programmer"][1][-1].content
    assert "E1: still times 3." in second and "E0:" not in second
    assert "previous attempt" not in second and "WRONG_ANSWER" not in second


def test_without_self_reflection_the_traces_come_with_their_candidate(task, lib, executors):
    agents = ScriptedAgents(reflection=["E0"], test_design=[TESTS_OK],
                            programmer=[ruby(WRONG), ruby(RIGHT)])
    (first, second) = run(agents, task, lib, executors, Variant(feedback_reflection=False),
                          budget=2).attempts
    prompt = agents.prompts["programmer"][1][-1].content
    assert f"Your previous attempt:\n```ruby\n{WRONG}\n```\n\nIt failed these tests:" in prompt
    assert first.next_reflection == "" and second.reflection_in == ""


@pytest.mark.parametrize("switch", [{"include_io_spec": False}, {"include_limits": False},
                                    {"include_samples": True}])
def test_table4_switches_change_the_programmer_s_prompt_only(task, lib, executors, switch):
    plain = _two_failures(task, lib, executors, Variant())
    ablated = _two_failures(task, lib, executors, Variant(**switch))
    for role in ("reflection", "test_design", "feedback"):
        assert ablated.prompts[role] == plain.prompts[role], role
    assert ablated.prompts["programmer"] != plain.prompts["programmer"]


def test_the_workflow_stages_give_the_prompts_of_the_loop(task, lib, executors):
    """Iterations run as stages (state through Parquet) see what the one-task loop sees."""
    from ramp.methods.frames import (
        attempts_frame,
        first_open_tasks,
        next_open_tasks,
        reflections_frame,
        tests_frame,
    )
    from ramp.methods.ramp import design_tests, initial_reflections, iterate

    looped = _two_failures(task, lib, executors, Variant())
    staged = ScriptedAgents(reflection=["E0: multiplies by 3."], test_design=[TESTS_OK],
                            programmer=[ruby(WRONG), ruby("puts 1"), ruby(RIGHT)],
                            feedback=["E1: still times 3.", "E2: prints a constant."])
    kw = {"llm": staged.llm, "lib": lib, "variant": Variant(), "seed": 0}
    ruby_ex = executors.get("ruby")
    reflections = reflections_frame(initial_reflections([task], **kw))
    tests = tests_frame(design_tests([task], executor=ruby_ex, **kw))
    state = first_open_tasks([task], reflections, tests)
    for t in (1, 2, 3):
        frame = attempts_frame(iterate(state, t, budget=3, executors=executors, **kw))
        state = next_open_tasks([task], frame, tests)
    assert staged.prompts == looped.prompts
