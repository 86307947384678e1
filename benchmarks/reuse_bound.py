"""How much model time could prefix reuse save at most? (not a test; an analysis of a run)

Reads a finished RAMP run's tables (its initial reflections and every iteration's Programmer and
Feedback Integrator calls: prompt, answer, seconds, tokens, and the prompt tokens the run took
from a cache), replays its calls in a study's order (initial reflections, then per iteration the
Programmer's calls, then the Feedback Integrator's) and, for every call, finds the longest
prefix its tokens share with any earlier call's. From that it counts the prompt tokens a cache
could have supplied under two rules, with nothing ever evicted or lost:

- ``whole batches``: the llamacpp backend's rule before it reused whole grains of a batch
  (whole ``n_batch``-token batches counted from the first token, and at least the prompt's last
  token evaluated), and its rule still where a build allows no finer grain: what the run could
  have reused, had every earlier call's state been on this machine;
- ``any token``: a prefix of any length: the bound of every sound finer rule (whole grains of 4
  come within 3 tokens a call of it, 15 more where a batch would be small);
- ``whole batches, LRU of N MB`` (``--lru-mb N ...``): the whole-batch rule with one disk cache of
  N MB, least recently used evicted first, from an empty cache: each call takes the longest of
  the KV cache of its stage job's previous call and a held state, then stores its whole batches
  (the model's KV bytes per token times the tokens) unless it reused them all. It shows what the
  cache's bound costs.

A least-squares fit of the run's call seconds on evaluated prompt tokens and generated tokens
turns tokens into seconds, so the same calls are estimated with no reuse, with the old path's
reuse (llama-cpp-python's own: whatever prefix the previous call of the same stage job shares,
at any length, short of the prompt's last token; a job's first call starts empty), as run, and
under each rule. The ratios are against the old path.

    .venv/bin/python benchmarks/reuse_bound.py \\
        --run results/studies/ramp-plus/runs/qwen2.5-coder-1.5b/ramp/paper34 \\
        [--model qwen2.5-coder-1.5b] [--batch 512] [--lru-mb 4096 16384]
        [--out results/benchmarks/reuse_bound.json]
"""

from __future__ import annotations

import argparse
import json
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from ramp.io import write_text
from ramp.llm.spec import ModelsConfig
from ramp.llm.weights import weights_path

ROOT = Path(__file__).resolve().parents[1]

# (table, column prefix) of every call, in the order a study makes them within an iteration
ROLES = (("programmer", "programmer"), ("feedback_integrator", "feedback"))


def study_calls(run: Path) -> Iterator[dict]:
    """The run's calls in a study's order: stage job, prompt JSON, seconds, tokens, reused
    tokens."""
    def call(row: pd.Series, prefix: str, role: str, job: str) -> dict:
        return {"role": role, "job": job, "prompt": row[f"{prefix}_prompt"],
                "seconds": float(row[f"{prefix}_seconds"]),
                "prompt_tokens": int(row[f"{prefix}_prompt_tokens"]),
                "completion_tokens": int(row[f"{prefix}_completion_tokens"]),
                "reused": int(row.get(f"{prefix}_reused_prompt_tokens") or 0)}

    for _, row in pd.read_parquet(run / "reflections.parquet").iterrows():
        if isinstance(row["reflection_prompt"], str) and row["reflection_prompt"]:
            yield call(row, "reflection", "feedback_integrator_initial", "reflect")
    attempts = pd.read_parquet(run / "attempts.parquet").sort_values(["iteration", "task_id"])
    for iteration, group in attempts.groupby("iteration"):
        for role, prefix in ROLES:
            for _, row in group.iterrows():
                if isinstance(row[f"{prefix}_prompt"], str) and row[f"{prefix}_prompt"]:
                    yield call(row, prefix, role, f"iteration {iteration}")


def common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    m = min(len(a), len(b))
    differ = np.flatnonzero(a[:m] != b[:m])
    return int(differ[0]) if len(differ) else m


