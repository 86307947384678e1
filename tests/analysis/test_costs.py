import pandas as pd
import pytest

from ramp.analysis.costs import cost_table
from ramp.analysis.scores import task_scores

from .conftest import hidden_attempts, make_task


def _role(role, prompt, tokens, seconds):
    return {f"{role}_prompt": prompt, f"{role}_prompt_tokens": tokens,
            f"{role}_completion_tokens": tokens // 2, f"{role}_seconds": seconds}


def test_costs_per_agent_and_early_stop_saving():
    tasks = [make_task("a", "P")]
    # a passes hidden at t=1 but not its generated tests; runs to t=3
    attempts = pd.DataFrame([
        {"task_id": "a", "iteration": t, "code": "x", "exec_seconds": 1.0,
         **_role("programmer", "p", 100, 2.0),
         **_role("feedback", "f" if t < 3 else "", 10 if t < 3 else 0, 0.5 if t < 3 else 0.0)}
        for t in (1, 2, 3)
    ])
    validated = hidden_attempts([("a", 1, False, True), ("a", 2, False, False),
                                 ("a", 3, False, False)])
    validated = validated.assign(has_code=True, hidden_seconds=[3.0, 4.0, 5.0],
                                 hidden_peak_memory_mb=[20.0, 30.0, 25.0])
    reflections = pd.DataFrame([{"task_id": "a", **_role("reflection", "r", 50, 1.5)}])
    tests = pd.DataFrame([{"task_id": "a", **_role("test_design", "t", 80, 2.5)}])
    per_task = task_scores(validated, tasks, 3)
    costs = cost_table(attempts, reflections, tests, validated, per_task, early_stopping=True)
    c = costs.set_index(["policy", "stage"])
    assert c.loc[("full", "programmer"), "calls"] == 3
    assert c.loc[("full", "programmer"), "prompt_tokens"] == 300
    assert c.loc[("full", "feedback_integrator"), "calls"] == 2
    assert c.loc[("full", "hidden_validation"), "seconds"] == 5.0  # returned program only
    assert c.loc[("early_stop", "programmer"), "calls"] == 1
    assert c.loc[("early_stop", "hidden_validation"), "seconds"] == 3.0
    assert c.loc[("full", "total"), "seconds"] == pytest.approx(1.5 + 2.5 + 6 + 1 + 3 + 5)
    assert c.loc[("full", "total"), "peak_memory_mb"] == 25.0
    assert c.loc[("full", "total"), "calls"] == 1 + 1 + 3 + 2  # model calls, not program runs
    assert c.loc[("early_stop", "total"), "seconds"] < c.loc[("full", "total"), "seconds"]


def test_a_baselines_other_roles_get_their_own_rows(tmp_path):
    """Planner/tester/translator calls (the other_calls lists) are counted per role, through
    a Parquet round trip, and enter the total; RAMP tables without the column still work."""
    from ramp.io import write_parquet

    tasks = [make_task("a", "P")]
    other = [{"role": "planner", "prompt": "p", "response": "r", "prompt_tokens": 40,
              "completion_tokens": 10, "seconds": 1.0}]
    attempts = pd.DataFrame([
        {"task_id": "a", "iteration": t, "code": "x", "exec_seconds": 0.5,
         **_role("programmer", "p", 100, 2.0), **_role("feedback", "", 0, 0.0),
         "other_calls": other * t}
        for t in (1, 2)
    ])
    write_parquet(attempts, tmp_path / "a.parquet")
    attempts = pd.read_parquet(tmp_path / "a.parquet")
    validated = hidden_attempts([("a", 1, False, False), ("a", 2, True, True)])
    validated = validated.assign(has_code=True, hidden_seconds=[1.0, 1.0],
                                 hidden_peak_memory_mb=[20.0, 20.0])
    empty = pd.DataFrame([{"task_id": "a", **_role("reflection", "", 0, 0.0),
                           **_role("test_design", "", 0, 0.0)}])
    per_task = task_scores(validated, tasks, 2)
    c = cost_table(attempts, empty, empty, validated, per_task).set_index(["policy", "stage"])
    assert c.loc[("full", "planner"), "calls"] == 3
    assert c.loc[("full", "planner"), "prompt_tokens"] == 120
    assert c.loc[("full", "total"), "seconds"] == pytest.approx(3 * 1.0 + 2 * 2.0 + 1.0 + 1.0)
    legacy = cost_table(attempts.drop(columns="other_calls"), empty, empty, validated, per_task)
    assert "planner" not in set(legacy.stage)


def test_the_executor_is_not_counted_where_there_were_no_tests_to_run():
    # Zero-Shot: code, but no guiding tests, so the Test Executor never ran.
    tasks = [make_task("a", "P"), make_task("b", "P")]
    attempts = pd.DataFrame([
        {"task_id": t, "iteration": 1, "code": "x", "n_tests": n, "exec_seconds": 0.0,
         **_role("programmer", "p", 100, 2.0), **_role("feedback", "", 0, 0.0)}
        for t, n in (("a", 0), ("b", 3))
    ])
    validated = hidden_attempts([("a", 1, False, False), ("b", 1, False, True)])
    validated = validated.assign(has_code=True, hidden_seconds=1.0, hidden_peak_memory_mb=5.0)
    reflections = pd.DataFrame([{"task_id": "a", **_role("reflection", "", 0, 0.0)}])
    tests = pd.DataFrame([{"task_id": "a", **_role("test_design", "", 0, 0.0)}])
    costs = cost_table(attempts, reflections, tests, validated, task_scores(validated, tasks, 1))
    c = costs.set_index(["policy", "stage"])
    assert c.loc[("full", "test_executor"), "calls"] == 1
    assert c.loc[("full", "programmer"), "calls"] == 2


def test_an_agents_peak_memory_is_its_stage_processes_peak_rss():
    tasks = [make_task("a", "P")]
    attempts = pd.DataFrame([
        {"task_id": "a", "iteration": t, "code": "x", "n_tests": 2, "exec_seconds": 0.1,
         "peak_rss_mb": rss, **_role("programmer", "p", 100, 2.0),
         **_role("feedback", "f" if t == 1 else "", 10, 0.5)}
        for t, rss in ((1, 1900.0), (2, 2100.0))
    ])
    validated = hidden_attempts([("a", 1, False, False), ("a", 2, False, False)])
    validated = validated.assign(has_code=True, hidden_seconds=1.0, hidden_peak_memory_mb=7.0)
    reflections = pd.DataFrame([{"task_id": "a", "peak_rss_mb": 1800.0,
                                 **_role("reflection", "r", 50, 1.0)}])
    tests = pd.DataFrame([{"task_id": "a", **_role("test_design", "t", 50, 1.0)}])  # older table
    costs = cost_table(attempts, reflections, tests, validated, task_scores(validated, tasks, 2))
    c = costs.set_index(["policy", "stage"])["peak_memory_mb"]
    assert c[("full", "programmer")] == 2100.0
    assert c[("full", "feedback_integrator")] == 1900.0  # only iteration 1 made that call
    assert c[("full", "feedback_integrator_initial")] == 1800.0
    assert pd.isna(c[("full", "test_designer")])
    assert c[("full", "hidden_validation")] == 7.0
    assert c[("full", "total")] == 2100.0


def test_peak_rss_is_this_processes_high_water_mark():
    from pathlib import Path

    from ramp.resources import peak_rss_mb

    status = Path("/proc/self/status").read_text()
    hwm_kib = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")))
    assert peak_rss_mb() == pytest.approx(hwm_kib / 1024, abs=8)
    assert peak_rss_mb() > 10  # a Python interpreter with pandas loaded


def _reused(role, reused, read, written):
    return {f"{role}_reused_prompt_tokens": reused, f"{role}_kv_read_bytes": read,
            f"{role}_kv_written_bytes": written}


def test_prefix_reuse_per_stage_its_hit_rate_and_unknown_for_older_tables():
    """Reused prompt tokens and the prefix cache's bytes are summed per stage and in the total,
    the hit rate is their share of the prompt tokens; a table from before they were recorded
    leaves its stage and the total unknown rather than zero."""
    tasks = [make_task("a", "P")]
    attempts = pd.DataFrame([
        {"task_id": "a", "iteration": t, "code": "x", "n_tests": 2, "exec_seconds": 0.1,
         **_role("programmer", "p", 100, 2.0), **_reused("programmer", 64 * t, 1000, 10),
         **_role("feedback", "f", 40, 1.0), **_reused("feedback", 0, 0, 5)}
        for t in (1, 2)
    ])
    validated = hidden_attempts([("a", 1, False, False), ("a", 2, False, False)])
    validated = validated.assign(has_code=True, hidden_seconds=1.0, hidden_peak_memory_mb=7.0)
    reflections = pd.DataFrame([{"task_id": "a", **_role("reflection", "r", 50, 1.0),
                                 **_reused("reflection", 25, 0, 0)}])
    tests = pd.DataFrame([{"task_id": "a", **_role("test_design", "t", 50, 1.0),
                           **_reused("test_design", 0, 0, 0)}])
    per_task = task_scores(validated, tasks, 2)
    c = cost_table(attempts, reflections, tests, validated, per_task).set_index(
        ["policy", "stage"])
    assert c.loc[("full", "programmer"), "reused_prompt_tokens"] == 64 + 128
    assert c.loc[("full", "programmer"), "prefix_hit_rate"] == pytest.approx(192 / 200)
    assert c.loc[("full", "programmer"), "kv_read_bytes"] == 2000
    assert c.loc[("full", "feedback_integrator"), "kv_written_bytes"] == 10
    assert c.loc[("full", "feedback_integrator_initial"), "prefix_hit_rate"] == 0.5
    assert c.loc[("full", "total"), "reused_prompt_tokens"] == 192 + 25
    assert c.loc[("full", "total"), "prefix_hit_rate"] == pytest.approx(217 / (200 + 80 + 50 + 50))
    assert c.loc[("full", "total"), "kv_written_bytes"] == 30

    older = tests.drop(columns=[f"test_design_{f}" for f in
                                ("reused_prompt_tokens", "kv_read_bytes", "kv_written_bytes")])
    c = cost_table(attempts, reflections, older, validated, per_task).set_index(
        ["policy", "stage"])
    assert pd.isna(c.loc[("full", "test_designer"), "reused_prompt_tokens"])
    assert pd.isna(c.loc[("full", "test_designer"), "prefix_hit_rate"])
    assert pd.isna(c.loc[("full", "total"), "reused_prompt_tokens"])
    assert c.loc[("full", "programmer"), "reused_prompt_tokens"] == 192


def test_cut_answers_and_the_samples_fallback_are_counted_per_agent():
    tasks = [make_task("a", "P"), make_task("b", "P")]
    attempts = pd.DataFrame([
        {"task_id": "a", "iteration": 1, "code": "x", "exec_seconds": 1.0,
         **_role("programmer", "p", 100, 2.0), "programmer_finish_reason": "length",
         **_role("feedback", "f", 10, 0.5), "feedback_finish_reason": "over_context"},
        {"task_id": "b", "iteration": 1, "code": "x", "exec_seconds": 1.0,
         **_role("programmer", "p", 100, 2.0), "programmer_finish_reason": "stop",
         **_role("feedback", "", 0, 0.0), "feedback_finish_reason": ""},
    ])
    validated = hidden_attempts([("a", 1, False, False), ("b", 1, False, False)]).assign(
        has_code=True, hidden_seconds=1.0, hidden_peak_memory_mb=10.0)
    reflections = pd.DataFrame([{"task_id": t, **_role("reflection", "r", 50, 1.5),
                                 "reflection_finish_reason": "stop"} for t in "ab"])
    tests = pd.DataFrame([{"task_id": t, **_role("test_design", "t", 80, 2.5),
                           "test_design_finish_reason": r, "source": s}
                          for t, r, s in (("a", "length", "generated"), ("b", "stop", "samples"))])
    costs = cost_table(attempts, reflections, tests, validated, task_scores(validated, tasks, 1))
    c = costs.set_index(["policy", "stage"])
    assert c.loc[("full", "programmer"), ["cut_by_cap", "cut_by_context"]].tolist() == [1, 0]
    assert c.loc[("full", "feedback_integrator"), "cut_by_context"] == 1
    assert c.loc[("full", "test_designer"), ["cut_by_cap", "samples_fallback"]].tolist() == [1, 1]
    assert c.loc[("full", "total"), ["cut_by_cap", "cut_by_context"]].tolist() == [2, 1]
    # Tables from before finish reasons were recorded: unknown, not zero.
    old = cost_table(attempts.drop(columns=["programmer_finish_reason"]), reflections, tests,
                     validated, task_scores(validated, tasks, 1))
    assert pd.isna(old.set_index(["policy", "stage"]).loc[("full", "programmer"), "cut_by_cap"])
