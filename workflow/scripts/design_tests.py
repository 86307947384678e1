"""Rule design_tests: a subset's tasks -> the Test Designer's guiding tests."""

from ramp import study
from ramp.execution.executor import SandboxExecutor
from ramp.io import write_parquet
from ramp.logs import stage_logger
from ramp.methods.ramp import design_tests
from ramp.prompting import PromptLibrary
from ramp.records import tests_frame
from ramp.resources import peak_rss_mb
from ramp.tables import read_tasks

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("design_tests", smk.log[0])
tasks = read_tasks(smk.input.tasks)
variant = study.variant(smk.config, smk.wildcards.variant)
llm = study.build_llm(smk.config, smk.wildcards.model) if variant.test_generation else None
log.info("guiding tests for %d tasks (%s, %s)", len(tasks), smk.wildcards.model, variant.name)
with SandboxExecutor(workers=study.workers(smk.config)) as executor:
    items = design_tests(tasks, llm=llm, lib=PromptLibrary.default(), variant=variant,
                         executor=executor, seed=study.seed(smk.config))
frame = tests_frame(items).assign(peak_rss_mb=peak_rss_mb())
write_parquet(frame, smk.output.tests)
log.info("wrote %s: %d tests, sources %s", smk.output.tests, frame.n_tests.sum(),
         frame.source.value_counts().to_dict())
