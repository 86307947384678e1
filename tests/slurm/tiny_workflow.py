"""The tiny study the Slurm test runs twice (through the profile, then locally), and how the
two runs are compared. Pure helpers except for the copy and the Parquet reads."""

from __future__ import annotations

import contextlib
import re
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

# What a run needs from the project; results/, logs/ and .snakemake/ are left behind so that
# the copies start empty and never write into the real tree.
PROJECT_ITEMS = ("Snakefile", "config", "workflow", "data", "prompts", "envs", "profiles")
IGNORED = shutil.ignore_patterns("__pycache__", "*.egg-info", ".snakemake", "results", "logs")

# Columns that measure the machine, not the study: they differ between any two runs.
TIMING_COLUMN = re.compile(r"(^|_)(cpu|wall|elapsed|duration|seconds|peak|rss)(_|$)|_s$")

# Never resized: the tasks' own limits travel in the data, not in resources.
CPU_KEYS = ("cpus_per_task", "threads")
MEMORY_KEYS = ("mem_mb", "mem")


def copy_project(repo: Path, dest: Path) -> Path:
    """Copy the workflow's files to ``dest/<repo name>`` and link the shared data beside it.

    The configs name the data as ``../shared/...`` from the project root, so a sibling link
    keeps them valid in the copy without any override.
    """
    project = dest / repo.name
    project.mkdir(parents=True)
    for item in PROJECT_ITEMS:
        src = repo / item
        if src.is_dir():
            shutil.copytree(src, project / item, ignore=IGNORED, symlinks=True)
        elif src.exists():
            shutil.copy2(src, project / item)
    config = yaml.safe_load((repo / "config" / "config.yaml").read_text(encoding="utf-8"))
    data = Path(config["data"]["jsonl"])
    if data.parts and data.parts[0] == "..":
        sibling = data.parts[1]
        link = dest / sibling
        if not link.exists():
            link.symlink_to((repo.parent / sibling).resolve(), target_is_directory=True)
    return project


def fit_profile(profile: dict[str, Any], cpus: int, memory_mb: int) -> dict[str, Any]:
    """The profile with every request capped to what one test node has.

    Rule names, the GPU requests and all other settings are kept as they are, so the test
    submits the same jobs a cluster would get, only smaller.
    """

    def fit(resources: dict[str, Any]) -> dict[str, Any]:
        out = dict(resources)
        for key in CPU_KEYS:
            if isinstance(out.get(key), int):
                out[key] = min(out[key], cpus)
        for key in MEMORY_KEYS:
            if isinstance(out.get(key), int):
                out[key] = min(out[key], memory_mb)
        return out

    fitted = dict(profile)
    fitted["default-resources"] = fit(profile.get("default-resources") or {})
    fitted["set-resources"] = {
        rule: fit(res) for rule, res in (profile.get("set-resources") or {}).items()
    }
    # Rules' own `threads` (e.g. executor.workers) become cpus_per_task on Slurm.
    fitted["max-threads"] = cpus
    return fitted


def load_profile(path: Path) -> dict[str, Any]:
    profile = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(profile, dict):
        raise ValueError(f"{path}: a profile is a YAML mapping of option -> value")
    return profile


def write_profile(profile: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(profile, sort_keys=False), encoding="utf-8")


def study_columns(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` without its timing columns, rows in a canonical order."""
    keep = [c for c in df.columns if not TIMING_COLUMN.search(str(c))]
    out = df[keep]
    sortable = [c for c in keep if out[c].map(lambda v: isinstance(v, str | int | float | bool)
                                              or v is None).all()]
    if sortable:
        # Parallel workers may finish in any order; the rows' content is what must match.
        with contextlib.suppress(TypeError):
            out = out.sort_values(sortable, kind="stable")
    return out.reset_index(drop=True)


def artifacts(results: Path) -> dict[str, pd.DataFrame]:
    """Every Parquet artifact under ``results``, by relative path, timing columns dropped."""
    return {
        str(p.relative_to(results)): study_columns(pd.read_parquet(p))
        for p in sorted(results.rglob("*.parquet"))
    }
