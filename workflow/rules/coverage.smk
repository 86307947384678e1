# Breadth (config coverage; docs/coverage.md): n independent draws a task of one single-call
# variant's Programmer call, one job per shard of the subset's tasks (model stage), then every
# draw on the hidden tests, then the coverage curves beside the study's runs and their figure.
# Planned only while coverage.draws > 0 (all_targets, common.smk).

DRAWS = f"{RESULTS}/draws/{{model}}/{{subset}}"
DRAWS_LOGS = f"{LOGS}/draws/{{model}}/{{subset}}"


rule draw_samples:
    input:
        tasks=rules.sample_tasks.output.tasks,
        prompts=lambda w: provenance.prompt_inputs(config, "draw_samples", COVERAGE.variant),
    output:
        draws=f"{DRAWS}/shards/{{shard}}.parquet",
    log:
        f"{DRAWS_LOGS}/shards/{{shard}}.log",
    conda:
        "../../envs/models.yaml"
    threads: MODEL_THREADS
    resources:
        model_stage=1,
    params:
        **draw_params(),
    message:
        "Draws: {wildcards.model} on '{wildcards.subset}', shard {wildcards.shard}"
    script:
        "../scripts/draw_samples.py"


rule score_draws:
    input:
        tasks=f"{TASKS}/{{subset}}.parquet",
        parts=expand(f"{DRAWS}/shards/{{shard}}.parquet", shard=SHARDS, allow_missing=True),
    output:
        draws=f"{DRAWS}/draws.parquet",
        hidden=f"{DRAWS}/hidden.parquet",
        hidden_draws=f"{DRAWS}/hidden_draws.parquet",
    log:
        f"{DRAWS_LOGS}/score.log",
    conda:
        "../../envs/executor.yaml"
    threads: EXECUTOR_WORKERS
    message:
        "Hidden validation of every draw ({wildcards.model}, {wildcards.subset})"
    script:
        "../scripts/score_draws.py"


rule coverage:
    input:
        tasks=f"{TASKS}/{{subset}}.parquet",
        draws=expand(f"{DRAWS}/draws.parquet", model=MODELS, allow_missing=True),
        hidden_draws=expand(f"{DRAWS}/hidden_draws.parquet", model=MODELS, allow_missing=True),
        attempts=run_files("attempts"),
        hidden_attempts=run_files("hidden_attempts"),
        reflections=run_files("reflections"),
        tests=run_files("tests"),
    output:
        coverage=f"{RESULTS}/analysis/{{subset}}/coverage.parquet",
        units=f"{RESULTS}/analysis/{{subset}}/coverage_units.parquet",
    log:
        f"{LOGS}/analysis/{{subset}}/coverage.log",
    conda:
        "../../envs/executor.yaml"
    params:
        draws_variant=COVERAGE.variant,
        hidden_variants=[v for v in VARIANTS if study_config.variant(config, v).hidden_feedback],
    message:
        "Coverage by draws and by iterations ('{wildcards.subset}')"
    script:
        "../scripts/coverage.py"


rule coverage_figure:
    input:
        coverage=rules.coverage.output.coverage,
        units=rules.coverage.output.units,
        code="workflow/scripts/ramp/figures/coverage.py",
    output:
        figures=expand(
            f"{FIGURES}/{{subset}}/coverage.{{ext}}", ext=("png", "pdf"), allow_missing=True
        ),
        page=f"{FIGURES}/{{subset}}/coverage.md",
        data=expand(
            f"{FIGURES}/{{subset}}/data/{{name}}.parquet",
            name=("coverage", "coverage_units"),
            allow_missing=True,
        ),
    log:
        f"{LOGS}/figures/{{subset}}_coverage.log",
    conda:
        "../../envs/executor.yaml"
    params:
        command=RUN_COMMAND,
    message:
        "Drawing the coverage figure of '{wildcards.subset}'"
    script:
        "../scripts/coverage_figure.py"
