"""Rule repair_iteration: the tasks left open by iteration t-1 -> iteration t's attempts."""

from ramp.logs import stage_logger
from ramp.methods import stages
from ramp.runs import RunId
from ramp.shards import Shard

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
t = int(smk.wildcards.t)
log = stage_logger(f"iteration_{t}", smk.log[0])
stages.repair_iteration(smk.config, RunId.of(smk.config, smk.wildcards), t,
                        dict(smk.input.items()), smk.output.attempts, workers=smk.threads,
                        shard=Shard.parse(smk.wildcards.shard))
