"""Rule run_method: a method of Table 1 on every task -> its attempts, one row per iteration."""

from ramp.logs import stage_logger
from ramp.methods import stages
from ramp.runs import RunId
from ramp.shards import Shard

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("run_method", smk.log[0])
stages.run_method(smk.config, RunId.of(smk.config, smk.wildcards), smk.input.tasks,
                  dict(smk.output.items()), workers=smk.threads,
                  shard=Shard.parse(smk.wildcards.shard))
