"""Rule rerender: every committed study's figures, tables and summaries from figures/**/data,
and figures/summary.md, the index of the committed studies."""

from pathlib import Path

from ramp.figures.rerender import rerender
from ramp.study_config import publish_commands

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
written = rerender(smk.input.figures, publish_commands())
Path(smk.log[0]).write_text("".join(f"rendered {p}\n" for p in written), encoding="utf-8")
