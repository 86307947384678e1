"""Rule run_method: a baseline of Table 1 on every task -> its attempts, one row per iteration.

Baselines have no initial reflection and no generated tests; their reflections and tests tables
say so (empty reflection, test source ``none``) so that scoring and the oracle read every run
alike. An interrupted job resumes through the model cache: finished calls are replayed.
"""

from ramp import study
from ramp.io import write_parquet
from ramp.logs import stage_logger
from ramp.methods import baseline
from ramp.methods.base import MethodContext, sandbox_executors, solve_tasks
from ramp.methods.ramp import Reflection, TestDesign
from ramp.prompting import PromptLibrary
from ramp.records import attempts_frame, reflections_frame, tests_frame
from ramp.resources import peak_rss_mb
from ramp.tables import read_tasks

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("run_method", smk.log[0])
tasks = read_tasks(smk.input.tasks)
variant = study.variant(smk.config, smk.wildcards.variant)
budget = study.budget(smk.config, variant.name)
log.info("%s (method %s) on %d tasks, budget %d (%s)", variant.name, variant.method, len(tasks),
         budget, smk.wildcards.model)
executors = sandbox_executors(workers=smk.threads)
try:
    ctx = MethodContext(llm=study.build_llm(smk.config, smk.wildcards.model),
                        lib=PromptLibrary.default(), variant=variant, executors=executors,
                        budget=budget, seed=study.seed(smk.config))
    # Tasks at once: as many as the backend batches (1 on a CPU), so a GPU gets full batches.
    concurrency = study.batch_size(smk.config, smk.wildcards.model)
    log.info("%d task(s) at a time", concurrency)
    attempts = solve_tasks(baseline(variant.method), tasks, ctx, concurrency=concurrency)
finally:
    executors.close()
frame = attempts_frame(attempts).assign(peak_rss_mb=peak_rss_mb())
write_parquet(reflections_frame([Reflection(t.task_id, "", None) for t in tasks]),
              smk.output.reflections)
write_parquet(tests_frame([TestDesign(t.task_id, (), (), "none", None) for t in tasks]),
              smk.output.tests)
write_parquet(frame, smk.output.attempts)
log.info("%d attempts; %d of %d tasks accepted a candidate", len(frame),
         frame.groupby("task_id").passed_generated.any().sum(), len(tasks))
