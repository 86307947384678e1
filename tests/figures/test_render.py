"""The scoring stages and the figure rendering end to end, on hand-made run folders."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import matplotlib
import pandas as pd
import pytest

from ramp.analysis import stages
from ramp.analysis.authors import read_outcomes
from ramp.analysis.references import Reference
from ramp.figures import plots, tables
from ramp.figures.render import combine_summaries, figure_paths, render_study
from ramp.figures.study import RUN_FILES, Method, hidden_runs, load_study
from ramp.runs import RunId, identities
from ramp.task_table import write_tasks
from tests.analysis.handmade import EchoRunner, make_task

matplotlib.use("Agg")
REPO = Path(__file__).resolve().parents[2]
K = 3
TASKS = [
    make_task("a", "P", difficulty=900, tags=("math", "strings"), n_samples=1),
    make_task("b", "P", difficulty=1300, tags=("math",), outcome="RUNTIME_ERROR"),
    make_task("c", "Q", difficulty=1700, tags=("graphs",), n_hidden=4, truncated=1, n_samples=1),
]
# Per method: task -> codes per iteration and whether each passed its generated tests.
METHODS = {
    "ramp": {"a": [("pass:0", False), ("pass:all", True)],
             "b": [("pass:all", False), ("pass:1", False), ("pass:1", False)],
             "c": [("pass:0,1,2", True)]},
    "zero_shot": {"a": [("pass:all", True)], "b": [("", False)], "c": [("pass:0", True)]},
}


def _calls(role: str, used: bool) -> dict:
    return {f"{role}_prompt": "p" if used else "", f"{role}_response": "",
            f"{role}_prompt_tokens": 40 if used else 0,
            f"{role}_completion_tokens": 20 if used else 0,
            f"{role}_seconds": 1.5 if used else 0.0}


def run_id(variant: str) -> RunId:
    return RunId("default", "tiny-model", variant, "s")


def make_run(root: Path, variant: str) -> Path:
    run = root / "results" / "runs" / "tiny-model" / variant / "s"
    run.mkdir(parents=True)
    rid = run_id(variant)
    rows = []
    for task_id, steps in METHODS[variant].items():
        for t, (code, gen) in enumerate(steps, start=1):
            rows.append({"task_id": task_id, "iteration": t, "code": code,
                         "passed_generated": gen, "exec_seconds": 0.2,
                         **_calls("programmer", True), **_calls("feedback", not gen)})
    rid.write(pd.DataFrame(rows), run / "attempts.parquet")
    rid.write(pd.DataFrame([{"task_id": t.task_id, "reflection": "r",
                             **_calls("reflection", True)} for t in TASKS]),
              run / "reflections.parquet")
    rid.write(pd.DataFrame([{"task_id": t.task_id, "n_tests": 1, "source": "generated",
                             "tests": [{"input": "0", "output": "0", "kind": "basic"}],
                             **_calls("test_design", True)} for t in TASKS]),
              run / "tests.parquet")
    return run


def run_tables(runs: list[Path], names) -> dict[str, list[Path]]:
    return {n: [run / f"{n}.parquet" for run in runs] for n in names}


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("study")
    tasks = root / "results" / "tasks" / "s.parquet"
    write_tasks(TASKS, tasks)
    bugs = root / "results" / "bugs" / "s" / "hidden_runs.parquet"
    bugs.parent.mkdir(parents=True)
    pd.DataFrame([{"task_id": t.task_id, "test_index": i, "verdict": "WRONG_ANSWER"}
                  for t in TASKS for i in range(len(t.hidden_tests))]).to_parquet(bugs)
    runs = [make_run(root, v) for v in METHODS]
    for variant, run in zip(METHODS, runs, strict=True):
        stages.score_hidden(run_id(variant), tasks, run / "attempts.parquet",
                            run / "hidden.parquet", run / "hidden_attempts.parquet", EchoRunner())
        names = ("attempts", "reflections", "tests", "hidden", "hidden_attempts")
        stages.score_run(
            run_id(variant),
            {"tasks": tasks, "bug_runs": bugs, **{n: run / f"{n}.parquet" for n in names}},
            {n: run / f"{n}.parquet" for n in ("scores", "task_scores", "transitions", "costs")},
            iterations=K, k_values=(1, 2), early_stopping=True)
        stages.score_candidates_stage(run_id(variant), tasks, run / "attempts.parquet",
                                      run / "hidden_attempts.parquet",
                                      run / "candidates.parquet", EchoRunner())
    analysis = root / "results" / "analysis" / "s"
    runner = EchoRunner()
    # P has a reference program (it passes every hidden test); Q falls back to a found one.
    stages.oracle(tasks, run_tables(runs, ("attempts", "hidden_attempts", "tests")),
                  lambda _: runner, analysis / "oracle.parquet",
                  analysis / "oracle_programs.parquet", iterations=K,
                  references={"P": Reference("P", "ruby", "pass:all")})
    return root


@pytest.fixture(scope="module")
def study(study_dir):
    runs = sorted((study_dir / "results" / "runs" / "tiny-model").glob("*/s"))
    analysis = study_dir / "results" / "analysis" / "s"
    return load_study("s", run_tables(runs, RUN_FILES), analysis / "oracle.parquet",
                      analysis / "oracle_programs.parquet")


def test_table1_compares_both_methods(study):
    t1 = tables.table1(study).set_index("method")
    # ramp: a strict (t=2 passes), b cumulative only (t=1), c fails its truncated test
    assert t1.loc["ramp", "strict pass@1"] == pytest.approx(33.3)
    assert t1.loc["ramp", "cumulative pass@1"] == pytest.approx(66.7)
    assert t1.loc["ramp", "cumulative excl. truncated"] == pytest.approx(100.0)
    assert t1.loc["zero_shot", "strict pass@1"] == pytest.approx(33.3)
    assert t1.loc["ramp E.S.", "strict pass@1"] == pytest.approx(66.7)
    # Wilson 95% of 1/3 and 2/3, in %.
    assert t1.loc["ramp", "strict 95% CI"] == "6.1-79.2"
    assert t1.loc["ramp", "cumulative 95% CI"] == "20.8-93.9"


def test_paired_table_compares_each_method_with_ramp(study):
    row = tables.paired(study).set_index("method").loc["zero_shot"]
    # ramp solved a and b (cumulative), zero_shot only a.
    assert (row["both solved"], row["only ramp"], row["only this method"]) == (1, 1, 0)
    assert row["McNemar exact p"] == 1.0


def test_oracle_table_counts(study):
    programs = study.oracle_programs.set_index("problem_id")
    assert programs["has_oracle"].to_dict() == {"P": True, "Q": True}  # Q: excl. truncated
    t3 = tables.table3(study)
    assert set(t3["iteration"]) == {1, 2, 3}
    assert (t3["classified"] == 3).all()
    cover = tables.oracle_coverage(study).set_index("measure")["value"]
    first = study.oracle[study.oracle["iteration"] == 1].dropna(subset=["category"])
    assert cover["generated tests run on an oracle program"] == first["n_tests"].sum() > 0
    assert (cover["... whose expected output the oracle reproduces"]
            == first["n_tests_passed_oracle"].sum())


def test_oracle_sources_on_a_scripted_run(study):
    programs = study.oracle_programs.set_index("problem_id")
    # P has a reference that passes its hidden tests; Q has none and falls back to a found one.
    assert programs["source"].to_dict() == {"P": "reference", "Q": "found"}
    assert programs["reference"].to_dict() == {"P": "used", "Q": "none"}
    assert programs.loc["Q", "source_variant"] != ""
    cover = tables.oracle_coverage(study).set_index("measure")["value"]
    assert cover["... a reference program"] == 1
    assert cover["... a program found passing in the runs"] == 1
    assert cover["task x run pairs without an oracle"] == 0


def test_table3_in_its_two_readings_on_a_scripted_run(study):
    # ramp's current candidates (generated verdict, hidden verdict) per iteration:
    #   a: (F, F) then (T, T) from t=2; b: (F, T), then (F, F); c: (T, F), stopped at t=1.
    code = tables.table3_code(study)
    assert set(code["variant"]) == {"ramp", "zero_shot"}  # both wrote generated tests
    assert (code["tasks"] == 3).all()  # every task at every iteration, no oracle needed
    ramp = code[code["variant"] == "ramp"].set_index("iteration")
    count = lambda cell: int(cell.split(" ")[0])  # noqa: E731
    assert [count(ramp.loc[1, c]) for c in ("FN", "FP", "TN", "TP")] == [1, 1, 1, 0]
    assert [count(ramp.loc[3, c]) for c in ("FN", "FP", "TN", "TP")] == [0, 1, 1, 1]
    assert ramp["carried"].tolist() == [0, 1, 2]
    assert ramp.loc[1, "FN"] == "1 (33.3%)"
    # The text's reading: the one generated test passes on both oracles, so a task counts
    # as TP or FP by its hidden verdict alone (t=1: b passes, a and c fail).
    text = tables.table3(study)
    ramp = text[text["variant"] == "ramp"].set_index("iteration")
    assert [count(ramp.loc[1, c]) for c in ("FN", "FP", "TN", "TP")] == [0, 2, 0, 1]


def test_table3_beside_the_papers(study):
    side = tables.table3_paper(study).set_index("iteration")
    assert list(side.index) == list(range(1, 12))  # the paper's K = 11; ours stops at 3
    assert side.loc[1, "paper FN"] == "185 (53.9%)" and (side["paper tasks"] == 343).all()
    assert side.loc[1, "ours"] == "ramp" and side.loc[1, "ours FN"] == "1 (33.3%)"
    assert side.loc[1, "ours tasks"] == 3 and pd.isna(side.loc[4, "ours tasks"])
    assert "confusion_stats_by_iteration" in tables.table3_note(study)


def test_ablation_tables_show_only_variants_run(study):
    from dataclasses import replace

    # RAMP alone compares nothing; with an ablation run, the table has its column and RAMP's.
    assert tables.table2(study).empty and tables.table4(study).empty
    ramp = study.of(study.scores, study.main)
    ablated = replace(study, methods=(*study.methods, Method("tiny-model", "no_testgen")),
                      scores=pd.concat([study.scores, ramp.assign(variant="no_testgen")]))
    t2 = tables.table2(ablated)
    assert list(t2.columns) == ["model", "w/o Test Gen.", "RAMP"]
    assert t2.loc[0, "w/o Test Gen."] == t2.loc[0, "RAMP"] == pytest.approx(66.7)
    assert tables.table4(ablated).empty


def test_ablation_tables_are_empty_without_ramp_or_an_ablation(study):
    from dataclasses import replace

    baselines = tuple(m for m in study.methods if m.variant == "zero_shot")
    only_baseline = replace(study, methods=baselines)
    assert tables.table2(only_baseline).empty
    assert tables.table4(only_baseline).empty


def test_ramp_plus_ablation_has_a_row_per_variant_run(study):
    from dataclasses import replace

    def with_copy_of_ramp(base, variant: str):
        """``base`` and a variant that ran exactly as RAMP did."""
        frames = {name: pd.concat([getattr(base, name), study.of(getattr(study, name),
                                                                 study.main).assign(variant=variant)])
                  for name in ("scores", "task_scores", "costs")}
        return replace(base, methods=(*base.methods, Method("tiny-model", variant)), **frames)

    assert tables.ramp_plus_ablation(study).empty  # no RAMP+ at all
    plus = with_copy_of_ramp(study, "ramp_plus")
    assert tables.ramp_plus_ablation(plus).empty  # RAMP+ alone: Table 1 has it
    both = with_copy_of_ramp(plus, "ramp_plus_no_gate")
    table = tables.ramp_plus_ablation(both).set_index("variant")
    assert list(table.index) == ["RAMP+", "w/o sample gate"]
    assert tables.breadth_ablation(both).empty  # no breadth run
    wide = with_copy_of_ramp(study, "breadth")
    assert list(tables.breadth_ablation(wide).variant) == ["Breadth", "RAMP"]  # RAMP's cost
    one_switch = with_copy_of_ramp(study, "breadth_wide")  # a variant without its base
    assert list(tables.breadth_ablation(one_switch).variant) == [
        "32 Zero-Shot draws, no rewrite, no stop, unchanged gated out", "RAMP"]
    ramp = tables.table1(study).set_index("method").loc["ramp"]
    row = table.loc["RAMP+"]
    assert row["strict pass@1"] == ramp["strict pass@1"] == pytest.approx(33.3)
    assert row["cumulative pass@1"] == pytest.approx(66.7)
    # RAMP's calls in the hand-made runs: e0 and tests per task, a Programmer call per
    # attempt, a Feedback Integrator call per attempt that failed its tests.
    attempts = sum(len(steps) for steps in METHODS["ramp"].values())
    failed = sum(not gen for steps in METHODS["ramp"].values() for _, gen in steps)
    calls = 2 * len(TASKS) + attempts + failed
    assert row["model calls a task"] == pytest.approx(round(calls / len(TASKS), 1))
    assert row["model tokens a task"] == round(60 * calls / len(TASKS))
    assert row["model minutes a task"] >= 0


@pytest.mark.parametrize("draw", [plots.figure2, plots.figure3, plots.figure4, plots.figure5,
                                  plots.figure6, plots.tokens])
def test_every_axes_is_labelled(study, draw):
    fig = draw(study)
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        assert ax.get_xlabel() or ax.get_ylabel(), f"{draw.__name__}: an unlabelled axes"
        assert ax.get_ylabel(), f"{draw.__name__}: no y label"
    assert fig.axes[0].get_title()


def test_render_writes_every_file(study, tmp_path):
    out = tmp_path / "figures" / "s"
    text = render_study(study, out, about="Study `x`: a budget of K = 3.")
    assert text.splitlines()[2] == "Study `x`: a budget of K = 3."
    for path in figure_paths(out):
        assert Path(path).stat().st_size > 0, path
    assert "Table 1" in text and "zero_shot" in text and "![figure4](figure4.png)" in text
    combine_summaries([out / "summary.md"], tmp_path / "figures" / "summary.md")
    assert "](s/figure2.png)" in (tmp_path / "figures" / "summary.md").read_text()


def test_overlap_matrix_counts_shared_tasks():
    mat = plots.overlap_matrix({"a": {"t1", "t2"}, "b": {"t2", "t3", "t4"}, "c": set()})
    assert mat.loc["a", "a"] == 2 and mat.loc["b", "b"] == 3 and mat.loc["c", "c"] == 0
    assert mat.loc["a", "b"] == mat.loc["b", "a"] == 1 and mat.loc["a", "c"] == 0


def test_plots_name_methods_by_variant_when_one_model(study):
    from dataclasses import replace

    from ramp.figures.study import Method
    m = study.methods[0]
    assert study.name(m) == m.variant
    two = replace(study, methods=(*study.methods, Method("other", m.variant)))
    assert study.name(m) == m.variant and two.name(m) == m.label


def test_render_writes_the_source_data_it_drew_from(study, tmp_path):
    render_study(study, tmp_path)
    back = pd.read_parquet(tmp_path / "data" / "task_scores.parquet")
    pd.testing.assert_frame_equal(back, study.task_scores.reset_index(drop=True),
                                  check_dtype=False)
    assert set(back["variant"]) == {m.variant for m in study.methods}
    programs = pd.read_parquet(tmp_path / "data" / "oracle_programs.parquet")
    assert "code" in study.oracle_programs.columns and "code" not in programs.columns
    assert len(programs) == len(study.oracle_programs)


def test_one_method_study_renders(study, tmp_path):
    from dataclasses import replace
    alone = replace(study, methods=study.methods[:1])
    render_study(alone, tmp_path)
    assert (tmp_path / "figure6.png").stat().st_size > 0


def test_a_missing_table_cell_is_blank_not_nan():
    from ramp.figures.render import _markdown

    text = _markdown(pd.DataFrame({"method": ["a", "a E.S."], "score": [50.0, None]}))
    assert "nan" not in text
    assert "|      50 |" in text


def test_cost_summary_splits_model_and_execution_time(study):
    summary = tables.cost_summary(study).set_index(["variant", "policy"])
    ramp = summary.loc[("ramp", "full")]
    # ramp: 6 programmer calls, 4 feedback calls (attempts that failed their tests),
    # 3 reflections, 3 test designs; each call 40 + 20 tokens and 1.5 s.
    assert ramp["model calls"] == 16
    assert ramp["prompt tokens"] == 16 * 40 and ramp["completion tokens"] == 16 * 20
    assert ramp["model hours"] == round(16 * 1.5 / 3600, 2)
    costs = study.of(study.costs, study.methods[0]).set_index(["policy", "stage"])
    assert ramp["programs run"] == (costs.loc[("full", "test_executor"), "calls"]
                                    + costs.loc[("full", "hidden_validation"), "calls"])
    assert ("ramp", "early_stop") in summary.index


def test_cost_table_keeps_the_stages_a_method_has(study):
    from dataclasses import replace

    unused = study.costs.iloc[:1].assign(stage="planner", calls=0, seconds=0.0,
                                         policy="full")
    stages = tables.cost_table(replace(study, costs=pd.concat([study.costs, unused])))
    assert "policy" not in stages.columns and "total" in set(stages["stage"])
    assert "planner" not in set(stages["stage"])
    full = study.costs[study.costs["policy"] == "full"]
    assert len(stages) == len(full)


def test_solved_tasks_marks_strict_and_cumulative_only(study):
    solved = tables.solved_tasks(study).set_index("task")
    # ramp: a passes at t2 and returns it; b passed at t1 only (returned t3 fails);
    # c never passes its truncated test. zero_shot: a at t1; b has no code; c fails.
    assert solved.loc["a", "ramp"] == "t2" and solved.loc["a", "zero_shot"] == "t1"
    assert solved.loc["b", "ramp"] == "(t1)" and solved.loc["b", "zero_shot"] == ""
    assert "c" not in solved.index
    assert list(solved["difficulty"]) == sorted(solved["difficulty"])


@pytest.mark.slow
def test_the_render_rule_draws_from_scored_parquet_alone(study_dir, tmp_path):
    """`render_figures` run by Snakemake (allowed no other rule) on runs that have only their
    scored tables and the oracle's: it renders, the summary names the study and its K, and
    sets the authors' outcomes of the config's file beside ours."""
    import shutil
    import subprocess
    import sys

    import yaml

    repo = Path(__file__).resolve().parents[2]
    for item in ("Snakefile", "workflow", "config", "prompts", "data"):
        (tmp_path / item).symlink_to(repo / item)
    for variant in METHODS:  # subset "s" as "3" (a name the config schema accepts)
        run = study_dir / "results" / "runs" / "tiny-model" / variant / "s"
        dest = tmp_path / "results" / "studies" / "t" / "runs" / "tiny-model" / variant / "3"
        dest.mkdir(parents=True)
        for name in RUN_FILES:
            shutil.copy2(run / f"{name}.parquet", dest)
    analysis = tmp_path / "results" / "studies" / "t" / "analysis" / "3"
    shutil.copytree(study_dir / "results" / "analysis" / "s", analysis)
    (tmp_path / "authors.jsonl").write_text(AUTHORS_LINES)
    (tmp_path / "t.yaml").write_text(yaml.safe_dump({
        "subsets": ["3"], "models": {"use": ["tiny-model"],  # never loaded: rendering reads Parquet
                   "entries": {"tiny-model": {"backend": "llamacpp", "weights": "tiny.gguf"}}},
        "authors": {"outcomes": "authors.jsonl"},
        "study": {"name": "t", "variants": list(METHODS), "iterations": K}}))
    snakemake = [str(Path(sys.executable).with_name("snakemake")), "--cores", "1",
                 "--configfile", "t.yaml", "--allowed-rules", "render_figures", "--",
                 "results/studies/t/figures/3/summary.md"]
    done = subprocess.run(snakemake, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    drawn = tmp_path / "results" / "studies" / "t" / "figures" / "3"  # a run's own, unpublished
    summary = (drawn / "summary.md").read_text()
    assert "Study `t`: a budget of K = 3 iteration(s)" in summary
    assert (drawn / "tables" / "cost_summary.csv").stat().st_size
    # The authors' outcomes reach the rule as an input named by the config.
    assert "## The authors' outcomes beside ours (2 tasks in both)" in summary
    assert (drawn / "authors.png").stat().st_size
    assert not (tmp_path / "figures").exists()


def test_acceptance_counts_what_the_own_tests_let_through(study):
    rows = tables.acceptance(study).set_index("method")
    # ramp: accepted a@t2 (passes hidden) and c@t1 (fails c's truncated hidden test); rejected
    # a@t1, b@t1 (passes hidden), b@t2, b@t3. zero_shot: b has no code, a and c accepted.
    # On the sample tests (a and c have one; b none, so never passed): only "pass:all" passes.
    assert rows.loc["ramp"].to_dict() == {
        "candidates": 6, "accepted by its own tests": 2, "accepted, pass hidden": 1,
        "rejected": 4, "rejected, pass hidden": 1,
        "pass the samples": 1, "pass the samples, pass hidden": 1}
    assert rows.loc["zero_shot", "candidates"] == 2
    assert rows.loc["zero_shot", "pass the samples"] == 1


def test_acceptance_leaves_out_a_method_without_a_check(study):
    from dataclasses import replace

    h = study.hidden_attempts
    unchecked = h.assign(passed_generated=h["passed_generated"].where(
        h["variant"] != "zero_shot", False))
    rows = tables.acceptance(replace(study, hidden_attempts=unchecked))
    assert list(rows["method"]) == ["ramp"]


def test_percent_axes_zoom_on_low_scores_only():
    assert plots._percent_top([0.0, 2.9, 14.7]) == 20
    assert plots._percent_top([]) == 10
    assert plots._percent_top([67.0]) == 80 and plots._percent_top([96.0]) == 100


def test_table1_interval_is_blank_without_tasks():
    assert tables._interval(float("nan"), 0) == ""


def test_acceptance_of_runs_scored_without_samples_has_no_sample_columns(study):
    from dataclasses import replace

    old = study.hidden_attempts.drop(columns=["n_samples", "n_samples_passed", "passed_samples"])
    rows = tables.acceptance(replace(study, hidden_attempts=old))
    assert "pass the samples" not in rows.columns and len(rows) == 2


def test_table1_gives_intervals_over_problems_beside_wilson(study):
    from ramp.analysis.uncertainty import problem_bootstrap_interval

    t1 = tables.table1(study).set_index("method")
    # ramp, cumulative: a and b solved (problem P), c not (Q).
    low, high = problem_bootstrap_interval([True, True, False], ["P", "P", "Q"])
    assert t1.loc["ramp", "cumulative 95% CI (problems)"] == (
        f"{round(100 * low, 1)}-{round(100 * high, 1)}")
    assert t1.loc["ramp E.S.", "strict 95% CI (problems)"] == t1.loc[
        "ramp", "cumulative 95% CI (problems)"]
    # Wilson's columns keep their names and values.
    assert t1.loc["ramp", "cumulative 95% CI"] == "20.8-93.9"
    assert list(t1.columns)[-2:] == ["strict 95% CI (problems)", "cumulative 95% CI (problems)"]


def test_the_summary_says_which_interval_to_read(study):
    from dataclasses import replace

    note = tables.interval_note(study)
    assert "3 tasks come from 2 problems, the largest with 2 tasks" in note
    assert "Read the *(problems)* interval" in note and "wider of the two" in note
    alone = replace(study, task_scores=study.task_scores.assign(problem_id=lambda f: f.task_id))
    assert "read Wilson's" in tables.interval_note(alone)
    assert "Read the *(problems)*" not in tables.interval_note(alone)


def test_paired_table_adds_the_comparison_over_problems(study):
    row = tables.paired(study).set_index("method").loc["zero_shot"]
    # zero_shot solved a; ramp a and b (both of problem P): one problem differs.
    assert row["difference (points)"] == pytest.approx(-33.3)
    assert row["permutation p (problems)"] == 1.0
    assert row["difference 95% CI (problems)"].endswith(" to 0.0")


def test_verdict_matrix_has_one_order_and_only_verdicts_that_occur():
    raw = pd.DataFrame([[1, 2, 3, 4], [5, 6, 7, 8]], index=["WRONG_ANSWER", "COMPILATION_ERROR"],
                       columns=["WRONG_ANSWER", "NOT_RUN", "PASSED", "COMPILATION_ERROR"])
    mat = plots.verdict_matrix(raw)
    assert list(mat.columns) == ["OK", "WA", "CE", "NR"]
    assert list(mat.index) == ["WA", "CE"]
    assert mat.loc["CE", "OK"] == 7 and mat.loc["WA", "NR"] == 2


def test_figure4_labels_only_the_verdicts_shown(study):
    fig = plots.figure4(study)
    for ax in fig.axes[1:]:
        columns = [t.get_text() for t in ax.get_xticklabels()]
        rows = [t.get_text() for t in ax.get_yticklabels()]
        order = list(plots.SHORT_VERDICT.values())
        assert columns == sorted(columns, key=order.index)
        assert rows == sorted(rows, key=order.index)
        for short, meaning in plots.VERDICT_MEANING.items():
            assert (f"{short} = {meaning}" in ax.get_xlabel()) == (short in columns + rows)
    # The hand-made runs never exceed a memory limit: no label names one.
    assert "MLE" not in fig.axes[1].get_xlabel()


def test_figure6_shows_strict_cumulative_and_a_visible_hollow_marker(study):
    left = plots.figure6(study).axes[0]
    hollow = [c for c in left.collections if len(c.get_facecolor()) == 0
              or c.get_facecolor()[0][3] == 0]
    filled = [c for c in left.collections if c not in hollow]
    assert len(hollow) == len(study.methods)  # one E.S. ring per method
    assert min(c.get_zorder() for c in hollow) > max(c.get_zorder() for c in filled)
    assert min(c.get_sizes()[0] for c in hollow) > max(c.get_sizes()[0] for c in filled)
    # ramp: strict 33.3 (square) and cumulative 66.7 (circle), at the same time.
    ramp = [c.get_offsets()[0] for c in filled[:2]]
    assert ramp[0][0] == ramp[1][0]
    assert sorted(round(float(p[1]), 1) for p in ramp) == [33.3, 66.7]
    labels = left.get_legend().get_texts()
    assert {"strict", "cumulative", "early stopping (E.S.)"} <= {t.get_text() for t in labels}


def test_tokens_puts_each_method_at_its_model_tokens_a_task(study):
    ax = plots.tokens(study).axes[0]
    assert ax.get_xscale() == "log"
    squares = [c for c in ax.collections if c.get_zorder() == 2]
    assert len(squares) == len(study.methods)
    for m, square in zip(study.methods, squares, strict=True):
        c = study.of(study.costs, m)
        c = c[(c["policy"] == "full") & (c["stage"] == "total")]
        tasks = study.of(study.task_scores, m)["task_id"].nunique()
        x, y = square.get_offsets()[0]
        assert x == pytest.approx((c["prompt_tokens"] + c["completion_tokens"]).sum() / tasks)
        assert y == pytest.approx(plots._final(study, m, "strict"))


def test_figure2_stacks_solved_and_unsolved_per_band(study):
    right = plots.figure2(study).axes[1]
    bars = [p for p in right.patches if p.get_height() > 0]
    colours = {matplotlib.colors.to_hex(p.get_facecolor()) for p in bars}
    assert colours == {plots.SOLVED, plots.UNSOLVED}
    # Two methods, each bar split into solved and unsolved: every task counted once a method.
    assert sum(p.get_height() for p in right.patches) == 2 * len(TASKS)
    assert "ramp vs zero_shot" in right.get_title()


def test_figure2_sets_the_main_method_beside_the_best_other(study):
    from dataclasses import replace

    best = Method("tiny-model", "best")
    scores = study.of(study.scores, study.main).assign(variant="best")
    more = replace(study, methods=(*study.methods, best),
                   scores=pd.concat([study.scores, scores]))
    # best scores as ramp does, zero_shot lower: best is the one set beside ramp.
    assert plots._figure2_methods(more) == (study.main, best)
    assert plots._figure2_methods(replace(study, methods=study.methods[:1])) == (study.main,)


AUTHORS_LINES = "\n".join([
    # a: right at the first candidate and the last, all K written, never accepted.
    '{"bug_code_uid": "a", "src_uid": "P", "difficulty": 900, "is_solved": true, '
    '"final_unit_ok": true, "implementations": 3, "generated_pass_by_iteration": '
    '[false, false, false], "hidden_pass_by_iteration": [true, false, true]}',
    # c: right at the first, then a wrong one its generated tests accepted: ended early.
    '{"bug_code_uid": "c", "src_uid": "Q", "difficulty": 1700, "is_solved": true, '
    '"final_unit_ok": false, "implementations": 2, "generated_pass_by_iteration": '
    '[false, true], "hidden_pass_by_iteration": [true, false]}',
    '{"bug_code_uid": "z", "src_uid": "R", "difficulty": 800, "is_solved": false}',
])


@pytest.fixture(scope="module")
def authored(study):
    from dataclasses import replace

    from ramp.analysis.authors import parse_outcomes

    return replace(study, authors=parse_outcomes(AUTHORS_LINES))


def test_authors_table_sets_their_outcome_beside_ours(authored):
    table = tables.authors_table(authored).set_index("task")
    # Shared tasks a and c (z is not in the study, b not in theirs).
    assert list(table.index) == ["a", "c"]
    # their cumulative, their final candidate, our cumulative, our strict
    assert table.loc["a"].tolist()[2:] == ["solved", "solved", "solved", "solved"]
    assert table.loc["c"].tolist()[2:] == ["solved", "", "", ""]
    counts = tables.authors_agreement(authored).set_index(["method", "our score"])
    assert counts.loc[("ramp", "cumulative")].to_dict() == {
        "their score": "is_solved", "tasks": 2, "authors solved": 2, "we solved": 1,
        "both solved": 1, "only theirs": 1, "only ours": 0, "neither": 0, "agree": 1}
    # Our strict against their final candidate (a right, c wrong in both).
    assert counts.loc[("ramp", "strict")].to_dict() == {
        "their score": "final candidate", "tasks": 2, "authors solved": 1, "we solved": 1,
        "both solved": 1, "only theirs": 0, "only ours": 0, "neither": 1, "agree": 2}
    # Only the main variant (RAMP) is compared with the authors' RAMP.
    assert set(counts.index.get_level_values("method")) == {"ramp"}


def test_authors_side_by_side_is_rendered_only_with_shared_tasks(authored, tmp_path):
    from dataclasses import replace

    from ramp.analysis.authors import parse_outcomes

    text = render_study(authored, tmp_path / "s")
    assert "## The authors' outcomes beside ours (2 tasks in both)" in text
    assert "![authors](authors.png)" in text
    for path in figure_paths(tmp_path / "s", authors=True):
        assert Path(path).stat().st_size > 0, path
    assert "![authors_trajectory](authors_trajectory.png)" in text
    assert set(figure_paths(tmp_path, authors=True)) - set(figure_paths(tmp_path)) == {
        str(tmp_path / p) for p in (
            "authors.png", "authors.pdf", "authors_trajectory.png", "authors_trajectory.pdf",
            "tables/authors.csv", "tables/authors_agreement.csv",
            "tables/authors_trajectory.csv", "tables/authors_trajectory_totals.csv",
            "data/authors.parquet")}
    back = pd.read_parquet(tmp_path / "s" / "data" / "authors.parquet")
    assert list(back["task_id"]) == ["a", "c", "z"]
    combine_summaries([tmp_path / "s" / "summary.md"], tmp_path / "summary.md")
    combined = (tmp_path / "summary.md").read_text()
    assert "](s/authors.png)" in combined and "](s/authors_trajectory.png)" in combined
    # Redrawn from the written frames alone (the committed studies' path), the same section.
    from ramp.figures.rerender import load_source_data

    again = render_study(load_source_data(tmp_path / "s"), tmp_path / "s", write_data=False)
    assert again == text
    # No task in common: the files the rule declares, but no section in the summary.
    apart = replace(authored, authors=parse_outcomes(AUTHORS_LINES.splitlines()[-1]))
    text = render_study(apart, tmp_path / "t")
    assert "authors' outcomes beside ours" not in text
    assert (tmp_path / "t" / "authors.png").stat().st_size > 0
    assert tables.authors_table(apart).empty
    # Without the authors' file, nothing of theirs is written.
    text = render_study(replace(authored, authors=None), tmp_path / "u")
    assert not (tmp_path / "u" / "authors.png").exists() and "authors" not in text


def test_their_loop_is_set_beside_ours_candidate_by_candidate(authored):
    per_task = tables.trajectory_table(authored).set_index("task")
    assert list(per_task.index) == ["a", "c"]
    # ramp: a wrong then right (accepted); c one wrong candidate its tests accepted.
    assert per_task.loc["a", ["authors candidates", "authors first right",
                              "authors right accepted/rejected", "authors final right",
                              "ramp candidates", "ramp first right",
                              "ramp right accepted/rejected", "ramp final right"]].tolist() == [
        3, 1, "0/2", "yes", 2, 2, "1/0", "yes"]
    assert per_task.loc["c", ["authors wrong accepted", "authors final right",
                              "ramp first right", "ramp wrong accepted"]].tolist() == [
        1, "", "", 1]
    totals = tables.trajectory_totals(authored).set_index("loop")
    assert totals.loc["authors"].to_dict() == {
        "tasks": 2, "candidates": 5, "ran every iteration": 1,
        "tasks with a right candidate": 2, "right at the first": 2, "right first later": 0,
        "right accepted": 0, "right rejected": 3, "wrong accepted": 1,
        "final candidate right": 1}
    assert totals.loc["ramp"].to_dict() == {
        "tasks": 2, "candidates": 3, "ran every iteration": 0,
        "tasks with a right candidate": 1, "right at the first": 0, "right first later": 1,
        "right accepted": 1, "right rejected": 0, "wrong accepted": 1,
        "final candidate right": 1}
    from ramp.figures.render import trajectory_note

    note = trajectory_note(authored)
    assert "wrote all 3 candidates on 1 of 2 tasks and went on past a right candidate on 2" in note
    assert "ended early on 1, 1 of them after its generated tests had accepted" in note


def test_without_a_per_iteration_record_there_is_no_trajectory(authored):
    from dataclasses import replace

    from ramp.analysis.authors import parse_outcomes

    bare = "\n".join(line for line in AUTHORS_LINES.splitlines() if "_by_iteration" not in line)
    old = replace(authored, authors=parse_outcomes(
        bare + '\n{"bug_code_uid": "a", "src_uid": "P", "difficulty": 900, "is_solved": true}'))
    assert tables.trajectory_flags(old) == {} and tables.trajectory_table(old).empty
    assert tables.trajectory_totals(old).empty
    # Their strict-side outcome is unknown: our strict is compared with is_solved.
    counts = tables.authors_agreement(old).set_index(["method", "our score"])
    assert counts.loc[("ramp", "strict"), "their score"] == "is_solved"


def test_a_study_redrawn_from_its_source_data_is_the_same_bytes(study, tmp_path):
    """What render_study wrote in data/ draws every table, figure and summary again, to the
    byte, without writing data/ anew."""
    from ramp.figures.render import study_line
    from ramp.figures.rerender import budget, load_source_data, rerender, write_index

    figures = tmp_path / "figures"
    render_study(study, figures / "s", about=study_line("", K))
    render_study(study, figures / "k3" / "s", about=study_line("", K))  # its frames say so
    combine_summaries([figures / "k3" / "s" / "summary.md"], figures / "k3" / "summary.md")
    write_index(figures, {"": {"s": "./ramp.sh workflow"}})
    drawn = {p: p.read_bytes() for p in figures.rglob("*") if p.is_file()}
    stamps = {p: p.stat().st_mtime_ns for p in (figures / "s" / "data").iterdir()}
    back = load_source_data(figures / "s")
    assert back.methods == study.methods and back.subset == "s" and budget(back) == K
    for p in drawn:
        if p.suffix != ".parquet":
            p.unlink()
    assert rerender(figures, {"": {"s": "./ramp.sh workflow"}}) == [
        figures / "s" / "summary.md", figures / "k3" / "s" / "summary.md",
        figures / "k3" / "summary.md", figures / "summary.md"]
    assert {p: p.read_bytes() for p in drawn} == drawn
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps


def test_the_summary_sets_the_paper_s_numbers_for_the_study_s_language_beside_ours(
        study, tmp_path):
    from dataclasses import replace

    from ramp.figures.reported import REPORTED, beside_ours

    assert study.language == "ruby"  # the per-task scores say the tasks' language
    side = beside_ours("ruby", tables.table1(study)).set_index("method")
    assert list(side.index) == list(REPORTED["ruby"].pass_at_1)
    assert side.loc["ramp", "paper pass@1"] == 67.0 and side.loc["ramp", "model"] == "tiny-model"
    assert side.loc["ramp", "cumulative pass@1"] == tables.table1(study).set_index(
        "method").loc["ramp", "cumulative pass@1"]
    assert side.loc["lantern", "model"] == "" and pd.isna(side.loc["lantern", "tasks"])
    text = render_study(study, tmp_path / "ruby")
    assert "## The paper's pass@1 beside ours (Ruby)" in text and "its Table 1 (34 tasks" in text
    assert text.index("## Table 1") < text.index("beside ours (Ruby)") < text.index("## Each")
    # The baselines the authors fed with hidden tests are said to differ from ours.
    from ramp.figures.render import HIDDEN_FEEDBACK_NOTE

    note = text.index(HIDDEN_FEEDBACK_NOTE)
    assert text.index("beside ours (Ruby)") < note < text.index("## Each")

    cpp = replace(study, task_scores=study.task_scores.assign(language="cpp"))
    text = render_study(cpp, tmp_path / "cpp")
    assert "## The paper's pass@1 beside ours (C++)" in text
    assert "its Discussion, Practicality of RAMP (65 tasks" in text and " 32.3 " in text
    assert "few_shot" not in beside_ours("cpp", tables.table1(cpp))["method"].tolist()
    # Frames scored before the per-task scores said their language: no such section.
    older = replace(study, task_scores=study.task_scores.drop(columns="language"))
    assert older.language is None
    assert "beside ours" not in render_study(older, tmp_path / "older")


def test_a_method_fed_the_hidden_tests_is_labelled_and_has_no_strict_score(study):
    scores = study.scores.assign(hidden_feedback=study.scores["variant"] == "zero_shot")
    methods = tuple(Method(r.model, r.variant, r in hidden_runs(scores))
                    for r in identities(scores))
    labelled = dataclasses.replace(study, scores=scores, methods=methods)
    t1 = tables.table1(labelled).set_index("method")
    row = t1.loc["zero_shot [hidden-test feedback]"]
    assert pd.isna(row["strict pass@1"]) and pd.isna(row["strict (per problem)"])
    assert row["strict 95% CI"] == "" and row["cumulative pass@1"] == pytest.approx(
        tables.table1(study).set_index("method").loc["zero_shot", "cumulative pass@1"])
    assert "zero_shot" not in t1.index and t1.loc["ramp", "strict pass@1"] == pytest.approx(33.3)
    assert labelled.name(methods[1]).endswith("[hidden-test feedback]")


def test_a_method_fed_the_hidden_tests_has_no_table3_row(study):
    """Its "generated" tests are the hidden ones: neither reading, nor the coverage, counts it."""
    scores = study.scores.assign(hidden_feedback=study.scores["variant"] == "zero_shot")
    methods = tuple(Method(r.model, r.variant, r in hidden_runs(scores))
                    for r in identities(scores))
    labelled = dataclasses.replace(study, scores=scores, methods=methods)
    assert set(tables.table3_code(study)["variant"]) == {"ramp", "zero_shot"}
    assert set(tables.table3_code(labelled)["variant"]) == {"ramp"}
    assert set(tables.table3(labelled)["variant"]) == {"ramp"}
    assert "zero_shot [hidden-test feedback]" in tables.code_reading_note(labelled)
    pairs = lambda s: tables.oracle_coverage(s).set_index("measure")["value"][  # noqa: E731
        "task x run pairs classified"]
    assert pairs(labelled) < pairs(study)


def test_the_truncation_table_counts_cut_answers_per_agent(study):
    costs = study.costs.copy()
    full = (costs["policy"] == "full") & (costs["stage"] == "programmer")
    costs.loc[full, "cut_by_cap"] = 2
    costs.loc[full, "cut_by_context"] = 1
    table = tables.truncation(dataclasses.replace(study, costs=costs))
    programmer = table[table["agent"] == "programmer"].set_index("variant")
    assert programmer.loc["ramp", "cut by the answer cap"] == 2
    assert programmer.loc["ramp", "cut by the context (not sent)"] == 1
    assert set(table["agent"]) >= {"programmer", "test_designer"}
    assert "hidden_validation" not in set(table["agent"])
    old = study.costs.drop(columns=["cut_by_cap", "cut_by_context", "samples_fallback"])
    assert "not known" in tables.truncation(dataclasses.replace(study, costs=old))["note"][0]


def test_table3_notes_say_what_the_frames_hold(study):
    from dataclasses import replace

    assert "made before the oracle stage took reference programs" not in (
        tables.text_reading_note(study))
    older = replace(study, oracle_programs=study.oracle_programs.drop(
        columns=["source", "language", "reference", "reference_note"]))
    assert "made before the oracle stage took reference programs" in (
        tables.text_reading_note(older))
    cover = tables.oracle_coverage(older).set_index("measure")["value"]
    assert cover["... a program found passing in the runs"] == 2  # every oracle was found
    # A method whose run records no generated tests is named as left out of the code's reading.
    untested = replace(study, oracle=study.oracle.assign(
        n_tests=study.oracle["n_tests"].where(study.oracle["variant"] == "ramp", 0)))
    assert set(tables.table3_code(untested)["variant"]) == {"ramp"}
    assert "Left out, as their runs record no generated tests" in (
        tables.code_reading_note(untested)) and "zero_shot" in tables.code_reading_note(untested)



def test_the_authors_sections_render_when_no_task_is_shared(study, tmp_path):
    """A study on tasks the authors did not run (the tiny study's) still renders: their
    trajectory tables are empty, not an error."""
    authors = REPO / ".." / "shared" / "data" / "ramp-authors" / "paper34.jsonl"
    if not authors.exists():
        pytest.skip("the authors' outcomes are not here")
    s = dataclasses.replace(study, authors=read_outcomes(authors))
    assert tables.trajectory_totals(s).empty and tables.trajectory_table(s).empty
    assert "The authors' outcomes beside ours" not in render_study(s, tmp_path / "o")
