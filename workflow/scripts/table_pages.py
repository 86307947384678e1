"""Rule table_pages: a subset's rendered tables (CSV) -> one HTML page each for the report."""

from pathlib import Path

from ramp.io import write_text
from ramp.logs import stage_logger
from ramp.report.pages import read_table, table_page

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("table_pages", smk.log[0])
tables = {Path(p).stem: p for p in smk.input.tables}
for page in smk.output.pages:
    name = Path(page).stem
    write_text(page, table_page(smk.params.titles[name], read_table(tables[name])))
log.info("%d table pages", len(smk.output.pages))
