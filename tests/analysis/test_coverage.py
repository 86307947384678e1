"""Coverage (ramp.analysis.coverage) on literal frames: pass@k per task and problem, the curve
by draws and by iterations, and the tokens each spent."""

import pandas as pd
import pytest

from ramp.analysis import coverage as cov

PROBLEMS = {"a": "P", "b": "P", "c": "Q"}


def _hidden(rights: dict[str, list[bool]]) -> pd.DataFrame:
    return pd.DataFrame([{"task_id": t, "iteration": i, "passed_hidden": ok}
                         for t, oks in rights.items() for i, ok in enumerate(oks, 1)])


def test_pass_at_k_per_task_and_per_problem() -> None:
    units = cov.draw_units(_hidden({"a": [False, True, False, False], "b": [False] * 4,
                                    "c": [True] * 4}), PROBLEMS, model="m", method="d")
    task = units[units.level == "task"].set_index(["unit", "k"])["pass_at_k"]
    assert task[("a", 1)] == pytest.approx(0.25) and task[("a", 2)] == pytest.approx(0.5)
    assert task[("b", 4)] == 0.0 and task[("c", 1)] == 1.0
    problem = units[units.level == "problem"].set_index(["unit", "k"])
    assert problem.loc[("P", 1), "pass_at_k"] == pytest.approx(0.125)
    assert problem.loc[("P", 1), ["n", "right"]].tolist() == [8, 1]
    assert sorted(units.k.unique()) == [1, 2, 3, 4]


def test_a_task_without_draws_is_an_error_naming_it() -> None:
    with pytest.raises(ValueError, match="no draw of task 'c'"):
        cov.draw_units(_hidden({"a": [True], "b": [False]}), PROBLEMS, model="m", method="d")


def test_the_draws_curve_sums_the_tasks_and_charges_k_draws_of_tokens() -> None:
    units = cov.draw_units(_hidden({"a": [False, True], "b": [False, False], "c": [True, True]}),
                           PROBLEMS, model="m", method="d")
    draws = pd.DataFrame({"task_id": ["a", "a", "b", "b", "c", "c"],
                          "programmer_prompt_tokens": [100] * 6,
                          "programmer_completion_tokens": [20, 40, 30, 30, 0, 60]})
    curve = cov.draw_curve(units, draws).set_index("k")
    assert curve.loc[1, "covered"] == pytest.approx(0.5 + 0 + 1)
    assert curve.loc[2, "covered"] == pytest.approx(2.0)
    assert curve.loc[1, "tokens_per_task"] == pytest.approx(130)
    assert curve.loc[2, "tokens_per_task"] == pytest.approx(260)
    assert curve.loc[2, "pass_at_k"] == pytest.approx(2 / 3)


def test_the_iterations_curve_counts_right_attempts_and_every_calls_tokens() -> None:
    # a: right at iteration 2 (its RAMP-like loop then stopped); b: never right, 3 iterations;
    # c: right at 1. Setup (e0 and tests) cost 50 a task; b's iteration 2 had a baseline's
    # planner call besides.
    attempts = pd.DataFrame({
        "task_id": ["a", "a", "b", "b", "b", "c"], "iteration": [1, 2, 1, 2, 3, 1],
        "programmer_prompt_tokens": [10] * 6, "programmer_completion_tokens": [0] * 6,
        "feedback_prompt_tokens": [5, 0, 5, 5, 0, 0],
        "feedback_completion_tokens": [0] * 6,
        "other_calls": [[], [], [], [{"prompt_tokens": 7, "completion_tokens": 3}], [], []],
    })
    validated = _hidden({"a": [False, True], "b": [False] * 3, "c": [True]})
    setup = pd.Series({"a": 50, "b": 50, "c": 50})
    curve = cov.iteration_curve(["a", "b", "c"], attempts, validated, setup, model="m",
                                method="ramp", iterations=3).set_index("k")
    assert curve["covered"].tolist() == [1.0, 2.0, 2.0]
    assert curve.loc[1, "tokens_per_task"] == pytest.approx((65 + 65 + 60) / 3)
    assert curve.loc[3, "tokens_per_task"] == pytest.approx((75 + 100 + 60) / 3)
    assert curve.loc[3, "pass_at_k"] == pytest.approx(2 / 3)


def test_setup_tokens_add_the_reflection_and_the_test_design() -> None:
    reflections = pd.DataFrame({"task_id": ["a", "b"], "reflection_prompt_tokens": [10, 0],
                                "reflection_completion_tokens": [5, 0]})
    tests = pd.DataFrame({"task_id": ["a", "b"], "test_design_prompt_tokens": [100, 200],
                          "test_design_completion_tokens": [1, 2]})
    assert cov.setup_tokens(reflections, tests).to_dict() == {"a": 116, "b": 202}
