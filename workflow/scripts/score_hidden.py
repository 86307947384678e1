"""Rule score_hidden: attempts.parquet -> hidden.parquet + hidden_attempts.parquet."""

from ramp import study_config
from ramp.analysis.stages import score_hidden
from ramp.execution.executor import SandboxExecutor
from ramp.execution.runtime import runtime_named
from ramp.logs import stage_logger
from ramp.runs import RunId

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("score_hidden", smk.log[0])


def progress(done, total, task_id, iteration, passed):
    log.info("%d/%d  %s  iteration %d  %s", done, total, task_id, iteration,
             "PASSED" if passed else "failed")


# The candidates are programs of the study's language, run by its runtime.
runtime = runtime_named(study_config.language(smk.config).key)
with SandboxExecutor(workers=smk.threads, runtime=runtime) as executor:
    summary = score_hidden(
        RunId.of(smk.config, smk.wildcards), smk.input.tasks, smk.input.attempts,
        smk.output.hidden, smk.output.hidden_attempts, executor,
        stop_at_first_failure=bool(smk.params.stop_at_first_failure), progress=progress,
    )
log.info("%d attempts validated, %d pass every hidden test",
         len(summary), int(summary["passed_hidden"].sum()))
