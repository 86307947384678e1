# The paper's tables and figures from the scored Parquet only: re-rendering never reruns a
# model stage. One folder per subset, and figures/summary.md gathering them. The files a
# rendering writes are named once, by ramp.figures.render.figure_paths.


rule render_figures:
    input:
        unpack(render_inputs),
    output:
        rendered=figure_paths(f"{FIGURES}/{{subset}}", summary=False, authors=bool(AUTHORS)),
        summary=f"{FIGURES}/{{subset}}/summary.md",
    log:
        f"{LOGS}/figures/{{subset}}.log",
    message:
        "Rendering the tables and figures of '{wildcards.subset}'"
    params:
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
