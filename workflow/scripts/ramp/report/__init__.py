"""Reading a study in a browser: per-task trajectory pages, table pages and the runtimes that
the workflow's benchmark files measured, for `snakemake --report`."""
