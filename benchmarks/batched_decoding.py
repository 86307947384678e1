"""Does decoding several sequences together pay on this CPU? (not a test; it decides a default)

RAMP+ asks the Programmer for n candidates of one prompt. llama.cpp can decode them together:
the prompt is evaluated once, its KV cache copied to n sequences, and every step evaluates one
token of each sequence in one batch, so the weights are read once per step for all of them.
Whether that is faster than n sequences one after another depends on whether a step is bound by
memory bandwidth (then a batch is nearly free) or by compute (then it is not), i.e. on the CPU.

This times the generation phase only, both ways, on the same loaded model, the same evaluated
prompt (a real Programmer prompt: the first task of ``--subset``, read in place) and one
thread, alternating the two ways rep by rep: ``sequential`` generates each of the n sequences
alone (the prompt's KV cache kept, the previous sequence's tokens dropped); ``batched`` decodes
all n in one batch a step. It also says whether a batch changes the tokens: greedy decoding
both ways must give the same sequence if batching leaves llama.cpp's floating-point results as
they are (if not, batching would have to be part of the model's identity in the answer cache).

    .venv/bin/python benchmarks/batched_decoding.py [--model qwen2.5-coder-1.5b] [--n 2 4]
        [--tokens 64] [--reps 2] [--out results/benchmarks/batched_decoding.json]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import psutil
import yaml

from ramp.agents import programmer
from ramp.dataset import load_tasks
from ramp.io import write_text
from ramp.llm.spec import ModelsConfig, ModelSpec
from ramp.llm.weights import weights_path
from ramp.prompting import PromptLibrary
from ramp.sampling import read_id_list
from ramp.variants import variant_from_config

ROOT = Path(__file__).resolve().parents[1]


class Context:
    """One llama.cpp context of ``n_seq`` sequences on one thread; ``unified``: one KV buffer
    for all of them, else one each (llama.cpp's ``kv_unified``)."""

    def __init__(self, model, n_seq: int, n_ctx: int, n_batch: int, unified: bool) -> None:
        import llama_cpp as L

        self.L, self.n_batch = L, n_batch
        params = L.llama_context_default_params()
        params.n_ctx, params.n_batch, params.n_ubatch = n_ctx, n_batch, n_batch
        params.n_seq_max, params.kv_unified = n_seq, unified
        params.n_threads = params.n_threads_batch = 1
        self.ctx = L.llama_init_from_model(model, params)
        self.n_vocab = L.llama_vocab_n_tokens(L.llama_model_get_vocab(model))
        self.batch = L.llama_batch_init(max(n_batch, n_seq), 0, n_seq)

    def close(self) -> None:
        self.L.llama_batch_free(self.batch)
        self.L.llama_free(self.ctx)

    def _decode(self, items: Sequence[tuple[int, int, int, bool]]) -> None:
        """One ``llama_decode`` of (token, position, sequence, whether to keep its logits)."""
        b = self.batch
        for i, (token, pos, seq, logits) in enumerate(items):
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = token, pos, 1, logits
            b.seq_id[i][0] = seq
        b.n_tokens = len(items)
        if self.L.llama_decode(self.ctx, b) != 0:
            raise RuntimeError("llama_decode failed")

    def _logits(self, i: int) -> np.ndarray:
        """A copy of the logits of the last decode's ``i``-th kept token."""
        ptr = self.L.llama_get_logits_ith(self.ctx, i)
        return np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_float)),
                                     shape=(self.n_vocab,)).copy()


class Decoder(Context):
    """A context of ``n_seq`` sequences (one KV buffer) over an evaluated prompt."""

    def __init__(self, model, prompt: list[int], n_seq: int, n_ctx: int, n_batch: int) -> None:
        super().__init__(model, n_seq, n_ctx, n_batch, unified=True)
        self.n_prompt = len(prompt)
        self.mem = self.L.llama_get_memory(self.ctx)
        for start in range(0, len(prompt), n_batch):
            chunk = prompt[start:start + n_batch]
            self._decode([(t, start + i, 0, start + i == len(prompt) - 1)
                          for i, t in enumerate(chunk)])
        self.first = self._logits((len(prompt) - 1) % n_batch)  # in the last batch

    def _drop_generated(self, n_seq: int) -> None:
        for s in range(n_seq):
            self.L.llama_memory_seq_rm(self.mem, s, self.n_prompt if s == 0 else 0, -1)

    def sequential(self, n_seq: int, tokens: int, sample) -> list[list[int]]:
        """Each sequence alone after the prompt, one token a step."""
        out = []
        for s in range(n_seq):
            self._drop_generated(n_seq)
            seq = [sample(self.first, s, 0)]
            for step in range(1, tokens):
                self._decode([(seq[-1], self.n_prompt + step - 1, 0, True)])
                seq.append(sample(self._logits(0), s, step))
            out.append(seq)
        self._drop_generated(n_seq)
        return out

    def batched(self, n_seq: int, tokens: int, sample) -> list[list[int]]:
        """All sequences together: the prompt's cache copied to each, one batch a step."""
        self._drop_generated(n_seq)
        for s in range(1, n_seq):
            self.L.llama_memory_seq_cp(self.mem, 0, s, -1, -1)
        seqs = [[sample(self.first, s, 0)] for s in range(n_seq)]
        for step in range(1, tokens):
            self._decode([(seqs[s][-1], self.n_prompt + step - 1, s, True)
                          for s in range(n_seq)])
            for s in range(n_seq):
                seqs[s].append(sample(self._logits(s), s, step))
        self._drop_generated(n_seq)
        return seqs


