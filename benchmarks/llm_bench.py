"""Tokens/s of each CPU backend through ramp.llm versus the library called directly.

Both paths drive the same loaded model, alternating call by call so drift hits both alike;
only ratios measured in this run are reported. A row is a backend, or ``transformers-nf4``:
the paper's 4-bit NF4 (bitsandbytes) on the CPU, far slower (give it few tokens).
Writes results/benchmarks/llm.json.

    .venv/bin/python benchmarks/llm_bench.py [--model qwen2.5-coder-0.5b] [--tokens 32] [--reps 3]
        [--backends llamacpp transformers transformers-nf4]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from ramp.io import write_text
from ramp.llm import SamplingParams, create_llm, messages
from ramp.llm.spec import ModelSpec

PROMPTS = [
    messages(
        ("system", "You are an expert Ruby programmer."),
        ("user", "Write a Ruby method that returns the n-th Fibonacci number."),
    ),
    messages(
        ("system", "You are an expert Ruby programmer."),
        ("user", "Explain what `gets.split.map(&:to_i)` does in Ruby."),
    ),
]


def _direct_llamacpp(backend) -> Callable[[tuple, int], int]:
    def call(prompt, max_tokens: int) -> int:
        out = backend.llm.create_chat_completion(
            messages=[{"role": m.role, "content": m.content} for m in prompt],
            temperature=0.0,
            max_tokens=max_tokens,
            seed=0,
        )
        return out["usage"]["completion_tokens"]

    return call


def _direct_transformers(backend) -> Callable[[tuple, int], int]:
    import torch

    tok, model = backend.tokenizer, backend.model

    def call(prompt, max_tokens: int) -> int:
        text = tok.apply_chat_template(
            [{"role": m.role, "content": m.content} for m in prompt],
            tokenize=False,
            add_generation_prompt=True,
        )
        enc = tok([text], return_tensors="pt").to(model.device)
        with torch.inference_mode():
            out = model.generate(
                **enc, max_new_tokens=max_tokens, do_sample=False, pad_token_id=tok.pad_token_id
            )
        return int(out.shape[1] - enc["input_ids"].shape[1])

    return call


DIRECT = {"llamacpp": _direct_llamacpp, "transformers": _direct_transformers}
# A row's name -> (backend, quantization).
ROWS = {
    "llamacpp": ("llamacpp", "none"),
    "transformers": ("transformers", "none"),
    "transformers-nf4": ("transformers", "nf4"),
}


def bench(row: str, model: str, tokens: int, reps: int, threads: int) -> dict:
    backend_name, quantization = ROWS[row]
    start = time.perf_counter()
    llm = create_llm(
        ModelSpec(
            name=model,
            backend=backend_name,
            embedded=model,
            quantization=quantization,
            n_threads=threads,
            context_size=2048,
            batch_size=1,
        )
    )
    load_s = time.perf_counter() - start
    direct = DIRECT[backend_name](llm)
    reset = llm.llm.reset if backend_name == "llamacpp" else (lambda: None)
    params = SamplingParams(max_new_tokens=tokens)
    for p in PROMPTS[:1]:  # warm-up: first calls pay allocation costs
        direct(p, 4)
        llm.complete([p], SamplingParams(max_new_tokens=4))
    t = {"direct": [0.0, 0], "layer": [0.0, 0]}
    ratios = []  # per adjacent pair, so that load changes on a shared machine mostly cancel
    cpu_ratios = []  # the same by process CPU time, which other users' load barely moves
    for rep in range(reps):
        for i, p in enumerate(PROMPTS):
            pair, cpu = {}, {}
            # Alternate which path goes first: the second reuses the first's prompt KV cache.
            for path in ("direct", "layer") if (rep + i) % 2 == 0 else ("layer", "direct"):
                # Both paths start cold: otherwise the second of a pair reuses the first's
                # prompt KV cache and order, not the layer, decides the ratio.
                reset()
                s, c0 = time.perf_counter(), time.process_time()
                n = (
                    direct(p, tokens)
                    if path == "direct"
                    else llm.complete([p], params)[0].completion_tokens
                )
                dt = time.perf_counter() - s
                cpu[path] = n / max(time.process_time() - c0, 1e-9)
                t[path][0] += dt
                t[path][1] += n
                pair[path] = n / dt
            ratios.append(pair["direct"] / pair["layer"])
            cpu_ratios.append(cpu["direct"] / cpu["layer"])
    rate = {k: v[1] / v[0] for k, v in t.items()}
    return {
        "backend": row,
        "model": model,
        "load_s": round(load_s, 2),
        "direct_tok_s": round(rate["direct"], 2),
        "layer_tok_s": round(rate["layer"], 2),
        "overhead_pct": round(100 * (statistics.median(ratios) - 1), 2),
        "overhead_cpu_pct": round(100 * (statistics.median(cpu_ratios) - 1), 2),
        "overhead_pct_totals": round(100 * (rate["direct"] / rate["layer"] - 1), 2),
        "tokens": {k: v[1] for k, v in t.items()},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--backends", nargs="+", choices=list(ROWS), default=list(ROWS))
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("results/benchmarks/llm.json"))
    args = ap.parse_args()
    rows = [bench(b, args.model, args.tokens, args.reps, args.threads) for b in args.backends]
    head = ("backend", "load s", "direct tok/s", "layer tok/s", "overhead wall", "overhead CPU")
    print(f"{head[0]:16} {head[1]:>7} {head[2]:>13} {head[3]:>12} {head[4]:>14} {head[5]:>13}")
    for r in rows:
        print(
            f"{r['backend']:16} {r['load_s']:7.1f} {r['direct_tok_s']:13.2f} "
            f"{r['layer_tok_s']:12.2f} {r['overhead_pct']:13.1f}% {r['overhead_cpu_pct']:12.1f}%"
        )
    speed = {r["backend"]: r["layer_tok_s"] for r in rows}
    for slower in ("transformers", "transformers-nf4"):
        if {"llamacpp", slower} <= speed.keys():
            print(f"llamacpp / {slower} generation speed: "
                  f"{speed['llamacpp'] / speed[slower]:.1f}x")
    report = {
        "model": args.model,
        "max_new_tokens": args.tokens,
        "reps": args.reps,
        "threads": args.threads,
        "machine": platform.machine(),
        "rows": rows,
    }
    write_text(args.out, json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
