"""Rule rerender: every committed study's figures, tables and summaries from figures/**/data."""

from pathlib import Path

from ramp.figures.rerender import rerender

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
written = rerender(smk.input.figures)
Path(smk.log[0]).write_text("".join(f"rendered {p}\n" for p in written), encoding="utf-8")
