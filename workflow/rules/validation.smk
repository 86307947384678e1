# Bug validation: every buggy program of a subset on its hidden tests, then a summary.


rule validate_bugs:
    input:
        tasks=rules.sample_tasks.output.tasks,
    output:
        runs="results/bugs/{subset}/hidden_runs.parquet",
    log:
        "logs/bugs/{subset}/run.log",
    benchmark:
        BENCHMARKS["validate_bugs"]
    conda:
        "../../envs/executor.yaml"
    threads: EXECUTOR_WORKERS
    message:
        "Running every buggy program of '{wildcards.subset}' on its hidden tests"
    script:
        "../scripts/validate_bugs.py"


rule summarise_bugs:
    input:
        tasks=rules.sample_tasks.output.tasks,
        runs=rules.validate_bugs.output.runs,
    output:
        summary="results/bugs/{subset}/summary.parquet",
        confusion="results/bugs/{subset}/confusion.parquet",
        markdown="results/bugs/{subset}/summary.md",
    log:
        "logs/bugs/{subset}/summary.log",
    conda:
        "../../envs/executor.yaml"
    message:
        "Summarising the bug validation of '{wildcards.subset}'"
    script:
        "../scripts/summarise_bugs.py"
