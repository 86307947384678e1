# Helpers shared by the other .smk files: what `all` builds, and where artifacts live.

import re

SUBSETS = [str(s) for s in config["subsets"]]
STUDY = config.get("study", {})
MODELS = (config.get("models") or {}).get("use", [])
VARIANTS = STUDY.get("variants", [])
ITERATIONS = int(STUDY.get("iterations", 11))
# Cores a model job claims; keep it equal to the model entry's n_threads so that Snakemake never
# runs more model threads than cores (llama.cpp's threads spin-wait and collapse when they share).
# The model's calls take nearly all of a model job's time; its executor runs between them, on the
# same cores with as many workers, so a job never runs more than it claims. (Claiming
# executor.workers too would leave a core idle for hours on 2 cores, while RAMP's K iterations run
# one after another.)
MODEL_THREADS = int(STUDY.get("model_threads", 1))
EXECUTOR_WORKERS = int(config.get("executor", {}).get("workers", 2))
# A named study (config study.name) keeps its runs, analysis, figures and logs in folders of its
# own, so that studies with other settings (a smaller K, other models) never overwrite each
# other's files. The task tables, the bug validation and the model cache stay shared.
STUDY_NAME = str(STUDY.get("name") or "")
RESULTS = f"results/studies/{STUDY_NAME}" if STUDY_NAME else "results"
FIGURES = f"figures/{STUDY_NAME}" if STUDY_NAME else "figures"
LOGS = f"logs/studies/{STUDY_NAME}" if STUDY_NAME else "logs"
# A run's folder and its logs' folder, as wildcard patterns.
RUN = f"{RESULTS}/runs/{{model}}/{{variant}}/{{subset}}"
RUN_LOGS = f"{LOGS}/runs/{{model}}/{{variant}}/{{subset}}"


def method_of(variant):
    """The method a variant runs: ``ramp`` (its agent stages) or a baseline (one job)."""
    return (config.get("variants") or {}).get(variant, {}).get("method", "ramp")


def _one_of(names):
    """A wildcard regex matching exactly these names (never matching when there are none)."""
    return "|".join(re.escape(n) for n in names) if names else "(?!)"


# RAMP's stages build only RAMP-method variants; run_method builds the baselines.
RAMP_VARIANTS = _one_of([v for v in (config.get("variants") or {}) if method_of(v) == "ramp"])
BASELINE_VARIANTS = _one_of([v for v in (config.get("variants") or {}) if method_of(v) != "ramp"])


def attempts_inputs(w):
    """What collect_attempts gathers: RAMP's per-iteration tables or a baseline's one table."""
    if method_of(w.variant) != "ramp":
        return [f"{run_dir(w)}/method_attempts.parquet"]
    return [f"{run_dir(w)}/iterations/{t}.parquet" for t in range(1, iterations_of(w.variant) + 1)]


def iterations_of(variant):
    """The iterations a variant runs: the study's K, or fewer if the variant says so."""
    limit = int((config.get("variants") or {}).get(variant, {}).get("max_iterations", 0))
    return min(ITERATIONS, limit) if limit else ITERATIONS


def run_dir(w):
    """The run folder (RUN) of a job's wildcards."""
    return RUN.format(model=w.model, variant=w.variant, subset=w.subset)


def iteration_inputs(wildcards):
    run = run_dir(wildcards)
    t = int(wildcards.t)
    previous = f"{run}/reflections.parquet" if t == 1 else f"{run}/iterations/{t - 1}.parquet"
    return {
        "tasks": f"results/tasks/{wildcards.subset}.parquet",
        "tests": f"{run}/tests.parquet",
        "previous": previous,
    }


def study_runs(subset):
    """Every run folder of a subset: the oracle and the figures gather across them."""
    return expand(
        RUN,
        model=MODELS,
        variant=VARIANTS,
        subset=[subset],
    )


def run_files(name):
    """An input function: NAME.parquet of every run of the subset's study (oracle, figures)."""
    return lambda w: [f"{d}/{name}.parquet" for d in study_runs(w.subset)]


def all_targets():
    targets = []
    targets += expand("results/bugs/{subset}/summary.md", subset=SUBSETS)
    targets += expand(
        f"{RUN}/attempts.parquet",
        model=MODELS,
        variant=VARIANTS,
        subset=SUBSETS,
    )
    if MODELS and VARIANTS:
        # Scores, oracle and figures need at least one run to gather.
        targets += [f"{FIGURES}/summary.md"]
    return targets


def dataset_input(path, table="results/tasks/tasks.parquet"):
    """load_tasks's input: the dataset, marked ancient while its bytes are the ones the task table
    was built from (their SHA-256 is in the table's metadata, key ramp.source_sha256). A dataset
    remounted or copied anew (new mtime, same bytes) then reruns nothing; changed bytes, or a table
    without the digest, rerun the study as any newer input does."""
    from ramp.tables import built_from

    return ancient(path) if built_from(table, path) else path
