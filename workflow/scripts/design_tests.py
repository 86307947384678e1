"""Rule design_tests: a subset's tasks -> the Test Designer's guiding tests."""

from ramp.logs import stage_logger
from ramp.methods import stages
from ramp.runs import RunId
from ramp.shards import Shard

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("design_tests", smk.log[0])
stages.design_tests(smk.config, RunId.of(smk.config, smk.wildcards), smk.input.tasks,
                    smk.output.tests, workers=smk.threads,
                    shard=Shard.parse(smk.wildcards.shard))
log.info("wrote %s", smk.output.tests)
