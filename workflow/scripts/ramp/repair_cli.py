"""`ramp repair --problem PROBLEM.md --program BUGGY.rb`: repair one program outside the benchmark.

Runs the same stages as the workflow (RAMP by default) with a configured model, prints each
step as it happens, and writes the repaired program, a unified diff and a JSON trace to --out.
Exit status: 0 when the final candidate passed its guiding tests, 1 when the budget ran out,
2 on bad input.
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

HELP = "repair one Ruby program from a problem file (see examples/)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--problem", type=Path, required=True, help="problem statement (Markdown)")
    parser.add_argument("--program", type=Path, required=True, help="the buggy Ruby program")
    parser.add_argument("--config", type=Path, default=Path("config/config.yaml"))
    parser.add_argument("--model", default=None, help="model entry (default: first of models.use)")
    parser.add_argument("--variant", default="ramp", help="variant name from the config")
    parser.add_argument("--budget", type=int, default=None, help="iterations K (default: config)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for repaired.rb, repair.diff, trace.json "
                             "(default: beside the program, in repair/)")


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def main(args: argparse.Namespace) -> int:
    from ramp import study
    from ramp.execution.executor import SandboxExecutor
    from ramp.methods.ramp import repair
    from ramp.problem_file import ProblemFileError, load_problem
    from ramp.prompting import PromptLibrary

    try:
        task = load_problem(args.problem, args.program)
        config = yaml.safe_load(args.config.read_text(encoding="utf-8"))
        model = args.model or ((config.get("models") or {}).get("use") or [""])[0]
        variant = study.variant(config, args.variant)
        budget = args.budget or study.budget(config, args.variant)
        llm = study.build_llm(config, model)
    except (ProblemFileError, OSError, ValueError) as e:
        print(f"ramp repair: {e}", file=sys.stderr)
        return 2
    _say(f"repairing {args.program} with {model} ({variant.name}, K={budget})")
    with SandboxExecutor(workers=study.workers(config)) as executor:
        result = repair(task, budget=budget, llm=llm, lib=PromptLibrary.default(),
                        variant=variant, executor=executor, seed=args.seed)
    _say(f"reflection: {result.reflection.text[:300]}")
    _say(f"guiding tests: {len(result.tests.tests)} ({result.tests.source})")
    for a in result.attempts:
        summary = ", ".join(a.verdicts) or a.parse_status
        _say(f"iteration {a.iteration}: {'PASS' if a.passed_generated else 'fail'} [{summary}]")
    final = result.final
    out = args.out or args.program.parent / "repair"
    diff = "".join(difflib.unified_diff(
        task.buggy_code.splitlines(keepends=True), final.code.splitlines(keepends=True),
        fromfile=str(args.program), tofile="repaired.rb",
    ))
    write_text(out / "repaired.rb", final.code)
    write_text(out / "repair.diff", diff)
    trace = {
        "task": task.task_id, "model": model, "variant": variant.name, "budget": budget,
        "reflection": result.reflection.text,
        "calls": [dataclasses.asdict(c) for c in (result.reflection.call, result.tests.call) if c],
        "tests": [dataclasses.asdict(t) for t in result.tests.tests],
        "dropped_tests": list(result.tests.dropped),
        "attempts": [
            {"iteration": a.iteration, "reflection_in": a.reflection_in, "code": a.code,
             "parse_status": a.parse_status, "verdicts": list(a.verdicts), "traces": a.traces,
             "passed_generated": a.passed_generated,
             "calls": [dataclasses.asdict(c) for c in a.calls]}
            for a in result.attempts
        ],
    }
    write_text(out / "trace.json", json.dumps(trace, indent=2, ensure_ascii=False))
    print(diff or "(no change)")
    _say(f"wrote {out}/repaired.rb, repair.diff, trace.json")
    return 0 if final.passed_generated else 1
