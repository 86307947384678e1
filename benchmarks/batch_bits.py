"""Does the batch size change llama.cpp's results? (not a test; a check of this machine's build)

A prompt is evaluated in batches of ``n_batch`` tokens from its first. If the batch size never
changed the bits, it would be a speed setting and could stay out of the model id. This
evaluates prompts of many lengths (the first tokens of the repository's README, nothing of the
data set) from an empty KV cache in batches of ``--batch`` and of ``--against`` on one loaded
model, one thread, and compares the KV state left (``llama_state_seq_get_data``) and the last
token's logits, which start the answer. It prints every length whose state or logits differ,
with its last batch at each size: which lengths differ depends on the kernels the build and the
CPU choose.

    .venv/bin/python benchmarks/batch_bits.py [--model qwen2.5-coder-0.5b] [--batch 64]
        [--against 512] [--lengths 1-80 560-600]
        [--out results/benchmarks/batch_bits.json]
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from batch_size import prompt_tokens  # a sibling script: benchmarks/ is on sys.path

from ramp.io import write_text
from ramp.llm import embedded

ROOT = Path(__file__).resolve().parents[1]


def lengths(spans: Sequence[str]) -> list[int]:
    """``["1-3", "10"]`` -> ``[1, 2, 3, 10]``."""
    out: set[int] = set()
    for span in spans:
        first, _, last = span.partition("-")
        out.update(range(int(first), int(last or first) + 1))
    return sorted(out)


def evaluated(llm, tokens: Sequence[int], batch: int) -> tuple[str, str]:
    """Digests of the KV state and of the last token's logits after evaluating ``tokens`` from
    an empty KV cache in batches of ``batch`` tokens."""
    import llama_cpp
    import numpy as np

    ctx = llm._ctx
    ctx.kv_cache_seq_rm(-1, 0, -1)
    for start in range(0, len(tokens), batch):
        llm._batch.set_batch(tokens[start:start + batch], n_past=start, logits_all=False)
        ctx.decode(llm._batch)
    size = llama_cpp.llama_state_seq_get_size(ctx.ctx, 0)
    state = (ctypes.c_uint8 * size)()
    n = llama_cpp.llama_state_seq_get_data(ctx.ctx, state, size, 0)
    logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx.ctx, -1),
                                   shape=(llm.n_vocab(),))
    return (hashlib.sha256(ctypes.string_at(state, n)).hexdigest(),
            hashlib.sha256(logits.tobytes()).hexdigest())


def main(argv: Sequence[str] | None = None) -> None:
    import llama_cpp
    from llama_cpp import Llama

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--against", type=int, default=512)
    ap.add_argument("--lengths", nargs="+", default=["1-80", "560-600"],
                    help="prompt lengths in tokens, as N or FIRST-LAST")
    ap.add_argument("--out", type=Path,
                    default=ROOT / "results" / "benchmarks" / "batch_bits.json")
    args = ap.parse_args(argv)
    wanted = lengths(args.lengths)
    largest = max(args.batch, args.against)
    llm = Llama(model_path=str(embedded.resolve(args.model)), n_ctx=max(wanted) + 64,
                n_threads=1, n_threads_batch=1, n_batch=largest, n_ubatch=largest,
                verbose=False)
    tokens = prompt_tokens(llm, max(wanted))
    differ = []
    for n in wanted:
        first, second = (evaluated(llm, tokens[:n], b) for b in (args.batch, args.against))
        which = [name for name, a, b in zip(("state", "logits"), first, second, strict=True)
                 if a != b]
        if which:
            differ.append({"tokens": n, "differs": which,
                           "last_batch": [(n - 1) % b + 1 for b in (args.batch, args.against)]})
    features = " ".join(llama_cpp.llama_print_system_info().decode("utf-8", "replace").split())
    lines = [f"{args.model}, batches of {args.batch} against {args.against}, one thread, "
             f"{len(wanted)} prompt lengths ({' '.join(args.lengths)} tokens): "
             f"{len(differ)} differ", f"build: {features}"]
    lines += [f"  {d['tokens']:5d} tokens, last batch {d['last_batch'][0]} / "
              f"{d['last_batch'][1]}: {' and '.join(d['differs'])}" for d in differ]
    report = "\n".join(lines)
    print(report)
    write_text(args.out, json.dumps({"model": args.model, "batch": args.batch,
                                     "against": args.against, "lengths": wanted,
                                     "differ": differ, "build": features, "report": report},
                                    indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
