"""Rule reflect: a subset's tasks -> the Feedback Integrator's initial reflections e0."""

from ramp import study
from ramp.io import write_parquet
from ramp.logs import stage_logger
from ramp.methods.ramp import initial_reflections
from ramp.prompting import PromptLibrary
from ramp.records import reflections_frame
from ramp.resources import peak_rss_mb
from ramp.tables import read_tasks

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("reflect", smk.log[0])
tasks = read_tasks(smk.input.tasks)
variant = study.variant(smk.config, smk.wildcards.variant)
llm = study.build_llm(smk.config, smk.wildcards.model) if variant.initial_reflection else None
log.info("initial reflections for %d tasks (%s, %s)", len(tasks), smk.wildcards.model, variant.name)
items = initial_reflections(tasks, llm=llm, lib=PromptLibrary.default(), variant=variant,
                            seed=study.seed(smk.config))
write_parquet(reflections_frame(items).assign(peak_rss_mb=peak_rss_mb()), smk.output.reflections)
log.info("wrote %s", smk.output.reflections)
