"""Rule sample_tasks: results/tasks/tasks.parquet -> results/tasks/{subset}.parquet."""

import sys

from ramp.logs import stage_logger
from ramp.sampling import SubsetError, band_counts, write_subset

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("sample_tasks", smk.log[0])

subset = smk.wildcards.subset
try:
    chosen = write_subset(
        smk.input.tasks,
        smk.output.tasks,
        subset,
        seed=smk.params.seed,
        id_file=smk.input.ids or None,
    )
except SubsetError as e:
    log.error("error: %s", e)
    sys.exit(1)
log.info("subset %s: %d tasks, per band %s", subset, len(chosen), band_counts(chosen))
