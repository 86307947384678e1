"""The agent stages as functions of paths and config: read Parquet, run a method's step, write
the run's Parquet stamped with its identity (ramp.runs.RunId).

The rule scripts are one call each into here (as the scoring stages are into
ramp.analysis.stages), so a test can run a stage without Snakemake. The stages read the task
table's problems only: the hidden tests are not even read (ramp.task_table.read_problems),
except for a variant marked ``hidden_feedback`` (ramp.hidden_feedback), whose stages read them
as its feedback.

A model stage runs on one shard of the subset's tasks (ramp.shards; the whole subset by
default), and :func:`gather_shards` joins the shards' tables into the stage's one table, in
the subset's order, so that the shard count never shows in what a stage writes.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ramp import study_config
from ramp.execution.executor import SandboxExecutor
from ramp.hidden_feedback import for_variant
from ramp.methods import draws, method
from ramp.methods.base import MethodContext, sandbox_executors, solve_tasks
from ramp.methods.draws import DrawsConfig
from ramp.methods.frames import (
    ATTEMPT_COLUMNS,
    attempts_frame,
    first_open_tasks,
    next_open_tasks,
    reflections_frame,
    tests_frame,
)
from ramp.methods.ramp import design_tests as designed_tests
from ramp.methods.ramp import initial_reflections, iterate
from ramp.methods.records import Reflection, TestDesign
from ramp.prompting import PromptLibrary
from ramp.resources import peak_rss_mb
from ramp.runs import RunId
from ramp.shards import WHOLE, Shard, in_task_order
from ramp.task_table import read_problems
from ramp.tasks import Problem

PathLike = str | os.PathLike[str]
Config = Mapping[str, Any]
log = logging.getLogger(__name__)


def _write(run: RunId, frame: pd.DataFrame, path: PathLike) -> pd.DataFrame:
    """Write a model stage's table with the process's peak memory and the run's identity."""
    frame = frame.assign(peak_rss_mb=peak_rss_mb())
    run.write(frame, path)
    return frame


def shard_problems(tasks: PathLike, shard: Shard) -> list[Problem]:
    """The problems of the task table that belong to ``shard``, in the table's order."""
    problems = read_problems(tasks)
    members = shard.members(p.task_id for p in problems)
    return [p for p in problems if p.task_id in members]


def study_problems(config: Config, tasks: PathLike, shard: Shard) -> list[Problem]:
    """:func:`shard_problems`, refused unless they are in the study's language (config
    ``data.language``): a model stage names its run after the study."""
    problems = shard_problems(tasks, shard)
    study_config.check_language(config, (p.lang for p in problems))
    return problems


def reflect(
    config: Config, run: RunId, tasks: PathLike, out: PathLike, *, shard: Shard = WHOLE
) -> pd.DataFrame:
    """Rule reflect: the Feedback Integrator's initial reflection e0 of every task."""
    problems = study_problems(config, tasks, shard)
    variant = study_config.variant(config, run.variant)
    log.info("initial reflections for %d tasks (%s, %s)", len(problems), run.model, run.variant)
    items = []
    if problems:  # a shard may be empty (more shards than tasks): no model to load then
        llm = study_config.build_llm(config, run.model) if variant.initial_reflection else None
        items = initial_reflections(problems, llm=llm, lib=PromptLibrary.default(),
                                    variant=variant, seed=study_config.seed(config))
    return _write(run, reflections_frame(items), out)


def design_tests(
    config: Config, run: RunId, tasks: PathLike, out: PathLike, *, workers: int,
    shard: Shard = WHOLE,
) -> pd.DataFrame:
    """Rule design_tests: the Test Designer's guiding tests of every task (a large test's input
    generator, a Ruby program whatever the task's language, runs in the sandbox on ``workers``
    processes: the job's threads)."""
    problems = study_problems(config, tasks, shard)
    variant = study_config.variant(config, run.variant)
    log.info("guiding tests for %d tasks (%s, %s)", len(problems), run.model, run.variant)
    items = []
    if problems:
        hidden = for_variant(variant.hidden_feedback, tasks)
        asks = variant.test_generation and hidden is None
        llm = study_config.build_llm(config, run.model) if asks else None
        with SandboxExecutor(workers=workers) as executor:
            items = designed_tests(problems, llm=llm, lib=PromptLibrary.default(),
                                   variant=variant, executor=executor,
                                   seed=study_config.seed(config), hidden=hidden)
    frame = _write(run, tests_frame(items), out)
    log.info("%d tests, sources %s", frame.n_tests.sum(), frame.source.value_counts().to_dict())
    return frame


