"""Rule collect_attempts: iterations 1..K (or a method's one table) -> every attempt."""

from ramp.logs import stage_logger
from ramp.methods import stages
from ramp.runs import RunId

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("collect", smk.log[0])
attempts = stages.collect_attempts(RunId.of(smk.config, smk.wildcards), list(smk.input),
                                   smk.output.attempts)
log.info("%d attempts", len(attempts))
