"""Reference programs: a ground-truth program per problem, the oracle of the text's Table 3.

xCodeEval's repair validation split has no reference fixes, so the references come from a file
of their own (config ``oracle.references``: JSON Lines with ``src_uid``, ``language`` and
``code`` per problem). A reference reads standard input and writes standard output, so it is the
oracle of its problem's generated tests whatever the study's language. Each is still a program,
not a proof: before it classifies anything it runs once on its problem's hidden tests, and one
that fails a complete test (a test whose input the data set did not cut off) is refused, with a
message naming the problem and the test. A wrong oracle must never classify.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ramp.execution.executor import Executor
from ramp.tasks import Task, Verdict


@dataclass(frozen=True)
class Reference:
    """One problem's reference program, in ``language`` (a ramp.execution runtime's name)."""

    problem_id: str
    language: str
    code: str


@dataclass(frozen=True)
class ReferenceCheck:
    """A reference run on its problem's complete hidden tests: ``failed`` holds the first
    complete test it failed (index in the task's hidden tests, verdict), empty when it passed
    them all; ``checked``: how many complete tests it ran on."""

    reference: Reference
    checked: int
    failed: tuple[int, str] | None = None

    @property
    def accepted(self) -> bool:
        return self.failed is None

    @property
    def note(self) -> str:
        """Why it was refused (empty when accepted)."""
        if self.failed is None:
            return ""
        index, verdict = self.failed
        return (f"problem {self.reference.problem_id}: the reference fails hidden test {index} "
                f"({verdict}); refused as its oracle")


def parse_references(text: str, source: str = "references") -> dict[str, Reference]:
    """JSON Lines -> problem id -> its reference (a problem named twice is an error)."""
    found: dict[str, Reference] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        missing = sorted({"src_uid", "language", "code"} - set(row))
        if missing:
            raise ValueError(f"{source}, line {number}: missing {missing}")
        if row["src_uid"] in found:
            raise ValueError(f"{source}, line {number}: problem {row['src_uid']} twice")
        found[row["src_uid"]] = Reference(row["src_uid"], row["language"], row["code"])
    return found


def read_references(path: str | os.PathLike[str]) -> dict[str, Reference]:
    return parse_references(Path(path).read_text(encoding="utf-8"), str(path))


def configured_references(
    path: str | os.PathLike[str] | None, log: logging.Logger
) -> dict[str, Reference]:
    """The references of config ``oracle.references``: none when unset; a missing file is a
    warning in ``log`` (every oracle is then a program found in the runs), not an error."""
    if not path:
        return {}
    if not Path(path).is_file():
        log.warning("oracle.references: %s not found; every oracle is a program found in the "
                    "runs", path)
        return {}
    references = read_references(path)
    log.info("%d reference programs from %s", len(references), path)
    return references


def check_reference(reference: Reference, task: Task, runner: Executor) -> ReferenceCheck:
    """Run ``reference`` on the complete hidden tests of ``task`` (its problem's), stopping at
    the first failure."""
    complete = [i for i, t in enumerate(task.hidden_tests) if not t.truncated]
    report = runner.run(reference.code, [task.hidden_tests[i] for i in complete], task.limits,
                        stop_at_first_failure=True)
    failing = sorted((r for r in report.results if r.verdict is not Verdict.PASSED),
                     key=lambda r: r.index)
    if failing:
        return ReferenceCheck(reference, len(complete),
                              (complete[failing[0].index], failing[0].verdict.value))
    if len(report.results) < len(complete):  # the executor gave up early without a verdict
        return ReferenceCheck(reference, len(complete),
                              (complete[len(report.results)], report.compile_error or "not run"))
    return ReferenceCheck(reference, len(complete))


def check_references(
    references: Mapping[str, Reference],
    tasks: Sequence[Task],
    runner_for: Callable[[str], Executor],
) -> dict[str, ReferenceCheck]:
    """Each problem of ``tasks`` that has a reference -> its check, run once per problem (on the
    first task's hidden tests: a problem's hidden tests and limits are its tasks' own).
    ``runner_for(language)``: the executor of a reference's language."""
    first: dict[str, Task] = {}
    for task in tasks:
        first.setdefault(task.problem_id, task)
    return {problem: check_reference(references[problem], task,
                                     runner_for(references[problem].language))
            for problem, task in sorted(first.items()) if problem in references}
