"""ChatRepair's conversation with a scripted model and the REAL sandboxed Ruby executor."""

from __future__ import annotations

import dataclasses

from ramp.llm.base import ChatMessage
from ramp.methods import chatrepair
from ramp.methods.base import MethodContext
from ramp.variants import Variant
from tests.agents.scripted import ScriptedAgents, ruby

RIGHT = "puts gets.to_i * 2"
RIGHT2 = "puts gets.to_i << 1"
RIGHT3 = "puts 2 * gets.to_i"
RIGHT4 = "n = gets.to_i\nputs n + n"
WRONG = "puts gets.to_i + 1"  # 3 -> 4, not 6


def run(agents, task, lib, executors, *, budget=5, alternatives=False):
    variant = Variant(name="chatrepair", method="chatrepair", alternatives=alternatives)
    ctx = MethodContext(agents.llm, lib, variant, executors, budget, seed=7)
    return chatrepair.repair(task, ctx)


def test_first_turn_shows_the_buggy_programs_failing_sample(task, lib, executors):
    agents = ScriptedAgents(chatrepair=[ruby(RIGHT)])
    attempts = run(agents, task, lib, executors)
    assert [(a.iteration, a.passed_generated) for a in attempts] == [(1, True)]
    (prompt,) = agents.prompts["chatrepair"]
    assert [m.role for m in prompt] == ["system", "user"]
    first = prompt[-1].content
    assert "puts gets.to_i * 3" in first
    # the buggy program really ran: 3 * 3 = 9 where 6 was expected
    assert "Test 1 (sample): WRONG_ANSWER" in first and "Actual output:\n9" in first
    assert attempts[0].reflection_in.startswith("Test 1 (sample): WRONG_ANSWER")
    assert attempts[0].verdicts == ("PASSED",) and attempts[0].next_reflection == ""
    assert [c.role for c in attempts[0].calls] == ["programmer"]
    assert agents.llm.seen[0][1].seed == 8  # ctx.seed + t


def test_buggy_program_passing_the_samples_is_said_so(task, lib, executors):
    lucky = dataclasses.replace(task, buggy_code="n = gets.to_i\nputs n == 0 ? 1 : n * 2\n")
    agents = ScriptedAgents(chatrepair=[ruby(RIGHT)])
    run(agents, lucky, lib, executors)
    first = agents.prompts["chatrepair"][0][-1].content
    # What the method knows, and no more: wrong somewhere, not how (not "wrong results").
    assert "It passes the sample tests, but it is known to be incorrect" in first
    assert "wrong results" not in first
    assert "It fails the following test" not in first


def test_raw_failures_continue_the_conversation_until_a_plausible_patch(task, lib, executors):
    agents = ScriptedAgents(chatrepair=[
        "The bug is the factor.\n\n" + ruby(WRONG), "I would use 2 instead.", ruby(RIGHT),
    ])
    attempts = run(agents, task, lib, executors, budget=5, alternatives=False)
    # stops at the first plausible patch when alternatives are off
    assert [a.passed_generated for a in attempts] == [False, False, True]
    assert attempts[0].verdicts == ("WRONG_ANSWER",)
    assert attempts[1].parse_status == "no_code_block" and attempts[1].report is None
    second, third = agents.prompts["chatrepair"][1:]
    assert [m.role for m in second] == ["system", "user", "assistant", "user"]
    assert second[:2] == agents.prompts["chatrepair"][0]
    # the earlier answer is kept as the program that ran; the feedback is the raw failing test
    assert second[2].content == f"```ruby\n{WRONG}\n```"
    ask = second[3].content
    assert ask.startswith("The fixed version is still not correct.\nIt fails the following test:")
    assert "Expected output:\n6" in ask and "Actual output:\n4" in ask
    assert attempts[1].reflection_in == attempts[0].next_reflection
    # an answer without code is kept as its text; the feedback says why nothing ran
    assert third[4].content == "I would use 2 instead."
    assert "It fails the following test" not in third[5].content
    assert "no usable program (the answer has no fenced code block)" in third[5].content


