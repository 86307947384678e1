"""The hidden-test feedback variants (the Discussion's upper bound, and ChatRepair and LANTERN as
the authors ran them): their checks run the hidden tests, and only theirs do."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from ramp import task_table
from ramp.hidden_feedback import SOURCE, HiddenFeedback, for_variant
from ramp.methods import chatrepair
from ramp.methods.base import MethodContext, feedback_tests
from ramp.methods.ramp import run_loop
from ramp.tasks import Task, TestCase
from ramp.variants import Variant, variants_from_config
from tests.agents.scripted import ScriptedAgents, ruby

RIGHT = "puts gets.to_i * 2"
# Right on the sample (3 -> 6) and on small inputs, wrong on the hidden test's large one.
SMALL_ONLY = "n = gets.to_i\nputs n > 100 ? n : n * 2"
HIDDEN = (TestCase("500\n", ("1000\n",), "hidden"), TestCase("7\n", ("14\n",), "hidden"),
          TestCase("12", ("24\n",), "hidden", truncated=True))


def context(agents, lib, executors, variant, hidden=None, budget=3) -> MethodContext:
    return MethodContext(llm=agents.llm, lib=lib, variant=variant, executors=executors,
                         budget=budget, hidden=hidden)


def test_hidden_feedback_drops_the_truncated_tests(task):
    hidden = HiddenFeedback.of_tasks([Task(task, HIDDEN)])
    assert hidden.of(task) == HIDDEN[:2]
    with pytest.raises(KeyError, match="no hidden tests for task t9"):
        hidden.of(dataclasses.replace(task, task_id="t9"))


def test_oracle_ramp_runs_the_hidden_tests_instead_of_a_test_designer(task, lib, executors):
    """No Test Designer call; the candidate that passes the samples but not the hidden tests is
    fed back with the hidden test's trace, and the loop stops once every hidden test passes."""
    agents = ScriptedAgents(reflection=["E0"], programmer=[ruby(SMALL_ONLY), ruby(RIGHT)],
                            feedback=["Large inputs are not doubled."])
    variant = Variant(name="oracle_feedback", hidden_feedback=True)
    result = run_loop(task, context(agents, lib, executors, variant,
                                    HiddenFeedback.of_tasks([Task(task, HIDDEN)])))
    assert "test_design" not in agents.calls
    assert result.tests.source == SOURCE and result.tests.tests == HIDDEN[:2]
    first, second = result.attempts
    assert not first.passed_generated and "Input:\n500" in first.traces
    assert "Input:\n500" in agents.prompts["feedback"][0][-1].content
    assert second.passed_generated and second.verdicts == ("PASSED", "PASSED")


def test_chatrepair_with_hidden_feedback_checks_and_stops_on_the_hidden_tests(task, lib,
                                                                              executors):
    agents = ScriptedAgents(chatrepair=[ruby(SMALL_ONLY), ruby(RIGHT), ruby(RIGHT)])
    variant = Variant(name="chatrepair_hidden", method="chatrepair", hidden_feedback=True)
    ctx = context(agents, lib, executors, variant, HiddenFeedback.of_tasks([Task(task, HIDDEN)]),
                  budget=5)
    attempts = chatrepair.repair(task, ctx)
    # The buggy program's first failing hidden test opens the conversation.
    assert "Input:\n500" in agents.prompts["chatrepair"][0][-1].content
    assert [a.passed_generated for a in attempts] == [False, True]  # no alternatives asked
    assert "Input:\n500" in attempts[0].next_reflection


def test_without_the_mark_a_method_checks_on_the_samples_only(task, lib, executors):
    ctx = context(ScriptedAgents(), lib, executors, Variant(method="chatrepair"))
    assert feedback_tests(task, ctx) == task.samples


def test_only_the_methods_that_can_use_it_take_the_mark():
    with pytest.raises(ValueError, match="hidden_feedback is for the methods ramp, chatrepair"):
        Variant(name="x", method="self_planning", hidden_feedback=True)


def test_no_configured_variant_but_the_marked_ones_reads_the_hidden_tests(task, tmp_path):
    """Every variant of every shipped config: the stages build the hidden tests for a variant
    only when it is marked, and every marked one is labelled as such by its name."""
    path = tmp_path / "tasks.parquet"
    task_table.write_tasks([Task(task, HIDDEN, "WRONG_ANSWER")], path)
    marked = set()
    for path_ in sorted((Path(__file__).parents[2] / "config").glob("*.yaml")):
        config = yaml.safe_load(path_.read_text(encoding="utf-8"))
        for name, variant in variants_from_config(config).items():
            hidden = for_variant(variant.hidden_feedback, path)
            if variant.hidden_feedback:
                marked.add(name)
                assert hidden is not None and hidden.of(task) == HIDDEN[:2]
            else:
                assert hidden is None, name
    assert marked == {"oracle_feedback", "chatrepair_hidden", "lantern_hidden"}
