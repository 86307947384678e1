# Bug validation: every buggy program of a subset on its hidden tests, then a summary.


rule validate_bugs:
    input:
        tasks=rules.sample_tasks.output.tasks,
    output:
        runs=f"{BUGS}/{{subset}}/hidden_runs.parquet",
    log:
        f"{DATA_LOGS}/bugs/{{subset}}/run.log",
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
        summary=f"{BUGS}/{{subset}}/summary.parquet",
        confusion=f"{BUGS}/{{subset}}/confusion.parquet",
        markdown=f"{BUGS}/{{subset}}/summary.md",
    log:
        f"{DATA_LOGS}/bugs/{{subset}}/summary.log",
    conda:
        "../../envs/executor.yaml"
    message:
        "Summarising the bug validation of '{wildcards.subset}'"
    script:
        "../scripts/summarise_bugs.py"