def whole_batches(common: int, stored: int, prompt: int, batch: int) -> int:
    """Tokens of a ``prompt``-token prompt that a state of a ``stored``-token one, the two
    sharing ``common`` leading tokens, supplies under the backend's rule: whole batches from the
    first token, of the stored prompt's whole batches, never the prompt's last token."""
    return min(common, stored // batch * batch, prompt - 1) // batch * batch


def supplies(p: np.ndarray, q: np.ndarray, batch: int) -> int:
    """Tokens of prompt ``p`` that a state of prompt ``q``'s whole batches supplies."""
    return whole_batches(common_prefix(p, q), len(q), len(p), batch)


def same_job_as_previous(jobs: Sequence[str], i: int) -> bool:
    """Whether call ``i`` follows the previous call in its stage job's process, whose KV cache
    it finds (a job's first call starts empty)."""
    return i > 0 and jobs[i] == jobs[i - 1]


def previous_call_reuse(tokens: Sequence[np.ndarray], jobs: Sequence[str]) -> list[int]:
    """Per prompt: the tokens llama-cpp-python reused by itself (the old path): the prefix it
    shares with the previous call of its job, short of its last token."""
    return [min(common_prefix(p, tokens[i - 1]), len(p) - 1)
            if same_job_as_previous(jobs, i) else 0 for i, p in enumerate(tokens)]


def reusable(tokens: Sequence[np.ndarray], batch: int) -> list[tuple[int, int]]:
    """Per prompt: (tokens reusable in whole batches, tokens reusable at any length), from
    every earlier prompt (a stored state covers the whole batches of its own prompt)."""
    out = []
    for i, p in enumerate(tokens):
        whole = anywhere = 0
        for q in tokens[:i]:
            n = common_prefix(p, q)
            anywhere = max(anywhere, n)
            whole = max(whole, whole_batches(n, len(q), len(p), batch))
        out.append((whole, min(anywhere, len(p) - 1)))
    return out


def lru_reuse(tokens: Sequence[np.ndarray], jobs: Sequence[str], batch: int, state_bytes: int,
              max_bytes: int) -> list[int]:
    """Per prompt: tokens reused in whole batches from the KV cache of the previous call of its
    stage job (a job's first call starts empty) or from a disk cache of ``max_bytes``
    (``state_bytes`` a token), least recently used evicted first."""
    held: OrderedDict[int, np.ndarray] = OrderedDict()  # stored whole-batch prefixes, by call
    size = 0
    out: list[int] = []
    for i, p in enumerate(tokens):
        own = same_job_as_previous(jobs, i)  # the process's own KV cache
        best = supplies(p, tokens[i - 1], batch) if own else 0
        hit = None
        for key, q in held.items():
            n = supplies(p, q, batch)
            if n > best:
                best, hit = n, key
        if hit is not None:
            held.move_to_end(hit)  # a read counts as a use
        out.append(best)
        whole = len(p) // batch * batch
        if whole > best and whole * state_bytes <= max_bytes:
            held[i] = p[:whole]
            size += whole * state_bytes
            while size > max_bytes:
                _, old = held.popitem(last=False)
                size -= len(old) * state_bytes
    return out


def kv_bytes_per_token(metadata: dict[str, str]) -> int:
    """f16 K and V of every layer for one token, from the GGUF's metadata."""
    arch = metadata["general.architecture"]
    layers = int(metadata[f"{arch}.block_count"])
    heads = int(metadata[f"{arch}.attention.head_count"])
    kv_heads = int(metadata.get(f"{arch}.attention.head_count_kv", heads))
    head_dim = int(metadata[f"{arch}.embedding_length"]) // heads
    return layers * kv_heads * head_dim * 2 * 2


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", type=Path, required=True, help="a RAMP run's folder")
    ap.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--batch", type=int, default=0,
                    help="whole batches of this many tokens (default: the model's n_batch)")
    ap.add_argument("--lru-mb", type=int, nargs="*", default=[],
                    help="also simulate a disk cache of each of these bounds (MB)")
    ap.add_argument("--out", type=Path,
                    default=ROOT / "results" / "benchmarks" / "reuse_bound.json")
    args = ap.parse_args(argv)

    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    config = yaml.safe_load(args.config.read_text(encoding="utf-8"))
    spec = ModelsConfig.from_dict(config.get("models") or {}).spec(args.model)
    if spec.chat_template:
        raise SystemExit(f"{args.model}: a chat template of its own is not handled here")
    vocab = Llama(model_path=str(weights_path(spec)), vocab_only=True, verbose=False)
    formatter = Jinja2ChatFormatter(vocab.metadata["tokenizer.chat_template"], eos_token="",
                                    bos_token="")  # the GGUF's template, as the backend uses it

    calls = list(study_calls(args.run))
    tokens = [np.array(vocab.tokenize(formatter(messages=json.loads(c["prompt"])).prompt.encode(),
                                      add_bos=False, special=True)) for c in calls]
    same = sum(len(t) == c["prompt_tokens"] for t, c in zip(tokens, calls, strict=True))
    batch = args.batch or spec.n_batch
    bounds = reusable(tokens, batch)

    prompt = np.array([c["prompt_tokens"] for c in calls], dtype=float)
    gen = np.array([c["completion_tokens"] for c in calls], dtype=float)
    reused = np.array([c["reused"] for c in calls], dtype=float)
    seconds = np.array([c["seconds"] for c in calls])
    x = np.column_stack([prompt - reused, gen])
    (per_prompt, per_gen), *_ = np.linalg.lstsq(x, seconds, rcond=None)
    r2 = 1 - ((x @ [per_prompt, per_gen] - seconds) ** 2).sum() / (
        (seconds - seconds.mean()) ** 2).sum()

    def estimate(reuse: np.ndarray) -> float:
        return float(per_prompt * np.maximum(prompt - reuse, 0).sum() + per_gen * gen.sum())

    jobs = [c["job"] for c in calls]
    before = np.array(previous_call_reuse(tokens, jobs), dtype=float)
    rows = {
        "no reuse": (0.0, estimate(np.zeros_like(prompt))),
        "old path (previous call)": (before.sum(), estimate(before)),
        "as run": (reused.sum(), estimate(reused)),
    }
    state_bytes = kv_bytes_per_token(vocab.metadata)
    for mb in args.lru_mb:
        lru = np.array(lru_reuse(tokens, jobs, batch, state_bytes, mb * 2**20), dtype=float)
        rows[f"whole batches of {batch}, LRU of {mb} MB"] = (lru.sum(), estimate(lru))
    whole = np.array([b[0] for b in bounds], dtype=float)
    rows[f"whole batches of {batch}, nothing lost"] = (whole.sum(), estimate(whole))
    rows["any token, nothing lost"] = (sum(b[1] for b in bounds),
                                       estimate(np.array([b[1] for b in bounds])))
    old = rows["old path (previous call)"][1]
    lines = [f"{len(calls)} calls, {int(prompt.sum())} prompt tokens ({same} tokenized to the "
             f"recorded count), {int(gen.sum())} generated; {seconds.sum():.0f} model s as run",
             f"fit: {per_prompt:.4f} s per evaluated prompt token, {per_gen:.4f} s per generated "
             f"token (R^2 {r2:.2f})",
             f"{'reuse rule':40s} {'reused tokens':>13s} {'share':>6s} {'est. s':>8s} "
             f"{'old / this':>10s}"]
    lines += [f"{name:40s} {int(tok):13d} {tok / prompt.sum():6.1%} {s:8.0f} {old / s:9.2f}x"
              for name, (tok, s) in rows.items()]
    report = "\n".join(lines)
    print(report)
    write_text(args.out, json.dumps({
        "run": str(args.run), "model": args.model, "n_batch": batch,
        "calls": len(calls), "tokenized_as_recorded": same, "kv_bytes_per_token": state_bytes,
        "fit": {"per_prompt_token_s": per_prompt, "per_generated_token_s": per_gen, "r2": r2},
        "rules": {k: {"reused_tokens": int(t), "estimated_seconds": s}
                  for k, (t, s) in rows.items()},
        "report": report}, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
