"""Rule collect_attempts: iterations 1..K -> one table of every attempt."""

import pandas as pd

from ramp.io import write_parquet
from ramp.records import ATTEMPT_COLUMNS

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
frames = [pd.read_parquet(p) for p in smk.input]
frames = [f for f in frames if len(f)]
attempts = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=ATTEMPT_COLUMNS)
write_parquet(attempts, smk.output.attempts)
