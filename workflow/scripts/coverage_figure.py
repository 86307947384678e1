"""Rule coverage_figure: the coverage curves -> figures/<subset>/data/coverage*.parquet and,
from them, figures/<subset>/coverage.{png,pdf,md} (what rerender redraws)."""

from pathlib import Path

from ramp.figures.coverage import publish_coverage
from ramp.logs import stage_logger

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("coverage_figure", smk.log[0])
publish_coverage(smk.input.coverage, smk.input.units, Path(smk.output.page).parent,
                smk.params.command)
log.info("wrote %s", smk.output.page)
