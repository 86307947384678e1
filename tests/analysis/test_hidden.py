import pandas as pd

from ramp.analysis.hidden import clean_first, validate_attempts

from .conftest import make_task


def attempts_frame(rows):
    return pd.DataFrame([{"task_id": t, "iteration": i, "code": c, "passed_generated": g}
                         for t, i, c, g in rows])


def test_every_attempt_scored_and_empty_code_not_run(runner):
    tasks = [make_task("a", "P1", n_hidden=3), make_task("b", "P1", n_hidden=3)]
    attempts = attempts_frame([
        ("a", 1, "pass:0", False), ("a", 2, "pass:all", True),
        ("b", 1, "", False), ("b", 2, "pass:all", False),
    ])
    hidden, summary = validate_attempts(attempts, tasks, runner)
    s = summary.set_index(["task_id", "iteration"])
    assert s.loc[("a", 1), "n_hidden_passed"] == 1
    assert not s.loc[("a", 1), "passed_hidden"]
    assert s.loc[("a", 1), "first_failing_verdict"] == "WRONG_ANSWER"
    assert s.loc[("a", 2), "passed_hidden"]
    assert s.loc[("b", 1), "first_failing_verdict"] == "NO_CODE"
    assert s.loc[("b", 1), "n_hidden_run"] == 0
    # b's second attempt is the same program as a's for the same problem: run once
    assert s.loc[("b", 2), "reused"] and s.loc[("b", 2), "passed_hidden"]
    assert [c[0] for c in runner.calls] == ["pass:0", "pass:all"]
    assert len(hidden) == 3 * 3  # three attempts with code x three tests
    assert hidden["verdict"].value_counts()["PASSED"] == 7


def test_truncated_tests_run_last_and_excluded_score(runner):
    task = make_task("t", "P", n_hidden=4, truncated=2)  # tests 2 and 3 are truncated
    assert clean_first(task.hidden_tests) == [0, 1, 2, 3]
    attempts = attempts_frame([("t", 1, "pass:0,1", False)])
    hidden, summary = validate_attempts(attempts, [task], runner, stop_at_first_failure=True)
    row = summary.iloc[0]
    assert not row["passed_hidden"]
    assert row["passed_hidden_excluding_truncated"]
    assert row["n_hidden_run"] == 3  # stopped at the first truncated failure
    assert runner.calls[-1][2] is True
    assert sorted(hidden["test_index"]) == [0, 1, 2]


def test_test_indexes_map_back_when_truncated_come_first(runner):
    # Truncated flags on the first tests: the runner sees them last, rows keep the task's order.
    task = make_task("t", "P", n_hidden=3, truncated=0)
    tests = tuple(t.__class__(t.input, t.outputs, t.kind, truncated=(i == 0))
                  for i, t in enumerate(task.hidden_tests))
    task = task.__class__(**{**task.__dict__, "hidden_tests": tests})
    hidden, summary = validate_attempts(attempts_frame([("t", 1, "pass:1,2", False)]), [task],
                                        runner)
    by_index = hidden.set_index("test_index")
    assert by_index.loc[0, "verdict"] == "WRONG_ANSWER" and by_index.loc[0, "truncated"]
    assert by_index.loc[1, "verdict"] == "PASSED"
    assert summary.iloc[0]["passed_hidden_excluding_truncated"]


def test_unknown_task_is_a_clear_error(runner):
    import pytest
    with pytest.raises(ValueError, match="not in the task table"):
        validate_attempts(attempts_frame([("zzz", 1, "x", False)]), [make_task("a", "P")], runner)
