# Helpers of the report (rules in report.smk): where the pages and benchmark files go, which
# outputs are marked for the report and with which caption, category and labels. Included
# right after common.smk: the other rule files use BENCHMARKS and reported_figures.

import itertools

from ramp.figures.render import AUTHORS_FIGURE, AUTHORS_FIGURES, AUTHORS_TABLES
from ramp.figures.render import FIGURES as FIGURE_TITLES
from ramp.figures.render import TABLES as TABLE_TITLES

REPORT = f"{RESULTS}/report/{{subset}}"
REPORT_CATEGORY = f"Study {STUDY_NAME or 'default'}, subset {{subset}}"
# The code the pages are drawn with: an input of the page rules, so that a change redraws them.
REPORT_CODE = sorted(
    str(p)
    for p in Path("workflow/scripts/ramp/report").rglob("*")
    if p.is_file() and "__pycache__" not in p.parts
)

# Where each model and executor job writes its benchmark file (wall and CPU seconds, peak
# memory), by rule. The bug validation is shared by every study, like its results.
BENCH_RUN = f"{RESULTS}/benchmarks/runs/{{model}}/{{variant}}/{{subset}}"
BENCHMARKS = {
    "validate_bugs": f"{DATA}/benchmarks/bugs/{{subset}}/validate_bugs.tsv",
    "reflect": f"{BENCH_RUN}/shards/{{shard}}/reflect.tsv",
    "design_tests": f"{BENCH_RUN}/shards/{{shard}}/design_tests.tsv",
    "repair_iteration": f"{BENCH_RUN}/shards/{{shard}}/repair_iteration/{{t}}.tsv",
    "run_method": f"{BENCH_RUN}/shards/{{shard}}/run_method.tsv",
    "score_hidden": f"{BENCH_RUN}/score_hidden.tsv",
    "oracle": f"{RESULTS}/benchmarks/analysis/{{subset}}/oracle.tsv",
}
SUBSET_BENCHMARKS = ("validate_bugs", "oracle")  # one job per subset
RUN_BENCHMARKS = [rule for rule in BENCHMARKS if rule not in SUBSET_BENCHMARKS]  # per run


def report_tables():
    """The tables the report shows (name: title), the authors' side-by-side when given."""
    titles = {name: title for name, (_, title) in TABLE_TITLES.items()}
    if AUTHORS:
        titles |= {name: title for name, (_, title) in AUTHORS_TABLES.items()}
    return titles


def reported_figures(paths):
    """render_figures's outputs with each PNG figure marked for the report, its caption
    workflow/report/figures/NAME.rst (the PDFs, tables and frames are left as they are).
    """
    titles = {name: title for name, (_, title) in FIGURE_TITLES.items()}
    titles[AUTHORS_FIGURE] = "The RAMP authors' outcomes beside ours"
    titles[AUTHORS_FIGURES[1]] = "The authors' loop beside ours, candidate by candidate"
    marked = []
    for path in paths:
        name = Path(path).stem
        if path.endswith(".png") and name in titles:
            path = report(
                path,
                caption=f"../report/figures/{name}.rst",
                category=REPORT_CATEGORY,
                subcategory="Figures",
                labels={"figure": name, "shows": titles[name]},
            )
        marked.append(path)
    return marked


def trajectory_labels(wildcards, output):
    """A trajectory page's labels in the report's list, from its folder's index."""
    from ramp.report.pages import index_row

    row = index_row(output.pages, wildcards.task)
    return {
        "task": wildcards.task,
        "difficulty": row["difficulty"],
        "iterations": row["iterations"],
        "hidden tests (evaluation only)": row["outcome"],
    }


def benchmark_patterns(w):
    """The benchmark files of a subset's jobs, as (labels, pattern) with the run's wildcards
    filled; what is left (an iteration t) is globbed when the table is built."""
    patterns = [({"rule": r}, BENCHMARKS[r].format(subset=w.subset)) for r in SUBSET_BENCHMARKS]
    for model, variant, rule_name in itertools.product(MODELS, VARIANTS, RUN_BENCHMARKS):
        run = {"model": model, "variant": variant}
        filled = expand(BENCHMARKS[rule_name], subset=w.subset, allow_missing=True, **run)
        patterns.append(({"rule": rule_name, **run}, filled[0]))
    return patterns


def report_targets():
    """What `all` builds for the report: every run's trajectory pages and each subset's
    table pages and runtimes."""
    if not (MODELS and VARIANTS):
        return []
    targets = expand(
        f"{RESULTS}/report/{{subset}}/trajectories/{{model}}/{{variant}}",
        subset=SUBSETS,
        model=MODELS,
        variant=VARIANTS,
    )
    targets += expand(f"{REPORT}/tables/{{name}}.html", subset=SUBSETS, name=report_tables())
    targets += expand(f"{REPORT}/runtimes.html", subset=SUBSETS)
    return targets
