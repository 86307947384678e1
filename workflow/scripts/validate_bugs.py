"""Rule validate_bugs: a subset's tasks -> results/bugs/{subset}/hidden_runs.parquet."""

from ramp.bug_validation import validate_bugs
from ramp.execution.executor import SandboxExecutor
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
with SandboxExecutor(workers=smk.threads) as executor:
    runs = validate_bugs(tasks, executor, smk.output.runs, progress, journal=journal)
log.info("%d runs of %d programs written to %s", len(runs), len(tasks), smk.output.runs)
