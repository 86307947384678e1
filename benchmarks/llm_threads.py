"""How many CPU threads should llama.cpp use here? (not a test; it picks `n_threads`)

Times one prompt-then-generate call of an embedded model with 1 and with N threads, on an idle
machine and again while a busy loop occupies one core (what a workflow sees when a Ruby test
run or another job shares the machine). Each setting loads the model once, warms it with one
call, then times ``--reps`` calls, alternating the thread counts so that load affects both.

    python benchmarks/llm_threads.py [--model qwen2.5-coder-1.5b] [--threads 2] [--reps 2] \\
        [--out results/benchmarks/llm_threads.json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import time
from pathlib import Path

from ramp.io import atomic_open
from ramp.llm import embedded

PROMPT = (
    "Explain what this Ruby program does, line by line, and say whether it is correct.\n"
    + "n = gets.to_i\na = gets.split.map(&:to_i)\nputs a.each_slice(2).map(&:sum).max\n" * 20
)


def _spin(stop) -> None:
    while not stop.is_set():
        pass


def _time_call(llm, tokens: int, seed: int) -> float:
    llm.reset()  # no KV reuse between calls: every call processes the whole prompt
    start = time.perf_counter()
    llm(PROMPT, max_tokens=tokens, temperature=0.0, seed=seed)
    return time.perf_counter() - start


def measure(model: str, thread_counts: list[int], reps: int, tokens: int) -> dict[int, list[float]]:
    from llama_cpp import Llama

    path = str(embedded.resolve(model))
    # n threads for the prompt too, as ramp's backend sets them (the library's own default
    # for prompts is every core, whatever n_threads says).
    models = {n: Llama(model_path=path, n_ctx=2048, n_threads=n, n_threads_batch=n,
                       verbose=False)
              for n in thread_counts}
    for llm in models.values():
        _time_call(llm, 4, 0)  # warm-up: page the weights in
    seconds: dict[int, list[float]] = {n: [] for n in thread_counts}
    for rep in range(reps):
        order = thread_counts if rep % 2 == 0 else thread_counts[::-1]
        for n in order:
            seconds[n].append(_time_call(models[n], tokens, rep))
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2,
                    help="the other thread count to compare with 1 (default: all cores)")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--tokens", type=int, default=128, help="tokens generated per call")
    ap.add_argument("--out", type=Path, default=Path("results/benchmarks/llm_threads.json"))
    args = ap.parse_args()
    counts = [1, args.threads]
    report: dict = {"model": args.model, "tokens": args.tokens, "reps": args.reps,
                    "host": {"python": platform.python_version(), "cpus": os.cpu_count()}}
    for setting in ("idle", "one_core_busy"):
        stop = multiprocessing.Event()
        spinner = None
        if setting == "one_core_busy":
            spinner = multiprocessing.Process(target=_spin, args=(stop,), daemon=True)
            spinner.start()
        try:
            seconds = measure(args.model, counts, args.reps, args.tokens)
        finally:
            stop.set()
            if spinner is not None:
                spinner.join()
        medians = {n: statistics.median(s) for n, s in seconds.items()}
        report[setting] = {
            "median_call_s": {str(n): round(m, 2) for n, m in medians.items()},
            f"{args.threads}_threads_over_1": round(medians[args.threads] / medians[1], 2),
        }
        print(f"{setting:>14}: " + ", ".join(f"{n} thread(s) {m:.1f} s/call"
                                             for n, m in medians.items())
              + f"; {args.threads} threads take {medians[args.threads] / medians[1]:.2f}x "
              "the time of 1")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(args.out, "w") as f:
        json.dump(report, f, indent=2)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
