"""Self-Planning and Few-Shot baselines: control flow with a scripted model and the real sandbox."""

from __future__ import annotations

import pytest

from ramp.methods import method
from ramp.methods.base import MethodContext, solve_tasks
from ramp.methods.frames import attempts_frame
from ramp.methods.ramp import iterate
from ramp.variants import Variant, variants_from_config
from tests.agents.scripted import ScriptedAgents, ruby

PLAN = "1. Read n.\n2. Print 2n, not 3n."
GOOD = ruby("puts gets.to_i * 2")
BAD = ruby("puts gets.to_i * 4")


def _ctx(agents, lib, executors, budget=3, **fields) -> MethodContext:
    variant = Variant(name="self_planning", method="self_planning", **fields)
    return MethodContext(agents.llm, lib, variant, executors, budget=budget, seed=7)


def test_plan_then_code_accepted_at_once(task, lib, executors):
    agents = ScriptedAgents(planner=[PLAN], programmer=[GOOD])
    attempts = method("self_planning")(task, _ctx(agents, lib, executors))
    assert agents.calls == ["planner", "programmer"]
    assert [a.iteration for a in attempts] == [1] and attempts[0].passed_generated
    # the plan reaches the programmer, the buggy code reaches the planner
    assert "Print 2n, not 3n." in agents.prompts["programmer"][0][-1].content
    assert "puts gets.to_i * 3" in agents.prompts["planner"][0][-1].content
    frame = attempts_frame(attempts)
    assert [c["role"] for c in frame.other_calls[0]] == ["planner"]
    assert frame.programmer_response[0] == GOOD


def test_replans_with_the_failing_sample_until_it_passes(task, lib, executors):
    agents = ScriptedAgents(planner=[PLAN, PLAN], programmer=[BAD, GOOD])
    attempts = method("self_planning")(task, _ctx(agents, lib, executors))
    assert [a.passed_generated for a in attempts] == [False, True]
    second_plan = agents.prompts["planner"][1][-1].content
    assert "puts gets.to_i * 4" in second_plan  # the previous candidate
    assert "Expected output:\n6" in second_plan and "Actual output:\n12" in second_plan
    # iteration t samples with seed + t
    seeds = [p.seed for _, p in agents.llm.seen]
    assert seeds == [8, 8, 9, 9]


def test_budget_is_respected(task, lib, executors):
    agents = ScriptedAgents(planner=[PLAN] * 5, programmer=[BAD] * 5)
    attempts = method("self_planning")(task, _ctx(agents, lib, executors, budget=2))
    assert [a.iteration for a in attempts] == [1, 2]
    assert not any(a.passed_generated for a in attempts)
    assert len(agents.calls) == 4


def test_solve_tasks_runs_every_task(task, lib, executors):
    agents = ScriptedAgents(planner=[PLAN, PLAN], programmer=[GOOD, BAD])
    other = type(task)(**{**task.__dict__, "task_id": "t2"})
    out = solve_tasks(method("self_planning"), [task, other], _ctx(agents, lib, executors,
                                                                     budget=1))
    assert [(a.task_id, a.passed_generated) for a in out] == [("t1", True), ("t2", False)]


def test_unknown_method_is_a_clear_error():
    with pytest.raises(ValueError, match="method must be one of"):
        Variant(name="x", method="magic")
    with pytest.raises(ValueError, match="unknown method 'magic'"):
        method("magic")


def test_few_shot_is_one_call_with_one_worked_example(task, lib, executors):
    config = {"variants": {"few_shot": {
        "programmer_style": "few_shot", "initial_reflection": False,
        "feedback_reflection": False, "test_generation": False, "max_iterations": 1}}}
    variant = variants_from_config(config)["few_shot"]
    from ramp.methods.ramp import OpenTask

    agents = ScriptedAgents(programmer=[GOOD])
    (attempt,) = iterate([OpenTask(task, (), "")], 1, budget=variant.budget(11), llm=agents.llm,
                         lib=lib, variant=variant, executors=executors, seed=0)
    prompt = agents.prompts["programmer"][0]
    assert [m.role for m in prompt] == ["system", "user", "assistant", "user"]
    assert "step by step" not in prompt[-1].content
    assert attempt.code.strip() == "puts gets.to_i * 2"
    assert variant.budget(11) == 1
