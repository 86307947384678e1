"""The scoring stages as functions of paths: read Parquet, call the analysis, write Parquet.

The rule scripts are one call each into here, so a test can run a stage without Snakemake.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence

import pandas as pd

from ramp.analysis import coverage as cov
from ramp.analysis.candidates import CANDIDATE_COLUMNS, candidate_programs, score_candidates
from ramp.analysis.candidates import Progress as CandidateProgress
from ramp.analysis.costs import cost_table
from ramp.analysis.hidden import HIDDEN_ATTEMPT_COLUMNS, Progress, validate_attempts
from ramp.analysis.oracle import (
    RunnerFor,
    check_tests_on_oracles,
    classify_run,
    oracle_programs,
)
from ramp.analysis.references import Reference, check_references
from ramp.analysis.scores import scores_table, status_by_iteration, task_scores
from ramp.analysis.transitions import transitions
from ramp.analysis.verdict_cache import VerdictCache
from ramp.execution.executor import Executor
from ramp.io import write_parquet
from ramp.journal import Journal, fingerprint
from ramp.runs import IDENTITY_COLUMNS, RunId, identities
from ramp.shards import in_task_order
from ramp.task_table import read_tasks

PathLike = str | os.PathLike[str]


def _read(path: PathLike, columns: Sequence[str]) -> pd.DataFrame:
    df = pd.read_parquet(path)
    missing = sorted(set(columns) - set(df.columns))
    if missing:
        raise ValueError(f"{path}: missing columns {missing}")
    return df


def score_hidden(
    run: RunId,
    tasks: PathLike,
    attempts: PathLike,
    hidden_out: PathLike,
    hidden_attempts_out: PathLike,
    runner: Executor,
    *,
    stop_at_first_failure: bool = False,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Rule score_hidden: every attempt on the hidden tests (resumable through a journal)."""
    frame = _read(attempts, ["task_id", "iteration", "code", "passed_generated"])
    # A journal written by code that recorded other columns is started over, not mixed in.
    journal = Journal(hidden_attempts_out, fingerprint(
        [tasks, attempts], {"stop_at_first_failure": stop_at_first_failure,
                            "columns": HIDDEN_ATTEMPT_COLUMNS}))
    try:
        hidden, summary = validate_attempts(frame, read_tasks(tasks), runner,
                                            stop_at_first_failure=stop_at_first_failure,
                                            progress=progress, journal=journal)
    finally:
        journal.close()
    run.write(hidden, hidden_out)
    run.write(summary, hidden_attempts_out)
    journal.finish()
    return summary


def score_candidates_stage(
    run: RunId,
    tasks: PathLike,
    attempts: PathLike,
    hidden_attempts: PathLike,
    out: PathLike,
    runner: Executor,
    *,
    stop_at_first_failure: bool = False,
    progress: CandidateProgress | None = None,
    cache: VerdictCache | None = None,
) -> pd.DataFrame:
    """Rule score_candidates: every program the run wrote, on the hidden tests (resumable
    through a journal, and through ``cache`` across runs; ramp.analysis.candidates)."""
    task_list = read_tasks(tasks)
    frame = _read(attempts, ["task_id", "iteration", "code"])
    programs = candidate_programs(frame, task_list)
    journal = Journal(out, fingerprint(
        [tasks, attempts], {"stop_at_first_failure": stop_at_first_failure,
                            "columns": CANDIDATE_COLUMNS}))
    try:
        scored = score_candidates(programs, task_list, frame,
                                  _read(hidden_attempts, HIDDEN_ATTEMPT_COLUMNS), runner,
                                  stop_at_first_failure=stop_at_first_failure,
                                  progress=progress, journal=journal, cache=cache)
    finally:
        journal.close()
    run.write(scored, out)
    journal.finish()
    return scored


def score_run(
    run: RunId,
    inputs: Mapping[str, PathLike],
    outputs: Mapping[str, PathLike],
    *,
    iterations: int,
    k_values: Sequence[int] = (1,),
    early_stopping: bool = False,
    hidden_feedback: bool = False,
) -> pd.DataFrame:
    """Rule score_run: scores, per-task scores, transitions and costs of one run.

    ``inputs``: tasks, attempts, reflections, tests, hidden, hidden_attempts and optionally
    bug_runs; ``outputs``: scores, task_scores, transitions, costs. ``hidden_feedback``: the
    run's method was fed the hidden tests (ramp.hidden_feedback): its scores and per-task
    scores say so in a column of that name, so that no table shows them unlabelled.
    """
    task_list = read_tasks(inputs["tasks"])
    validated = _read(inputs["hidden_attempts"], ["task_id", "iteration", "passed_hidden"])
    status = status_by_iteration(validated, task_list, iterations)
    per_task = task_scores(validated, task_list, iterations)
    scores = scores_table(status, per_task, k_values=k_values, early_stopping=early_stopping)
    bug_runs = pd.read_parquet(inputs["bug_runs"]) if inputs.get("bug_runs") else None
    hidden = _read(inputs["hidden"], ["task_id", "iteration", "test_index", "verdict"])
    costs = cost_table(
        _read(inputs["attempts"], ["task_id", "iteration", "code", "exec_seconds"]),
        pd.read_parquet(inputs["reflections"]), pd.read_parquet(inputs["tests"]),
        validated, per_task, early_stopping=early_stopping)
    run.write(scores.assign(hidden_feedback=hidden_feedback), outputs["scores"])
    run.write(per_task.assign(hidden_feedback=hidden_feedback), outputs["task_scores"])
    run.write(transitions(hidden, per_task, task_list, bug_runs), outputs["transitions"])
    run.write(costs, outputs["costs"])
    return scores


