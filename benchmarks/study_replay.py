"""Model time of a study's own calls on three llama.cpp paths, on the same prompts, alternating.

The prompts are a real study's: RAMP's stage functions (initial reflections, guiding tests,
iterations 1..K of Programmer and Feedback Integrator) run on the first ``--tasks`` tasks of a
subset, read in place from the data set and the prompt templates, so the calls come in the order
a study makes them (nothing of the data set is stored here). Each call goes to every path, in an
order that rotates call by call, and the study goes on with the new path's answer:

- ``old``: llama-cpp-python as the study called it before prefix reuse was made sound: the
  library's own reuse of whatever prefix the previous call left, no disk cache, generation
  that runs on after the program (no ``stop_when``), and prompts evaluated on every core (the
  library's default; ``n_threads`` set generation's threads only);
- ``new``: ramp's llamacpp backend as configured now: reuse in whole grains of a batch, the
  disk cache of prompt prefixes (empty at the start, as for a new study; ``--kv-dir`` puts it
  where processes in lockstep share it, as a study's jobs do), answers that end when
  complete, ``n_threads`` for prompts too;
- ``server``: llama.cpp's server (``python -m llama_cpp.server``, what a user would run
  instead), up for the whole run, through ramp's OpenAI-compatible backend, with the model's
  ``n_threads`` for prompts and generation, as ``new`` has them.

``--paths`` picks some of them (``new`` always runs: the study goes on with its answers). The
first path rotates stage call by stage call; each path takes a stage call's prompts one after
another, as a stage job does. With one task a run (``--tasks 1``) a stage call is one call.

Each stage of a study is a job of its own, so ``old`` and ``new`` start every stage with an empty
KV cache (``new`` still has its disk cache); the server keeps its state. With greedy decoding
(the default) the parsed answers of the three paths are compared call by call.

A prompt longer than the model's context ends the run there, as it would end a study (its stage
fails with the backend's error): the call is left out of the totals, and the output says which
call it was (``ended``). With one task a process, that is the task's end. Ctrl-C or ``kill``
(SIGINT, SIGTERM) ends it likewise, writing the calls every path has answered.

    .venv/bin/python benchmarks/study_replay.py [--model qwen2.5-coder-1.5b] [--subset paper10]
        [--tasks 5] [--offset 0] [--iterations 4] [--temperature 0] [--max-new-tokens 0]
        [--paths old new server] [--kv-dir DIR]
        [--out results/benchmarks/study_replay.json]
    .venv/bin/python benchmarks/study_replay.py --combine A.json B.json [--out ...]

Writes results/benchmarks/study_replay.json (every call, and the totals) and prints the totals.
``--combine`` adds up runs made apart (e.g. two processes, one task each, side by side on a
2-core machine, as a study runs two model jobs) into one file with the totals over all their
calls. ``--lockstep DIR --peers N --rank R`` makes such processes run the same path at the same
time (each waits for the others before every call of a path), so each path is measured beside
jobs of its own kind, as in a study made with it: ``old`` beside ``old`` (whose prompts take
every core: llama-cpp-python's default), ``new`` beside ``new`` (one thread a job). A process
that finishes first leaves the others to run alone, which favours ``old``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psutil
import yaml

from ramp import study_config
from ramp.agents import feedback_integrator, programmer, test_designer
from ramp.dataset import load_tasks
from ramp.execution.executor import SandboxExecutor
from ramp.io import write_text
from ramp.languages import Language
from ramp.llm import Completion, SamplingParams, create_llm
from ramp.llm.base import OVER_CONTEXT, ContextOverflow, Params, Prompt, per_prompt
from ramp.llm.prefix_cache import COUNTERS
from ramp.llm.spec import ModelsConfig, ModelSpec
from ramp.llm.weights import weights_path
from ramp.methods.base import sandbox_executors
from ramp.methods.ramp import design_tests, initial_reflections, iterate, next_state
from ramp.methods.records import OpenTask
from ramp.prompting import PromptLibrary
from ramp.sampling import read_id_list
from ramp.variants import variant_from_config

ROOT = Path(__file__).resolve().parents[1]
PARSERS = {
    "feedback_integrator_initial": lambda text, language: feedback_integrator.parse(text),
    "feedback_integrator": lambda text, language: feedback_integrator.parse(text),
    "test_designer": lambda text, language: repr(test_designer.parse(text).tests),
    "programmer": lambda text, language: programmer.parse(text, language).code,
}


class OverContext(Exception):
    """A call whose prompt does not fit the model's context: the study ends there."""


