# The paper's tables and figures from the scored Parquet only: re-rendering never reruns a
# model stage. One folder per subset, and figures/summary.md gathering them.
from ramp.figures.render import study_line

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
        about=study_line(STUDY_NAME, ITERATIONS),
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


# Every committed study (figures/ and figures/NAME/) redrawn from the frames in its subsets'
# data/ folders alone: no run folder, model, Ruby or data set, in seconds. The data folders are
# inputs as folders, not file by file: their files are also render_figures outputs, and naming
# them would make Snakemake rebuild the study that wrote them. Having no outputs, the rule runs
# whenever it is asked for; the figure code it draws with is an input all the same.
from pathlib import Path

from ramp.figures.rerender import committed_studies


rule rerender:
    input:
        figures="figures",
        data=[f"{s.root}/{subset}/data" for s in committed_studies("figures") for subset in s.subsets],
        code=sorted(str(p) for p in Path("workflow/scripts/ramp/figures").glob("*.py")),
    log:
        "logs/rerender.log",
    message:
        "Redrawing the committed studies' figures, tables and summaries from their source data"
    conda:
        "../../envs/executor.yaml"
    script:
        "../scripts/rerender_figures.py"
