"""The LANTERN-style baseline with a scripted model and the REAL sandbox for Ruby and Python."""

from __future__ import annotations

import dataclasses

from ramp.methods import lantern, method
from ramp.methods.base import MethodContext
from ramp.tasks import TestCase
from ramp.variants import Variant
from tests.agents.scripted import ScriptedAgents, ruby

# The task (tests/agents/scripted.py): read n, print 2n; its buggy program prints 3n; one
# sample, 3 -> 6.
PY_BUGGY = "print(int(input()) * 3)"
PY_RIGHT = "print(int(input()) * 2)"  # not Ruby: `int` is no Ruby method, so only Python passes
PY_SYNTAX = "print(int(input()) *"
RB_WRONG = "puts gets.to_i * 3"
RB_RIGHT = "puts gets.to_i * 2"
HIDDEN = TestCase("424242\n", ("848484\n",), kind="hidden")


def py(code: str) -> str:
    return f"The factor must be 2.\n\n```python\n{code}\n```\n"


def run(agents, task, lib, executors, budget=3):
    ctx = MethodContext(llm=agents.llm, lib=lib, variant=Variant(name="lantern", method="lantern"),
                        executors=executors, budget=budget, seed=7)
    attempts = lantern.repair(task, ctx)
    for prompt in agents.llm.prompts:  # the hidden tests reach no prompt
        for message in prompt:
            assert "424242" not in message.content and "848484" not in message.content
    return attempts


def roles(a):
    return tuple(c.role for c in a.calls)


def test_registry_names_this_module():
    assert method("lantern") is lantern.repair


def test_accepted_at_iteration_1(task, lib, executors):
    agents = ScriptedAgents(translator=[py(PY_BUGGY)], repairer=[py(PY_RIGHT)],
                            back_translator=[ruby(RB_RIGHT)])
    (only,) = run(agents, task, lib, executors)
    assert agents.calls == ["translator", "repairer", "back_translator"]
    assert roles(only) == ("translator", "repairer", "programmer")
    assert only.iteration == 1 and only.passed_generated and only.verdicts == ("PASSED",)
    assert only.code == RB_RIGHT + "\n" and only.parse_status == "ok"
    # the buggy Ruby went to the translator, its translation to the repairer, the repair back
    assert RB_WRONG in agents.prompts["translator"][0][-1].content
    assert PY_BUGGY in agents.prompts["repairer"][0][-1].content
    assert "Read an integer n and print 2n." in agents.prompts["repairer"][0][-1].content
    assert PY_RIGHT in agents.prompts["back_translator"][0][-1].content
    # a person can follow it: the translation went in, the passing Python came out
    assert PY_BUGGY in only.reflection_in and "translated into Python" in only.reflection_in
    assert PY_RIGHT in only.next_reflection
    assert "It passes the 1 sample test(s)." in only.next_reflection
    assert "accepted" in only.next_reflection
    # every call of iteration t is sampled as code with seed + t
    assert {(p.seed, p.temperature) for _, p in agents.llm.seen} == {(8, 0.8)}


def test_fails_then_succeeds_with_the_python_failure_fed_back(task, lib, executors):
    agents = ScriptedAgents(translator=[py(PY_BUGGY)], repairer=[py(PY_BUGGY), py(PY_RIGHT)],
                            back_translator=[ruby(RB_WRONG), ruby(RB_RIGHT)])
    first, second = run(agents, task, lib, executors)
    assert agents.calls == ["translator", "repairer", "back_translator", "repairer",
                            "back_translator"]
    assert [a.passed_generated for a in (first, second)] == [False, True]
    assert first.verdicts == ("WRONG_ANSWER",) and "Actual output:\n9" in first.traces
    assert roles(second) == ("repairer", "programmer")
    # the Python run's raw failing test went to the next repair, with the program it failed
    feedback = agents.prompts["repairer"][1][-1].content
    assert "It fails the sample tests:" in feedback and PY_BUGGY in feedback
    assert "Expected output:\n6" in feedback and "Actual output:\n9" in feedback
    assert "Python program:\n```python\n" + PY_BUGGY in first.next_reflection
    assert second.reflection_in == first.next_reflection
    assert second.exec_seconds > 0


