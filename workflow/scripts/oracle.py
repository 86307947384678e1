"""Rule oracle: every run of a subset -> oracle programs and Table 3's categories."""

from ramp import study_config
from ramp.analysis.stages import oracle
from ramp.execution.executor import SandboxExecutor
from ramp.execution.runtime import runtime_named
from ramp.logs import stage_logger

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("oracle", smk.log[0])
runs = {name: list(smk.input[name]) for name in ("attempts", "hidden_attempts", "tests")}
runtime = runtime_named(study_config.language(smk.config).key)  # the study's programs' runtime
with SandboxExecutor(workers=smk.threads, runtime=runtime) as executor:
    result = oracle(smk.input.tasks, runs, executor, smk.output.oracle, smk.output.programs,
                    iterations=int(smk.params.iterations))
log.info(
    "%d task x iteration rows, %d classified", len(result), int(result["category"].notna().sum())
)
