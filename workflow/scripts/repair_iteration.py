"""Rule repair_iteration: the tasks left open by iteration t-1 -> iteration t's attempts."""

import pandas as pd

from ramp import study
from ramp.execution.executor import SandboxExecutor
from ramp.io import write_parquet
from ramp.logs import stage_logger
from ramp.methods.ramp import iterate
from ramp.prompting import PromptLibrary
from ramp.records import attempts_frame, first_open_tasks, next_open_tasks
from ramp.resources import peak_rss_mb
from ramp.tables import read_tasks

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
t = int(smk.wildcards.t)
log = stage_logger(f"iteration_{t}", smk.log[0])
tasks = read_tasks(smk.input.tasks)
tests = pd.read_parquet(smk.input.tests)
previous = pd.read_parquet(smk.input.previous)
open_tasks = (first_open_tasks(tasks, previous, tests) if t == 1
              else next_open_tasks(tasks, previous, tests))
log.info("iteration %d: %d open tasks (%s, %s)", t, len(open_tasks), smk.wildcards.model,
         smk.wildcards.variant)
attempts = []
if open_tasks:
    with SandboxExecutor(workers=smk.threads) as executor:
        attempts = iterate(
            open_tasks, t, budget=study.budget(smk.config, smk.wildcards.variant),
            llm=study.build_llm(smk.config, smk.wildcards.model), lib=PromptLibrary.default(),
            variant=study.variant(smk.config, smk.wildcards.variant), executor=executor,
            seed=study.seed(smk.config),
        )
frame = attempts_frame(attempts).assign(peak_rss_mb=peak_rss_mb())
write_parquet(frame, smk.output.attempts)
log.info("iteration %d: %d of %d passed their guiding tests", t,
         int(frame.passed_generated.sum()), len(frame))
