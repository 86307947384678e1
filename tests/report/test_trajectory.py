"""Trajectories from a run's tables, and their pages: literal frames, real HTML."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pandas as pd
import pytest

from ramp.methods import frames
from ramp.methods.records import Attempt, Call, Reflection, TestDesign
from ramp.report.pages import (
    INDEX,
    index_row,
    read_table,
    table_page,
    trajectory_page,
    write_trajectory_pages,
)
from ramp.report.trajectory import DiffLine, build_trajectories, candidate_diff
from ramp.runs import RunId
from ramp.tasks import Problem, TestCase

RUN = RunId("default", "qwen2.5-coder-0.5b", "ramp", "2")
BUGGY = "n = gets.to_i\nputs n + n + 1\n"
FIXED = "n = gets.to_i\nputs n + n\n"


SAMPLE = TestCase("3\n", ("6",), "sample")


def problem(task_id: str = "t-wrong") -> Problem:
    return Problem(task_id=task_id, problem_id="p-double", description="Print <b>twice</b> n.",
                   input_spec="One integer n.", output_spec="Print 2n.", notes="",
                   samples=(SAMPLE,), time_limit_s=1.0, memory_mb=256, tags=("math",),
                   difficulty=800, buggy_code=BUGGY)


def attempt(t: int, code: str, passed: bool, reflection_in: str, next_reflection: str = "",
            calls=()) -> Attempt:
    return Attempt(task_id="t-wrong", iteration=t, reflection_in=reflection_in, code=code,
                   parse_status="ok" if code else "no_code",
                   parse_detail="" if code else "no code block", report=None,
                   traces="" if passed else "Input: 3\nExpected: 6\nGot: 7",
                   passed_generated=passed, next_reflection=next_reflection,
                   exec_seconds=0.1, calls=tuple(calls))


def hidden_rows(rows: list[tuple[str, int, bool]]) -> pd.DataFrame:
    return pd.DataFrame([{
        "task_id": task, "iteration": t, "passed_hidden": ok, "n_hidden": 3,
        "n_hidden_passed": 3 if ok else 1, "first_failing_verdict": "" if ok else "WRONG_ANSWER",
        "n_samples": 1, "n_samples_passed": int(ok), "passed_samples": ok,
    } for task, t, ok in rows])


def run_tables(verdicts: list[list[str]]) -> dict[str, pd.DataFrame]:
    """A two-iteration RAMP run on one task: iteration 1 fails its two generated tests,
    iteration 2 passes them (``verdicts``: what each iteration's tests gave)."""
    design = TestDesign("t-wrong", (TestCase("3\n", ("6",), "basic"),
                                    TestCase("100\n", ("200",), "edge")), ("broken",),
                        "generated", None)
    attempts = frames.attempts_frame([
        attempt(1, "n = gets.to_i\nputs n + n + 2\n", False, "e0: the sum is off by one",
                calls=[Call("programmer", "[]", "```ruby\n...```", 10, 5, 0.1)]),
        attempt(2, FIXED, True, "e1: drop the + 2", next_reflection=""),
    ])
    attempts["verdicts"] = verdicts
    return {
        "reflections": frames.reflections_frame([Reflection("t-wrong", "e0: the sum is off by one",
                                                     None)]),
        "tests": frames.tests_frame([design]),
        "attempts": attempts,
        "hidden_attempts": hidden_rows([("t-wrong", 1, False), ("t-wrong", 2, True)]),
        "task_scores": pd.DataFrame([{"task_id": "t-wrong", "strict": True, "cumulative": True,
                                      "returned_iteration": 2, "first_pass_iteration": 2}]),
    }


def test_the_diff_is_against_the_buggy_program():
    diff = candidate_diff(BUGGY, FIXED, 2)
    assert diff[0] == DiffLine("file", "--- buggy program")
    assert diff[1] == DiffLine("file", "+++ candidate 2")
    assert [d for d in diff if d.kind in ("add", "del")] == [
        DiffLine("del", "-puts n + n + 1"), DiffLine("add", "+puts n + n")]
    assert candidate_diff(BUGGY, BUGGY, 1) == ()


def test_a_trajectory_follows_the_run_and_keeps_the_hidden_result_apart():
    [t] = build_trajectories(RUN, [problem()], **run_tables(
        [["WRONG_ANSWER", "WRONG_ANSWER"], ["PASSED", "PASSED"]]))
    assert t.initial_reflection == "e0: the sum is off by one"
    assert t.checks_source == "generated" and t.dropped_tests == ("broken",)
    first, second = t.steps
    assert [s.iteration for s in t.steps] == [1, 2]
    assert second.reflection == "e1: drop the + 2" and not first.passed_checks
    assert [(c.input, c.expected, c.kind, c.verdict) for c in second.checks] == [
        ("3\n", "6", "basic", "PASSED"), ("100\n", "200", "edge", "PASSED")]
    assert first.hidden is not None and not first.hidden.passed
    assert first.hidden.first_failing_verdict == "WRONG_ANSWER"
    assert second.hidden is not None and second.hidden.passed and second.hidden.passed_samples
    assert t.outcome is not None and t.outcome.strict and t.outcome.returned_iteration == 2


def test_verdicts_of_other_tests_than_the_designed_ones_are_shown_alone():
    [t] = build_trajectories(RUN, [problem()], **run_tables([["RUNTIME_ERROR"], []]))
    assert [(c.input, c.verdict) for c in t.steps[0].checks] == [("", "RUNTIME_ERROR")]
    assert t.steps[1].checks == ()


def test_a_method_without_test_generation_is_paired_with_the_statement_samples():
    tables = run_tables([["WRONG_ANSWER"], ["PASSED"]])
    tables["tests"] = frames.tests_frame([TestDesign("t-wrong", (), (), "none", None)])
    [t] = build_trajectories(RUN, [problem()], **tables)
    assert t.checks_source == "none"
    assert [(c.input, c.expected, c.kind, c.verdict) for c in t.steps[1].checks] == [
        ("3\n", "6", "sample", "PASSED")]


def test_a_task_without_attempts_or_scores_still_has_a_trajectory():
    tables = run_tables([["WRONG_ANSWER", "WRONG_ANSWER"], ["PASSED", "PASSED"]])
    other = problem("t-other")
    tables["reflections"] = pd.concat([tables["reflections"], frames.reflections_frame(
        [Reflection("t-other", "", None)])], ignore_index=True)
    trajectories = build_trajectories(RUN, [other, problem()], **tables)
    assert [t.problem.task_id for t in trajectories] == ["t-other", "t-wrong"]
    assert trajectories[0].steps == () and trajectories[0].outcome is None


class _Collect(HTMLParser):
    """Elements by class and their text, and which text is inside an evaluation-only box."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[set[str]] = []
        self.text: dict[str, list[str]] = {}
        self.evaluation_only: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split())
        if "data-evaluation-only" in attributes:
            classes.add("@evaluation-only")
        if tag not in ("br", "meta", "col"):
            self.stack.append(classes)

    def handle_endtag(self, tag):
        if tag not in ("br", "meta", "col") and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        for classes in self.stack:
            for c in classes:
                self.text.setdefault(c, []).append(data)
        if any("@evaluation-only" in c for c in self.stack):
            self.evaluation_only.append(data)


def test_the_page_shows_the_diff_the_checks_and_marks_the_hidden_result():
    [t] = build_trajectories(RUN, [problem()], **run_tables(
        [["WRONG_ANSWER", "WRONG_ANSWER"], ["PASSED", "PASSED"]]))
    html = trajectory_page(t)
    page = _Collect()
    page.feed(html)
    assert "-puts n + n + 1" in page.text["del"] and "+puts n + n" in page.text["add"]
    hidden = " ".join(page.evaluation_only)
    assert "Evaluation only" in hidden and "3 of 3 passed" in hidden
    assert "1 of 3 passed" in hidden and "WRONG_ANSWER" in hidden
    # The method's own checks are outside the evaluation-only boxes.
    assert "passed its checks" not in hidden and "failed its checks" not in hidden
    assert "passed its checks" in html and "failed its checks" in html
    # Data-set text is escaped, never markup.
    assert "Print &lt;b&gt;twice&lt;/b&gt; n." in html and "<b>twice</b>" not in html
    assert "e1: drop the + 2" in html and "e0: the sum is off by one" in html
    assert html.count('class="iteration"') == 2


def test_pages_and_their_index(tmp_path):
    tables = run_tables([["WRONG_ANSWER", "WRONG_ANSWER"], ["PASSED", "PASSED"]])
    trajectories = build_trajectories(RUN, [problem()], **tables)
    index = write_trajectory_pages(trajectories, tmp_path / "pages")
    assert sorted(p.name for p in (tmp_path / "pages").iterdir()) == [INDEX, "t-wrong.html"]
    assert index.to_dict("records") == [
        {"task_id": "t-wrong", "difficulty": 800, "iterations": 2, "outcome": "repaired"}]
    assert index_row(tmp_path / "pages", "t-wrong") == {
        "difficulty": "800", "iterations": "2", "outcome": "repaired"}


def test_a_task_id_that_is_no_file_name_is_refused(tmp_path):
    tables = run_tables([["WRONG_ANSWER", "WRONG_ANSWER"], ["PASSED", "PASSED"]])
    bad = build_trajectories(RUN, [problem("../t")], **tables)
    with pytest.raises(ValueError, match="not a plain file name"):
        write_trajectory_pages(bad, tmp_path)


def test_a_table_page_shows_the_table_or_says_nothing_ran(tmp_path):
    (tmp_path / "t.csv").write_text("method,pass@1\nramp,5.9\n")
    (tmp_path / "empty.csv").write_text("\n")
    full = table_page("Table 1: <pass@1>", read_table(tmp_path / "t.csv"))
    assert re.search(r"<td>ramp</td>\s*<td>5.9</td>", full)
    assert "Table 1: &lt;pass@1&gt;" in full
    assert read_table(tmp_path / "empty.csv") is None
    assert "Nothing to show" in table_page("Table 2", read_table(tmp_path / "empty.csv"))