@dataclasses.dataclass
class Measured:
    """One path's answer to one call and what it cost."""

    completion: Completion
    cpu_seconds: float
    evaluated_prompt_tokens: int | None = None  # from llama.cpp's own counters
    prompt_eval_seconds: float | None = None
    generation_seconds: float | None = None


def _perf(llama) -> tuple[int, float, float]:
    """llama.cpp's counters since the last reset: prompt tokens evaluated, prompt-evaluation
    seconds, generation seconds."""
    import llama_cpp

    data = llama_cpp.llama_perf_context(llama._ctx.ctx)
    return int(data.n_p_eval), data.t_p_eval_ms / 1000, data.t_eval_ms / 1000


class InProcess:
    """``old`` or ``new``: a llama.cpp context in this process."""

    def __init__(self, name: str, llama, call) -> None:
        self.name, self.llama, self._call = name, llama, call

    def new_job(self) -> None:
        """A stage job of its own: an empty KV cache (the disk cache stays)."""
        self.llama.reset()
        self.llama._ctx.kv_cache_seq_rm(-1, 0, -1)
        if hasattr(self.llama, "whole"):
            self.llama.whole = 0

    def complete(self, prompt: Prompt, params: SamplingParams) -> Measured:
        import llama_cpp

        llama_cpp.llama_perf_context_reset(self.llama._ctx.ctx)
        cpu = time.process_time()
        completion = self._call(prompt, params)
        cpu = time.process_time() - cpu
        evaluated, p_s, g_s = _perf(self.llama)
        return Measured(completion, cpu, evaluated, p_s, g_s)


def old_path(path: Path, spec: ModelSpec) -> InProcess:
    from llama_cpp import Llama

    from ramp.llm.backends.llamacpp import over_context

    llama = Llama(model_path=str(path), n_ctx=spec.context_size, n_threads=spec.n_threads or None,
                  verbose=False)

    def call(prompt: Prompt, params: SamplingParams) -> Completion:
        start = time.perf_counter()
        try:
            out = llama.create_chat_completion(
                messages=[{"role": m.role, "content": m.content} for m in prompt],
                temperature=params.temperature, top_p=params.top_p,
                max_tokens=params.max_new_tokens, seed=params.seed,
                stop=list(params.stop) or None)
        except ValueError as e:  # llama-cpp-python's word for it
            if not over_context(e):
                raise
            raise ContextOverflow(str(e)) from e
        choice, usage = out["choices"][0], out["usage"]
        return Completion(choice["message"]["content"] or "", choice["finish_reason"],
                          usage["prompt_tokens"], usage["completion_tokens"],
                          time.perf_counter() - start)

    return InProcess("old", llama, call)


def new_path(spec: ModelSpec, kv_dir: Path, kv_bytes: int) -> InProcess:
    llm = create_llm(spec, prefix_dir=kv_dir, prefix_max_bytes=kv_bytes)
    return InProcess("new", llm.llm, lambda prompt, params: llm.complete([prompt], params)[0])


class Server:
    """llama.cpp's server in a process of its own, up for the whole run."""

    name = "server"

    def __init__(self, path: Path, spec: ModelSpec, log: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.log = log.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--host",
             "127.0.0.1", "--port", str(port), "--n_ctx", str(spec.context_size),
             "--n_batch", str(spec.n_batch), "--n_threads", str(spec.n_threads or 1),
             "--n_threads_batch", str(spec.n_threads or 1)],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.ps = psutil.Process(self.proc.pid)
        base = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + 600
        while True:
            try:
                urllib.request.urlopen(f"{base}/models", timeout=5).close()
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"llama.cpp's server did not start (see {log})") from None
                time.sleep(1)
        self.llm = create_llm(ModelSpec(name="server", backend="openai", weights=str(path),
                                        base_url=base, concurrency=1, timeout_s=3600))

    def new_job(self) -> None:
        pass  # a user's server stays up through the study

    def complete(self, prompt: Prompt, params: SamplingParams) -> Measured:
        cpu = sum(self.ps.cpu_times()[:2])
        (completion,) = self.llm.complete([prompt], params)
        return Measured(completion, sum(self.ps.cpu_times()[:2]) - cpu)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)
        self.log.close()


