"""The tiny study's model stages with 1 shard and with 2, on --cores 2, with the real 0.5B model:
wall time of each, their ratio, and whether the two runs wrote the same tables.

    .venv/bin/python benchmarks/shards_bench.py [--subset 2] [--iterations 2] [--rounds 1]

Each run is a fresh copy of the workflow with an empty model cache (so every call is generated,
none replayed); the task tables are built first, untimed; the timed command is
`snakemake --cores 2` for RAMP's attempts.parquet (reflect, design_tests, the iterations, the
gathers). Rounds alternate the order (1, 2, then 2, 1, ...) because the machine is shared.
Each stage's span (its first job's first log line to its last job's last one) is reported too:
with one shard, reflect and design_tests already run side by side on the two cores, so shards
can only shorten the chain of iterations after them.
Writes results/benchmarks/shards.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
MODEL = "qwen2.5-coder-0.5b"
ITEMS = ("Snakefile", "workflow", "config", "prompts", "data")
MEASURED = ["peak_rss_mb", "exec_seconds"]  # the process's and the executor's, not the model's


STAMP = re.compile(r"^(\d\d):(\d\d):(\d\d) ", re.MULTILINE)
STAGES = {"prep": ("reflect", "design_tests"), "iterations": ("iteration_",)}


def stage_spans(logs: Path, start: datetime.datetime) -> dict[str, float]:
    """Seconds from the first line of a stage's first job log to the last line of its last,
    per stage of STAGES, from the jobs' HH:MM:SS stamps (read as the first such time at or
    after ``start``, so a run across midnight is counted right)."""

    def seconds(h: str, m: str, s: str) -> float:
        moment = start.replace(hour=int(h), minute=int(m), second=int(s), microsecond=0)
        if moment < start.replace(microsecond=0):
            moment += datetime.timedelta(days=1)
        return (moment - start).total_seconds()

    spans = {}
    for stage, prefixes in STAGES.items():
        times = [seconds(*stamp.groups())
                 for log in logs.rglob("*.log") if log.name.startswith(prefixes)
                 for stamp in STAMP.finditer(log.read_text(encoding="utf-8"))]
        if times:
            spans[stage] = max(times) - min(times)
    return spans


def run(work: Path, shards: int, subset: str, iterations: int
        ) -> tuple[float, dict[str, float], Path]:
    folder = work / f"shards-{shards}"
    folder.mkdir()
    for item in ITEMS:
        (folder / item).symlink_to(ROOT / item)
    base = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    overrides = {
        "data": {"jsonl": str((ROOT / base["data"]["jsonl"]).resolve())},
        "subsets": [subset],
        "study": {"variants": ["ramp"], "iterations": iterations, "seed": 0, "shards": shards},
        "models": {"use": [MODEL], "cache": {"mode": "read-write", "dir": "cache",
                                                 "committed": []}},
    }
    (folder / "bench.yaml").write_text(yaml.safe_dump(overrides), encoding="utf-8")
    snakemake = [sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", "bench.yaml"]
    subprocess.run([*snakemake, "--", f"results/tasks/{subset}.parquet"], cwd=folder,
                   check=True, capture_output=True)
    run_dir = folder / "results" / "runs" / MODEL / "ramp" / subset
    began = datetime.datetime.now()
    start = time.perf_counter()
    subprocess.run([*snakemake, "--", str((run_dir / "attempts.parquet").relative_to(folder))],
                   cwd=folder, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    return seconds, stage_spans(folder / "logs" / "runs" / MODEL, began), run_dir


def tables(run_dir: Path) -> dict[str, pd.DataFrame]:
    return {str(p.relative_to(run_dir)): pd.read_parquet(p).drop(columns=MEASURED,
                                                                  errors="ignore")
            for p in sorted(run_dir.rglob("*.parquet")) if "shards" not in p.parts}


def differences(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame]) -> list[str]:
    """'table: column' for every column whose values differ (timings left out): empty when the
    two runs wrote the same text, verdicts and counts."""
    if a.keys() != b.keys():
        return [f"tables: {sorted(a.keys() ^ b.keys())}"]
    out = []
    for name, frame in a.items():
        other = b[name]
        if len(frame) != len(other):
            out.append(f"{name}: {len(frame)} vs {len(other)} rows")
            continue
        for column in frame.columns:
            if column.endswith("_seconds"):
                continue
            if not frame[column].astype(str).equals(other[column].astype(str)):
                out.append(f"{name}: {column}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subset", default="2")
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="keep the runs' folders here, to compare")
    args = parser.parse_args()
    times: dict[int, list[float]] = {1: [], 2: []}
    spans: dict[int, list[dict[str, float]]] = {1: [], 2: []}
    identical = []
    for r in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="ramp-shards-", dir=args.keep) as tmp:
            dirs = {}
            for shards in ((1, 2) if r % 2 == 0 else (2, 1)):
                seconds, span, dirs[shards] = run(Path(tmp), shards, args.subset,
                                                  args.iterations)
                times[shards].append(seconds)
                spans[shards].append(span)
                stages = ", ".join(f"{k} {v:.0f} s" for k, v in span.items())
                print(f"round {r + 1}: {shards} shard(s): {seconds:.1f} s ({stages})",
                      flush=True)
            differ = differences(tables(dirs[1]), tables(dirs[2]))
            identical.append(not differ)
            for line in differ:
                print(f"round {r + 1}: differs: {line}")
            if args.keep:
                keep = args.keep / f"round-{r + 1}"
                Path(tmp).rename(keep)
                Path(tmp).mkdir()  # for the context manager to remove
                print(f"round {r + 1}: kept in {keep}")
    mean = {k: sum(v) / len(v) for k, v in times.items()}
    stage_ratio = {stage: round(sum(s[stage] for s in spans[1])
                                / sum(s[stage] for s in spans[2]), 2)
                   for stage in STAGES if all(stage in s for s in spans[1] + spans[2])}
    result = {"subset": args.subset, "iterations": args.iterations, "cores": 2,
              "seconds": times, "ratio_1_over_2": round(mean[1] / mean[2], 2),
              "stage_seconds": spans, "stage_ratio_1_over_2": stage_ratio,
              "identical_text": identical}
    print(f"1 shard / 2 shards: {result['ratio_1_over_2']}x "
          f"({', '.join(f'{k} {v}x' for k, v in stage_ratio.items())}); "
          f"identical text: {identical}")
    out = ROOT / "results" / "benchmarks" / "shards.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"({out.relative_to(ROOT)})")


if __name__ == "__main__":
    main()
