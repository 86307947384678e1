"""Benchmark the sandboxed executor against the paper's naive runner (not a test).

Runs every buggy program of the data set on all its hidden tests twice, in one process:

- ours: SandboxExecutor with every limit on (CPU, wall, memory, output, tasks, namespaces);
- naive: what the paper's released code does, one ``subprocess.run(["ruby", "-e", code],
  input=...)`` per test, sequentially, no limits. It gets only a timeout (the same wall-clock
  backstop as ours, ``3 x time limit + 1 s``) so that programs that loop cannot hang the
  benchmark; without it they would run forever.

It reports runs/s (program x test pairs per second) of both and their ratio, the agreement of
their verdicts, and the median per-run time of our sandbox against a bare
``ruby --disable-gems`` on a trivial program (measured interleaved, so load affects both),
and of a sandbox whose launcher forks its programs (no exec helper) beside them.

    python benchmarks/executor_bench.py [--limit N] [--workers 2] \\
        [--out results/benchmarks/executor.json]

With ``--lang cpp`` (data: the C++ file) it measures the C++ runtime instead: each program is
compiled once in the sandbox (compile time reported on its own), and each hidden test runs
the same binary three times, interleaved: in our sandbox, in one whose launcher forks it (no
exec helper), and as a plain ``./a.out`` (a subprocess, no limits but the wall-clock
backstop). The per-run ratio is taken over the runs
that ended by themselves (neither killed at a limit nor refused memory) in our sandbox.

    python benchmarks/executor_bench.py --lang cpp --limit 40 \\
        --out results/benchmarks/executor-cpp.json
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from ramp.execution.executor import SandboxExecutor
from ramp.execution.judge import judge
from ramp.execution.sandbox import SandboxConfig
from ramp.io import atomic_open
from ramp.tasks import Limits, Task

DATA = Path("../shared/data/xcodeeval-apr-ruby/validation.jsonl")
CPP_DATA = Path("../shared/data/xcodeeval-apr-cpp/validation.jsonl")


def load(path: Path, limit: int | None) -> list[Task]:
    from ramp.dataset import load_tasks

    tasks = load_tasks(path).tasks
    return tasks[:limit] if limit else tasks


def run_ours(tasks: list[Task], workers: int) -> tuple[float, Counter[str], list[str]]:
    verdicts: Counter[str] = Counter()
    summary = []
    with SandboxExecutor(workers=workers) as executor:
        start = time.perf_counter()
        for task in tasks:
            report = executor.run(task.problem.buggy_code, task.hidden_tests, task.limits)
            verdicts.update(str(r.verdict) for r in report.results)
            summary.append(str(report.verdict))
        return time.perf_counter() - start, verdicts, summary


def naive_one(code: str, stdin: str, accepted: tuple[str, ...], limits: Limits) -> str:
    try:
        done = subprocess.run(
            ["ruby", "-e", code], input=stdin, capture_output=True, text=True,
            timeout=limits.wall_s, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return "TIME_LIMIT_EXCEEDED"
    if done.returncode != 0:
        return "COMPILATION_ERROR" if "SyntaxError" in done.stderr else "RUNTIME_ERROR"
    return "PASSED" if judge(done.stdout, accepted) else "WRONG_ANSWER"


def run_naive(tasks: list[Task]) -> tuple[float, Counter[str], list[str]]:
    verdicts: Counter[str] = Counter()
    summary = []
    start = time.perf_counter()
    for task in tasks:
        code = task.problem.buggy_code
        got = [naive_one(code, t.input, t.outputs, task.limits) for t in task.hidden_tests]
        verdicts.update(got)
        summary.append(next((v for v in got if v != "PASSED"), "PASSED"))
    return time.perf_counter() - start, verdicts, summary


def overhead(executor: SandboxExecutor, forked: SandboxExecutor, rounds: int) -> dict[str, float]:
    """Median wall time of a trivial program, interleaved: our sandbox (through the exec
    helper), one whose launcher forks (``forked``) and a bare `ruby --disable-gems`."""
    program = "puts 1\n"
    times: dict[str, list[float]] = {"ours": [], "fork": [], "bare": []}
    with (
        executor.sandbox.stage({"main.rb": program.encode()}) as staged,
        forked.sandbox.stage({"main.rb": program.encode()}) as other,
    ):
        argv = executor.runtime.run_command(f"{staged.path}/main.rb")
        other_argv = forked.runtime.run_command(f"{other.path}/main.rb")
        bare_file = Path(tempfile.mkdtemp(prefix="ramp-bench-")) / "main.rb"
        bare_file.write_text(program)
        bare_argv = ["ruby", "--disable-gems", str(bare_file)]
        for _ in range(rounds):
            t = time.perf_counter()
            executor.sandbox.execute(argv, b"", Limits())
            times["ours"].append(time.perf_counter() - t)
            t = time.perf_counter()
            forked.sandbox.execute(other_argv, b"", Limits())
            times["fork"].append(time.perf_counter() - t)
            t = time.perf_counter()
            subprocess.run(bare_argv, capture_output=True, check=True)
            times["bare"].append(time.perf_counter() - t)
        shutil.rmtree(bare_file.parent)
    ours_ms, fork_ms, bare_ms = (statistics.median(times[k]) * 1e3 for k in times)
    return {
        "sandbox_median_ms": round(ours_ms, 2),
        "launcher_fork_median_ms": round(fork_ms, 2),
        "bare_ruby_median_ms": round(bare_ms, 2),
        "ratio": round(ours_ms / bare_ms, 3),
        "launcher_fork_ratio": round(fork_ms / bare_ms, 3),
        "rounds": rounds,
    }


def _plain(binary: Path, stdin: bytes, limits: Limits) -> float:
    """Wall seconds of one plain run of ``binary`` (the backstop kills a looping one)."""
    t = time.perf_counter()
    with contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run([str(binary)], input=stdin, capture_output=True, timeout=limits.wall_s,
                       check=False, cwd=binary.parent)  # fmt: skip
    return time.perf_counter() - t


def _compare(ours: list[float], plain: list[float]) -> dict[str, object]:
    """Per-run times of one way of running against the plain runs of the same tests."""
    ratios = [a / b for a, b in zip(ours, plain, strict=True)]
    extra = [a - b for a, b in zip(ours, plain, strict=True)]
    # The sandbox's cost is a fixed few ms per run, so its ratio depends on the run's length.
    edges = (0, 5, 20, 100, 1000)
    names = [f"{lo}-{hi} ms" for lo, hi in itertools.pairwise(edges)] + [f">= {edges[-1]} ms"]
    buckets: dict[str, list[float]] = {name: [] for name in names}
    for a, b in zip(ours, plain, strict=True):
        names_below = [n for n, lo in zip(names, edges, strict=True) if b * 1e3 >= lo]
        buckets[names_below[-1]].append(a / b)
    return {
        "sandbox_median_ms": round(statistics.median(ours) * 1e3, 2),
        "ratio_of_medians": round(statistics.median(ours) / statistics.median(plain), 3),
        "median_per_run_ratio": round(statistics.median(ratios), 3),
        "p90_per_run_ratio": round(statistics.quantiles(ratios, n=10)[-1], 3),
        "total_ratio": round(sum(ours) / sum(plain), 3),
        "median_extra_ms": round(statistics.median(extra) * 1e3, 2),
        "median_ratio_by_plain_time": {
            k: {"runs": len(v), "ratio": round(statistics.median(v), 3)}
            for k, v in buckets.items()
            if v
        },
    }


def run_cpp(tasks: list[Task]) -> dict[str, object]:
    """Compile each program once in the sandbox, then run every test of the same binary three
    ways, interleaved (one worker: per-run times, not runs/s): in the sandbox as configured
    (the launcher spawns it through the exec helper), in a sandbox whose launcher forks it
    (the way before the helper), and as a plain ./a.out."""
    from ramp.execution.dialects import executors_by_lang

    compile_s: list[float] = []
    times: dict[str, list[float]] = {"exec_helper": [], "launcher_fork": [], "plain": []}
    verdicts: Counter[str] = Counter()
    not_compiled = 0
    forking = SandboxConfig(use_exec_helper=False)
    with (
        executors_by_lang((t.lang for t in tasks), 1) as executors,
        executors_by_lang((t.lang for t in tasks), 1, config=forking) as forked,
    ):
        assert all(e.isolation.exec_helper for e in executors.values()), "no exec helper"
        for task in tasks:
            executor, other = executors[task.lang], forked[task.lang]
            rt = executor.runtime
            code = task.problem.buggy_code.replace("\r\n", "\n")
            source = code.encode("utf-8", "surrogateescape")
            with (
                executor.sandbox.stage({rt.source_name: source}) as staged,
                other.sandbox.stage({rt.source_name: source}) as other_staged,
            ):
                t = time.perf_counter()
                prepared = executor.prepare(staged)
                compile_s.append(time.perf_counter() - t)
                if prepared.compile_error or prepared.too_big(task.limits):
                    not_compiled += 1
                    continue
                binary = staged.host / rt.binary_name
                other_staged.put(rt.binary_name, binary.read_bytes(), executable=True)
                other_argv = rt.run_command(
                    f"{other_staged.path}/{rt.source_name}", f"{other_staged.path}/{rt.binary_name}"
                )
                for i, test in enumerate(task.hidden_tests):
                    t = time.perf_counter()
                    result = executor.run_one(prepared.argv, i, test, task.limits)
                    mine = time.perf_counter() - t
                    verdicts[result.verdict.value] += 1
                    if result.verdict.value not in ("PASSED", "WRONG_ANSWER", "RUNTIME_ERROR"):
                        continue  # stopped at a limit: a plain run would only wait longer
                    t = time.perf_counter()
                    other.run_one(tuple(other_argv), i, test, task.limits)
                    theirs = time.perf_counter() - t
                    stdin = test.input.encode("utf-8", "surrogateescape")
                    times["exec_helper"].append(mine)
                    times["launcher_fork"].append(theirs)
                    times["plain"].append(_plain(binary, stdin, task.limits))
    plain = times["plain"]
    helper_vs_fork = [
        a / b for a, b in zip(times["exec_helper"], times["launcher_fork"], strict=True)
    ]
    return {
        "programs": len(tasks),
        "not_run": not_compiled,
        "compile_s": {
            "median": round(statistics.median(compile_s), 3),
            "mean": round(statistics.fmean(compile_s), 3),
            "total": round(sum(compile_s), 1),
        },
        "runs_compared": len(plain),
        "plain_median_ms": round(statistics.median(plain) * 1e3, 2),
        "exec_helper_vs_plain": _compare(times["exec_helper"], plain),
        "launcher_fork_vs_plain": _compare(times["launcher_fork"], plain),
        "exec_helper_vs_launcher_fork_median_per_run": round(
            statistics.median(helper_vs_fork), 3
        ),
        "verdicts": dict(verdicts),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=("ruby", "cpp"), default="ruby")
    parser.add_argument("--data", type=Path, default=None, help="default: the lang's file")
    parser.add_argument("--limit", type=int, default=None, help="first N programs only")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=60, help="overhead measurement runs")
    parser.add_argument("--skip-naive", action="store_true")
    parser.add_argument("--out", type=Path, default=Path("results/benchmarks/executor.json"))
    args = parser.parse_args(argv)
    if args.lang == "cpp":
        result = run_cpp(load(args.data or CPP_DATA, args.limit))
        with atomic_open(args.out) as f:
            json.dump(result, f, indent=2)
        print(json.dumps(result, indent=2))
        return 0

    tasks = load(args.data or DATA, args.limit)
    pairs = sum(len(t.hidden_tests) for t in tasks)
    print(f"{len(tasks)} programs, {pairs} program x test runs", file=sys.stderr, flush=True)

    forking = SandboxConfig(use_exec_helper=False)
    with SandboxExecutor(workers=1) as ex, SandboxExecutor(workers=1, config=forking) as fk:
        over = overhead(ex, fk, args.rounds)
        isolation = asdict(ex.isolation)
    print(f"overhead: {over}", file=sys.stderr, flush=True)

    ours_s, ours_v, ours_sum = run_ours(tasks, args.workers)
    print(f"ours: {ours_s:.1f} s, {pairs / ours_s:.1f} runs/s", file=sys.stderr, flush=True)
    result: dict[str, object] = {
        "programs": len(tasks),
        "runs": pairs,
        "workers": args.workers,
        "isolation": isolation,
        "overhead_trivial_program": over,
        "ours": {
            "seconds": round(ours_s, 2),
            "runs_per_s": round(pairs / ours_s, 2),
            "verdicts": dict(ours_v),
        },
        "recorded_outcome_agreement": sum(
            s == t.recorded_outcome for s, t in zip(ours_sum, tasks, strict=True)
        ),
        "host": {"python": platform.python_version(), "machine": platform.machine()},
    }
    if not args.skip_naive:
        naive_s, naive_v, naive_sum = run_naive(tasks)
        print(f"naive: {naive_s:.1f} s, {pairs / naive_s:.1f} runs/s", file=sys.stderr)
        result["naive"] = {
            "seconds": round(naive_s, 2),
            "runs_per_s": round(pairs / naive_s, 2),
            "verdicts": dict(naive_v),
            "timeout": "3 x time limit + 1 s wall clock, no other limit",
        }
        result["speedup_runs_per_s"] = round(naive_s / ours_s, 2)
        result["summary_verdict_agreement"] = sum(
            a == b for a, b in zip(ours_sum, naive_sum, strict=True)
        )
    with atomic_open(args.out) as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