class Lockstep:
    """A barrier shared by ``peers`` processes through files in ``folder``: ``wait`` returns
    once every other peer has waited as often or has finished."""

    def __init__(self, folder: Path, rank: int, peers: int) -> None:
        self.folder, self.rank, self.peers, self.count = folder, rank, peers, 0
        folder.mkdir(parents=True, exist_ok=True)

    def _count(self, peer: int) -> float:
        if (self.folder / f"{peer}.done").exists():
            return float("inf")
        try:
            return int((self.folder / str(peer)).read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return 0

    def wait(self) -> None:
        self.count += 1
        write_text(self.folder / str(self.rank), str(self.count))
        while any(self._count(p) < self.count for p in range(self.peers) if p != self.rank):
            time.sleep(0.05)

    def done(self) -> None:
        write_text(self.folder / f"{self.rank}.done", "")


class Alternating:
    """The LLM the study's stages call: every prompt goes to every path, the first path
    rotating call by call; the stage goes on with the ``new`` path's answer. Programs are
    parsed as ``language``'s."""

    def __init__(self, paths: Sequence, temperature: float, language: Language,
                 lockstep: Lockstep | None = None) -> None:
        self.paths, self.greedy, self.language = list(paths), temperature == 0, language
        self.stage, self.rows, self.lockstep = "", [], lockstep
        self.stage_calls = 0
        self.ended: str | None = None  # why the study ended before its budget, if it did

    def _measured(self, path, prompts: Sequence[Prompt],
                  params: Sequence[SamplingParams]) -> list[Measured]:
        """``path``'s answers to a stage call, one after another (in lockstep, before each
        call). A prompt over the context raises OverContext."""
        try:
            out = []
            for prompt, one in zip(prompts, params, strict=True):
                if self.lockstep is not None:
                    self.lockstep.wait()
                measured = path.complete(prompt, one)
                if measured.completion.finish_reason == OVER_CONTEXT:  # the backend's outcome
                    raise ContextOverflow("the prompt leaves less than the answer's cap")
                out.append(measured)
            return out
        except ContextOverflow as e:  # each path says so its own way (old: a ValueError)
            raise OverContext(f"call {len(self.rows) + 1} ({self.stage}), {path.name} path: "
                              f"{e}") from e

    @property
    def model_id(self) -> str:
        return "study-replay"

    def new_job(self, stage: str) -> None:
        self.stage = stage
        for p in self.paths:
            p.new_job()

    def complete(self, prompts: Sequence[Prompt], params: Params) -> list[Completion]:
        each = per_prompt(prompts, params)
        first = self.stage_calls % len(self.paths)
        self.stage_calls += 1
        answers = {p.name: self._measured(p, prompts, each)
                   for p in self.paths[first:] + self.paths[:first]}
        out = []
        for i, one in enumerate(each):
            role = self.stage if self.stage in PARSERS else (
                "programmer" if one.stop_when else "feedback_integrator")
            parsed = {name: PARSERS[role](m[i].completion.text, self.language)
                      for name, m in answers.items()}
            self.rows.append({
                "call": len(self.rows) + 1, "stage": self.stage, "role": role,
                "first": self.paths[first].name,
                **{f"{name}_{k}": v for name, m in answers.items()
                   for k, v in _row(m[i]).items()},
                **{f"{name}_same_parse": parsed[name] == parsed["new"] for name in parsed
                   if name != "new"},
            })
            r = self.rows[-1]
            print(f"call {r['call']:3d} {role:28s} " + "  ".join(
                f"{n} {r[f'{n}_seconds']:6.1f} s" for n in answers), flush=True)
            out.append(answers["new"][i].completion)
        return out


def _row(m: Measured) -> dict[str, Any]:
    c = m.completion
    return {"text": c.text, "seconds": c.seconds, "cpu_seconds": m.cpu_seconds,
            "prompt_tokens": c.prompt_tokens,
            "completion_tokens": c.completion_tokens, "finish_reason": c.finish_reason,
            **{name: c.counters.get(name, 0) for name in COUNTERS},
            "evaluated_prompt_tokens": m.evaluated_prompt_tokens,
            "prompt_eval_seconds": m.prompt_eval_seconds,
            "generation_seconds": m.generation_seconds}


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def run_study(llm: Alternating, problems, variant, iterations: int, seed: int) -> None:
    """RAMP's stages in a study's order, each as a job of its own, until the budget is spent,
    every task passes its generated tests, a prompt does not fit the context, or the run is
    interrupted (SIGINT or SIGTERM: the calls all paths have answered are kept; ``llm.ended``
    says which call ended it)."""
    lib = PromptLibrary.default()
    executors = sandbox_executors(workers=1)
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` a run in the background likewise
    try:
        _stages(llm, problems, variant, iterations, seed, lib, executors)
    except OverContext as e:
        llm.ended = f"prompt over the context at {e}"
    except KeyboardInterrupt:
        llm.ended = f"interrupted after call {len(llm.rows)} ({llm.stage})"
    finally:
        if llm.ended:
            print(f"study ended: {llm.ended}", flush=True)
        executors.close()


def _stages(llm: Alternating, problems, variant, iterations: int, seed: int, lib,
            executors) -> None:
    llm.new_job("feedback_integrator_initial")
    reflections = initial_reflections(problems, llm=llm, lib=lib, variant=variant, seed=seed)
    llm.new_job("test_designer")
    with SandboxExecutor(workers=1) as executor:  # large inputs' generators (Ruby)
        designs = design_tests(problems, llm=llm, lib=lib, variant=variant,
                               executor=executor, seed=seed)
    open_tasks = [OpenTask(p, d.tests, (r.text,))
                  for p, d, r in zip(problems, designs, reflections, strict=True)]
    for t in range(1, iterations + 1):
        if not open_tasks:
            break
        llm.new_job(f"iteration {t}")
        attempts = iterate(open_tasks, t, budget=iterations, llm=llm, lib=lib,
                           variant=variant, executors=executors, seed=seed)
        open_tasks = [next_state(o, a) for o, a in zip(open_tasks, attempts, strict=True)
                      if not a.passed_generated]


def totals(rows: list[dict], names: Sequence[str]) -> dict[str, dict]:
    out = {}
    def col(n: str, k: str) -> list:
        return [r[f"{n}_{k}"] for r in rows]

    for n in names:
        known = [r for r in rows if r[f"{n}_prompt_eval_seconds"] is not None]
        evaluated = sum(r[f"{n}_evaluated_prompt_tokens"] for r in known)
        out[n] = {
            "calls": len(rows), "seconds": sum(col(n, "seconds")),
            "cpu_seconds": sum(col(n, "cpu_seconds")),
            "prompt_tokens": sum(col(n, "prompt_tokens")),
            "completion_tokens": sum(col(n, "completion_tokens")),
            "evaluated_prompt_tokens": evaluated if known else None,
            "prompt_tok_s": evaluated / sum(r[f"{n}_prompt_eval_seconds"] for r in known)
            if known else None,
            "generated_tok_s": sum(col(n, "completion_tokens")) / sum(
                r[f"{n}_generation_seconds"] for r in known) if known else None,
            "calls_reusing_a_prefix": sum(
                1 for r in rows if (r[f"{n}_evaluated_prompt_tokens"] or r[f"{n}_prompt_tokens"])
                < r[f"{n}_prompt_tokens"]),
            "disk_cache_hits": sum(1 for r in rows if r[f"{n}_kv_read_bytes"]),
            "disk_cache_read_bytes": sum(col(n, "kv_read_bytes")),
            "disk_cache_written_bytes": sum(col(n, "kv_written_bytes")),
        }
        if n != "new":
            out[n]["same_parsed_answers"] = sum(col(n, "same_parse"))
    return out


def by_role(rows: list[dict], names: Sequence[str]) -> dict[str, dict]:
    """Per role: calls, and per path its seconds and generated tokens."""
    out: dict[str, dict] = {}
    for r in rows:
        role = out.setdefault(r["role"], {"calls": 0, **{f"{n}_{k}": 0 for n in names
                                                        for k in ("seconds",
                                                                  "completion_tokens")}})
        role["calls"] += 1
        for n in names:
            role[f"{n}_seconds"] += r[f"{n}_seconds"]
            role[f"{n}_completion_tokens"] += r[f"{n}_completion_tokens"]
    return out


def _f(value: Any, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def report(summary: dict, roles: dict, names: Sequence[str]) -> str:
    lines = [f"{'path':8s} {'calls':>5s} {'model s':>8s} {'CPU s':>8s} {'prompt tok':>10s} "
             f"{'evaluated':>9s} {'prompt tok/s':>12s} {'generated':>9s} {'gen tok/s':>9s} "
             f"{'disk hits':>9s} {'same parse':>10s}"]
    for n in names:
        s = summary[n]
        lines.append(
            f"{n:8s} {s['calls']:5d} {s['seconds']:8.1f} {s['cpu_seconds']:8.1f} "
            f"{s['prompt_tokens']:10d} {_f(s['evaluated_prompt_tokens'], 'd'):>9s} "
            f"{_f(s['prompt_tok_s'], '.1f'):>12s} {s['completion_tokens']:9d} "
            f"{_f(s['generated_tok_s'], '.1f'):>9s} {s['disk_cache_hits']:9d} "
            f"{_f(s.get('same_parsed_answers'), 'd'):>10s}")
    for n in names:
        if n != "new":
            them, new = summary[n], summary["new"]
            lines.append(f"{n} / new: {them['seconds'] / new['seconds']:.2f}x the model time, "
                         f"{them['cpu_seconds'] / new['cpu_seconds']:.2f}x the CPU time")
    lines.append("generated tokens per role (" + ", ".join(names) + "): " + "; ".join(
        f"{role} {'/'.join(str(r[f'{n}_completion_tokens']) for n in names)}"
        for role, r in roles.items()))
    return "\n".join(lines)


def combine(files: Sequence[Path]) -> dict[str, Any]:
    """One result of several runs' files: every call of each (tagged with its run), the totals
    over all of them. The runs must agree on model, temperature, answer cap and paths (the
    keys of their totals)."""
    runs = [json.loads(f.read_text(encoding="utf-8")) for f in files]
    names = list(runs[0]["totals"])  # the paths, in the order they ran
    for f, r in zip(files, runs, strict=True):
        for k in ("model", "temperature", "max_new_tokens"):
            if r[k] != runs[0][k]:
                raise ValueError(f"{f}: {k} differs from {files[0]}'s; only like runs add up")
        if list(r["totals"]) != names:
            raise ValueError(f"{f}: its paths differ from {files[0]}'s; only like runs add up")
    rows = [{**row, "run": i} for i, r in enumerate(runs) for row in r["calls"]]
    summary, roles = totals(rows, names), by_role(rows, names)
    return {
        "model": runs[0]["model"], "spec": runs[0]["spec"],
        "temperature": runs[0]["temperature"], "max_new_tokens": runs[0]["max_new_tokens"],
        "runs": [{"file": f.name, "tasks": r["tasks"], "iterations": r["iterations"],
                  "wall_seconds": r["wall_seconds"], "machine": r["machine"],
                  "lockstep_peers": r.get("lockstep_peers", 1), "ended": r.get("ended")}
                 for f, r in zip(files, runs, strict=True)],
        "totals": summary, "by_role": roles, "calls": rows,
        "report": report(summary, roles, names) + "".join(
            f"\n{f.name} ended early: {r['ended']}" for f, r in zip(files, runs, strict=True)
            if r.get("ended")),
    }


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", type=Path, default=ROOT / "config" / "config.yaml")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b")
    ap.add_argument("--subset", default="paper10")
    ap.add_argument("--tasks", type=int, default=5)
    ap.add_argument("--offset", type=int, default=0, help="skip this many tasks of the subset")
    ap.add_argument("--iterations", type=int, default=4)
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--max-new-tokens", type=int, default=0,
                    help="cap every call's answer (0: the variant's limits)")
    ap.add_argument("--paths", nargs="+", choices=("old", "new", "server"),
                    default=["old", "new", "server"],
                    help="the paths to compare (new is always one: the study goes on with it)")
    ap.add_argument("--n-batch", type=int, default=0, metavar="N",
                    help="the new path's and the server's batch (default: the model's n_batch); "
                         "the old path keeps llama-cpp-python's 512")
    ap.add_argument("--lockstep", type=Path, metavar="DIR",
                    help="run each path at the same time as --peers processes sharing DIR")
    ap.add_argument("--peers", type=int, default=2)
    ap.add_argument("--kv-dir", type=Path, metavar="DIR",
                    help="the disk cache of prompt prefixes (empty it first), e.g. one the "
                         "--lockstep peers share as a study's jobs do (default: one of the "
                         "run's own, in a temporary folder)")
    ap.add_argument("--rank", type=int, default=0, help="this process's number, 0..peers-1")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "benchmarks" /
                    "study_replay.json")
    ap.add_argument("--combine", type=Path, nargs="+", metavar="JSON",
                    help="add up these runs' files into --out instead of running")
    args = ap.parse_args(argv)
    if args.combine:
        combined = combine(args.combine)
        print(combined["report"])
        write_text(args.out, json.dumps(combined, indent=1))
        print(f"wrote {args.out}")
        return

    config = yaml.safe_load(args.config.read_text(encoding="utf-8"))
    spec = ModelsConfig.from_dict(config.get("models") or {}).spec(args.model)
    if args.n_batch:
        spec = dataclasses.replace(spec, n_batch=args.n_batch)
    overrides = dict((config.get("variants") or {}).get("ramp") or {})
    overrides.update(code_temperature=args.temperature, analysis_temperature=args.temperature)
    if args.max_new_tokens:
        overrides.update(code_max_tokens=args.max_new_tokens,
                         analysis_max_tokens=args.max_new_tokens)
    variant = variant_from_config("ramp", overrides)
    wanted = read_id_list(ROOT / "data" / "subsets" / f"{args.subset}.txt")[
        args.offset: args.offset + args.tasks]
    loaded = {t.task_id: t for t in load_tasks(ROOT / config["data"]["jsonl"]).tasks}
    problems = [loaded[i].problem for i in wanted]

    path = weights_path(spec)
    with tempfile.TemporaryDirectory(prefix="study-replay-") as tmp:
        paths: list = [old_path(path, spec)] if "old" in args.paths else []
        kv = args.kv_dir or Path(tmp)
        paths.append(new_path(spec, kv / "kv", 4 * 2**30))
        server = Server(path, spec, Path(tmp) / "server.log") if "server" in args.paths else None
        if server:
            paths.append(server)
        names = [p.name for p in paths]
        lockstep = Lockstep(args.lockstep, args.rank, args.peers) if args.lockstep else None
        llm = Alternating(paths, args.temperature, problems[0].language, lockstep)
        start = time.perf_counter()
        try:
            run_study(llm, problems, variant, args.iterations, study_config.seed(config))
        finally:
            if lockstep:
                lockstep.done()
            if server:
                server.close()
        wall = time.perf_counter() - start
    summary, roles = totals(llm.rows, names), by_role(llm.rows, names)
    text = report(summary, roles, names)
    if llm.ended:
        text += f"\nended early: {llm.ended}"
    print(text)
    write_text(args.out, json.dumps({
        "model": args.model, "spec": dataclasses.asdict(spec), "tasks": wanted,
        "iterations": args.iterations, "temperature": args.temperature,
        "lockstep_peers": args.peers if args.lockstep else 1,
        "max_new_tokens": args.max_new_tokens, "wall_seconds": wall, "ended": llm.ended,
        "machine": {"platform": platform.platform(), "cpus": psutil.cpu_count(),
                    "load_average": list(psutil.getloadavg())},
        "totals": summary, "by_role": roles, "calls": llm.rows, "report": text,
    }, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
