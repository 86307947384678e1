# The paper's tables and figures from the scored Parquet only: re-rendering never reruns a
# model stage. One folder per subset, and a summary.md gathering them, under FIGURES: the run's
# own results/[studies/NAME/]figures, or the committed figures/[NAME] for a study that publishes
# (config study.publish; common.smk). The files a rendering writes are named once, by
# ramp.figures.render.figure_paths.


rule render_figures:
    input:
        unpack(render_inputs),
    output:
        rendered=reported_figures(
            figure_paths(f"{FIGURES}/{{subset}}", summary=False, authors=bool(AUTHORS))
        ),
        summary=f"{FIGURES}/{{subset}}/summary.md",
    log:
        f"{LOGS}/figures/{{subset}}.log",
    conda:
        "../../envs/executor.yaml"
    params:
        about=study_line(STUDY_NAME, ITERATIONS),
    message:
        "Rendering the tables and figures of '{wildcards.subset}'"
    script:
        "../scripts/render_figures.py"


rule results_summary:
    input:
        expand("{root}/{subset}/summary.md", root=FIGURES, subset=SUBSETS),
    output:
        f"{FIGURES}/summary.md",
    log:
        f"{LOGS}/figures/summary.log",
    conda:
        "../../envs/executor.yaml"
    params:
        # A published study's summary gathers every subset committed beside the run's.
        committed=PUBLISH,
    message:
        f"Gathering the subsets' summaries into {FIGURES}/summary.md"
    script:
        "../scripts/combine_summaries.py"


# Every committed study (figures/ and figures/NAME/) redrawn from the frames in its subsets'
# data/ folders alone: no run folder, model, Ruby or data set, in seconds. The data folders are
# inputs as folders, not file by file: their files are also render_figures outputs, and naming
# them would make Snakemake rebuild the study that wrote them. Having no outputs, the rule runs
# whenever it is asked for; the figure code it draws with is an input all the same.


rule rerender:
    input:
        figures="figures",
        data=[
            f"{s.root}/{subset}/data" for s in committed_studies("figures") for subset in s.subsets
        ],
        code=FIGURE_CODE,
    log:
        "logs/rerender.log",
    conda:
        "../../envs/executor.yaml"
    message:
        "Redrawing the committed studies' figures, tables and summaries from their source data"
    script:
        "../scripts/rerender_figures.py"
