# Helpers shared by the other .smk files: what `all` builds, and where artifacts live. What a
# variant or a study means (its method, its budget K, the workers) is answered by the ramp
# package (ramp.study_config), and a run's file names by ramp.runs.RUN_FILES; only the folder
# layout of the workflow is defined here.

import functools
import os
import re
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError

from ramp import provenance, study_config
from ramp.figures.render import figure_paths, study_line
from ramp.figures.rerender import committed_studies
from ramp.methods.draws import DrawsConfig
from ramp.figures.study import RUN_FILES as RENDERED_RUN_FILES
from ramp.runs import RUN_FILES, SHARDED_FILES, shard_file
from ramp.shards import all_shards

SUBSETS = [str(s) for s in config["subsets"]]
MODELS = study_config.study_models(config)
VARIANTS = study_config.study_variants(config)
ITERATIONS = study_config.budget(config)
# Cores a model job claims; keep it equal to the model entry's n_threads so that Snakemake never
# runs more model threads than cores (llama.cpp's threads spin-wait and collapse when they share).
# The model's calls take nearly all of a model job's time; its executor runs between them, on the
# same cores with as many workers, so a job never runs more than it claims. (Claiming
# executor.workers too would leave a core idle for hours on 2 cores, while RAMP's K iterations run
# one after another.)
MODEL_THREADS = study_config.model_threads(config)
# The executor-only jobs (bug validation, hidden validation, oracle) run this many workers.
EXECUTOR_WORKERS = study_config.workers(config)
# The study's language (config data.language: ruby or cpp). Its task tables and bug validation
# live in a folder of the language's own, results/cpp/ (logs/cpp/), so that two languages' tables
# never overwrite each other; Ruby's stay where they always were, results/ (logs/).
LANGUAGE = study_config.language(config)
DATA = study_config.data_root(config, "results")
DATA_LOGS = study_config.data_root(config, "logs")
TASKS = f"{DATA}/tasks"
BUGS = f"{DATA}/bugs"
# A named study (config study.name) keeps its runs, analysis, figures and logs in folders of its
# own, so that studies with other settings (a smaller K, other models) never overwrite each
# other's files. The task tables, the bug validation and the model cache stay shared.
STUDY_NAME = study_config.study_name(config)
RESULTS = study_config.study_root(config, "results")
LOGS = study_config.study_root(config, "logs")
# A run draws its figures, tables and summary under its own results; only a study that asks
# (config study.publish) draws them into the committed tree, figures/NAME (figures/ for the
# default study), whose summary then gathers every subset committed there.
PUBLISH = study_config.publish(config)
FIGURES = study_config.figures_root(config)
# figures/summary.md lists the committed studies; a study that publishes rewrites it. The
# study's own summary gathers its subsets': none for the published default study, whose place
# that index takes (each of its subsets has its own).
STUDY_INDEX = "figures/summary.md"
STUDY_SUMMARY = "" if PUBLISH and not STUDY_NAME else f"{FIGURES}/summary.md"
# A run's folder and its logs' folder, as wildcard patterns.
RUN = f"{RESULTS}/runs/{{model}}/{{variant}}/{{subset}}"
RUN_LOGS = f"{LOGS}/runs/{{model}}/{{variant}}/{{subset}}"
# The code the figures are drawn with: an input of the rendering rules, so that a change to it
# redraws them.
FIGURE_CODE = sorted(str(p) for p in Path("workflow/scripts/ramp/figures").glob("*.py"))


def given_cores():
    """--cores, or None where none was given (a cluster executor, which runs jobs elsewhere)."""
    try:
        return workflow.cores
    except WorkflowError:
        return None


# Every model stage runs once per shard of a run's tasks ({shard}: "2-of-4"), so that a study
# is as wide as its runs times its shards; gather_* rules join the shards' tables into the run
# files. study.shards `auto` (the default) fills the cores Snakemake was given (--cores), one
# shard per model job they can run at once. The count is in the shard's name, so a new count
# plans new shard jobs (replayed from the model cache) instead of trusting another split's.
SHARDS = [s.name for s in all_shards(study_config.shards(config, given_cores()))]
# The sharded run files whose path is "<name>.parquet" (gather_shards; iterations have their own).
FLAT_SHARDED = [n for n in SHARDED_FILES if RUN_FILES[n] == f"{n}.parquet"]


