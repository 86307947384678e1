"""`python -m ramp bugs DATA.jsonl --out DIR`: bug validation of a whole data file, outside
the workflow (its run_buggy_programs and summarise_bugs rules do the same for a subset).

Every buggy program runs on all its hidden tests in the runtime of its own ``lang`` (Ruby, or
C++ at the dialect's standard); DIR gets hidden_runs.parquet, summary.parquet,
confusion.parquet and summary.md. A killed run resumes from its journal.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

HELP = "run every buggy program of a data file on its hidden tests and summarise the verdicts"

log = logging.getLogger("ramp.bugs")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", type=Path, help="the xCodeEval APR JSONL file")
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument("--workers", type=int, default=1, help="tests run in parallel")
    parser.add_argument("--limit", type=int, default=None, help="the first N tasks only")
    parser.add_argument("--name", default="", help="the summary's title (default: file name)")
    parser.add_argument(
        "--first-failure",
        action="store_true",
        help="run clean tests only, in order, up to each program's first failure (quicker)",
    )


def main(args: argparse.Namespace) -> int:
    from ramp.bug_validation import validate_bugs, write_summary
    from ramp.dataset import load_tasks
    from ramp.execution.dialects import executors_by_lang
    from ramp.journal import Journal, fingerprint

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    loaded = load_tasks(args.data)
    for error in loaded.errors:
        log.warning("skipped: %s", error)
    tasks = loaded.tasks[: args.limit] if args.limit else loaded.tasks
    args.out.mkdir(parents=True, exist_ok=True)
    runs_out = args.out / "hidden_runs.parquet"
    params = {"limit": args.limit, "first_failure": args.first_failure}
    journal = Journal(runs_out, fingerprint([args.data], params))

    def progress(done: int, total: int, task: object, report: object, seconds: float) -> None:
        log.info("%d/%d %s %s %.1fs", done, total, task.task_id, report.verdict, seconds)  # type: ignore[attr-defined]

    with executors_by_lang((t.lang for t in tasks), args.workers) as executors:
        runs = validate_bugs(
            tasks, executors, runs_out, progress, journal=journal, first_failure=args.first_failure
        )
    summary = write_summary(
        runs,
        tasks,
        args.name or args.data.parent.name,
        args.out / "summary.parquet",
        args.out / "confusion.parquet",
        args.out / "summary.md",
    )
    print(f"{int(summary['fails_any'].sum())}/{len(summary)} programs fail a hidden test; "
          f"summary in {args.out / 'summary.md'}")
    return 0
