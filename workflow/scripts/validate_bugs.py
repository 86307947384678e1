"""Rule validate_bugs: a subset's tasks -> results/bugs/{subset}/hidden_runs.parquet."""

from ramp.bug_validation import validate_bugs
from ramp.execution.dialects import executors_by_lang
from ramp.journal import Journal, fingerprint
from ramp.logs import stage_logger
from ramp.task_table import read_tasks

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("validate_bugs", smk.log[0])


def progress(done, total, task, report, seconds):
    # Minutes of work: one line per program so a watcher sees it move.
    log.info("%d/%d tasks  %s  %s  %.1fs", done, total, task.task_id, report.verdict, seconds)


tasks = read_tasks(smk.input.tasks)
journal = Journal(smk.output.runs, fingerprint([smk.input.tasks], {}))
# Each task runs in its own lang's runtime (Ruby, or C++ at its dialect's standard).
with executors_by_lang((t.lang for t in tasks), smk.threads) as executors:
    runs = validate_bugs(tasks, executors, smk.output.runs, progress, journal=journal)
log.info("%d runs of %d programs written to %s", len(runs), len(tasks), smk.output.runs)
