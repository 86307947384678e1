"""Rule oracle: every run of a subset -> oracle programs and Table 3's categories (the text's
reading: the generated tests on each problem's reference program, else on one found in the runs)."""

from contextlib import ExitStack

from ramp.analysis.references import configured_references
from ramp.analysis.stages import oracle
from ramp.execution.executor import Executor, SandboxExecutor
from ramp.execution.runtime import runtime_named
from ramp.logs import stage_logger

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("oracle", smk.log[0])
runs = {name: list(smk.input[name]) for name in ("attempts", "hidden_attempts", "tests")}
references = configured_references(smk.params.references, log)

with ExitStack() as stack:
    executors: dict[str, Executor] = {}

    def runner_for(language: str) -> Executor:
        """The executor of ``language`` (references are Ruby whatever the study's language)."""
        if language not in executors:
            executors[language] = stack.enter_context(
                SandboxExecutor(workers=smk.threads, runtime=runtime_named(language)))
        return executors[language]

    result = oracle(smk.input.tasks, runs, runner_for, smk.output.oracle, smk.output.programs,
                    iterations=int(smk.params.iterations), references=references, log=log)
log.info(
    "%d task x iteration rows, %d classified", len(result), int(result["category"].notna().sum())
)
