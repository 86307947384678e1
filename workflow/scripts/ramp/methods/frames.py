"""The methods' records (ramp.methods.records) as Parquet-ready rows, and back.

One row per task per stage; the agent calls are flattened into ``<role>_prompt``,
``<role>_response``, ``<role>_prompt_tokens``, ``<role>_completion_tokens`` and
``<role>_seconds`` columns (and the prefix reuse: ``<role>_reused_prompt_tokens``,
``<role>_kv_read_bytes``, ``<role>_kv_written_bytes``; how the answer ended:
``<role>_finish_reason``), so that `pd.read_parquet` gives a table a
person can filter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from ramp.llm.prefix_cache import COUNTERS
from ramp.methods.records import Attempt, Call, Candidate, OpenTask, Reflection, TestDesign
from ramp.tasks import Problem, TestCase

CALL_FIELDS = ("prompt", "response", "prompt_tokens", "completion_tokens", "seconds",
               "finish_reason", *COUNTERS)
_NO_CALL = Call("", "", "", 0, 0, 0.0)


def _call_columns(role: str, call: Call | None) -> dict[str, Any]:
    return {f"{role}_{f}": getattr(call or _NO_CALL, f) for f in CALL_FIELDS}


def reflections_frame(items: Sequence[Reflection]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"task_id": r.task_id, "reflection": r.text, **_call_columns("reflection", r.call)}
         for r in items],
        columns=["task_id", "reflection", *(f"reflection_{f}" for f in CALL_FIELDS)],
    )


def tests_frame(items: Sequence[TestDesign]) -> pd.DataFrame:
    rows = []
    for d in items:
        rows.append({
            "task_id": d.task_id,
            # A test with no known expected output (a generated large input) has output None.
            "tests": [{"input": t.input, "output": t.outputs[0] if t.outputs else None,
                       "kind": t.kind} for t in d.tests],
            "n_tests": len(d.tests),
            "source": d.source,
            "dropped": list(d.dropped),
            **_call_columns("test_design", d.call),
        })
    return pd.DataFrame(
        rows,
        columns=["task_id", "tests", "n_tests", "source", "dropped",
                 *(f"test_design_{f}" for f in CALL_FIELDS)],
    )


def tests_from_frame(df: pd.DataFrame) -> dict[str, tuple[TestCase, ...]]:
    return {
        row.task_id: tuple(
            TestCase(input=t["input"],
                     outputs=() if t["output"] is None else (t["output"],), kind=t["kind"])
            for t in row.tests
        )
        for row in df.itertuples(index=False)
    }


ATTEMPT_COLUMNS = [
    "task_id", "iteration", "earlier_reflections", "reflection_in", "code", "parse_status",
    "parse_detail",
    "n_tests", "n_passed", "verdicts", "compile_error", "traces", "passed_generated",
    "next_reflection", "exec_seconds",
    *(f"programmer_{f}" for f in CALL_FIELDS), *(f"feedback_{f}" for f in CALL_FIELDS),
    "other_calls", "selection",
]
# The calls of roles other than the Programmer and the Feedback Integrator (a baseline's
# planner, analyst, tester or translator): a list of {role, prompt, response, ...} per row.
PRIMARY_ROLES = ("programmer", "feedback")


# Fixed dtypes, so that an iteration with no open task still writes the same schema.
ATTEMPT_DTYPES = {
    "iteration": "int64", "n_tests": "int64", "n_passed": "int64", "passed_generated": "bool",
    "exec_seconds": "float64", "programmer_prompt_tokens": "int64",
    "programmer_completion_tokens": "int64", "programmer_seconds": "float64",
    "feedback_prompt_tokens": "int64", "feedback_completion_tokens": "int64",
    "feedback_seconds": "float64",
    **{f"{role}_{f}": "int64" for role in PRIMARY_ROLES
       for f in COUNTERS},
}


def attempts_frame(items: Iterable[Attempt]) -> pd.DataFrame:
    rows = []
    for a in items:
        calls: dict[str, Call] = {}
        others = []
        for c in a.calls:
            if c.role in PRIMARY_ROLES and c.role not in calls:
                calls[c.role] = c
            else:
                others.append({"role": c.role, **{f: getattr(c, f) for f in CALL_FIELDS}})
        verdicts = list(a.verdicts)
        rows.append({
            "task_id": a.task_id, "iteration": a.iteration,
            "earlier_reflections": list(a.earlier_reflections), "reflection_in": a.reflection_in,
            "code": a.code, "parse_status": a.parse_status, "parse_detail": a.parse_detail,
            "n_tests": len(verdicts), "n_passed": verdicts.count("PASSED"),
            "verdicts": verdicts,
            "compile_error": a.report.compile_error if a.report else "",
            "traces": a.traces, "passed_generated": a.passed_generated,
            "next_reflection": a.next_reflection, "exec_seconds": a.exec_seconds,
            **_call_columns("programmer", calls.get("programmer")),
            **_call_columns("feedback", calls.get("feedback")),
            "other_calls": others, "selection": a.selection,
        })
    return pd.DataFrame(rows, columns=ATTEMPT_COLUMNS).astype(ATTEMPT_DTYPES)


def first_open_tasks(
    problems: Sequence[Problem], reflections: pd.DataFrame, tests: pd.DataFrame
) -> list[OpenTask]:
    """The state entering iteration 1: every task, with e0 and its guiding tests."""
    e0: Mapping[str, str] = dict(zip(reflections.task_id, reflections.reflection, strict=True))
    guiding = tests_from_frame(tests)
    return [OpenTask(p, guiding[p.task_id], (e0[p.task_id],)) for p in problems]


def next_open_tasks(
    problems: Sequence[Problem], previous: pd.DataFrame, tests: pd.DataFrame
) -> list[OpenTask]:
    """The state entering iteration t+1: the tasks iteration t left open, with e_0 .. e_{t+1}
    and iteration t's candidate and traces."""
    by_id = {p.task_id: p for p in problems}
    guiding = tests_from_frame(tests)
    still_open = previous[~previous.passed_generated.astype(bool)]
    return [
        OpenTask(by_id[row.task_id], guiding[row.task_id],
                 (*row.earlier_reflections, row.reflection_in, row.next_reflection),
                 Candidate(row.code, row.traces))
        for row in still_open.itertuples(index=False)
    ]