def _by_run(paths: Sequence[PathLike]) -> dict[RunId, pd.DataFrame]:
    """Each run's table among ``paths``, keyed by the identity its rows carry."""
    out = {}
    for path in paths:
        frame = pd.read_parquet(path)
        for run in identities(frame):
            out[run] = frame
    return out


def oracle(
    tasks: PathLike,
    inputs: Mapping[str, Sequence[PathLike]],
    runner_for: RunnerFor,
    oracle_out: PathLike,
    programs_out: PathLike,
    *,
    iterations: int,
    references: Mapping[str, Reference] | None = None,
    log: logging.Logger | None = None,
) -> pd.DataFrame:
    """Rule oracle: each problem's oracle program (its reference, else one found in the runs),
    then Table 3's categories in the text's reading.

    ``inputs``: the attempts, hidden_attempts and tests tables of every run (any order: a
    table's run is in its identity columns); ``runner_for(language)``: an executor of that
    language; ``references``: problem id -> reference program, each run on its problem's hidden
    tests before use (a refused one is logged as a warning, and its problem falls back to a
    found program)."""
    task_list = read_tasks(tasks)
    attempts, validated, tests = (_by_run(inputs[name])
                                  for name in ("attempts", "hidden_attempts", "tests"))
    checks = check_references(references or {}, task_list, runner_for)
    for check in checks.values():
        if not check.accepted and log is not None:
            log.warning("%s", check.note)
    runs = {(r.model, r.variant): (attempts[r], validated[r]) for r in attempts}
    programs = oracle_programs(runs, task_list, checks)
    if log is not None:
        sources = programs["source"].value_counts()
        log.info("oracles of %d problems: %d reference programs, %d found in the runs, %d none",
                 len(programs), sources.get("reference", 0), sources.get("found", 0),
                 sources.get("", 0))
    parts = []
    for r in attempts:
        checked = check_tests_on_oracles(tests[r], programs, task_list, runner_for)
        status = status_by_iteration(validated[r], task_list, iterations)
        parts.append(classify_run(r.model, r.variant, status, checked, programs))
    result = pd.concat(parts, ignore_index=True)
    write_parquet(programs, programs_out)
    write_parquet(result, oracle_out)
    return result


def gather_draws(run: RunId, tasks: PathLike, parts: Sequence[PathLike], out: PathLike) -> (
    pd.DataFrame
):
    """Rule score_draws, first half: the shards' draws as one table, in the subset's order."""
    frames = [f for f in (pd.read_parquet(p) for p in parts) if len(f)]
    if not frames:
        raise ValueError(f"no draws in {len(parts)} shard table(s), e.g. {parts[0]}")
    order = [t.task_id for t in read_tasks(tasks)]
    draws = in_task_order(pd.concat(frames, ignore_index=True), order)
    run.write(draws.drop(columns=list(IDENTITY_COLUMNS), errors="ignore"), out)
    return draws


def coverage(
    tasks: PathLike, inputs: Mapping[str, Sequence[PathLike]], outputs: Mapping[str, PathLike],
    *, draws_variant: str = "draws", hidden_variants: Sequence[str] = (),
) -> pd.DataFrame:
    """Rule coverage: the draws' pass@k by k and every run's coverage by iteration, both by
    tokens a task (ramp.analysis.coverage).

    ``inputs``: draws and hidden_draws (one table per model, each stamped with its run), and
    attempts, hidden_attempts, reflections and tests of every run; ``outputs``: coverage (the
    curves) and units (the draws' pass@k per task and per problem); ``draws_variant``: the
    variant whose call was drawn (it names the draws' curve); ``hidden_variants``: the variants
    fed the hidden tests, whose curves say so."""
    task_list = read_tasks(tasks)
    task_problems = {t.task_id: t.problem_id for t in task_list}
    curves, units = [], []
    draws, hidden_draws = _by_run(inputs["draws"]), _by_run(inputs["hidden_draws"])
    for run, validated in hidden_draws.items():
        label = f"{draws_variant} x{int(validated.groupby('task_id').size().min())}"
        unit = cov.draw_units(validated, task_problems, model=run.model, method=label)
        units.append(unit)
        curves.append(cov.draw_curve(unit, draws[run]))
    attempts, validated_runs, reflections, tests = (
        _by_run(inputs[name]) for name in ("attempts", "hidden_attempts", "reflections", "tests"))
    for run, frame in attempts.items():
        setup = cov.setup_tokens(reflections[run], tests[run])
        last = int(frame["iteration"].max()) if len(frame) else 0
        curves.append(cov.iteration_curve(list(task_problems), frame, validated_runs[run], setup,
                                          model=run.model, method=run.variant, iterations=last,
                                          hidden_feedback=run.variant in hidden_variants))
    curve = pd.concat([c for c in curves if len(c)], ignore_index=True) if curves else (
        pd.DataFrame(columns=cov.COVERAGE_COLUMNS))
    per_unit = pd.concat(units, ignore_index=True) if units else pd.DataFrame(
        columns=cov.UNIT_COLUMNS)
    write_parquet(curve, outputs["coverage"])
    write_parquet(per_unit, outputs["units"])
    return curve
