"""`ramp repair --problem PROBLEM.md --program BUGGY.rb`: repair one program outside the benchmark.

The program's language follows its file name (``.rb`` Ruby, ``.cpp`` C++), or ``--lang``: the
rule of ``ramp run`` too (ramp.languages.language_of_file).

Runs a method of the study (RAMP by default; any variant of the config, e.g. a baseline) through
the contract every method has, with a configured model, prints each iteration, and writes the
repaired program, a unified diff and a JSON trace (every call, test verdict and feedback) to
--out. Exit status: 0 when the final candidate passed the method's own check (RAMP: its
generated tests), 1 when the budget ran out, 2 on bad input.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import sys
from pathlib import Path

import yaml

from ramp.io import write_text
from ramp.languages import STUDY_LANGUAGES, names, suffixes

HELP = (f"repair one {names(STUDY_LANGUAGES)} program from a problem file (see examples/) with "
        f"any method")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--problem", type=Path, required=True, help="problem statement (Markdown)")
    parser.add_argument("--program", type=Path, required=True,
                        help=f"the buggy program ({suffixes(STUDY_LANGUAGES)})")
    parser.add_argument("--lang", choices=STUDY_LANGUAGES, default=None,
                        help="the program's language (default: from its file name)")
    parser.add_argument("--config", type=Path, default=Path("config/config.yaml"))
    parser.add_argument("--model", default=None, help="model entry (default: first of models.use)")
    parser.add_argument("--variant", default="ramp",
                        help="variant name from the config (RAMP, an ablation or a baseline)")
    parser.add_argument("--budget", type=int, default=None, help="iterations K (default: config)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for repaired.rb (or .cpp), repair.diff, trace.json "
                             "(default: beside the program, in repair/)")


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def main(args: argparse.Namespace) -> int:
    from ramp import study_config
    from ramp.methods import method
    from ramp.methods.base import MethodContext, sandbox_executors
    from ramp.problem_file import ProblemFileError, load_problem
    from ramp.prompting import PromptLibrary

    try:
        problem = load_problem(args.problem, args.program, args.lang)
        config = yaml.safe_load(args.config.read_text(encoding="utf-8"))
        model = args.model or ((config.get("models") or {}).get("use") or [""])[0]
        variant = study_config.variant(config, args.variant)
        budget = args.budget or study_config.budget(config, args.variant)
        llm = study_config.build_llm(config, model)
    except (ProblemFileError, OSError, ValueError) as e:
        print(f"ramp repair: {e}", file=sys.stderr)
        return 2
    _say(f"repairing {args.program} with {model} ({variant.name}, K={budget})")
    executors = sandbox_executors(workers=study_config.workers(config))
    try:
        ctx = MethodContext(llm=llm, lib=PromptLibrary.default(), variant=variant,
                            executors=executors, budget=budget, seed=args.seed)
        attempts = list(method(variant.method)(problem, ctx))
    finally:
        executors.close()
    for a in attempts:
        summary = ", ".join(a.verdicts) or a.parse_status
        _say(f"iteration {a.iteration}: {'PASS' if a.passed_generated else 'fail'} [{summary}]")
        if a.selection:  # a method that chooses among candidates says what it chose and why
            chose = json.loads(a.selection)
            sizes = [len(g["members"]) for g in chose["groups"]]
            _say(f"  groups {sizes}, chosen {chose['chosen']}, stop: {chose['stop'] or 'no'}")
    final = attempts[-1]
    out = args.out or args.program.parent / "repair"
    repaired = "repaired" + problem.language.suffixes[0]
    diff = "".join(difflib.unified_diff(
        problem.buggy_code.splitlines(keepends=True), final.code.splitlines(keepends=True),
        fromfile=str(args.program), tofile=repaired,
    ))
    write_text(out / repaired, final.code)
    write_text(out / "repair.diff", diff)
    trace = {
        "task": problem.task_id, "model": model, "variant": variant.name,
        "method": variant.method, "budget": budget,
        "attempts": [
            {"iteration": a.iteration, "reflection_in": a.reflection_in, "code": a.code,
             "parse_status": a.parse_status, "verdicts": list(a.verdicts), "traces": a.traces,
             "passed_generated": a.passed_generated, "next_reflection": a.next_reflection,
             "calls": [dataclasses.asdict(c) for c in a.calls],
             "selection": json.loads(a.selection) if a.selection else None}
            for a in attempts
        ],
    }
    write_text(out / "trace.json", json.dumps(trace, indent=2, ensure_ascii=False))
    print(diff or "(no change)")
    _say(f"wrote {out}/{repaired}, repair.diff, trace.json")
    return 0 if final.passed_generated else 1
