"""Rule score_draws: the shards' draws -> draws.parquet, and each draw on the hidden tests ->
hidden.parquet + hidden_draws.parquet (the hidden scoring of runs, unchanged)."""

from ramp import study_config
from ramp.analysis.stages import gather_draws, score_hidden
from ramp.execution.executor import SandboxExecutor
from ramp.execution.runtime import runtime_named
from ramp.logs import stage_logger
from ramp.methods.draws import draws_run

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("score_draws", smk.log[0])


def progress(done, total, task_id, draw, passed):
    log.info("%d/%d  %s  draw %d  %s", done, total, task_id, draw,
             "PASSED" if passed else "failed")


run = draws_run(smk.config, smk.wildcards.model, smk.wildcards.subset)
gather_draws(run, smk.input.tasks, list(smk.input.parts), smk.output.draws)
runtime = runtime_named(study_config.language(smk.config).key)
with SandboxExecutor(workers=smk.threads, runtime=runtime) as executor:
    summary = score_hidden(run, smk.input.tasks, smk.output.draws, smk.output.hidden,
                           smk.output.hidden_draws, executor, progress=progress)
log.info("%d draws validated, %d pass every hidden test on %d task(s)", len(summary),
         int(summary["passed_hidden"].sum()),
         summary[summary["passed_hidden"]]["task_id"].nunique())
