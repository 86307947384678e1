# The paper's tables and figures from the scored Parquet only: re-rendering never reruns a
# model stage. One folder per subset, and a summary.md gathering them, under FIGURES: the run's
# own results/[studies/NAME/]figures, or the committed figures/[NAME] for a study that publishes
# (config study.publish; common.smk). A study that publishes also rewrites figures/summary.md,
# the index of every committed study (in the default study's place, so that study has no
# gathered summary: its subsets' own). The files a rendering writes are named once, by
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


if STUDY_SUMMARY:

    rule results_summary:
        input:
            expand("{root}/{subset}/summary.md", root=FIGURES, subset=SUBSETS),
        output:
            STUDY_SUMMARY,
        log:
            f"{LOGS}/figures/summary.log",
        conda:
            "../../envs/executor.yaml"
        params:
            # A published study's summary gathers every subset committed beside the run's.
            committed=PUBLISH,
        message:
            f"Gathering the subsets' summaries into {STUDY_SUMMARY}"
        script:
            "../scripts/combine_summaries.py"


if PUBLISH:

    rule studies_index:
        input:
            expand("{root}/{subset}/summary.md", root=FIGURES, subset=SUBSETS),
            STUDY_SUMMARY or [],
        output:
            STUDY_INDEX,
        log:
            f"{LOGS}/figures/index.log",
        conda:
            "../../envs/executor.yaml"
        params:
            commands=study_config.publish_commands(),
        message:
            "Listing the committed studies in figures/summary.md"
        script:
            "../scripts/write_index.py"


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
