"""The authors' released outcomes: the parser on literal lines, the join and the counts."""

import pandas as pd
import pytest

from ramp.analysis.authors import (
    agreement,
    agreement_pairs,
    authors_flags,
    our_flags,
    parse_outcomes,
    side_by_side,
    trajectories,
    trajectory,
)

LINES = "\n".join([
    '{"bug_code_uid": "t1", "apr_id": "x", "src_uid": "W", "difficulty": 800.0, '
    '"is_solved": true, "solved_iteration": 10, "final_unit_ok": true, "success_count": 1}',
    '{"bug_code_uid": "t2", "src_uid": "W", "difficulty": 800.0, "is_solved": false, '
    '"solved_iteration": null}',
    "",
    '{"bug_code_uid": "t3", "is_solved": true}',
    '{"bug_code_uid": "t9", "src_uid": "Z", "difficulty": 1500, "is_solved": false}',
])


def test_parse_keeps_ids_outcomes_and_the_optional_fields():
    frame = parse_outcomes(LINES)
    assert list(frame["task_id"]) == ["t1", "t2", "t3", "t9"]
    assert list(frame["authors_solved"]) == [True, False, True, False]
    assert frame.loc[0, "problem_id"] == "W" and pd.isna(frame.loc[2, "problem_id"])
    assert frame.loc[0, "difficulty"] == 800 and pd.isna(frame.loc[2, "difficulty"])
    assert parse_outcomes("").empty


@pytest.mark.parametrize("line, message", [
    ('{"bug_code_uid": "t1", "is_solved": "yes"}', "boolean is_solved"),
    ('{"is_solved": true}', "string bug_code_uid"),
    ('{"bug_code_uid": "t1", "is_solved": tru', "not JSON"),
])
def test_a_malformed_line_is_named(line, message):
    with pytest.raises(ValueError, match=f"file.jsonl:2: .*{message}"):
        parse_outcomes('{"bug_code_uid": "t0", "is_solved": true}\n' + line, "file.jsonl")


def test_a_task_listed_twice_is_an_error():
    with pytest.raises(ValueError, match="'t1' listed twice"):
        parse_outcomes('{"bug_code_uid": "t1", "is_solved": true}\n'
                       '{"bug_code_uid": "t1", "is_solved": false}')


def test_side_by_side_keeps_the_shared_tasks_grouped_by_problem():
    ours = pd.DataFrame({
        "task_id": ["t3", "t1", "t2", "t5"], "problem_id": ["V", "W", "W", "Y"],
        "difficulty": pd.array([900, 800, 800, 800], dtype="Int64"),
        "strict": [False, False, True, True], "cumulative": [True, True, True, True],
        "n_attempts": [1, 2, 3, 4]})
    both = side_by_side(parse_outcomes(LINES), ours)
    # t9 only theirs, t5 only ours: left out; easiest first, a problem's tasks together.
    assert list(both["task_id"]) == ["t1", "t2", "t3"]
    assert list(both.columns) == ["task_id", "problem_id", "difficulty", "authors_solved",
                                  "authors_final", "strict", "cumulative"]
    t2 = both.set_index("task_id").loc["t2"]
    assert [t2["authors_solved"], t2["strict"], t2["cumulative"]] == [False, True, True]
    # t1 records its final candidate; t2 and t3 do not.
    assert list(both["authors_final"].astype(object).fillna("?")) == [True, "?", "?"]
    assert agreement(both["authors_solved"], both["cumulative"]) == {
        "both solved": 2, "only theirs": 0, "only ours": 1, "neither": 0}
    assert agreement(both["authors_solved"], both["strict"]) == {
        "both solved": 0, "only theirs": 2, "only ours": 1, "neither": 0}


