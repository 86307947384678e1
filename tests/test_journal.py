"""Resume inside a long stage: the journal keeps finished units across a kill."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ramp.analysis.hidden import validate_attempts
from ramp.bug_validation import validate_bugs
from ramp.journal import Journal, fingerprint
from ramp.tasks import RunReport, TestResult, Verdict
from tests.analysis.handmade import EchoRunner, make_task


def test_units_survive_a_reopen_and_finish_removes_the_file(tmp_path):
    out = tmp_path / "x.parquet"
    j = Journal(out, "fp")
    j.record("a", [{"n": 1, "x": None}])
    j.record("b", [])
    j.close()
    again = Journal(out, "fp")
    assert again.done == {"a": [{"n": 1, "x": None}], "b": []}
    again.finish()
    assert not again.path.exists()


def test_other_inputs_start_over_and_a_cut_line_is_redone(tmp_path):
    out = tmp_path / "x.parquet"
    j = Journal(out, "fp1")
    j.record("a", [{"n": 1}])
    j.close()
    assert Journal(out, "fp2").done == {}  # other fingerprint: discarded
    j = Journal(out, "fp2")
    j.record("a", [{"n": 1}])
    j.close()
    with open(j.path, "a") as f:
        f.write('{"unit": "b", "rows": [{"n"')  # killed mid-write
    k = Journal(out, "fp2")
    assert k.done == {"a": [{"n": 1}]}
    k.record("b", [{"n": 2}])  # appended after the cut line, which stays ignored
    k.close()
    assert Journal(out, "fp2").done == {"a": [{"n": 1}], "b": [{"n": 2}]}


def test_fingerprint_follows_file_bytes_and_params(tmp_path):
    f = tmp_path / "in.parquet"
    f.write_bytes(b"one")
    a = fingerprint([f], {"k": 1})
    assert a == fingerprint([f], {"k": 1}) != fingerprint([f], {"k": 2})
    f.write_bytes(b"two")
    assert fingerprint([f], {"k": 1}) != a


class Killable:
    """Answers every program with WRONG_ANSWER on each test; dies after ``limit`` runs."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit, self.runs = limit, 0

    def run(self, program, tests, limits, *, stop_at_first_failure=False):
        if self.limit is not None and self.runs >= self.limit:
            raise KeyboardInterrupt("killed")
        self.runs += 1
        return RunReport(results=tuple(
            TestResult(index=i, verdict=Verdict.WRONG_ANSWER, cpu_s=0.01, wall_s=0.02)
            for i in range(len(tests))))


def test_bug_validation_resumes_where_it_was_killed(tmp_path):
    tasks = [make_task(t, "P") for t in ("a", "b", "c", "d")]
    out = tmp_path / "runs.parquet"
    with pytest.raises(KeyboardInterrupt):
        validate_bugs(tasks, Killable(limit=2), out, journal=Journal(out, "fp"))
    assert not out.exists()
    second = Killable()
    runs = validate_bugs(tasks, second, out, journal=Journal(out, "fp"))
    assert second.runs == 2  # only c and d ran again
    clean = validate_bugs(tasks, Killable(), tmp_path / "clean.parquet")
    pd.testing.assert_frame_equal(runs, clean)
    assert not (tmp_path / "runs.parquet.journal").exists()


def test_hidden_validation_resumes_where_it_was_killed(tmp_path):
    tasks = [make_task("a", "P"), make_task("b", "Q")]
    attempts = pd.DataFrame([
        {"task_id": t, "iteration": i, "code": f"pass:{i}", "passed_generated": False}
        for t in ("a", "b") for i in (1, 2)
    ])
    out = tmp_path / "hidden_attempts.parquet"

    class Dies(EchoRunner):
        def run(self, *args, **kwargs):
            if len(self.calls) == 3:
                raise KeyboardInterrupt("killed")
            return super().run(*args, **kwargs)

    with pytest.raises(KeyboardInterrupt):
        validate_attempts(attempts, tasks, Dies(), journal=Journal(out, "fp"))
    lines = (tmp_path / "hidden_attempts.parquet.journal").read_text().splitlines()
    assert [json.loads(x)["unit"] for x in lines[1:]] == ["a:1", "a:2", "b:1"]
    runner = EchoRunner()
    tests, summary = validate_attempts(attempts, tasks, runner, journal=Journal(out, "fp"))
    assert len(runner.calls) == 1  # only b:2 ran again
    clean_tests, clean_summary = validate_attempts(attempts, tasks, EchoRunner())
    timing = ["hidden_seconds"]  # measured wall time differs from run to run
    pd.testing.assert_frame_equal(summary.drop(columns=timing),
                                  clean_summary.drop(columns=timing))
    pd.testing.assert_frame_equal(tests, clean_tests)
