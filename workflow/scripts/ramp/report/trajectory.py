"""One task's trajectory through a run, gathered from the run's tables.

What the method saw and did (the statement, the buggy program, each iteration's reflection,
its candidate as a diff against the buggy program, the checks it ran and their verdicts) is
kept apart from what only scoring knows (:class:`HiddenResult`, :class:`Outcome`), so that a
page can never present the hidden result as part of the repair.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ramp.runs import RunId
from ramp.tasks import Problem


@dataclass(frozen=True)
class DiffLine:
    """One line of a unified diff; ``kind`` is ``file``, ``hunk``, ``add``, ``del`` or
    ``context``."""

    kind: str
    text: str


@dataclass(frozen=True)
class CheckRow:
    """One test the method ran its candidate on: the input, the expected output and the
    verdict ("" where the run has no verdict for it)."""

    input: str
    expected: str
    kind: str
    verdict: str


@dataclass(frozen=True)
class HiddenResult:
    """One candidate on the hidden tests and the statement's samples: evaluation only, the
    method never saw it. ``passed_samples`` is None where the statement has no sample."""

    passed: bool
    n_passed: int
    n_hidden: int
    first_failing_verdict: str
    passed_samples: bool | None


@dataclass(frozen=True)
class Step:
    """Iteration t of one task."""

    iteration: int
    reflection: str
    """The reflection the Programmer worked from (e_{t-1}); "" where the variant has none."""
    code: str
    diff: tuple[DiffLine, ...]
    parse_status: str
    parse_detail: str
    checks: tuple[CheckRow, ...]
    passed_checks: bool
    traces: str
    next_reflection: str
    other_calls: tuple[tuple[str, str], ...]
    """(role, answer) of the calls of roles other than Programmer and Feedback Integrator."""
    selection: str
    hidden: HiddenResult | None


@dataclass(frozen=True)
class Outcome:
    """The task's scores: evaluation only."""

    strict: bool
    cumulative: bool
    returned_iteration: int | None
    first_pass_iteration: int | None


@dataclass(frozen=True)
class Trajectory:
    run: RunId
    problem: Problem
    initial_reflection: str
    checks_source: str
    """What the candidates were checked on: ``generated`` (the Test Designer's tests),
    ``samples`` (the statement's samples standing in for them) or ``none``."""
    dropped_tests: tuple[str, ...]
    steps: tuple[Step, ...]
    outcome: Outcome | None


def candidate_diff(buggy: str, candidate: str, iteration: int) -> tuple[DiffLine, ...]:
    """The candidate as a unified diff against the buggy program (empty when equal)."""
    lines = difflib.unified_diff(buggy.splitlines(), candidate.splitlines(), "buggy program",
                                 f"candidate {iteration}", lineterm="")
    return tuple(DiffLine(_diff_kind(line), line) for line in lines)


def _diff_kind(line: str) -> str:
    if line.startswith(("--- ", "+++ ")):
        return "file"
    if line.startswith("@@"):
        return "hunk"
    return {"+": "add", "-": "del"}.get(line[:1], "context")


def _checks(tests: Sequence[Mapping[str, Any]], verdicts: Sequence[str]) -> tuple[CheckRow, ...]:
    """The tests beside the verdicts they got; verdicts without tests to pair with (a run on
    other tests than these) are shown alone."""
    if len(tests) != len(verdicts):
        return tuple(CheckRow("", "", "", v) for v in verdicts)
    return tuple(CheckRow(str(t["input"]), "(unknown)" if t["output"] is None else str(t["output"]),
                          str(t.get("kind", "")), str(v))
                 for t, v in zip(tests, verdicts, strict=True))


def _sample_tests(problem: Problem) -> list[dict[str, str]]:
    return [{"input": t.input, "output": t.outputs[0] if t.outputs else "", "kind": "sample"}
            for t in problem.samples]