def test_python_passes_but_back_translation_fails(task, lib, executors):
    agents = ScriptedAgents(translator=[py(PY_BUGGY)], repairer=[py(PY_RIGHT)],
                            back_translator=[ruby(RB_WRONG), ruby(RB_RIGHT)])
    first, second = run(agents, task, lib, executors)
    # the passing Python is not repaired again: only its translation is retried
    assert agents.calls == ["translator", "repairer", "back_translator", "back_translator"]
    assert not first.passed_generated and first.verdicts == ("WRONG_ANSWER",)
    assert "It passes the 1 sample test(s)." in first.next_reflection
    assert "Its Ruby translation does not:" in first.next_reflection
    assert RB_WRONG in first.next_reflection
    retry = agents.prompts["back_translator"][1][-1].content
    assert PY_RIGHT in retry and "a previous Ruby translation did not" in retry
    assert RB_WRONG in retry and "Actual output:\n9" in retry
    assert roles(second) == ("programmer",) and second.passed_generated
    assert second.reflection_in == first.next_reflection and second.code == RB_RIGHT + "\n"


def test_budget_respected_and_unusable_answers_fed_back(task, lib, executors):
    agents = ScriptedAgents(
        translator=[py(PY_BUGGY)],
        repairer=["The bug is the factor.", py(PY_SYNTAX), py(PY_BUGGY)],
        back_translator=[ruby(RB_WRONG), ruby(RB_WRONG)],
    )
    attempts = run(agents, task, lib, executors, budget=3)
    assert [a.iteration for a in attempts] == [1, 2, 3]
    assert not any(a.passed_generated for a in attempts)
    assert agents.calls == ["translator", "repairer", "repairer", "back_translator",
                            "repairer", "back_translator"]
    # an answer without a program: no candidate, no back-translation, the same program again
    first = attempts[0]
    assert first.code == "" and first.parse_status == "no_code_block" and first.report is None
    assert roles(first) == ("translator", "repairer")
    again = agents.prompts["repairer"][1][-1].content
    assert "no usable Python program" in again and PY_BUGGY in again
    # the real Python check: a syntax error is reported as not compiling
    assert "does not compile" in agents.prompts["repairer"][2][-1].content
    assert "does not compile" in attempts[1].next_reflection


def test_budget_of_one_stops_after_one_iteration(task, lib, executors):
    agents = ScriptedAgents(translator=[py(PY_BUGGY)], repairer=[py(PY_RIGHT)],
                            back_translator=[ruby(RB_WRONG)])
    (only,) = run(agents, task, lib, executors, budget=1)
    assert not only.passed_generated and agents.calls.count("back_translator") == 1


def test_translation_without_a_program_repairs_from_the_ruby(task, lib, executors):
    agents = ScriptedAgents(translator=["I cannot translate this."], repairer=[py(PY_RIGHT)],
                            back_translator=[ruby(RB_RIGHT)])
    (only,) = run(agents, task, lib, executors)
    prompt = agents.prompts["repairer"][0][-1].content
    assert "```ruby\n" + RB_WRONG in prompt and "gave no usable program" in prompt
    assert only.passed_generated and "gave no usable program" in only.reflection_in


def test_without_sample_tests_nothing_is_accepted(task, lib, executors):
    agents = ScriptedAgents(translator=[py(PY_BUGGY)], repairer=[py(PY_RIGHT)] * 2,
                            back_translator=[ruby(RB_RIGHT)] * 2)
    attempts = run(agents, dataclasses.replace(task, samples=()), lib, executors, budget=2)
    assert [a.passed_generated for a in attempts] == [False, False]
    assert all(a.report is None for a in attempts)
    assert "no sample tests" in agents.prompts["repairer"][1][-1].content