def _one_of(names):
    """A wildcard regex matching exactly these names (never matching when there are none)."""
    return "|".join(re.escape(n) for n in names) if names else "(?!)"


# A subset is `all`, N (the first N of the stratified order) or a committed id list
# data/subsets/NAME.txt (paper34: the authors' 34 tasks; paper10: our own stratified draw).
SUBSET_LISTS = "data/subsets"
SUBSET_NAMES = (
    _one_of(["all", *sorted(p.stem for p in Path(SUBSET_LISTS).glob("*.txt"))]) + "|[1-9][0-9]*"
)


def subset_ids(w):
    """sample_tasks's id list: the committed file of a named subset, none for all and N."""
    return [] if w.subset == "all" or w.subset.isdigit() else f"{SUBSET_LISTS}/{w.subset}.txt"


def run_file(name):
    """The path pattern of a run file (ramp.runs.RUN_FILES), with the run's wildcards."""
    return f"{RUN}/{RUN_FILES[name]}"


def run_path(w, name, **values):
    """A run file of a job's wildcards (``values`` fill the file's own fields, e.g. t)."""
    folder = RUN.format(model=w.model, variant=w.variant, subset=w.subset)
    return f"{folder}/{RUN_FILES[name].format(**values)}"


def shard_pattern(name):
    """The path pattern of shard {shard}'s part of run file NAME, with the run's wildcards."""
    return f"{RUN}/{shard_file(name)}"


def shard_path(w, name, shard=None, **values):
    """Shard ``shard``'s (default: the job's {shard}) part of run file NAME of a job's run."""
    folder = RUN.format(model=w.model, variant=w.variant, subset=w.subset)
    return f"{folder}/{shard_file(name).format(shard=shard or w.shard, **values)}"


def shard_parts(name):
    """An input function: every shard's part of run file NAME (of the job's iteration t, if
    NAME has one), in shard order."""

    def parts(w):
        values = {"t": w.t} if "{t}" in RUN_FILES[name] else {}
        return [shard_path(w, name, shard=s, **values) for s in SHARDS]

    return parts


# RAMP's agent stages build only the variants of staged methods; run_method builds the others.
STAGED_VARIANTS = _one_of(study_config.variant_names(config, staged_only=True))
ONE_JOB_VARIANTS = _one_of(study_config.variant_names(config, staged_only=False))


def hidden_feedback(w):
    """Whether the run's variant was fed the hidden tests (ramp.hidden_feedback)."""
    return study_config.variant(config, w.variant).hidden_feedback


def attempts_inputs(w):
    """What collect_attempts gathers: RAMP's per-iteration tables or a method's one table."""
    if not study_config.staged(config, w.variant):
        return [run_path(w, "method_attempts")]
    iterations = study_config.budget(config, w.variant)
    return [run_path(w, "iteration", t=t) for t in range(1, iterations + 1)]


def iteration_inputs(w):
    """Iteration t of a shard waits only for iteration t-1 (or e0) and the tests of its shard;
    the Programmer's and Feedback Integrator's templates decide its answers."""
    t = int(w.t)
    previous = shard_path(w, "reflections") if t == 1 else shard_path(w, "iteration", t=t - 1)
    return {
        "tasks": f"{TASKS}/{w.subset}.parquet",
        "tests": shard_path(w, "tests"),
        "previous": previous,
        "prompts": provenance.prompt_inputs(config, "repair_iteration", w.variant),
    }


# What decides a model stage's answers (ramp.provenance): the templates it renders are inputs,
# and each field of its variant, of its model entry (but those that change only speed) and of
# the study (seed, budget) is a param, so that an edit re-plans exactly the jobs it changes and
# Snakemake's reason names the field. A re-planned job whose prompts render as before replays
# its calls from the model cache.
def stage_prompts(stage):
    """An input function: the prompt templates model stage STAGE renders for the job's variant."""
    return lambda w: provenance.prompt_inputs(config, stage, w.variant)


