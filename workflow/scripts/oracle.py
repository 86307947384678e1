"""Rule oracle: every run of a subset -> oracle programs and Table 3's categories."""

import logging
import sys

from ramp.analysis.stages import oracle
from ramp.execution.executor import RubyExecutor

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
logging.basicConfig(
    level=logging.INFO,
    format="%(message)s",
    handlers=[logging.StreamHandler(sys.stderr), logging.FileHandler(smk.log[0], mode="w")],
)
with RubyExecutor(workers=smk.threads) as executor:
    result = oracle(smk.input.tasks, smk.params.run_dirs, executor, smk.output.oracle,
                    smk.output.programs, iterations=int(smk.params.iterations))
logging.getLogger("oracle").info(
    "%d task x iteration rows, %d classified", len(result), int(result["category"].notna().sum())
)
