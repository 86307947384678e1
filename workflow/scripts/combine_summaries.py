"""Rule results_summary: FIGURES/{subset}/summary.md for every subset -> FIGURES/summary.md
(with every subset committed there, for a study that publishes)."""

from pathlib import Path

from ramp.figures.render import combine_summaries
from ramp.figures.rerender import study_summaries

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
parts = list(smk.input)
if smk.params.committed:
    parts = study_summaries(Path(smk.output[0]).parent, parts)
combine_summaries(parts, smk.output[0])