@functools.cache
def _stage_params(stage, model, variant):
    return provenance.stage_params(config, stage, model, variant)


def stage_params(stage):
    """Model stage STAGE's params, by name: a function of the job's wildcards each."""

    def param(name):
        return lambda w: _stage_params(stage, w.model, w.variant)[name]

    return {name: param(name) for name in provenance.param_names(stage)}


# Breadth (config coverage, coverage.smk): the draws' stage declares its variant's templates
# and fields like any model stage, with the number of draws as its study field.
COVERAGE = DrawsConfig.of(config)
# The command that runs this study as configured (the coverage page names it): the config files
# layered on config.yaml, in order, and the publish flag where they do not publish it themselves.
LAYERS = [
    f
    for f in dict.fromkeys(os.path.relpath(p) for p in workflow.configfiles)
    if f != "config/config.yaml"
]
RUN_COMMAND = study_config.run_command(
    LAYERS, PUBLISH and not study_config.declared_publish(LAYERS)
)


def draw_params():
    """draw_samples's params, by name: a function of the job's wildcards each."""

    def param(name):
        return lambda w: _stage_params("draw_samples", w.model, COVERAGE.variant)[name]

    return {name: param(name) for name in provenance.param_names("draw_samples")}


def study_runs(subset):
    """Every run folder of a subset: the oracle and the figures gather across them."""
    return expand(RUN, model=MODELS, variant=VARIANTS, subset=[subset])


def run_files(name):
    """An input function: run file NAME of every run of the subset's study (oracle, figures)."""
    return lambda w: [f"{d}/{RUN_FILES[name]}" for d in study_runs(w.subset)]


# The RAMP authors' released outcomes (config authors.outcomes), an input of every rendering
# when the file is there; a clone without it renders everything else.
AUTHORS = (config.get("authors") or {}).get("outcomes")
if AUTHORS and not os.path.exists(AUTHORS):
    print(
        f"authors.outcomes: {AUTHORS} not found; the summaries leave out the side-by-side "
        "with the authors' outcomes",
        file=sys.stderr,
    )
    AUTHORS = None


# The reference programs (config oracle.references), the oracles of the text's Table 3: an
# input of the oracle stage when the file is there. A missing file is no error: the stage's log
# warns, and every oracle is a program found in the runs.
REFERENCES = (config.get("oracle") or {}).get("references") or ""


def oracle_references(w):
    """The oracle stage's references input, when the file is there."""
    return {"references": REFERENCES} if REFERENCES and os.path.exists(REFERENCES) else {}


def render_inputs(w):
    """Every run's scored tables of the subset (by name), the subset's oracle analysis and the
    authors' outcomes, if any."""
    inputs = {name: run_files(name)(w) for name in RENDERED_RUN_FILES}
    inputs["code"] = FIGURE_CODE
    inputs["oracle"] = f"{RESULTS}/analysis/{w.subset}/oracle.parquet"
    inputs["programs"] = f"{RESULTS}/analysis/{w.subset}/oracle_programs.parquet"
    if AUTHORS:
        inputs["authors"] = AUTHORS
    return inputs


def all_targets():
    targets = []
    targets += expand(f"{BUGS}/{{subset}}/summary.md", subset=SUBSETS)
    targets += expand(run_file("attempts"), model=MODELS, variant=VARIANTS, subset=SUBSETS)
    if MODELS and VARIANTS:
        # Scores, oracle and figures need at least one run to gather.
        targets += [STUDY_SUMMARY] if STUDY_SUMMARY else []
        targets += [STUDY_INDEX] if PUBLISH else []
    if MODELS and COVERAGE.draws:
        targets += expand(f"{FIGURES}/{{subset}}/coverage.md", subset=SUBSETS)
    return targets


def dataset_input(path, table=f"{TASKS}/tasks.parquet"):
    """load_tasks's input: the dataset, marked ancient while its bytes are the ones the task table
    was built from (their SHA-256 is in the table's metadata, key ramp.source_sha256). A dataset
    remounted or copied anew (new mtime, same bytes) then reruns nothing; changed bytes, or a table
    without the digest, rerun the study as any newer input does."""
    from ramp.task_table import built_from

    return ancient(path) if built_from(table, path) else path
