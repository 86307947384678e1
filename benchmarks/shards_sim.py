"""How long a study takes on 8 cores and on a 64-GPU Slurm cluster, by shard count: the plan
Snakemake makes (``snakemake --dag``) scheduled with the per-call seconds measured in the
default study (figures/paper34/data/costs.parquet, hidden_attempts.parquet) and, for the
paper's study, in a study that ran Table 1's baselines (``--baselines``: its costs.parquet).

    .venv/bin/python benchmarks/shards_sim.py            # writes results/benchmarks/shards_sim.json
    .venv/bin/python benchmarks/shards_sim.py --baselines STUDY/data/costs.parquet  # + the paper

A simulation, not a run: each model job lasts as many calls as its shard's open tasks make,
at the measured mean seconds of a call of that role (1.5B model, one CPU core); iteration t has
the share of tasks the measured RAMP run still had open at t. On a GPU a batch of up to
`batch_size` (16) prompts is counted as one call's time: a GPU generates a batch in about the
time of one prompt, and the cluster's speed per call only scales every GPU number alike.
Executor jobs (bug validation, hidden validation) take the measured seconds; gathers, scores
and figures count as instant. Jobs start as soon as their inputs exist and their cores (or GPU)
are free, the longest remaining chain first, with no queueing delay.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "workflow" / "scripts"))

from ramp import study_config  # noqa: E402
from ramp.plan import Job, Plan, parse_dot, schedule  # noqa: E402
from ramp.sampling import read_id_list  # noqa: E402
from ramp.shards import Shard  # noqa: E402

MODEL_RULES = ("reflect", "design_tests", "repair_iteration", "run_method")
DEFAULT = ROOT / "figures" / "paper34" / "data"
TABLE1 = ROOT / "figures" / "table1-k3" / "paper10" / "data" / "costs.parquet"  # when published
BUG_VALIDATION_S_PER_TASK = 817.0 / 343  # docs/results.md: 343 programs in 13 min 37 s, 2 workers
ALL_TASKS = 343
GPU_BATCH = 16


@dataclass(frozen=True)
class Costs:
    """Mean seconds of one call per role, and RAMP's share of tasks open at each iteration."""

    e0: float
    tests: float
    programmer: float
    feedback: float
    feedback_per_failure: float
    executor: float
    hidden_per_task: float
    open_share: tuple[float, ...]
    one_call: Mapping[str, float]  # one-shot baselines: seconds of their one call
    per_task: Mapping[str, float]  # iterating baselines: model seconds per task at K = k_table1
    k_table1: int

    @classmethod
    def measured(cls, baselines: Path | None) -> Costs:
        """The default study's per-call seconds; the baselines' from ``baselines`` (a study's
        costs.parquet with Table 1's baselines at K = 3), which only the paper's study needs."""
        costs = pd.read_parquet(DEFAULT / "costs.parquet")
        full = costs[costs.policy == "full"].set_index(["variant", "stage"])

        def per_call(variant: str, stage: str, frame: pd.DataFrame = full) -> float:
            row = frame.loc[(variant, stage)]
            return float(row.seconds / row.calls) if row.calls else 0.0

        attempts = pd.read_parquet(DEFAULT / "hidden_attempts.parquet")
        ramp = attempts[attempts.variant == "ramp"].groupby("iteration").size().sort_index()
        open_share = tuple(float(n / ramp.iloc[0]) for n in ramp)
        prog = full.loc[("ramp", "programmer")].calls
        fb = full.loc[("ramp", "feedback_integrator")].calls
        tasks = len(attempts[attempts.variant == "ramp"].task_id.unique())
        one_call = {"zero_shot": per_call("zero_shot", "programmer")}
        total: dict[str, float] = {}
        if baselines is not None:
            table1 = pd.read_parquet(baselines)
            t1 = table1[(table1.policy == "full")].set_index(["variant", "stage"])
            names = sorted(set(t1.index.get_level_values(0)) - {"ramp", "zero_shot"})
            total = {v: float(t1.loc[(v, "total")].seconds) for v in names}
            one_call = {v: per_call(v, "programmer", t1) for v in ("zero_shot", "few_shot")}
        return cls(
            e0=per_call("ramp", "feedback_integrator_initial"),
            tests=per_call("ramp", "test_designer"),
            programmer=per_call("ramp", "programmer"),
            feedback=per_call("ramp", "feedback_integrator"),
            feedback_per_failure=float(fb / (prog - ramp.iloc[-1])),
            executor=per_call("ramp", "test_executor"),
            hidden_per_task=float(full.loc[("ramp", "hidden_validation")].seconds / tasks),
            open_share=open_share,
            one_call=one_call,
            per_task={v: s / tasks for v, s in total.items() if v not in one_call},
            k_table1=3,
        )

    def open_at(self, t: int) -> float:
        return self.open_share[min(t, len(self.open_share)) - 1]


def subset_size(subset: str) -> int:
    """Tasks of a subset: all of them, N, or the committed list data/subsets/NAME.txt."""
    if subset == "all":
        return ALL_TASKS
    if subset.isdigit():
        return int(subset)
    return len(read_id_list(ROOT / "data" / "subsets" / f"{subset}.txt"))


def shard_size(job: Job) -> int:
    n = subset_size(job.wildcards["subset"])
    shard = Shard.parse(job.wildcards.get("shard", "1-of-1"))
    return len(range(shard.index - 1, n, shard.count))


