"""Rule render_figures: a subset's scored Parquet -> figures/{subset}/ (PNG, PDF, CSV, Markdown)."""

from pathlib import Path

from ramp.figures.render import render_study
from ramp.figures.study import RUN_FILES, load_study

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
runs = {name: list(smk.input[name]) for name in RUN_FILES}
study = load_study(smk.wildcards.subset, runs, smk.input.oracle, smk.input.programs,
                   smk.input.get("authors"))
render_study(study, Path(smk.output.summary).parent, about=smk.params.about)
Path(smk.log[0]).write_text(f"rendered {len(study.methods)} method(s) into "
                            f"{Path(smk.output.summary).parent}\n", encoding="utf-8")