def test_history_keeps_the_first_prompt_and_the_last_two_exchanges(task, lib, executors):
    wrongs = [f"puts gets.to_i + {10 * k}" for k in range(1, 7)]
    agents = ScriptedAgents(chatrepair=[ruby(w) for w in wrongs])
    attempts = run(agents, task, lib, executors, budget=6)
    assert len(attempts) == 6 and not any(a.passed_generated for a in attempts)
    assert [a.iteration for a in attempts] == [1, 2, 3, 4, 5, 6]
    assert [len(p) for p in agents.prompts["chatrepair"]] == [2, 4, 6, 6, 6, 6]
    last = agents.prompts["chatrepair"][-1]
    assert last[:2] == agents.prompts["chatrepair"][0]
    assert [m.content for m in last if m.role == "assistant"] == [
        f"```ruby\n{wrongs[3]}\n```", f"```ruby\n{wrongs[4]}\n```"]
    assert "Actual output:\n53" in last[-1].content  # 3 + 50, the answer of turn 5


def test_conversation_is_pure_and_bounded():
    first = (ChatMessage("system", "s"), ChatMessage("user", "u"))
    pairs = [(ChatMessage("assistant", f"a{i}"), ChatMessage("user", f"f{i}")) for i in range(4)]
    assert chatrepair.conversation(first, []) == first
    assert [m.content for m in chatrepair.conversation(first, pairs)] == ["s", "u", "a2", "f2",
                                                                          "a3", "f3"]


def test_alternatives_ask_for_different_plausible_patches(task, lib, executors):
    agents = ScriptedAgents(chatrepair=[
        ruby(RIGHT), ruby(RIGHT2), ruby(WRONG), ruby("\n" + RIGHT), ruby(RIGHT3), ruby(RIGHT4),
    ])
    attempts = run(agents, task, lib, executors, budget=6, alternatives=True)
    assert [a.passed_generated for a in attempts] == [True, True, False, True, True, True]
    prompts = agents.prompts["chatrepair"]
    # every alternative request is a fresh prompt: the bug and the plausible patches found
    assert all(len(p) == 2 for p in prompts)
    second = prompts[1][-1].content
    assert "Actual output:\n9" in second  # still shows the bug's failing test
    assert f"Patch 1:\n```ruby\n{RIGHT}\n```" in second and "Patch 2" not in second
    assert "alternative fixed program" in second
    third = prompts[2][-1].content
    assert f"Patch 1:\n```ruby\n{RIGHT}\n```" in third and f"```ruby\n{RIGHT2}\n```" in third
    # a failing alternative is not fed back; a repeated patch is not listed twice
    assert prompts[3] == prompts[2] and prompts[4] == prompts[2]
    # at most the last two plausible patches are listed
    sixth = prompts[5][-1].content
    assert f"```ruby\n{RIGHT2}\n```" in sixth and f"```ruby\n{RIGHT3}\n```" in sixth
    assert f"```ruby\n{RIGHT}\n```" not in sixth
    assert attempts[2].reflection_in.startswith("Asked for an alternative to 2 plausible")
    assert attempts[2].verdicts == ("WRONG_ANSWER",)


def test_budget_is_respected_with_alternatives(task, lib, executors):
    agents = ScriptedAgents(chatrepair=[ruby(WRONG), ruby(RIGHT), ruby(RIGHT2), ruby(RIGHT3)])
    attempts = run(agents, task, lib, executors, budget=3, alternatives=True)
    assert [a.iteration for a in attempts] == [1, 2, 3]
    assert len(agents.calls) == 3 and len(agents.queues["chatrepair"]) == 1


def test_only_the_sample_tests_run(task, lib, executors):
    agents = ScriptedAgents(chatrepair=[ruby(WRONG), ruby(RIGHT), ruby(RIGHT2)])
    attempts = run(agents, task, lib, executors, budget=3, alternatives=True)
    assert len(attempts) == 3
    assert all(len(a.report.results) == 1 for a in attempts)  # only the one sample ran
