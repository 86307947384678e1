"""Replay a committed study from a fresh clone: wall time, model calls, and whether every
committed number comes back.

    .venv/bin/python benchmarks/clone_replay.py [--configfile config/config.yaml] [--cores 2]
        [--answers data/answers/default-paper34.jsonl.gz]

Clones the repository's HEAD into a temporary folder (no `results/`, no model cache), and runs
`snakemake --cores N all` there on the study's config with the model cache in replay-only mode:
every answer comes from the committed ones (`data/answers/`), and a call that is not among them
fails the run, so a run that finishes made zero model calls. Ruby, the sandbox, the judge and
the scoring run for real. Then it compares the clone's figures with the committed ones: the
frames (`figures/**/data/*.parquet` of the study folders it drew, the executor's times and
memory left out; of the costs, calls and tokens) and the tables (`*.csv`, cost tables left out:
they hold the executor's seconds of this run), and the answers the replay used (copied into the
clone's model cache) with the study's committed file (`--answers`): an answer of that file the
study did not use is reported and fails the check, as each file is to hold only what its study
uses. The clone publishes (`study.publish`), so that its figures are where the committed ones
are. Uses this checkout's virtual environment and the data set the config names; commit before
running it (the clone is HEAD).
Writes results/benchmarks/clone_replay.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml
from shards_bench import MEASURED, differences

from ramp.llm import answers

ROOT = Path(__file__).resolve().parents[1]
TIMED_TABLES = ("costs.csv", "cost_summary.csv")  # hold this run's executor seconds
EXECUTOR_MEASURED = ["hidden_cpu_s", "hidden_wall_s", "hidden_peak_memory_mb"]
COST_COLUMNS = ["study", "model", "variant", "subset", "policy", "stage", "calls",
                "prompt_tokens", "completion_tokens"]


def overrides(config: Path) -> dict:
    """The clone's config changes: the data files as absolute paths (the clone lives elsewhere)
    and the model cache in replay-only mode."""
    base = yaml.safe_load(config.read_text(encoding="utf-8"))
    out: dict = {"data": {"jsonl": str((ROOT / base["data"]["jsonl"]).resolve())},
                 "models": {"cache": {"mode": "replay-only"}}, "study": {"publish": True}}
    if base.get("authors", {}).get("outcomes"):
        out["authors"] = {"outcomes": str((ROOT / base["authors"]["outcomes"]).resolve())}
    return out


def comparable(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """A frame without what this run measured: the executor's times and memory (the model's
    seconds and tokens come from the committed answers and stay)."""
    frame = frame.drop(columns=[*MEASURED, *EXECUTOR_MEASURED], errors="ignore")
    if name == "costs.parquet":  # one row per stage: model stages replayed, executor ones timed
        frame = frame[[c for c in COST_COLUMNS if c in frame]]
    return frame


def frames(folder: Path, studies: set[Path] | None = None) -> dict[str, pd.DataFrame]:
    """Every source frame under ``folder``, or only those of the study folders ``studies``."""
    return {str(p.relative_to(folder)): comparable(p.name, pd.read_parquet(p))
            for p in sorted(folder.glob("**/data/*.parquet"))
            if studies is None or p.parent.parent.relative_to(folder) in studies}


def tables(folder: Path, studies: set[Path]) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.csv"))
            if p.name not in TIMED_TABLES and p.parent.parent.relative_to(folder) in studies}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", default="config/config.yaml")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--answers", default="data/answers/default-paper34.jsonl.gz",
                        help="the study's committed answers file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ramp-clone-") as tmp:
        clone = Path(tmp) / "ramp"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, check=True,
                                capture_output=True, text=True).stdout.strip()
        shutil.rmtree(clone / "figures")  # so that what is there after the run, it drew
        (clone / "replay.yaml").write_text(
            yaml.safe_dump(overrides(ROOT / args.configfile)), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(clone / "workflow" / "scripts"),
               "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        command = [str(Path(sys.executable).with_name("snakemake")), "--cores", str(args.cores),
                   "all", "--configfile", args.configfile, "replay.yaml"]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=clone, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if done.returncode != 0:
            print(done.stderr[-4000:], file=sys.stderr)
            print(f"clone_replay: snakemake failed (exit {done.returncode}) after {wall:.0f} s",
                  file=sys.stderr)
            return 1
        committed, replayed = ROOT / "figures", clone / "figures"
        theirs = frames(replayed)
        # the study folders (figures/SUBSET or figures/NAME/SUBSET) the clone drew
        studies = {Path(name).parent.parent for name in theirs}
        ours = frames(committed, studies)
        frame_diffs = differences(ours, theirs) if theirs else ["no frames drawn"]
        old, new = tables(committed, studies), tables(replayed, studies)
        table_diffs = sorted(name for name in old.keys() | new.keys()
                             if old.get(name) != new.get(name))
        steps = [line for line in done.stderr.splitlines() if "steps (100%) done" in line]
        cache = yaml.safe_load((ROOT / args.configfile).read_text(encoding="utf-8"))
        used = {entry["key"] for entry in answers.cache_entries(
            clone / cache["models"]["cache"]["dir"])}
        committed_keys = set(answers.load([ROOT / args.answers]))
    report = {
        "commit": commit, "config": args.configfile, "cores": args.cores,
        "wall_seconds": round(wall, 1), "model_calls": 0,  # replay-only: a miss fails the run
        "steps": steps[-1].strip() if steps else "",
        "studies": sorted(str(study) for study in studies),
        "frames_compared": len(ours), "frames_differing": frame_diffs,
        "tables_compared": len(old), "tables_differing": table_diffs,
        "answers_used": len(used), "answers_committed": len(committed_keys),
        "answers_unused": len(committed_keys - used),
    }
    out = ROOT / "results" / "benchmarks" / "clone_replay.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0 if not frame_diffs and not table_diffs and committed_keys <= used else 1


if __name__ == "__main__":
    sys.exit(main())
