"""Does decoding a sequence beside others change its numbers? (not a test; it decides a design)

Decoding several sequences in one batch a step pays on a CPU whose one-thread step is bound by
memory bandwidth (``benchmarks/batched_decoding.py``). A completion must still depend on model,
prompt, parameters and seed alone, so a sequence must compute the same bits whichever
sequences share its batch and whichever slot it takes. This checks that on the real model:
the Programmer's prompts of the first tasks of ``--subset`` (read in place), each evaluated
in its own sequence of a context of ``width`` sequences, each with a KV buffer of its own
(llama.cpp's ``kv_unified`` off), then decoded greedily, every active sequence one token a
step, the batch listing them in slot order, as a decoder would (listed out of order, they
computed other bits than in order). The first prompt ("A") is decoded alone (a context of one
sequence, one token a step: the path of today's backend) and, at each of ``--widths``,

- in each slot, one-token prompts ("paddings") in every other slot;
- in slot 0, beside 0, 1, ... paddings (fewer active sequences than slots);
- in slot 0, the other prompts in the other slots (do the companions' tokens matter?);
- in the last slot, the other prompts joining after ``--lag`` steps;
- in slot 1, beside a prompt longer by over 256 tokens (another KV length to attend over).

A's logits at every step are hashed, and each way gets a label: ``=`` for the same bits as A
alone, step for step, else a letter per distinct sequence of bits (shared across widths).
At each of ``--layout``, the first that many prompts are decoded together, as a decoder of a
fixed shape would (always that many sequences a step), and each is compared with itself in
slot 0 beside paddings only: ``=`` where the bits are the same.

    .venv/bin/python benchmarks/batched_bits.py [--model qwen2.5-coder-1.5b] [--widths 4 8]
        [--layout 4 8] [--tokens 32] [--lag 3] [--out results/benchmarks/batched_bits.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from batched_decoding import Context, load, model_args  # beside this file

from ramp.io import write_text

ROOT = Path(__file__).resolve().parents[1]


class Streams(Context):
    """A context of ``width`` sequences, each with a KV buffer of its own."""

    def __init__(self, model, width: int, n_ctx: int, n_batch: int) -> None:
        super().__init__(model, width, n_ctx * width, n_batch, unified=width == 1)
        self.pos = [0] * width

    def step(self, items: Sequence[tuple[int, int]]) -> None:
        """One batch of (sequence, token), each at its sequence's next position."""
        placed = []
        for seq, token in items:
            placed.append((token, self.pos[seq], seq, True))
            self.pos[seq] += 1
        self._decode(placed)

    def logits(self, i: int) -> np.ndarray:
        return self._logits(i)

    def prompt(self, seq: int, tokens: list[int]) -> np.ndarray:
        """Evaluate a prompt in ``seq`` alone, in batches of n_batch from its first token."""
        for start in range(0, len(tokens), self.n_batch):
            self.step([(seq, t) for t in tokens[start:start + self.n_batch]])
        return self.logits(-1)


