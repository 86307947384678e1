"""Rule score_run: hidden_attempts.parquet (+ attempts, tests, bug runs) -> scores, per-task
scores, transitions and costs of one run."""

import logging
import sys

from ramp.analysis.scores import final_score
from ramp.analysis.stages import score_run

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
logging.basicConfig(
    level=logging.INFO,
    format="%(message)s",
    handlers=[logging.StreamHandler(sys.stderr), logging.FileHandler(smk.log[0], mode="w")],
)
scores = score_run(
    dict(smk.input.items()), dict(smk.output.items()),
    iterations=int(smk.params.iterations), k_values=[int(k) for k in smk.params.pass_at_k],
    early_stopping=bool(smk.params.early_stopping),
)
logging.getLogger("score_run").info(
    "strict pass@1 %.3f, cumulative pass@1 %.3f",
    final_score(scores, "strict"), final_score(scores, "cumulative"),
)
