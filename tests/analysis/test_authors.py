"""The authors' released outcomes: the parser on literal lines, the join and the counts."""

import pandas as pd
import pytest

from ramp.analysis.authors import agreement, parse_outcomes, side_by_side

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
                                  "strict", "cumulative"]
    assert both.set_index("task_id").loc["t2"].tolist()[2:] == [False, True, True]
    assert agreement(both["authors_solved"], both["cumulative"]) == {
        "both solved": 2, "only theirs": 0, "only ours": 1, "neither": 0}
    assert agreement(both["authors_solved"], both["strict"]) == {
        "both solved": 0, "only theirs": 2, "only ours": 1, "neither": 0}
