"""The tiny study's model stages with 1 shard and with 2, on --cores 2, with the real 0.5B model:
wall time of each, their ratio, and whether the two runs wrote the same tables.

    .venv/bin/python benchmarks/shards_bench.py [--subset 2] [--iterations 2] [--rounds 1]

Each run is a fresh copy of the workflow with an empty model cache (so every call is generated,
none replayed); the task tables are built first, untimed; the timed command is
`snakemake --cores 2` for RAMP's attempts.parquet (reflect, design_tests, the iterations, the
gathers). Rounds alternate the order (1, 2, then 2, 1, ...) because the machine is shared.
Writes results/benchmarks/shards.json.
"""

from __future__ import annotations

import argparse
import json
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


def run(work: Path, shards: int, subset: str, iterations: int) -> tuple[float, Path]:
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
    start = time.perf_counter()
    subprocess.run([*snakemake, "--", str((run_dir / "attempts.parquet").relative_to(folder))],
                   cwd=folder, check=True, capture_output=True)
    return time.perf_counter() - start, run_dir


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
    identical = []
    for r in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="ramp-shards-", dir=args.keep) as tmp:
            dirs = {}
            for shards in ((1, 2) if r % 2 == 0 else (2, 1)):
                seconds, dirs[shards] = run(Path(tmp), shards, args.subset, args.iterations)
                times[shards].append(seconds)
                print(f"round {r + 1}: {shards} shard(s): {seconds:.1f} s", flush=True)
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
    result = {"subset": args.subset, "iterations": args.iterations, "cores": 2,
              "seconds": times, "ratio_1_over_2": round(mean[1] / mean[2], 2),
              "identical_text": identical}
    print(f"1 shard / 2 shards: {result['ratio_1_over_2']}x; identical text: {identical}")
    out = ROOT / "results" / "benchmarks" / "shards.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"({out.relative_to(ROOT)})")


if __name__ == "__main__":
    main()
