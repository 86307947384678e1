"""Every program a run wrote, on the hidden tests (ramp.analysis.candidates), on hand-made
RAMP+ attempts whose answers and selection records are known by construction."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ramp.analysis.candidates import candidate_programs, score_candidates
from ramp.analysis.hidden import validate_attempts
from ramp.analysis.verdict_cache import VerdictCache
from ramp.figures import tables
from ramp.figures.study import Method, Study

from .conftest import EchoRunner, make_task

TASKS = [make_task("a", "P", n_samples=1), make_task("b", "Q", n_samples=1)]


def answer(code: str) -> str:
    return f"Reasoning first.\n```ruby\n{code}\n```\nDone." if code else "No program, sorry."


def record(t: int, made: list[tuple[str, str]], groups: list[list[str]], chosen: str) -> str:
    """A selection record: ``made`` is (id, parse status) per candidate."""
    return json.dumps({
        "iteration": t, "pool": "all",
        "candidates": [{"id": i, "seed": 1000 * int(i.split(".")[1]) + t, "parse_status": s,
                        "edit": 1} for i, s in made],
        "groups": [{"members": g, "votes": len(g), "agreed": 0, "large_failures": 0,
                    "gated": True, "score": len(g), "edit": 1} for g in groups],
        "chosen": chosen})


def attempt(task: str, t: int, codes: list[str], rec: str, chosen_code: str) -> dict:
    return {"task_id": task, "iteration": t, "code": f"{chosen_code}\n", "parse_status": "ok",
            "passed_generated": False, "programmer_response": answer(codes[0]),
            "other_calls": [{"role": "test_design", "response": "```ruby\npass:all\n```"},
                            *({"role": "candidate", "response": answer(c)} for c in codes[1:])],
            "selection": rec}


# Task a: a right program (1.1) is written at iteration 1 but its group ranks second to the end;
# the method returns 2.0, which is wrong. Task b: the right program 1.0 is chosen and returned;
# its second candidate has no code block.
ATTEMPTS = pd.DataFrame([
    attempt("a", 1, ["pass:0", "pass:all"],
            record(1, [("1.0", "ok"), ("1.1", "ok")], [["1.0"], ["1.1"]], "1.0"), "pass:0"),
    attempt("a", 2, ["pass:s0,1", "pass:all"],
            record(2, [("2.0", "ok"), ("2.1", "ok")], [["2.0"], ["1.1", "2.1"], ["1.0"]], "2.0"),
            "pass:s0,1"),
    attempt("b", 1, ["pass:all", ""],
            record(1, [("1.0", "ok"), ("1.1", "no_code_block")], [["1.0"]], "1.0"), "pass:all"),
])


def test_candidates_are_parsed_back_from_the_answers_in_order():
    programs = candidate_programs(ATTEMPTS, TASKS).set_index(["task_id", "candidate"])
    assert list(programs.index) == [("a", "1.0"), ("a", "1.1"), ("a", "2.0"), ("a", "2.1"),
                                    ("b", "1.0"), ("b", "1.1")]
    assert programs.loc[("a", "1.1"), "code"] == "pass:all\n"
    assert programs.loc[("b", "1.1"), ["code", "parse_status"]].tolist() == ["",
                                                                            "no_code_block"]
    assert programs["returned"].tolist() == [False, False, True, False, True, False]
    assert programs["chosen"].tolist() == [True, False, True, False, True, False]
    assert programs.loc[("a", "1.1"), "final_rank"] == 2
    assert programs.loc[("a", "1.0"), "final_rank"] == 3
    assert programs.loc[("a", "1.0"), "seed"] == 1


def test_a_parse_that_disagrees_with_the_record_is_an_error():
    changed = ATTEMPTS.copy()
    changed.loc[2, "selection"] = record(1, [("1.0", "ok"), ("1.1", "ok")], [["1.0"]], "1.0")
    with pytest.raises(ValueError, match=r"task b candidate 1.1: parsed as 'no_code_block'"):
        candidate_programs(changed, TASKS)


def test_a_missing_answer_is_an_error():
    short = ATTEMPTS.copy()
    short.at[0, "other_calls"] = []
    with pytest.raises(ValueError, match="task a iteration 1: the selection lists 2"):
        candidate_programs(short, TASKS)


def test_attempts_without_selection_records_are_the_candidates():
    plain = ATTEMPTS.drop(columns=["selection", "other_calls"])
    programs = candidate_programs(plain, TASKS)
    assert programs["candidate"].tolist() == ["1", "2", "1"]
    assert programs["returned"].tolist() == [False, True, True]
    assert programs["final_rank"].isna().all()


def test_a_method_that_goes_on_after_a_pass_returns_its_first_pass():
    """ChatRepair asks for alternatives after a plausible patch: the returned program is the
    first attempt that passed its own tests (as the strict score counts), not the last."""
    plain = ATTEMPTS.drop(columns=["selection", "other_calls"])
    plain.loc[0, "passed_generated"] = True  # task a passes at iteration 1, goes on to 2
    assert candidate_programs(plain, TASKS)["returned"].tolist() == [True, False, True]


def scored(runner: EchoRunner, cache: VerdictCache | None = None,
           tasks=TASKS) -> pd.DataFrame:
    _, hidden = validate_attempts(ATTEMPTS, tasks, EchoRunner())
    return score_candidates(candidate_programs(ATTEMPTS, tasks), tasks, ATTEMPTS, hidden,
                            runner, cache=cache)


def test_only_programs_no_attempt_had_run_on_the_hidden_tests():
    runner = EchoRunner()
    out = scored(runner).set_index(["task_id", "candidate"])
    # 1.1 and 2.1 of task a are one program: it runs once (hidden tests, then the sample).
    assert [c[0] for c in runner.calls] == ["pass:all\n", "pass:all\n"]
    assert out.loc[("a", "1.1"), "passed_hidden"] and not out.loc[("a", "1.1"), "reused"]
    assert out.loc[("a", "2.1"), "reused"] and out.loc[("a", "2.1"), "passed_hidden"]
    assert out.loc[("a", "2.0"), "n_hidden_passed"] == 1  # copied from hidden_attempts
    assert not out.loc[("b", "1.1"), "has_code"] and not out.loc[("b", "1.1"), "passed_hidden"]
    assert out.loc[("a", "2.0"), "passed_samples"] and not out.loc[("a", "1.0"), "passed_samples"]


def test_a_program_another_run_scored_is_read_from_the_verdict_cache(tmp_path):
    cache = VerdictCache(tmp_path / "verdicts", salt="ruby")
    first = scored(EchoRunner(), cache)
    again = EchoRunner()
    assert scored(again, cache).equals(first) and again.calls == []  # same table, nothing ran
    # Another salt (runtime, options) or another hidden test set is another key: it runs.
    other = EchoRunner()
    scored(other, VerdictCache(tmp_path / "verdicts", salt="cpp"))
    assert [c[0] for c in other.calls] == ["pass:all\n", "pass:all\n"]
    changed = [make_task("a", "P", n_samples=1, n_hidden=4), TASKS[1]]
    rerun = EchoRunner()
    out = scored(rerun, cache, changed).set_index(["task_id", "candidate"])
    assert out.loc[("a", "1.1"), "n_hidden"] == 4
    assert [c[0] for c in rerun.calls] == ["pass:all\n", "pass:all\n"]


def candidates_study(frame: pd.DataFrame) -> Study:
    """A study of one RAMP+ run holding only its candidates frame."""
    empty = pd.DataFrame()
    return Study(subset="s", methods=(Method("m", "ramp_plus"),), scores=empty,
                 task_scores=empty, transitions=empty, costs=empty, hidden_attempts=empty,
                 oracle=empty, oracle_programs=empty, candidates=frame)


def test_the_table_separates_generation_from_selection():
    frame = scored(EchoRunner()).assign(model="m", variant="ramp_plus")
    study = candidates_study(frame)
    row = tables.candidates(study).iloc[0]
    assert row["programs"] == 5 and row["right programs"] == 3
    assert row["tasks with a right program"] == 2 and row["ceiling %"] == 100.0
    assert row["returned right"] == 1 and row["strict %"] == 50.0
    assert row["right, not returned"] == 1 and row["of them: right outranked"] == 1
    assert row["of them: right failed a sample"] == 0
    assert row["of them: right in the chosen group"] == 0
    assert tables.candidates(Study(**{**study.__dict__, "candidates": pd.DataFrame()})).empty


def test_a_right_program_in_the_chosen_group_is_told_apart_from_an_outranked_one():
    frame = scored(EchoRunner()).assign(model="m", variant="ramp_plus")
    # Task a's right program printed what the returned one printed on every generated input.
    frame.loc[(frame["task_id"] == "a") & frame["passed_hidden"], "final_rank"] = 1
    study = candidates_study(frame)
    row = tables.candidates(study).iloc[0]
    assert row["right, not returned"] == 1
    assert row["of them: right outranked"] == 0
    assert row["of them: right in the chosen group"] == 1
