"""Rule score_run: hidden_attempts.parquet (+ attempts, tests, bug runs) -> scores, per-task
scores, transitions and costs of one run."""

from ramp.analysis.scores import final_score
from ramp.analysis.stages import score_run
from ramp.logs import stage_logger
from ramp.runs import RunId

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("score_run", smk.log[0])
scores = score_run(
    RunId.of(smk.config, smk.wildcards), dict(smk.input.items()), dict(smk.output.items()),
    iterations=int(smk.params.iterations), k_values=[int(k) for k in smk.params.pass_at_k],
    early_stopping=bool(smk.params.early_stopping),
    hidden_feedback=bool(smk.params.hidden_feedback),
)
log.info(
    "strict pass@1 %.3f, cumulative pass@1 %.3f",
    final_score(scores, "strict"), final_score(scores, "cumulative"),
)
