"""Rule results_summary: figures/{subset}/summary.md for every subset -> figures/summary.md."""

from ramp.figures.render import combine_summaries

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
combine_summaries(list(smk.input), smk.output[0])