def _optional_int(value: Any) -> int | None:
    return None if value is None or pd.isna(value) else int(value)


def _hidden(row: Mapping[str, Any] | None) -> HiddenResult | None:
    if row is None:
        return None
    n_samples = int(row.get("n_samples", 0) or 0)
    return HiddenResult(
        passed=bool(row["passed_hidden"]), n_passed=int(row["n_hidden_passed"]),
        n_hidden=int(row["n_hidden"]), first_failing_verdict=str(row["first_failing_verdict"]),
        passed_samples=bool(row["passed_samples"]) if n_samples else None,
    )


def _other_calls(calls: Any) -> tuple[tuple[str, str], ...]:
    return tuple((str(c["role"]), str(c["response"])) for c in (calls if calls is not None
                                                                  else ()))


def _selection(text: str) -> str:
    """RAMP+'s choice (JSON) indented for reading; other text as it is."""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False) if text else ""
    except ValueError:
        return text


def _by_task(frame: pd.DataFrame) -> dict[str, list[dict[str, Any]]]:
    rows: dict[str, list[dict[str, Any]]] = {}
    for row in frame.to_dict("records"):
        rows.setdefault(str(row["task_id"]), []).append(row)
    return rows


def build_trajectories(
    run: RunId,
    problems: Sequence[Problem],
    reflections: pd.DataFrame,
    tests: pd.DataFrame,
    attempts: pd.DataFrame,
    hidden_attempts: pd.DataFrame,
    task_scores: pd.DataFrame,
) -> list[Trajectory]:
    """Every task of the run, in the task table's order, from the run's own tables and the
    scoring stages' ones."""
    e0 = dict(zip(reflections["task_id"], reflections["reflection"], strict=True))
    designs = {r["task_id"]: r for r in tests.to_dict("records")}
    steps = _by_task(attempts)
    hidden = {(r["task_id"], int(r["iteration"])): r for r in hidden_attempts.to_dict("records")}
    scores = {r["task_id"]: r for r in task_scores.to_dict("records")}
    out = []
    for problem in problems:
        design = designs.get(problem.task_id, {})
        source = str(design.get("source", "none"))
        # A method without test generation checks its candidates on the statement's samples.
        checked_on = (list(design.get("tests", [])) if source != "none"
                      else _sample_tests(problem))
        score = scores.get(problem.task_id)
        out.append(Trajectory(
            run=run,
            problem=problem,
            initial_reflection=str(e0.get(problem.task_id, "")),
            checks_source=source,
            dropped_tests=tuple(design.get("dropped", ())),
            steps=tuple(
                _step(problem, row, checked_on, hidden.get((problem.task_id, row["iteration"])))
                for row in sorted(steps.get(problem.task_id, []), key=lambda r: r["iteration"])
            ),
            outcome=None if score is None else Outcome(
                strict=bool(score["strict"]), cumulative=bool(score["cumulative"]),
                returned_iteration=_optional_int(score.get("returned_iteration")),
                first_pass_iteration=_optional_int(score.get("first_pass_iteration")),
            ),
        ))
    return out


def _step(problem: Problem, row: Mapping[str, Any], tests: Sequence[Mapping[str, Any]],
          hidden: Mapping[str, Any] | None) -> Step:
    t = int(row["iteration"])
    code = str(row["code"])
    return Step(
        iteration=t,
        reflection=str(row["reflection_in"]),
        code=code,
        diff=candidate_diff(problem.buggy_code, code, t) if code else (),
        parse_status=str(row["parse_status"]),
        parse_detail=str(row["parse_detail"]),
        checks=_checks(tests, list(row["verdicts"])),
        passed_checks=bool(row["passed_generated"]),
        traces=str(row["traces"]),
        next_reflection=str(row["next_reflection"]),
        other_calls=_other_calls(row.get("other_calls")),
        selection=_selection(str(row.get("selection") or "")),
        hidden=_hidden(hidden),
    )