def greedy(logits: np.ndarray, seq: int, step: int) -> int:
    return int(np.argmax(logits))


def sampler(seed: int, temperature: float = 0.8):
    """Sampling at ``temperature``, each sequence from its own seed and step (so both ways draw
    the same random numbers)."""
    def sample(logits: np.ndarray, seq: int, step: int) -> int:
        z = logits / temperature
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(np.random.default_rng([seed, seq, step]).choice(len(p), p=p))
    return sample


def timed(fn, *args) -> tuple[float, float, list]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    return time.perf_counter() - wall, time.process_time() - cpu, out


def programmer_prompts(config: dict, subset: str, n: int) -> list[list[dict]]:
    """The Programmer's first prompt for each of the first ``n`` tasks of ``subset``."""
    ids = read_id_list(ROOT / "data" / "subsets" / f"{subset}.txt")[:n]
    tasks = {t.task_id: t for t in load_tasks(ROOT / config["data"]["jsonl"]).tasks}
    variant = variant_from_config("ramp", (config.get("variants") or {}).get("ramp") or {})
    return [[{"role": m.role, "content": m.content}
             for m in programmer.prompt(PromptLibrary.default(), tasks[i].problem, variant, [])]
            for i in ids]


def model_args(ap: argparse.ArgumentParser) -> None:
    """The options saying which model and which prompts (shared with batched_bits.py)."""
    ap.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--subset", default="paper34")


def load(args: argparse.Namespace, n: int) -> tuple[Any, ModelSpec, list[list[int]]]:
    """The model (a ``llama_cpp.Llama`` on one thread), its spec, and the first ``n``
    Programmer prompts of the subset, formatted by the GGUF's own chat template as
    llama-cpp-python does by default, and tokenized."""
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    config = yaml.safe_load(args.config.read_text(encoding="utf-8"))
    spec = ModelsConfig.from_dict(config.get("models") or {}).spec(args.model)
    llama = Llama(model_path=str(weights_path(spec)), n_ctx=spec.context_size, n_threads=1,
                  verbose=False)
    formatter = Jinja2ChatFormatter(llama.metadata["tokenizer.chat_template"], eos_token="",
                                    bos_token="")
    prompts = [llama.tokenize(formatter(messages=m).prompt.encode(), add_bos=False,
                              special=True)
               for m in programmer_prompts(config, args.subset, n)]
    return llama, spec, prompts


def summarize(rows: list[dict], n: int, same_greedy_tokens: bool) -> dict:
    """Both ways' tokens/s over every rep of ``n`` sequences, and the speed-up of batching."""
    def total(way: str, key: str) -> float:
        return sum(r[key] for r in rows if r["way"] == way and r["n"] == n)

    seq_s, bat_s = total("sequential", "seconds"), total("batched", "seconds")
    return {"n": n, "sequential_tok_s": total("sequential", "tokens") / seq_s,
            "batched_tok_s": total("batched", "tokens") / bat_s, "speedup": seq_s / bat_s,
            "same_greedy_tokens": same_greedy_tokens}


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    model_args(ap)
    ap.add_argument("--n", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--out", type=Path,
                    default=ROOT / "results" / "benchmarks" / "batched_decoding.json")
    args = ap.parse_args(argv)

    llama, spec, (prompt,) = load(args, 1)
    rows: list[dict] = []
    same_greedy: dict[int, bool] = {}
    for n in args.n:
        dec = Decoder(llama._model.model, prompt, n, spec.context_size, spec.n_batch)
        try:
            same_greedy[n] = (dec.sequential(n, args.tokens, greedy)
                              == dec.batched(n, args.tokens, greedy))
            for rep in range(args.reps):
                order = ("sequential", "batched") if rep % 2 == 0 else ("batched", "sequential")
                for way in order:
                    wall, cpu, seqs = timed(getattr(dec, way), n, args.tokens, sampler(rep))
                    rows.append({"n": n, "rep": rep, "way": way, "seconds": wall,
                                 "cpu_seconds": cpu, "tokens": sum(map(len, seqs))})
                    print(f"n {n}  rep {rep}  {way:10s} {wall:7.1f} s  "
                          f"{rows[-1]['tokens'] / wall:6.2f} tok/s", flush=True)
        finally:
            dec.close()
    summary = [summarize(rows, n, same_greedy[n]) for n in args.n]
    lines = [f"{'n':>2s} {'sequential tok/s':>16s} {'batched tok/s':>13s} {'speed-up':>8s} "
             f"{'same greedy tokens':>18s}"]
    lines += [f"{s['n']:2d} {s['sequential_tok_s']:16.2f} {s['batched_tok_s']:13.2f} "
              f"{s['speedup']:7.2f}x {s['same_greedy_tokens']!s:>18s}" for s in summary]
    report = "\n".join(lines)
    print(f"prompt {len(prompt)} tokens, {args.tokens} generated per sequence, one thread")
    print(report)
    write_text(args.out, json.dumps({
        "model": args.model, "prompt_tokens": len(prompt), "tokens": args.tokens,
        "reps": args.reps, "n_batch": spec.n_batch,
        "machine": {"platform": platform.platform(), "cpus": psutil.cpu_count(),
                    "load_average": list(psutil.getloadavg())},
        "summary": summary, "rows": rows, "report": report}, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
