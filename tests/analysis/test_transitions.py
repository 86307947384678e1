import pandas as pd

from ramp.analysis.scores import task_scores
from ramp.analysis.transitions import matrix, transitions

from .conftest import hidden_attempts, make_task


def test_transition_counts_both_conventions_and_programs():
    tasks = [make_task("a", "P", n_hidden=2, outcome="RUNTIME_ERROR"),
             make_task("b", "Q", n_hidden=3, outcome="WRONG_ANSWER")]
    # a: passes hidden at t=1 (first_passing = 1), returns t=2 which fails test 1
    # b: one attempt with no per-test rows (no code) -> NOT_RUN
    attempts = hidden_attempts([("a", 1, False, True), ("a", 2, False, False),
                                ("b", 1, False, False)])
    per_task = task_scores(attempts, tasks, 2)
    hidden = pd.DataFrame([
        {"task_id": "a", "iteration": 1, "test_index": 0, "verdict": "PASSED"},
        {"task_id": "a", "iteration": 1, "test_index": 1, "verdict": "PASSED"},
        {"task_id": "a", "iteration": 2, "test_index": 0, "verdict": "PASSED"},
        {"task_id": "a", "iteration": 2, "test_index": 1, "verdict": "TIME_LIMIT_EXCEEDED"},
    ])
    bugs = pd.DataFrame([
        {"task_id": "a", "test_index": 0, "verdict": "PASSED"},
        {"task_id": "a", "test_index": 1, "verdict": "RUNTIME_ERROR"},
        {"task_id": "b", "test_index": 0, "verdict": "WRONG_ANSWER"},
    ])
    counts = transitions(hidden, per_task, tasks, bugs)
    first = matrix(counts, "recorded", "first_passing")
    assert first.loc["RUNTIME_ERROR", "PASSED"] == 2
    assert first.loc["WRONG_ANSWER", "NOT_RUN"] == 3
    returned = matrix(counts, "recorded", "returned")
    assert returned.loc["RUNTIME_ERROR", "TIME_LIMIT_EXCEEDED"] == 1
    assert returned.loc["RUNTIME_ERROR", "PASSED"] == 1
    measured = matrix(counts, "measured", "returned")
    assert measured.loc["PASSED", "PASSED"] == 1
    assert measured.loc["RUNTIME_ERROR", "TIME_LIMIT_EXCEEDED"] == 1
    assert measured.loc["NOT_RUN", "NOT_RUN"] == 2  # b's tests 1, 2 have no buggy-run row
    # every hidden test is counted once per (convention, program)
    assert counts.groupby(["convention", "program"])["tests"].sum().eq(5).all()