def job_seconds(job: Job, config: Mapping[str, Any], costs: Costs, *, gpu: bool) -> float:
    """One job's seconds on a CPU core (``gpu`` False) or a GPU (batches of GPU_BATCH)."""

    def calls(n: float, seconds: float) -> float:
        return (math.ceil(n / GPU_BATCH) if gpu else n) * seconds

    if job.rule == "validate_bugs":
        return BUG_VALIDATION_S_PER_TASK * subset_size(job.wildcards["subset"])
    if job.rule == "score_hidden":
        return costs.hidden_per_task * subset_size(job.wildcards["subset"])
    if job.rule not in MODEL_RULES:
        return 0.0
    n = shard_size(job)
    variant = study_config.variant(config, job.wildcards["variant"])
    k = study_config.budget(config, variant.name)
    if job.rule == "reflect":
        return calls(n, costs.e0) if variant.initial_reflection else 0.0
    if job.rule == "design_tests":
        return calls(n, costs.tests) if variant.test_generation else 0.0
    if job.rule == "run_method":
        # Table 1 measured the iterating baselines at K = 3: scale by RAMP's open iterations.
        scale = (sum(costs.open_at(t) for t in range(1, k + 1))
                 / sum(costs.open_at(t) for t in range(1, costs.k_table1 + 1)))
        return calls(n, costs.per_task[variant.name] * scale)
    t = int(job.wildcards["t"])
    if variant.name in costs.one_call:
        return calls(n, costs.one_call[variant.name])
    open_tasks = n * costs.open_at(t)
    seconds = calls(open_tasks, costs.programmer) + open_tasks * costs.executor
    if variant.feedback_reflection and t < k:
        seconds += calls(open_tasks * costs.feedback_per_failure, costs.feedback)
    return seconds


def plan_of(configfile: str, shards: int, cores: int) -> Plan:
    cmd = [sys.executable, "-m", "snakemake", "--nolock", "--forceall", "--cores", str(cores),
           "--dag", "dot", "--configfile", configfile, "--config", f"study={{shards: {shards}}}",
           "--", "all"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
    return parse_dot(done.stdout)


def study_config_of(configfile: str) -> dict[str, Any]:
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    if configfile != "config/config.yaml":
        config.update(yaml.safe_load((ROOT / configfile).read_text(encoding="utf-8")))
    return config


@dataclass(frozen=True)
class Row:
    study: str
    machine: str
    shards: int
    jobs: int
    model_jobs: int
    first_wave: int
    wall_h: float
    critical_path_h: float
    model_work_h: float


def simulate(study: str, configfile: str, machine: str, shards: int, costs: Costs) -> Row:
    config = study_config_of(configfile)
    gpu = machine.startswith("64")
    plan = plan_of(configfile, shards, cores=64 if gpu else 8)
    seconds = {i: job_seconds(j, config, costs, gpu=gpu) for i, j in plan.jobs.items()}
    workers = study_config.workers(config)
    threads = study_config.model_threads(config)

    def slots(job: Job) -> int:
        if job.rule in MODEL_RULES:
            return 1 if gpu else threads
        if gpu:
            return 0  # CPU jobs run on the cluster's CPU nodes, beside the GPUs
        return workers if job.rule in ("validate_bugs", "score_hidden", "oracle") else 1

    result = schedule(plan, seconds, slots, capacity=64 if gpu else 8)
    model = [i for i, j in plan.jobs.items() if j.rule in MODEL_RULES]
    return Row(study, machine, shards, len(plan.jobs) - 1, len(model),
               len(plan.first_wave(MODEL_RULES)), round(result.wall_s / 3600, 2),
               round(result.critical_path_s / 3600, 2),
               round(sum(seconds[i] for i in model) / 3600, 1))


CASES = [
    ("default", "config/config.yaml", "8 cores", [1, 2, 8]),
    ("default", "config/config.yaml", "64 GPUs", [1, 8, 34]),
    ("paper", "config/paper.yaml", "8 cores", [1, 8]),
    ("paper", "config/paper.yaml", "64 GPUs", [1, 2, 4, 8]),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "results/benchmarks/shards_sim.json")
    parser.add_argument("--baselines", type=Path, default=TABLE1 if TABLE1.exists() else None,
                        help="costs.parquet of a study with Table 1's baselines (K = 3); without "
                             "it the paper's study is not simulated")
    args = parser.parse_args()
    costs = Costs.measured(args.baselines)
    rows = []
    print(f"{'study':8} {'machine':8} {'shards':>6} {'jobs':>6} {'model':>6} {'wave':>5} "
          f"{'wall h':>7} {'crit. h':>7} {'work h':>7}")
    for study, configfile, machine, counts in CASES:
        if study == "paper" and args.baselines is None:
            print(f"{study:8} {machine:8} skipped: no baselines' costs (--baselines FILE)")
            continue
        for shards in counts:
            r = simulate(study, configfile, machine, shards, costs)
            rows.append(r)
            print(f"{r.study:8} {r.machine:8} {r.shards:6d} {r.jobs:6d} {r.model_jobs:6d} "
                  f"{r.first_wave:5d} {r.wall_h:7.2f} {r.critical_path_h:7.2f} "
                  f"{r.model_work_h:7.1f}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"costs": asdict(costs), "rows": [asdict(r) for r in rows]},
                                   indent=2))
    print(f"({args.out.relative_to(ROOT)})")


if __name__ == "__main__":
    main()
