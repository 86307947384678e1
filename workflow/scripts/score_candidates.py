"""Rule score_candidates: attempts.parquet + hidden_attempts.parquet -> candidates.parquet."""

from pathlib import Path

from ramp import study_config
from ramp.analysis.stages import score_candidates_stage
from ramp.analysis.verdict_cache import VerdictCache
from ramp.execution.executor import SandboxExecutor
from ramp.execution.runtime import runtime_named
from ramp.logs import stage_logger
from ramp.runs import RunId

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("score_candidates", smk.log[0])


def progress(done, total, task_id, candidate, passed):
    log.info("%d/%d  %s  candidate %s  %s", done, total, task_id, candidate,
             "PASSED" if passed else "failed")


runtime = runtime_named(study_config.language(smk.config).key)
stop = bool(smk.params.stop_at_first_failure)
cache = (VerdictCache(Path(smk.params.verdict_cache), salt=f"{runtime!r} stop={stop}")
         if smk.params.verdict_cache else None)
with SandboxExecutor(workers=smk.threads, runtime=runtime) as executor:
    scored = score_candidates_stage(
        RunId.of(smk.config, smk.wildcards), smk.input.tasks, smk.input.attempts,
        smk.input.hidden_attempts, smk.output.candidates, executor,
        stop_at_first_failure=stop, progress=progress, cache=cache,
    )
log.info("%d program(s), %d pass every hidden test, %d of them run here or read from the "
         "verdict cache",
         len(scored), int(scored["passed_hidden"].sum()), int((~scored["reused"]).sum()))
