"""Rule reflect: a subset's tasks -> the Feedback Integrator's initial reflections e0."""

from ramp.logs import stage_logger
from ramp.methods import stages
from ramp.runs import RunId
from ramp.shards import Shard

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("reflect", smk.log[0])
stages.reflect(smk.config, RunId.of(smk.config, smk.wildcards), smk.input.tasks,
               smk.output.reflections, shard=Shard.parse(smk.wildcards.shard))
log.info("wrote %s", smk.output.reflections)
