# RAMP study workflow. `snakemake --cores 2 all` runs the configured study; `snakemake -n all`
# shows the plan. All logic lives in the `ramp` package (workflow/scripts/ramp); rules only name
# inputs, outputs, resources and the script that does the work.
from snakemake.utils import min_version, validate

from ramp.config_types import typed_config

min_version("9.0")


configfile: "config/config.yaml"


# `snakemake --report report.html`: this page opens the report (workflow/rules/report.smk).
report: "workflow/report/workflow.rst"


# Nested --config overrides (--config 'study={iterations: 3}') reach us as text: type them as
# the schema says before checking it.
config.update(typed_config(config, f"{workflow.basedir}/config/schemas/config.schema.yaml"))
validate(config, "config/schemas/config.schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/report_common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/validation.smk"
include: "workflow/rules/agents.smk"
include: "workflow/rules/scoring.smk"
include: "workflow/rules/coverage.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        all_targets(),
        report_targets(),
