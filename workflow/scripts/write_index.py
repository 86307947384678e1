"""Rule studies_index: figures/summary.md, a row per committed study (its K, subsets, methods
and the command that publishes it), once the publishing study's summaries are drawn."""

from pathlib import Path

from ramp.figures.rerender import write_index

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
path = write_index(Path(smk.output[0]).parent, smk.params.commands)
Path(smk.log[0]).write_text(f"wrote {path}\n", encoding="utf-8")
