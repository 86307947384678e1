"""Rule coverage: the draws' and the runs' hidden outcomes -> the coverage curves and the
draws' pass@k per task and problem (ramp.analysis.coverage)."""

from ramp.analysis.stages import coverage
from ramp.logs import stage_logger

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("coverage", smk.log[0])
names = ("draws", "hidden_draws", "attempts", "hidden_attempts", "reflections", "tests")
curve = coverage(smk.input.tasks, {n: list(smk.input[n]) for n in names}, dict(smk.output.items()),
                 draws_variant=smk.params.draws_variant,
                 hidden_variants=list(smk.params.hidden_variants))
log.info("%d curve points of %d method(s)", len(curve), curve.groupby(["model", "method"]).ngroups)
