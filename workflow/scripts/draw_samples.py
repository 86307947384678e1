"""Rule draw_samples: a shard of a subset's tasks -> n independent draws of each (config
coverage)."""

from ramp.logs import stage_logger
from ramp.methods import stages
from ramp.methods.draws import draws_run
from ramp.shards import Shard

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("draw_samples", smk.log[0])
stages.draw_samples(smk.config, draws_run(smk.config, smk.wildcards.model, smk.wildcards.subset),
                    smk.input.tasks, smk.output.draws, shard=Shard.parse(smk.wildcards.shard))
log.info("wrote %s", smk.output.draws)