def run(model, prompts: dict[int, list[int]], width: int, n_ctx: int, n_batch: int,
        tokens: int, lag: dict[int, int]) -> dict[int, list[str]]:
    """Greedy decoding of ``prompts`` (slot: tokens), every slot one token a step from step
    ``lag[s]`` on, the batch in the order of the slots; each slot's logits hashed, step by
    step."""
    s = Streams(model, width, n_ctx, n_batch)
    try:
        last = {slot: s.prompt(slot, p) for slot, p in prompts.items()}
        hashes: dict[int, list[str]] = {slot: [] for slot in prompts}
        for step in range(tokens):
            active = sorted(slot for slot in prompts if lag.get(slot, 0) <= step)
            for slot in active:
                hashes[slot].append(hashlib.sha256(last[slot].tobytes()).hexdigest()[:16])
            s.step([(slot, int(np.argmax(last[slot]))) for slot in active])
            last.update({slot: s.logits(i) for i, slot in enumerate(active)})
        return hashes
    finally:
        s.close()


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    model_args(ap)
    ap.add_argument("--widths", type=int, nargs="*", default=[4, 8])
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--lag", type=int, default=3)
    ap.add_argument("--layout", type=int, nargs="*", default=[],
                    help="widths at which to check a fixed shape (always that many a step)")
    ap.add_argument("--out", type=Path,
                    default=ROOT / "results" / "benchmarks" / "batched_bits.json")
    args = ap.parse_args(argv)

    from llama_cpp import llama_print_system_info

    llama, spec, prompts = load(args, max([*args.widths, *args.layout]))
    model, n_ctx, n_batch = llama._model.model, spec.context_size, spec.n_batch
    a, pad = prompts[0], prompts[0][:1]
    start = time.perf_counter()

    def watched(width: int, slots: dict[int, list[int]], watch: int,
                lag: dict[int, int] | None = None) -> list[str]:
        return run(model, slots, width, n_ctx, n_batch, args.tokens, lag or {})[watch]

    def padded(width: int, slot: int, active: int | None = None,
               prompt: list[int] = a) -> dict[int, list[int]]:
        """``prompt`` (A) in ``slot``, a one-token prompt in every other of the first
        ``active`` slots."""
        return {slot: prompt, **{i: pad for i in range(active or width) if i != slot}}

    seen: dict[tuple[str, ...], str] = {tuple(watched(1, {0: a}, 0)): "="}

    def label(hashes: list[str]) -> str:
        """'=' for A's logits alone, step for step; else a letter per distinct sequence."""
        return seen.setdefault(tuple(hashes), "abcdefghijklmnopqrstuvwxyz"[len(seen) - 1])

    lines = []
    for w in args.layout:
        # A decoder of a fixed shape, always ``w`` sequences a step (a padding in the slot of a
        # call that ended): each of w prompts decoded together against itself in slot 0 beside
        # paddings only.
        together = run(model, dict(enumerate(prompts[:w])), w, n_ctx, n_batch, args.tokens, {})
        same = ["=" if together[i] == watched(w, padded(w, 0, prompt=p), 0) else "x"
                for i, p in enumerate(prompts[:w])]
        lines.append(f"fixed shape of {w}: prompts 1..{w} together, each against itself in "
                     f"slot 0 beside paddings: {' '.join(same)}")
        print(lines[-1], flush=True)
    for w in args.widths:
        others = prompts[1:w]
        rows = {
            f"A in slot 0..{w - 1}, paddings in the others":
                [label(watched(w, padded(w, s), s)) for s in range(w)],
            f"A in slot 0, paddings in 0..{w - 1} more slots":
                [label(watched(w, padded(w, 0, k), 0)) for k in range(1, w + 1)],
            "A in slot 0, the other prompts in the others":
                [label(watched(w, {0: a, **dict(enumerate(others, 1))}, 0))],
            f"A in slot {w - 1}, the other prompts joining after {args.lag} steps":
                [label(watched(w, {w - 1: a, **dict(enumerate(reversed(others)))}, w - 1,
                               dict.fromkeys(range(w - 1), args.lag)))],
            "A in slot 1, a prompt over 256 tokens longer in slot 2, paddings":
                [label(watched(w, {**padded(w, 1), 2: prompts[1] + prompts[2]}, 1))],
        }
        for what, labels in rows.items():
            lines.append(f"width {w}: {what}: {' '.join(labels)}")
            print(lines[-1], flush=True)
    report = "\n".join([
        f"{args.model}, prompt A {len(a)} tokens, {args.tokens} greedy steps, one thread, "
        f"n_batch {n_batch} ({time.perf_counter() - start:.0f} s)",
        "build: " + llama_print_system_info().decode().strip(),
        "logits at every step: '=' the same bits as A decoded alone, a letter per other "
        "sequence of bits; in a fixed shape '=' the same bits as its reference, 'x' not",
        *lines])
    print(report)
    write_text(args.out, json.dumps({
        "model": args.model, "tokens": args.tokens, "lag": args.lag, "n_batch": n_batch,
        "prompt_tokens": [len(p) for p in prompts], "machine": platform.platform(),
        "report": report}, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
