"""Rule trajectory_pages: a run's tables and its scores -> one HTML page per task."""

import pandas as pd

from ramp.logs import stage_logger
from ramp.report.pages import write_trajectory_pages
from ramp.report.trajectory import build_trajectories
from ramp.runs import RunId
from ramp.task_table import read_problems

smk = snakemake  # noqa: F821  (injected by Snakemake's script directive)
log = stage_logger("trajectory_pages", smk.log[0])
frames = {name: pd.read_parquet(smk.input[name])
          for name in ("reflections", "tests", "attempts", "hidden_attempts", "task_scores")}
trajectories = build_trajectories(RunId.of(smk.config, smk.wildcards),
                                  read_problems(smk.input.tasks), **frames)
index = write_trajectory_pages(trajectories, smk.output.pages)
log.info("%d trajectory pages: %s", len(index), index["outcome"].value_counts().to_dict())
