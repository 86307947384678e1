"""How fast does llama.cpp evaluate a prompt in batches of each size? (not a test)

A smaller ``n_batch`` lets a call reuse more of a shared prefix (only whole batches are reused,
so up to ``n_batch`` - 1 tokens of it are evaluated again), if small batches cost no more per
token. This evaluates one prompt of ``--tokens`` tokens from an empty KV cache with each batch
size on one thread (for the prompt too), the sizes alternating rep by rep on one loaded model
per size, and prints prompt tokens per second and each size's time relative to the largest's.

    .venv/bin/python benchmarks/batch_size.py [--model qwen2.5-coder-1.5b] [--sizes 512 256 128 64]
        [--tokens 1024] [--reps 2] [--out results/benchmarks/batch_size.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from ramp.io import write_text
from ramp.llm import embedded

ROOT = Path(__file__).resolve().parents[1]


def prompt_tokens(llm, n: int) -> list[int]:
    """``n`` tokens of the repository's own README (text to evaluate, nothing of the data set)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    tokens = llm.tokenize(text.encode("utf-8"))
    if len(tokens) < n:
        raise SystemExit(f"README.md has {len(tokens)} tokens, fewer than the {n} asked for")
    return tokens[:n]


def main(argv: Sequence[str] | None = None) -> None:
    from llama_cpp import Llama

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--sizes", type=int, nargs="+", default=[512, 256, 128, 64])
    ap.add_argument("--tokens", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--out", type=Path,
                    default=ROOT / "results" / "benchmarks" / "batch_size.json")
    args = ap.parse_args(argv)
    path = str(embedded.resolve(args.model))
    models = {b: Llama(model_path=path, n_ctx=args.tokens + 64, n_threads=1, n_threads_batch=1,
                       n_batch=b, n_ubatch=b, verbose=False) for b in args.sizes}
    tokens = prompt_tokens(next(iter(models.values())), args.tokens)
    seconds: dict[int, list[float]] = {b: [] for b in args.sizes}
    for rep in range(args.reps):
        for b in args.sizes if rep % 2 == 0 else args.sizes[::-1]:
            llm = models[b]
            llm.reset()
            llm._ctx.kv_cache_seq_rm(-1, 0, -1)
            start = time.perf_counter()
            llm.eval(tokens)
            seconds[b].append(time.perf_counter() - start)
    base = statistics.median(seconds[max(args.sizes)])
    lines = [f"{args.model}, a {args.tokens}-token prompt, one thread, {args.reps} reps",
             f"{'n_batch':>7s} {'median s':>9s} {'tok/s':>7s} {'time / largest':>14s}"]
    rows = {}
    for b in args.sizes:
        m = statistics.median(seconds[b])
        rows[b] = {"seconds": seconds[b], "median_s": m, "tok_s": args.tokens / m}
        lines.append(f"{b:7d} {m:9.2f} {args.tokens / m:7.1f} {m / base:13.2f}x")
    report = "\n".join(lines)
    print(report)
    write_text(args.out, json.dumps({"model": args.model, "tokens": args.tokens,
                                     "reps": args.reps, "sizes": rows, "report": report},
                                    indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
