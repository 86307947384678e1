"""Rule fetch_data: xCodeEval on the Hugging Face hub -> the configured task file, checked."""

import sys

from ramp.hub.fetch import FetchSettings, fetch_and_check
from ramp.logs import stage_logger

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("fetch_data", smk.log[0])
settings = FetchSettings(**smk.params.fetch)
sys.exit(fetch_and_check(smk.output.jsonl, settings, smk.params.manifests, log))
