# The study in a browser: `snakemake --report report.html` after `all`. Every figure and
# table is a report() output with a caption (workflow/report/), filed under the study and
# subset; each method's run adds one trajectory page per task; the model and executor rules
# write `benchmark:` files, gathered into a runtimes table per subset. The pages are built
# under results/ from the task table (the data set's text): they are never committed.


rule trajectory_pages:
    input:
        tasks=f"{TASKS}/{{subset}}.parquet",
        reflections=run_file("reflections"),
        tests=run_file("tests"),
        attempts=run_file("attempts"),
        hidden_attempts=run_file("hidden_attempts"),
        task_scores=run_file("task_scores"),
        code=REPORT_CODE,
    output:
        pages=report(
            directory(f"{RESULTS}/report/{{subset}}/trajectories/{{model}}/{{variant}}"),
            patterns=["{task}.html"],
            caption="../report/trajectory.rst",
            category=REPORT_CATEGORY,
            subcategory="Trajectories: {variant} ({model})",
            labels=trajectory_labels,
        ),
    log:
        f"{RUN_LOGS}/trajectory_pages.log",
    conda:
        "../../envs/executor.yaml"
    message:
        "Trajectory pages of every task ({wildcards.model}, {wildcards.variant}, {wildcards.subset})"
    script:
        "../scripts/trajectory_pages.py"


rule table_pages:
    input:
        tables=lambda w: [f"{FIGURES}/{w.subset}/tables/{name}.csv" for name in report_tables()],
        code=REPORT_CODE,
    output:
        pages=[
            report(
                f"{REPORT}/tables/{name}.html",
                caption=f"../report/tables/{name}.rst",
                category=REPORT_CATEGORY,
                subcategory="Tables",
                labels={"table": name, "shows": title},
            )
            for name, title in report_tables().items()
        ],
    log:
        f"{LOGS}/report/{{subset}}/table_pages.log",
    conda:
        "../../envs/executor.yaml"
    params:
        titles=report_tables(),
    message:
        "Table pages of '{wildcards.subset}' for the report"
    script:
        "../scripts/table_pages.py"


rule runtimes:
    input:
        # Not the benchmark files themselves: declaring them would rerun every job of a study
        # made before they were written. These come after every measured job of the subset.
        bugs=f"{BUGS}/{{subset}}/summary.md",
        scores=run_files("scores"),
        oracle=f"{RESULTS}/analysis/{{subset}}/oracle.parquet",
        code=REPORT_CODE,
    output:
        table=f"{REPORT}/runtimes.csv",
        page=report(
            f"{REPORT}/runtimes.html",
            caption="../report/runtimes.rst",
            category=REPORT_CATEGORY,
            subcategory="Tables",
            labels={
                "table": "runtimes",
                "shows": "Wall and CPU time, peak memory per job",
            },
        ),
    log:
        f"{LOGS}/report/{{subset}}/runtimes.log",
    conda:
        "../../envs/executor.yaml"
    params:
        patterns=benchmark_patterns,
    message:
        "Runtimes of the jobs of '{wildcards.subset}' from their benchmark files"
    script:
        "../scripts/runtimes.py"
