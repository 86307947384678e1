import pandas as pd
import pytest

from ramp.analysis.oracle import (
    category,
    check_tests_on_oracles,
    classify_run,
    oracle_programs,
    table3,
)
from ramp.analysis.scores import status_by_iteration

from .conftest import hidden_attempts, make_task


def test_the_four_cases_as_the_paper_defines_them():
    assert category(tests_pass_oracle=True, passed_hidden=True) == "TP"
    assert category(tests_pass_oracle=False, passed_hidden=True) == "FN"
    assert category(tests_pass_oracle=True, passed_hidden=False) == "FP"
    assert category(tests_pass_oracle=False, passed_hidden=False) == "TN"


TASKS = [make_task("a", "P"), make_task("b", "P"), make_task("c", "Q")]


def _runs():
    # model m, variant v: task a passes hidden at t=2 with "pass:all"; nothing passes on Q.
    attempts = pd.DataFrame([
        {"task_id": "a", "iteration": 1, "code": "pass:0"},
        {"task_id": "a", "iteration": 2, "code": "pass:all"},
        {"task_id": "b", "iteration": 1, "code": "pass:1"},
        {"task_id": "c", "iteration": 1, "code": "pass:2"},
    ])
    validated = hidden_attempts([("a", 1, False, False), ("a", 2, True, True),
                                 ("b", 1, True, False), ("c", 1, False, False)])
    # a second run holds a longer passing program for P: the shorter one must win
    other = pd.DataFrame([{"task_id": "b", "iteration": 1, "code": "pass:all  # longer"}])
    other_v = hidden_attempts([("b", 1, True, True)])
    return {("m", "v"): (attempts, validated), ("m", "w"): (other, other_v)}


def test_oracle_is_any_hidden_passing_program_chosen_deterministically():
    programs = oracle_programs(_runs(), TASKS).set_index("problem_id")
    assert programs.loc["P", "has_oracle"] and not programs.loc["Q", "has_oracle"]
    assert programs.loc["P", "code"] == "pass:all"
    assert programs.loc["P", "n_candidates"] == 2
    assert (programs.loc["P", "source_variant"], programs.loc["P", "source_iteration"]) == ("v", 2)


def test_classification_per_iteration(runner):
    runs = _runs()
    programs = oracle_programs(runs, TASKS)
    # a's generated test passes on P's oracle ("pass:all"); b has none; Q has no oracle.
    tests = pd.DataFrame([
        {"task_id": "a", "tests": [{"input": "0", "output": "0", "kind": "basic"}]},
        {"task_id": "b", "tests": []},
        {"task_id": "c", "tests": [{"input": "1", "output": "1", "kind": "edge"}]},
    ])
    checked = check_tests_on_oracles(tests, programs, TASKS, runner)
    assert len(runner.calls) == 1  # only a: b has no tests, c's problem has no oracle
    _, validated = runs[("m", "v")]
    status = status_by_iteration(validated, TASKS, 2)
    oracle = classify_run("m", "v", status, checked, programs)
    a = oracle[oracle["task_id"] == "a"].set_index("iteration")
    assert a["category"].tolist() == ["FP", "TP"]  # fails hidden at t=1, passes at t=2
    assert oracle[oracle["task_id"] == "b"]["excluded"].eq("no generated tests").all()
    assert oracle[oracle["task_id"] == "c"]["excluded"].eq("no oracle").all()
    # b stopped at t=1: its t=2 row carries the t=1 candidate
    assert oracle.set_index(["task_id", "iteration"]).loc[("b", 2), "carried"]
    t3 = table3(oracle).set_index("iteration")
    assert t3.loc[1, ["TP", "FN", "FP", "TN", "total"]].tolist() == [0, 0, 1, 0, 1]
    assert t3.loc[2, "TP"] == 1


def test_failing_generated_test_gives_fn_or_tn(runner):
    programs = pd.DataFrame([{"problem_id": "P", "has_oracle": True, "code": "pass:0"}])
    tests = pd.DataFrame([{"task_id": "a", "tests": [
        {"input": "0", "output": "0", "kind": "basic"},
        {"input": "5", "output": "wrong", "kind": "edge"}]}])
    checked = check_tests_on_oracles(tests, programs, [make_task("a", "P")], runner)
    assert checked.iloc[0]["n_passed"] == 1
    status = status_by_iteration(hidden_attempts([("a", 1, False, True), ("a", 2, False, False)]),
                                 [make_task("a", "P")], 2)
    oracle = classify_run("m", "v", status, checked, programs)
    assert oracle["category"].tolist() == ["FN", "TN"]
    assert not oracle["tests_pass_oracle"].any()
    with pytest.raises(KeyError):
        oracle.set_index("iteration").loc[0]
