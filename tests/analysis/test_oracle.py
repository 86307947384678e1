import pandas as pd
import pytest

from ramp.analysis.oracle import (
    category,
    check_tests_on_oracles,
    classify_by_generated,
    classify_run,
    oracle_programs,
    runs_with_generated_tests,
    table3,
)
from ramp.analysis.references import Reference, check_references
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
    checked = check_tests_on_oracles(tests, programs, TASKS, lambda _: runner)
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
    checked = check_tests_on_oracles(tests, programs, [make_task("a", "P")],
                                     lambda _: runner)
    assert checked.iloc[0]["n_passed"] == 1
    status = status_by_iteration(hidden_attempts([("a", 1, False, True), ("a", 2, False, False)]),
                                 [make_task("a", "P")], 2)
    oracle = classify_run("m", "v", status, checked, programs)
    assert oracle["category"].tolist() == ["FN", "TN"]
    assert not oracle["tests_pass_oracle"].any()
    with pytest.raises(KeyError):
        oracle.set_index("iteration").loc[0]


def _checked(references, tasks, runner):
    return check_references(references, tasks, lambda _: runner)


def test_a_reference_is_the_oracle_and_a_problem_without_one_falls_back(runner):
    # P has a reference passing its hidden tests; Q has none, so its found program is used.
    tasks = TASKS
    runs = _runs()
    runs[("m", "v")] = (pd.concat([runs[("m", "v")][0], pd.DataFrame(
        [{"task_id": "c", "iteration": 2, "code": "pass:all"}])], ignore_index=True),
        pd.concat([runs[("m", "v")][1], hidden_attempts([("c", 2, True, True)])],
                  ignore_index=True))
    checks = _checked({"P": Reference("P", "ruby", "pass:0,1,2")}, tasks, runner)
    programs = oracle_programs(runs, tasks, checks).set_index("problem_id")
    assert programs.loc["P", ["source", "language", "reference", "code"]].tolist() == [
        "reference", "ruby", "used", "pass:0,1,2"]
    assert programs.loc["P", "source_task"] == ""  # no run's program: the reference
    assert programs.loc["Q", ["source", "reference", "code", "source_task"]].tolist() == [
        "found", "none", "pass:all", "c"]


def test_a_reference_failing_a_hidden_test_is_refused_and_never_classifies(runner):
    tasks = [make_task("a", "P"), make_task("c", "Q")]
    # P's reference fails hidden test 1 and no run found a program: P has no oracle.
    checks = _checked({"P": Reference("P", "ruby", "pass:0,2")}, tasks, runner)
    assert not checks["P"].accepted
    assert checks["P"].note == ("problem P: the reference fails hidden test 1 (WRONG_ANSWER); "
                                "refused as its oracle")
    programs = oracle_programs({}, tasks, checks).set_index("problem_id")
    assert not programs.loc["P", "has_oracle"]
    assert programs.loc["P", ["source", "reference"]].tolist() == ["", "refused"]
    assert "hidden test 1" in programs.loc["P", "reference_note"]
    # With a program found in a run, the refused reference's problem falls back to it.
    runs = _runs()
    programs = oracle_programs(runs, TASKS, checks).set_index("problem_id")
    assert programs.loc["P", ["source", "reference", "code"]].tolist() == [
        "found", "refused", "pass:all"]


def test_a_reference_need_not_pass_a_cut_input(runner):
    task = make_task("a", "P", n_hidden=3, truncated=1)  # test 2's input was cut off
    check = check_references({"P": Reference("P", "ruby", "pass:0,1")}, [task],
                              lambda _: runner)["P"]
    assert check.accepted and check.checked == 2
    assert runner.calls == [("pass:0,1", 2, True)]  # complete tests only, once per problem


def test_oracle_tests_run_in_the_oracles_language(runner):
    # A Ruby reference is the oracle of a C++ study's tests: it runs on Ruby's executor.
    used = []

    def runner_for(language):
        used.append(language)
        return runner

    programs = pd.DataFrame([{"problem_id": "P", "has_oracle": True, "code": "pass:0",
                              "language": "ruby"}])
    tests = pd.DataFrame([{"task_id": "a", "tests": [
        {"input": "0", "output": "0", "kind": "basic"}]}])
    check_tests_on_oracles(tests, programs, [make_task("a", "P")], runner_for)
    assert used == ["ruby"]


def test_the_codes_reading_classifies_every_task_at_every_iteration():
    frame = hidden_attempts([
        ("a", 1, False, True),   # generated fail, hidden pass: FN
        ("a", 2, True, False),   # generated pass, hidden fail: FP (and a stops here)
        ("b", 1, False, False),  # TN
        ("b", 2, False, False),
        ("b", 3, True, True),    # TP
    ]).assign(model="m", variant="v", problem_id="P")
    code = classify_by_generated(frame, 3).set_index(["task_id", "iteration"])
    assert code["category"].to_dict() == {
        ("a", 1): "FN", ("a", 2): "FP", ("a", 3): "FP",
        ("b", 1): "TN", ("b", 2): "TN", ("b", 3): "TP"}
    assert code["carried"].to_dict()[("a", 3)] and not code["carried"].to_dict()[("b", 3)]
    counts = table3(code.reset_index()).set_index("iteration")
    assert (counts["total"] == 2).all()  # every task, every iteration: no oracle needed
    assert counts.loc[1, ["FN", "FP", "TN", "TP"]].tolist() == [1, 0, 1, 0]


def test_the_two_readings_differ_on_the_same_run(runner):
    # a's generated test expects a wrong output: the candidate passing it is "generated pass"
    # (code: FP, it fails hidden), but the oracle fails the test (text: TN).
    tasks = [make_task("a", "P")]
    validated = hidden_attempts([("a", 1, True, False)])
    code = classify_by_generated(validated.assign(model="m", variant="v", problem_id="P"), 1)
    assert code["category"].tolist() == ["FP"]
    # The oracle "pass:0" gets test "5" wrong in EchoRunner's terms: its expected output is off.
    programs = pd.DataFrame([{"problem_id": "P", "has_oracle": True, "code": "pass:0"}])
    tests = pd.DataFrame([{"task_id": "a", "tests": [
        {"input": "5", "output": "wrong", "kind": "basic"}]}])
    checked = check_tests_on_oracles(tests, programs, tasks, lambda _: runner)
    text = classify_run("m", "v", status_by_iteration(validated, tasks, 1), checked, programs)
    assert text["category"].tolist() == ["TN"]


def test_runs_with_generated_tests_are_read_from_the_oracle_frame():
    oracle = pd.DataFrame({"model": ["m", "m", "m"], "variant": ["ramp", "ramp", "zero_shot"],
                           "n_tests": [0, 3, 0]})
    assert runs_with_generated_tests(oracle) == [("m", "ramp")]
    assert runs_with_generated_tests(pd.DataFrame()) == []