def repair_iteration(
    config: Config,
    run: RunId,
    t: int,
    inputs: Mapping[str, PathLike],
    out: PathLike,
    *,
    workers: int,
    shard: Shard = WHOLE,
) -> pd.DataFrame:
    """Rule repair_iteration: iteration t on the tasks iteration t-1 left open.

    ``inputs``: tasks, tests, and previous (e0's reflections for t = 1, else iteration t-1),
    the last two of the same shard."""
    problems = study_problems(config, inputs["tasks"], shard)
    tests = pd.read_parquet(inputs["tests"])
    previous = pd.read_parquet(inputs["previous"])
    open_tasks = (first_open_tasks(problems, previous, tests) if t == 1
                  else next_open_tasks(problems, previous, tests))
    log.info("iteration %d: %d open tasks (%s, %s)", t, len(open_tasks), run.model, run.variant)
    attempts = []
    if open_tasks:
        executors = sandbox_executors(workers=workers)
        try:
            attempts = iterate(
                open_tasks, t, budget=study_config.budget(config, run.variant),
                llm=study_config.build_llm(config, run.model), lib=PromptLibrary.default(),
                variant=study_config.variant(config, run.variant), executors=executors,
                seed=study_config.seed(config),
            )
        finally:
            executors.close()
    frame = _write(run, attempts_frame(attempts), out)
    log.info("iteration %d: %d of %d passed their guiding tests", t,
             int(frame.passed_generated.sum()), len(frame))
    return frame


def run_method(
    config: Config, run: RunId, tasks: PathLike, outputs: Mapping[str, PathLike], *, workers: int,
    shard: Shard = WHOLE,
) -> pd.DataFrame:
    """Rule run_method: a method's whole loop on every task, one row per iteration.

    ``outputs``: attempts, reflections, tests. A method run this way has no initial reflection
    and no generated tests of the workflow's; its reflections and tests tables say so (empty
    reflection, test source ``none``) so that scoring and the oracle read every run alike. An
    interrupted job resumes through the model cache: finished calls are replayed."""
    problems = study_problems(config, tasks, shard)
    variant = study_config.variant(config, run.variant)
    budget = study_config.budget(config, run.variant)
    log.info("%s (method %s) on %d tasks, budget %d (%s)", variant.name, variant.method,
             len(problems), budget, run.model)
    attempts = []
    if problems:
        executors = sandbox_executors(workers=workers)
        try:
            ctx = MethodContext(llm=study_config.build_llm(config, run.model),
                                lib=PromptLibrary.default(), variant=variant,
                                executors=executors, budget=budget,
                                seed=study_config.seed(config),
                                hidden=for_variant(variant.hidden_feedback, tasks))
            # Tasks at once: as many as the backend batches (1 on a CPU), so a GPU gets full
            # batches.
            concurrency = study_config.batch_size(config, run.model)
            log.info("%d task(s) at a time", concurrency)
            attempts = solve_tasks(method(variant.method), problems, ctx,
                                   concurrency=concurrency)
        finally:
            executors.close()
    run.write(reflections_frame([Reflection(p.task_id, "", None) for p in problems]),
              outputs["reflections"])
    run.write(tests_frame([TestDesign(p.task_id, (), (), "none", None) for p in problems]),
              outputs["tests"])
    frame = _write(run, attempts_frame(attempts), outputs["attempts"])
    log.info("%d attempts; %d of %d tasks accepted a candidate", len(frame),
             frame.groupby("task_id").passed_generated.any().sum(), len(problems))
    return frame


def collect_attempts(run: RunId, parts: Sequence[PathLike], out: PathLike) -> pd.DataFrame:
    """Rule collect_attempts: iterations 1..K (or a method's one table) -> every attempt."""
    frames = [f for f in (pd.read_parquet(p) for p in parts) if len(f)]
    attempts = (pd.concat(frames, ignore_index=True) if frames
                else run.stamp(pd.DataFrame(columns=ATTEMPT_COLUMNS)))
    run.write(attempts, out)
    return attempts


def gather_shards(
    run: RunId, parts: Sequence[PathLike], tasks: PathLike, out: PathLike
) -> pd.DataFrame:
    """A stage's table from its shards' tables: their rows in the subset's task order (a task's
    own rows, e.g. a method's iterations, keep their order), as one unsharded job writes them."""
    frames = [pd.read_parquet(p) for p in parts]
    if not frames:
        raise ValueError("gather_shards: no shard tables to gather")
    rows = [f for f in frames if len(f)]
    joined = pd.concat(rows, ignore_index=True) if rows else frames[0]
    order = [p.task_id for p in read_problems(tasks)]
    gathered = in_task_order(joined, order)
    run.write(gathered, out)
    return gathered


def draw_samples(
    config: Config, run: RunId, tasks: PathLike, out: PathLike, *, shard: Shard = WHOLE
) -> pd.DataFrame:
    """Rule draw_samples: config ``coverage.draws`` independent draws of every task from the
    configured single-call variant (ramp.methods.draws), as attempts 1..n. An interrupted job
    resumes through the model cache."""
    settings = DrawsConfig.of(config)
    problems = study_problems(config, tasks, shard)
    log.info("%d draws of each of %d tasks (%s, %s's call)", settings.draws, len(problems),
             run.model, settings.variant)
    items = []
    if problems and settings.draws:
        items = draws.draw(problems, n=settings.draws,
                           llm=study_config.build_llm(config, run.model),
                           lib=PromptLibrary.default(),
                           variant=study_config.variant(config, settings.variant),
                           seed=study_config.seed(config))
    frame = _write(run, attempts_frame(items), out)
    log.info("%d draws, %d with a program", len(frame), int((frame.code.str.strip() != "").sum()))
    return frame
