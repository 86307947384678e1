# The paper's tables and figures from the scored Parquet only: re-rendering never reruns a
# model stage. One folder per subset, and figures/summary.md gathering them.

# Must match ramp.figures.render.figure_paths (tests/analysis/test_rules.py checks it).
FIGURE_NAMES = ["figure2", "figure3", "figure4", "figure5", "figure6"]
TABLE_NAMES = ["table1", "paired", "solved_tasks", "acceptance", "table2", "table3", "oracle_coverage", "table4", "cost_summary", "costs"]
DATA_NAMES = ["scores", "task_scores", "transitions", "costs", "hidden_attempts", "oracle", "oracle_programs"]


rule render_figures:
    input:
        scores=run_files("scores"),
        task_scores=run_files("task_scores"),
        transitions=run_files("transitions"),
        costs=run_files("costs"),
        hidden_attempts=run_files("hidden_attempts"),
        oracle=rules.oracle.output.oracle,
        programs=rules.oracle.output.programs,
    output:
        figures=expand(
            "{root}/{{subset}}/{name}.{ext}", root=FIGURES, name=FIGURE_NAMES, ext=["png", "pdf"]
        ),
        tables=expand("{root}/{{subset}}/tables/{name}.csv", root=FIGURES, name=TABLE_NAMES),
        data=expand("{root}/{{subset}}/data/{name}.parquet", root=FIGURES, name=DATA_NAMES),
        summary=f"{FIGURES}/{{subset}}/summary.md",
    log:
        f"{LOGS}/figures/{{subset}}.log",
    message:
        "Rendering the tables and figures of '{wildcards.subset}'"
    params:
        run_dirs=lambda w: study_runs(w.subset),
        about=(f"Study `{STUDY_NAME or 'default'}`: a budget of K = {ITERATIONS} iteration(s) "
               "for every iterating method."),
    conda:
        "../../envs/executor.yaml"
    script:
        "../scripts/render_figures.py"


rule results_summary:
    input:
        expand("{root}/{subset}/summary.md", root=FIGURES, subset=SUBSETS),
    output:
        f"{FIGURES}/summary.md",
    log:
        f"{LOGS}/figures/summary.log",
    message:
        f"Gathering the subsets' summaries into {FIGURES}/summary.md"
    conda:
        "../../envs/executor.yaml"
    script:
        "../scripts/combine_summaries.py"
