"""Rule load_tasks: the JSONL -> results/tasks/tasks.parquet (+ the rows that did not load)."""

import sys

from ramp.logs import stage_logger
from ramp.task_table import NoTasksError, build_task_table

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("load_tasks", smk.log[0])

try:
    result = build_task_table(
        smk.input.jsonl,
        smk.output.tasks,
        smk.output.errors,
        default_memory_mb=smk.params.default_memory_mb,
    )
except NoTasksError as e:
    log.error("error: %s", e)
    sys.exit(1)
for error in result.errors:
    log.warning("%s", error)
n_trunc = sum(t.n_truncated for t in result.tasks)
log.info(
    "loaded %d tasks, %d bad rows, %d truncated hidden tests flagged (counted per task)",
    len(result.tasks),
    len(result.errors),
    n_trunc,
)
