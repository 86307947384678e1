"""A run stopped by the wall clock before using its CPU time is run once more: on a loaded
machine (model jobs beside the executor) load alone must not make a time-out."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ramp.execution.executor import SandboxExecutor
from ramp.execution.sandbox import RawRun
from ramp.tasks import Limits, TestCase, Verdict

LIMITS = Limits(time_s=1.0, memory_mb=256)
OK = RawRun(exit_code=0, signal=None, cpu_s=0.2, wall_s=0.3, peak_memory_mb=10.0,
            stdout=b"6\n", stderr=b"")
STARVED = replace(OK, exit_code=None, signal=9, cpu_s=0.3, wall_s=4.0, stdout=b"",
                  wall_killed=True)
SPINNING = replace(STARVED, cpu_s=1.2)  # used its CPU time: a real time-out


@pytest.fixture(scope="module")
def executor():
    with SandboxExecutor(workers=1) as ex:
        yield ex


def judged(executor: SandboxExecutor, monkeypatch: pytest.MonkeyPatch, *runs: RawRun):
    queue = list(runs)
    monkeypatch.setattr(executor.sandbox, "execute", lambda argv, stdin, limits, **_: queue.pop(0))
    result = executor.run_one(["ruby", "main.rb"], 0, TestCase("3\n", ("6\n",)), LIMITS)
    return result, len(runs) - len(queue)


def test_a_starved_run_is_run_again_and_judged_on_the_second(executor, monkeypatch):
    result, runs = judged(executor, monkeypatch, STARVED, OK)
    assert runs == 2 and result.verdict is Verdict.PASSED
    assert "run twice (first: 4.00 s wall, 0.30 s CPU)" in result.note


def test_starved_twice_is_a_time_out(executor, monkeypatch):
    result, runs = judged(executor, monkeypatch, STARVED, STARVED)
    assert runs == 2 and result.verdict is Verdict.TIME_LIMIT_EXCEEDED


def test_a_run_that_used_its_cpu_time_is_not_run_again(executor, monkeypatch):
    result, runs = judged(executor, monkeypatch, SPINNING)
    assert runs == 1 and result.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert "run twice" not in result.note


def test_a_sleeping_program_is_stopped_twice_and_times_out(executor):
    limits = Limits(time_s=0.3, memory_mb=128, wall_factor=2.0, wall_grace_s=0.2)
    report = executor.run("sleep 100", [TestCase("", ("",))], limits)
    (r,) = report.results
    assert r.verdict is Verdict.TIME_LIMIT_EXCEEDED and "run twice" in r.note


def test_a_starved_generator_is_run_again_too(executor, monkeypatch):
    # Large-scale guiding tests come from generator programs; a starved one would drop a test.
    queue = [STARVED, replace(OK, stdout=b"100000\n")]
    monkeypatch.setattr(executor.sandbox, "execute", lambda argv, stdin, limits, **_: queue.pop(0))
    monkeypatch.setattr(executor, "check", lambda path: "")
    assert executor.output_of("puts 100000", "", LIMITS) == ("100000\n", "")
    assert queue == []