ITERATIONS = "\n".join([
    # Right at the first candidate, wrong in the middle, right again at the last (3 written).
    '{"bug_code_uid": "r", "is_solved": true, "final_unit_ok": true, "implementations": 3, '
    '"generated_pass_by_iteration": [false, false, false], '
    '"hidden_pass_by_iteration": [true, false, true]}',
    # Ended early: its generated tests accepted a wrong program at the second candidate.
    '{"bug_code_uid": "e", "is_solved": false, "final_unit_ok": false, "implementations": 2, '
    '"generated_pass_by_iteration": [false, true], "hidden_pass_by_iteration": [false, false]}',
    '{"bug_code_uid": "old", "is_solved": true}',
])


def test_parse_keeps_the_per_iteration_record():
    frame = parse_outcomes(ITERATIONS).set_index("task_id")
    assert frame.loc["r", "authors_hidden"] == [True, False, True]
    assert bool(frame.loc["r", "authors_final"]) and frame.loc["e", "authors_candidates"] == 2
    assert pd.isna(frame.loc["old", "authors_final"]) and frame.loc["old", "authors_hidden"] is None
    # Only the tasks that record their iterations have flags.
    assert authors_flags(frame.reset_index()) == {
        "r": ([False, False, False], [True, False, True]), "e": ([False, True], [False, False])}


def test_the_per_iteration_record_survives_parquet(tmp_path):
    parse_outcomes(ITERATIONS).to_parquet(tmp_path / "a.parquet")
    back = pd.read_parquet(tmp_path / "a.parquet")
    assert authors_flags(back) == authors_flags(parse_outcomes(ITERATIONS))


@pytest.mark.parametrize("line, message", [
    ('{"bug_code_uid": "t", "is_solved": true, "hidden_pass_by_iteration": [1, 0]}',
     "hidden_pass_by_iteration must be a list of booleans"),
    ('{"bug_code_uid": "t", "is_solved": true, "hidden_pass_by_iteration": [true], '
     '"generated_pass_by_iteration": []}', "unequal length"),
])
def test_a_malformed_per_iteration_record_is_named(line, message):
    with pytest.raises(ValueError, match=f"f:1: .*{message}"):
        parse_outcomes(line, "f")


def test_trajectory_counts_right_and_wrong_candidates_the_tests_accepted():
    assert trajectory([False, False, False], [True, False, True]) == {
        "candidates": 3, "first_right": 1, "right_accepted": 0, "right_rejected": 2,
        "wrong_accepted": 0, "final_right": True}
    assert trajectory([False, True], [False, False]) == {
        "candidates": 2, "first_right": None, "right_accepted": 0, "right_rejected": 0,
        "wrong_accepted": 1, "final_right": False}
    assert trajectory([], [])["final_right"] is None
    with pytest.raises(ValueError):
        trajectory([True], [True, False])


def test_our_flags_follow_the_iterations_and_trajectories_tabulate_them():
    attempts = pd.DataFrame({"task_id": ["x", "x", "y"], "iteration": [2, 1, 1],
                             "passed_generated": [True, None, False],
                             "passed_hidden": [True, False, False]})
    flags = our_flags(attempts)
    # x's attempts in iteration order; a missing verdict of its own tests is a rejection.
    assert flags == {"x": ([False, True], [False, True]), "y": ([False], [False])}
    frame = trajectories(flags).set_index("task_id")
    assert frame.loc["x", "first_right"] == 2 and frame.loc["x", "right_accepted"] == 1
    assert pd.isna(frame.loc["y", "first_right"]) and not frame.loc["y", "final_right"]


def test_our_strict_is_compared_with_their_final_candidate_when_recorded():
    ours = pd.DataFrame({"task_id": ["r", "e"], "problem_id": ["P", "P"],
                         "difficulty": pd.array([800, 800], dtype="Int64"),
                         "strict": [False, False], "cumulative": [True, False]})
    pairs = agreement_pairs(side_by_side(parse_outcomes(ITERATIONS), ours))
    assert [(ours_name, theirs_name) for ours_name, theirs_name, *_ in pairs] == [
        ("cumulative", "is_solved"), ("strict", "final candidate")]
    # A file without final_unit_ok: their is_solved stands in.
    pairs = agreement_pairs(side_by_side(parse_outcomes(LINES), ours.assign(task_id=["t1", "t2"])))
    assert pairs[1][1] == "is_solved"
