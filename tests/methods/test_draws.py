"""Draws (ramp.methods.draws): n independent calls of a single-call variant, each the call that
variant's iteration 1 makes under its own seed; the config that switches them on."""

import dataclasses
import shutil

import pandas as pd
import pytest

from ramp.agents import programmer
from ramp.analysis.stages import coverage, gather_draws, score_hidden
from ramp.llm.fake import FakeLLM
from ramp.methods import draws
from ramp.methods.frames import attempts_frame
from ramp.task_table import write_tasks
from ramp.tasks import Task, TestCase
from ramp.variants import Variant

ZERO_SHOT = Variant(name="zero_shot", programmer_style="zero_shot", initial_reflection=False,
                    feedback_reflection=False, test_generation=False, max_iterations=1)
CONFIG = {"variants": {"zero_shot": {"programmer_style": "zero_shot", "initial_reflection": False,
                                     "feedback_reflection": False, "test_generation": False,
                                     "max_iterations": 1},
                       "ramp": {}}}


def test_each_draw_is_the_variants_iteration_one_call_under_its_own_seed(lib, task) -> None:
    answers = iter(["```ruby\nputs 1\n```", "no program", "```ruby\nputs 3\n```"])
    llm = FakeLLM(respond=lambda prompt: next(answers))
    made = draws.draw([task], n=3, llm=llm, lib=lib, variant=ZERO_SHOT, seed=7)
    assert [a.iteration for a in made] == [1, 2, 3]
    assert [a.code.strip() for a in made] == ["puts 1", "", "puts 3"]
    assert not any(a.passed_generated for a in made)
    # Zero-Shot's iteration 1 renders the problem with an empty e0 and no previous candidate
    # (ramp.methods.ramp._programmer_prompt), with seed + 1: draw 1 is that very call.
    iteration_one = programmer.prompt(lib, task, ZERO_SHOT, [""], previous_code="",
                                      previous_traces="")
    assert all(tuple(p) == tuple(iteration_one) for p in llm.prompts)
    assert [params.seed for _, params in llm.seen] == [8, 9, 10]
    assert llm.seen[0][1] == ZERO_SHOT.code_params(8, "ruby")
    frame = attempts_frame(made)
    assert frame["programmer_prompt_tokens"].gt(0).all()


def test_a_variant_with_more_than_one_call_is_refused(lib, task) -> None:
    with pytest.raises(ValueError, match="'ramp' is not a single-call variant"):
        draws.draw([task], n=1, llm=FakeLLM(), lib=lib, variant=Variant(name="ramp"), seed=0)


def test_the_config_is_off_by_default_and_checked() -> None:
    assert draws.DrawsConfig.of({}).draws == 0
    assert draws.DrawsConfig.of({**CONFIG, "coverage": {"draws": 4}}).variant == "zero_shot"
    bad = {
        "coverage.draws: a whole number >= 0": {"draws": -1},
        "unknown field 'n'": {"n": 3},
        "coverage.variant: 'ramp' is not a single-call variant": {"draws": 2, "variant": "ramp"},
    }
    for message, setting in bad.items():
        with pytest.raises(ValueError, match=message.replace("(", r"\(")):
            draws.DrawsConfig.of({**CONFIG, "coverage": setting})


@pytest.mark.skipif(shutil.which("ruby") is None, reason="Ruby is not installed")
def test_draws_are_scored_by_the_sandbox_and_counted_in_the_coverage(tmp_path, lib, task) -> (
    None
):
    # Two tasks of one problem: the hidden tests echo a number doubled. Task a gets one right
    # draw of three, task b none; a RAMP-like run of the same tasks is right on b at iteration 2.
    hidden = tuple(TestCase(input=f"{i}\n", outputs=(f"{2 * i}",), kind="hidden")
                   for i in (1, 4))
    tasks = [Task(dataclasses.replace(task, task_id=t, problem_id="P"), hidden_tests=hidden,
                  recorded_outcome="WRONG_ANSWER") for t in ("a", "b")]
    table = tmp_path / "tasks.parquet"
    write_tasks(tasks, table)
    programs = iter(["puts gets.to_i * 2", "puts 0", "puts gets.to_i",
                     "puts 1", "puts gets.to_i + 1", "x ="])
    llm = FakeLLM(respond=lambda prompt: f"```ruby\n{next(programs)}\n```")
    made = draws.draw([t.problem for t in tasks], n=3, llm=llm, lib=lib, variant=ZERO_SHOT,
                      seed=0)
    run = draws.draws_run({}, "m", "s")
    # Two shards, written in the wrong order: gathering puts them back in the subset's.
    frame = attempts_frame(made)
    parts = [tmp_path / "2.parquet", tmp_path / "1.parquet"]
    run.write(frame[frame.task_id == "b"], parts[0])
    run.write(frame[frame.task_id == "a"], parts[1])
    gathered = gather_draws(run, table, parts, tmp_path / "draws.parquet")
    assert list(gathered.task_id) == ["a"] * 3 + ["b"] * 3

    from ramp.execution.executor import SandboxExecutor

    with SandboxExecutor(workers=2) as ex:
        scored = score_hidden(run, table, tmp_path / "draws.parquet", tmp_path / "hidden.parquet",
                              tmp_path / "hidden_draws.parquet", ex)
    assert scored.groupby("task_id")["passed_hidden"].sum().to_dict() == {"a": 1, "b": 0}

    ramp_run = run.__class__("default", "m", "ramp", "s")
    attempts = pd.DataFrame({"task_id": ["a", "b", "b"], "iteration": [1, 1, 2],
                             "programmer_prompt_tokens": [100, 100, 150],
                             "programmer_completion_tokens": [10, 10, 20]})
    validated = pd.DataFrame({"task_id": ["a", "b", "b"], "iteration": [1, 1, 2],
                              "passed_hidden": [False, False, True]})
    empty = pd.DataFrame({"task_id": ["a", "b"]})
    for name, f in {"attempts": attempts, "hidden_attempts": validated,
                    "reflections": empty, "tests": empty}.items():
        ramp_run.write(f, tmp_path / f"ramp_{name}.parquet")
    names = ("attempts", "hidden_attempts", "reflections", "tests")
    curve = coverage(table, {"draws": [tmp_path / "draws.parquet"],
                             "hidden_draws": [tmp_path / "hidden_draws.parquet"],
                             **{n: [tmp_path / f"ramp_{n}.parquet"] for n in names}},
                     {"coverage": tmp_path / "coverage.parquet",
                      "units": tmp_path / "units.parquet"},
                     draws_variant="zero_shot", hidden_variants=["ramp"])
    drawn = curve[curve.kind == "draws"].set_index("k")
    assert drawn.loc[1, "covered"] == pytest.approx(1 / 3)
    assert drawn.loc[3, "covered"] == pytest.approx(1.0)
    assert curve[curve.kind == "draws"]["method"].unique().tolist() == ["zero_shot x3"]
    assert curve.groupby("method")["hidden_feedback"].all().to_dict() == {
        "ramp": True, "zero_shot x3": False}
    ramp_curve = curve[curve.method == "ramp"].set_index("k")
    assert ramp_curve["covered"].tolist() == [0.0, 1.0]
    assert ramp_curve.loc[2, "tokens_per_task"] == pytest.approx((110 + 110 + 170) / 2)
