"""Baselines run task by task; with a batching backend their tasks run side by side and their
calls reach the model in batches (BatchingLLM), with the same answers as one by one."""

from __future__ import annotations

import dataclasses
import threading

from ramp.llm import FakeLLM, SamplingParams, messages
from ramp.llm.batching import BatchingLLM
from ramp.methods import method
from ramp.methods.base import MethodContext, solve_tasks
from ramp.methods.frames import attempts_frame
from ramp.variants import Variant
from tests.agents.scripted import role_of, ruby

PLAN = "1. Read n.\n2. Print 2n."


def echo(prompt) -> str:
    return prompt[-1].content.upper()


def call_together(llm: BatchingLLM, requests: list[tuple[str, SamplingParams]]) -> list[str]:
    """Each request from its own thread, all joined as participants; the answers in order (a
    call that raised gives "error: MESSAGE")."""
    answers: list[str] = [""] * len(requests)

    def one(i: int, text: str, params: SamplingParams) -> None:
        try:
            (c,) = llm.complete([messages(("user", text))], params)
            answers[i] = c.text
        except RuntimeError as e:
            answers[i] = f"error: {e}"
        finally:
            llm.leave()

    threads = [threading.Thread(target=one, args=(i, t, p)) for i, (t, p) in
               enumerate(requests)]
    for _ in threads:
        llm.join()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return answers


def test_calls_of_waiting_threads_go_to_the_model_as_one_batch() -> None:
    inner = FakeLLM(respond=echo)
    llm = BatchingLLM(inner, max_batch=8, wait_s=10.0)  # all 4 wait: no timeout needed
    answers = call_together(llm, [(f"q{i}", SamplingParams()) for i in range(4)])
    assert answers == ["Q0", "Q1", "Q2", "Q3"]
    assert llm.batches == [4] and inner.batches == 1


def test_batches_keep_each_prompt_s_parameters_and_at_most_max_batch_prompts() -> None:
    inner = FakeLLM(respond=echo)
    llm = BatchingLLM(inner, max_batch=2, wait_s=10.0)
    requests = [(f"a{i}", SamplingParams(seed=1)) for i in range(3)]
    requests += [(f"b{i}", SamplingParams(seed=2)) for i in range(2)]
    answers = call_together(llm, requests)
    assert answers == ["A0", "A1", "A2", "B0", "B1"]
    assert sum(llm.batches) == 5 and max(llm.batches) <= 2
    for prompt, params in inner.seen:
        assert params.seed == {"A": 1, "B": 2}[echo(prompt)[0]]


def test_a_call_of_several_prompts_keeps_them_together_and_in_order() -> None:
    inner = FakeLLM(respond=echo)
    llm = BatchingLLM(inner, max_batch=4, wait_s=0.05)
    llm.join()
    prompts = [messages(("user", f"c{k}")) for k in range(3)]
    seeds = [SamplingParams(seed=k) for k in range(3)]
    assert [c.text for c in llm.complete(prompts, seeds)] == ["C0", "C1", "C2"]
    assert llm.batches == [3] and [p.seed for _, p in inner.seen] == [0, 1, 2]


def test_a_lone_caller_waits_no_longer_than_wait_s() -> None:
    llm = BatchingLLM(FakeLLM(respond=echo), max_batch=4, wait_s=0.05)
    llm.join()
    llm.join()  # a second participant that never calls (it is running tests, say)
    (c,) = llm.complete([messages(("user", "alone"))], SamplingParams())
    assert c.text == "ALONE" and llm.batches == [1]


def test_a_failing_batch_fails_every_caller_in_it() -> None:
    def boom(prompt):
        raise RuntimeError("model died")

    llm = BatchingLLM(FakeLLM(respond=boom), max_batch=4, wait_s=10.0)
    answers = call_together(llm, [("x", SamplingParams())] * 3)
    assert answers == ["error: model died"] * 3


def test_tasks_side_by_side_give_the_attempts_of_one_by_one_in_fewer_model_calls(
    task, lib, executors
):
    def respond(prompt) -> str:
        # a plan, then always a wrong candidate: every task runs its whole budget
        return PLAN if role_of(prompt) == "planner" else ruby("puts gets.to_i * 5")

    tasks = [dataclasses.replace(task, task_id=f"t{i}") for i in range(4)]
    variant = Variant(name="self_planning", method="self_planning")

    def run(concurrency: int) -> tuple[list, FakeLLM]:
        llm = FakeLLM(respond=respond)
        ctx = MethodContext(llm, lib, variant, executors, budget=3, seed=7)
        return solve_tasks(method("self_planning"), tasks, ctx, concurrency=concurrency), llm

    one_by_one, llm1 = run(1)
    side_by_side, llm4 = run(4)
    columns = ["task_id", "iteration", "code", "passed_generated", "programmer_prompt"]
    assert attempts_frame(side_by_side)[columns].equals(attempts_frame(one_by_one)[columns])
    assert [a.iteration for a in side_by_side if a.task_id == "t0"] == [1, 2, 3]
    assert len(llm4.seen) == len(llm1.seen) == 4 * 3 * 2  # tasks x iterations x (plan, code)
    assert llm1.batches == 24 and llm4.batches <= 12  # at least pairs of tasks together
