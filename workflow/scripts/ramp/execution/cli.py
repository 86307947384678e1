"""`ramp run PROGRAM --tests TESTS.jsonl [--lang ruby|cpp|python]`: run one program on tests in
the sandbox.

The program's language follows its file name (``.rb`` Ruby, ``.cpp`` C++, ``.py`` Python), or
``--lang``: the rule of ``ramp repair`` too (ramp.languages.language_of_file).

TESTS.jsonl holds one test a line: {"input": str, "output": str | [str, ...]} ("outputs" is
accepted too). Exit status: 0 all tests pass, 1 some fail, 2 bad input.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from ..languages import LANGUAGES, language_of_file, names, suffixes
from ..tasks import Limits, RunReport, TestCase
from .runtime import runtime_named

#: Every language runs (each has a runtime: tests/test_languages.py).
KEYS = list(LANGUAGES)
HELP = f"run a {names(KEYS)} program on JSONL tests in the sandbox and judge it"


class BadInput(ValueError):
    """A one-line message naming the file (and line) that is wrong."""


def parse_test_line(line: str, where: str) -> TestCase:
    """One JSONL line to a TestCase; ``where`` ("file:line") prefixes any error."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise BadInput(f"{where}: not JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(obj, dict):
        raise BadInput(f"{where}: expected an object, got {type(obj).__name__}")
    if not isinstance(obj.get("input"), str):
        raise BadInput(f"{where}: field 'input' must be a string")
    key = "output" if "output" in obj else "outputs"
    outputs = obj.get(key)
    if isinstance(outputs, str):
        outputs = [outputs]
    if not isinstance(outputs, list) or not outputs or not all(isinstance(o, str) for o in outputs):
        raise BadInput(f"{where}: field 'output' must be a string or a non-empty list of strings")
    return TestCase(input=obj["input"], outputs=tuple(outputs))


def read_tests(path: Path) -> list[TestCase]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: cannot read ({e})") from None
    tests = [
        parse_test_line(line, f"{path}:{n}")
        for n, line in enumerate(text.splitlines(), start=1)
        if line.strip()
    ]
    if not tests:
        raise BadInput(f"{path}: no tests")
    return tests


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("program", type=Path, help=f"the source file ({suffixes(KEYS)})")
    parser.add_argument(
        "--lang",
        choices=KEYS,
        default=None,
        help="the program's language (default: from its file name)",
    )
    parser.add_argument("--tests", type=Path, required=True, help="JSONL file of tests")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--time-limit", type=float, default=2.0, help="CPU seconds per test")
    parser.add_argument("--memory-mb", type=int, default=256, help="memory limit per test")
    parser.add_argument("--stop-at-first-failure", action="store_true")
    parser.add_argument("--workers", type=int, default=2, help="tests run in parallel")


def report_json(report: RunReport, isolation: object) -> str:
    return json.dumps(
        {
            "passed": report.passed,
            "verdict": str(report.verdict),
            "compile_error": report.compile_error,
            "skipped": report.skipped,
            "isolation": dataclasses.asdict(isolation),  # type: ignore[call-overload]
            "results": [dataclasses.asdict(r) for r in report.results],
        },
        indent=2,
    )


def report_table(report: RunReport) -> str:
    lines = [f"{'test':>4}  {'verdict':<22}{'cpu s':>7}{'wall s':>8}{'mem MB':>8}  note"]
    for r in report.results:
        mem = f"{r.peak_memory_mb:.1f}" if r.peak_memory_mb is not None else "-"
        lines.append(
            f"{r.index:>4}  {r.verdict.value:<22}{r.cpu_s:>7.3f}{r.wall_s:>8.3f}{mem:>8}  {r.note}"
        )
    if report.compile_error:
        lines.append(f"compile error: {report.compile_error}")
    passed = sum(r.verdict.value == "PASSED" for r in report.results)
    total = len(report.results) + report.skipped
    lines.append(f"{passed}/{total} passed, {report.skipped} skipped: {report.verdict}")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    try:
        try:
            language = language_of_file(args.program, args.lang, KEYS)
        except ValueError as e:
            raise BadInput(str(e)) from None
        try:
            program = args.program.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise BadInput(f"{args.program}: cannot read ({e})") from None
        tests = read_tests(args.tests)
        if args.time_limit <= 0 or args.memory_mb <= 0 or args.workers < 1:
            raise BadInput("--time-limit, --memory-mb and --workers must be positive")
        try:
            runtime = runtime_named(language.key)
        except FileNotFoundError as e:  # its compiler or interpreter is not installed
            raise BadInput(f"{language.name}: {e}") from None
    except BadInput as e:
        print(f"ramp run: {e}", file=sys.stderr)
        return 2
    from .executor import SandboxExecutor  # probes cgroups and namespaces: only when running

    limits = Limits(time_s=args.time_limit, memory_mb=args.memory_mb)
    with SandboxExecutor(workers=args.workers, runtime=runtime) as executor:
        report = executor.run(
            program, tests, limits, stop_at_first_failure=args.stop_at_first_failure
        )
        isolation = executor.isolation
    print(report_json(report, isolation) if args.json else report_table(report))
    return 0 if report.passed else 1
