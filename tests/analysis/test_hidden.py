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


def test_every_candidate_is_also_run_on_the_sample_tests(runner):
    tasks = [make_task("a", "P", n_hidden=3, n_samples=2), make_task("b", "Q", n_hidden=2)]
    attempts = attempts_frame([
        ("a", 1, "pass:s0", True), ("a", 2, "pass:s0,s1", False), ("a", 3, "", False),
        ("a", 4, "pass:s0,s1", False), ("b", 1, "pass:all", True),
    ])
    hidden, summary = validate_attempts(attempts, tasks, runner)
    s = summary.set_index(["task_id", "iteration"])
    assert s.loc[("a", 1), ["n_samples", "n_samples_passed"]].tolist() == [2, 1]
    # a@1 passes one sample of two; a@2 both (but no hidden test); a@3 has no code; a@4 is a@2.
    assert s.loc["a", "passed_samples"].tolist() == [False, True, False, True]
    assert not s.loc[("a", 2), "passed_hidden"] and s.loc[("a", 4), "reused"]
    # b's statement has no sample test: unknown, not failed.
    assert s.loc[("b", 1), "n_samples"] == 0 and pd.isna(s.loc[("b", 1), "passed_samples"])
    assert str(summary["passed_samples"].dtype) == "boolean"
    # Each program once on the 3 hidden tests, then once on all its samples (none for b).
    assert [c[:2] for c in runner.calls] == [("pass:s0", 3), ("pass:s0", 2), ("pass:s0,s1", 3),
                                             ("pass:s0,s1", 2), ("pass:all", 2)]
    assert set(hidden["test_index"]) == {0, 1, 2}


def test_a_journal_of_other_columns_is_started_over(tmp_path, runner):
    """A journal left by code that wrote no sample columns (its fingerprint: inputs and
    options only) is not mixed into the new table."""
    import json

    from ramp.analysis import stages
    from ramp.journal import fingerprint
    from ramp.runs import RunId
    from ramp.task_table import write_tasks

    tasks = tmp_path / "tasks.parquet"
    write_tasks([make_task("a", "P", n_samples=1)], tasks)
    attempts = tmp_path / "attempts.parquet"
    attempts_frame([("a", 1, "pass:all", True)]).to_parquet(attempts)
    out = tmp_path / "hidden_attempts.parquet"
    old_row = {"attempt": {"task_id": "a", "iteration": 1}, "tests": []}
    (tmp_path / "hidden_attempts.parquet.journal").write_text(
        json.dumps({"fingerprint": fingerprint([tasks, attempts],
                                               {"stop_at_first_failure": False})}) + "\n"
        + json.dumps({"unit": "a:1", "rows": [old_row]}) + "\n")
    summary = stages.score_hidden(RunId("s", "m", "v", "x"), tasks, attempts,
                                  tmp_path / "hidden.parquet", out, runner)
    assert summary[["passed_samples", "passed_hidden"]].iloc[0].tolist() == [True, True]
