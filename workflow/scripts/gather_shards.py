"""Rules gather_shards and gather_iteration: the shards' parts of a run file -> the run file."""

from ramp.logs import stage_logger
from ramp.methods import stages
from ramp.runs import RunId

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("gather", smk.log[0])
gathered = stages.gather_shards(RunId.of(smk.config, smk.wildcards), list(smk.input.parts),
                                smk.input.tasks, smk.output[0])
log.info("%d rows from %d shard(s) -> %s", len(gathered), len(smk.input.parts), smk.output[0])
