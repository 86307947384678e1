"""Rule oracle: every run of a subset -> oracle programs and Table 3's categories (the text's
reading: the generated tests on each problem's reference program, else on one found in the runs)."""

from contextlib import ExitStack
from pathlib import Path

from ramp.analysis.references import read_references
from ramp.analysis.stages import oracle
from ramp.execution.executor import Executor, SandboxExecutor
from ramp.execution.runtime import runtime_named
from ramp.logs import stage_logger

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("oracle", smk.log[0])
runs = {name: list(smk.input[name]) for name in ("attempts", "hidden_attempts", "tests")}
references = {}
if smk.params.references and Path(smk.params.references).is_file():
    references = read_references(smk.params.references)
    log.info("%d reference programs from %s", len(references), smk.params.references)
elif smk.params.references:
    log.warning("oracle.references: %s not found; every oracle is a program found in the runs",
                smk.params.references)

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
