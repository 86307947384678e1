"""Capture real model answers of each agent for the parser tests (tests/data/captured/).

    python benchmarks/capture_answers.py --model qwen2.5-coder-0.5b --task 0

Writes <model>-<agent>.txt with the raw answer; the tests assert what the parsers make of them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ramp.agents import feedback_integrator, programmer, test_designer
from ramp.llm.registry import create_llm
from ramp.llm.spec import ModelSpec
from ramp.prompting import PromptLibrary
from ramp.task_table import read_problems
from ramp.variants import Variant


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--tasks", default="results/tasks/paper34.parquet")
    parser.add_argument("--task", type=int, default=0, help="index in the task table")
    parser.add_argument("--out", type=Path, default=Path("tests/data/captured"))
    args = parser.parse_args()
    task = read_problems(args.tasks)[args.task]
    lib, variant = PromptLibrary.default(), Variant()
    llm = create_llm(ModelSpec(name=args.model, backend="llamacpp", embedded=args.model,
                               n_threads=2))
    reflection = llm.complete([feedback_integrator.initial_prompt(lib, task, variant)],
                              variant.analysis_params(0))[0].text
    tests = llm.complete([test_designer.prompt(lib, task)], variant.analysis_params(0))[0]
    code = llm.complete([programmer.prompt(lib, task, variant, [reflection])],
                        variant.code_params(1))[0]
    args.out.mkdir(parents=True, exist_ok=True)
    answers = {"reflection": reflection, "tests": tests.text, "programmer": code.text}
    for agent, text in answers.items():
        (args.out / f"{args.model}-{agent}.txt").write_text(text, encoding="utf-8")
        print(f"{agent}: {len(text)} chars")


if __name__ == "__main__":
    main()
