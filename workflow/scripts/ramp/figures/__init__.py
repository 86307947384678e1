"""The paper's tables and figures, one function each, from the scored Parquet only.

:mod:`ramp.figures.study` gathers the runs' tables, :mod:`ramp.figures.tables` and
:mod:`ramp.figures.plots` build each table and figure, :mod:`ramp.figures.render` writes them
and the Markdown summary. Nothing here runs a model or a program.
"""
