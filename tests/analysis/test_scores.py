import pytest

from ramp.analysis.scores import final_score, scores_table, status_by_iteration, task_scores

from .conftest import hidden_attempts, make_task

# Three tasks, K = 3, two problems:
#  a (P1): passes generated at t=1 but fails hidden -> strict 0, cumulative 0
#  b (P1): passes hidden at t=1, regresses at t=2, returns t=3 (fails) -> strict 0, cumulative 1
#  c (P2): passes hidden at t=2 and its generated tests there -> strict 1, cumulative 1
TASKS = [make_task("a", "P1"), make_task("b", "P1"), make_task("c", "P2")]
ROWS = [
    ("a", 1, True, False),
    ("b", 1, False, True), ("b", 2, False, False), ("b", 3, False, False),
    ("c", 1, False, False), ("c", 2, True, True),
]


@pytest.fixture
def tables():
    attempts = hidden_attempts(ROWS)
    status = status_by_iteration(attempts, TASKS, 3)
    per_task = task_scores(attempts, TASKS, 3).set_index("task_id")
    return status, per_task


def test_strict_and_cumulative_differ_as_constructed(tables):
    _, per_task = tables
    assert per_task["strict"].to_dict() == {"a": False, "b": False, "c": True}
    assert per_task["cumulative"].to_dict() == {"a": False, "b": True, "c": True}
    assert per_task.loc["b", "returned_iteration"] == 3
    assert per_task.loc["c", "returned_iteration"] == 2
    assert per_task.loc["b", "first_pass_iteration"] == 1
    assert per_task.loc["b", "early_stop_iteration"] == 1
    assert per_task.loc["a", "early_stop_iteration"] == 1


def test_curves_per_budget_show_the_regression(tables):
    status, _ = tables
    strict = status.groupby("iteration")["strict"].sum().tolist()
    cumulative = status.groupby("iteration")["cumulative"].sum().tolist()
    assert strict == [0, 1, 1, 1]       # b solved at 1, lost at 2; c solved at 2
    assert cumulative == [0, 1, 2, 2]
    b = status[status["task_id"] == "b"].set_index("iteration")["strict"].tolist()
    assert b == [False, True, False, False]
    # a stopped at t=1: later budgets carry its returned program, not a new attempt
    a = status[status["task_id"] == "a"].set_index("iteration")
    assert a["attempted"].tolist() == [False, True, False, False]


def test_scores_table_task_and_problem_scopes(tables):
    status, per_task = tables
    scores = scores_table(status, per_task.reset_index(), k_values=(1, 2), early_stopping=True)
    assert final_score(scores, "strict") == pytest.approx(1 / 3)
    assert final_score(scores, "cumulative") == pytest.approx(2 / 3)
    assert final_score(scores, "early_stop") == pytest.approx(2 / 3)
    # per problem: P1 has 0/2 strict, P2 has 1/1 -> mean 0.5; cumulative (1/2 + 1) / 2
    assert final_score(scores, "strict", "problem") == pytest.approx(0.5)
    assert final_score(scores, "cumulative", "problem") == pytest.approx(0.75)
    passk = scores[scores["metric"] == "pass@k"].set_index(["scope", "k"])
    # attempts: a 1 of... (n, c) = a (1, 0), b (3, 1), c (2, 1): pass@1 = mean(0, 1/3, 1/2)
    assert passk.loc[("attempts", 1), "value"] == pytest.approx((0 + 1 / 3 + 1 / 2) / 3)
    # pass@2 only for b and c: b 1 - C(2,2)/C(3,2) = 2/3; c 1 - 0 = 1
    assert passk.loc[("attempts", 2), "value"] == pytest.approx((2 / 3 + 1) / 2)
    assert passk.loc[("attempts", 2), "n"] == 2
    # problem scope: P1 (2 tasks, 0 strict), P2 (1 task, 1 strict)
    assert passk.loc[("problem", 1), "value"] == pytest.approx(0.5)
    assert passk.loc[("problem", 2), "value"] == pytest.approx(0.0)


def test_truncated_variant_score():
    tasks = [make_task("t", "P9", n_hidden=4, truncated=2)]
    attempts = hidden_attempts([("t", 1, False, False)], excl={("t", 1): True})
    per_task = task_scores(attempts, tasks, 1).set_index("task_id")
    assert not per_task.loc["t", "strict"]
    assert per_task.loc["t", "strict_excl_truncated"]
    assert per_task.loc["t", "n_truncated"] == 2


def test_task_without_attempts_scores_zero():
    per_task = task_scores(hidden_attempts([("a", 1, False, True)]),
                           [make_task("a", "P"), make_task("z", "P")], 2).set_index("task_id")
    assert not per_task.loc["z", "strict"] and not per_task.loc["z", "cumulative"]
    assert per_task.loc["z", "n_attempts"] == 0


def test_missing_column_is_named():
    bad = hidden_attempts(ROWS).drop(columns=["passed_generated"])
    with pytest.raises(ValueError, match="passed_generated"):
        status_by_iteration(bad, TASKS, 3)
