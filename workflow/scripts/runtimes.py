"""Rule runtimes: the benchmark files of a subset's jobs -> one table (CSV and HTML page)."""

import os

from snakemake.io import glob_wildcards

from ramp.io import write_text
from ramp.logs import stage_logger
from ramp.report.pages import table_page
from ramp.report.runtimes import runtime_table

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("runtimes", smk.log[0])


def files(pattern):
    """Each benchmark file there is of ``pattern``, with the wildcard values it fills (an
    iteration t); a job not run, or run before its rule had a benchmark, has none."""
    found = glob_wildcards(pattern)
    if not found._fields:
        return [({}, pattern)] if os.path.exists(pattern) else []
    matches = [dict(zip(found._fields, values, strict=True)) for values in zip(*found, strict=True)]
    return [(values, pattern.format(**values)) for values in matches]


entries = [({**labels, **values}, path)
           for labels, pattern in smk.params.patterns for values, path in files(pattern)]
table = runtime_table(entries)
write_text(smk.output.table, table.to_csv(index=False))
write_text(smk.output.page, table_page("Runtimes of the jobs, from their benchmark files",
                                       table))
log.info("%d benchmark files", len(table))
