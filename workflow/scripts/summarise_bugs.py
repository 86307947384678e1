"""Rule summarise_bugs: hidden_runs.parquet -> summary.parquet, confusion.parquet, summary.md."""

import pandas as pd

from ramp.bug_validation import write_summary
from ramp.logs import stage_logger
from ramp.task_table import read_tasks

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("summarise_bugs", smk.log[0])

summary = write_summary(
    pd.read_parquet(smk.input.runs),
    read_tasks(smk.input.tasks),
    smk.wildcards.subset,
    smk.output.summary,
    smk.output.confusion,
    smk.output.markdown,
)
log.info(
    "%d/%d programs fail at least one hidden test", int(summary["fails_any"].sum()), len(summary)
)
