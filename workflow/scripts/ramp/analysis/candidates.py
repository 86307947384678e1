"""Every program a method wrote, on the hidden tests: is generation or selection the ceiling?

A run's attempts hold one program per iteration: the one the method would return if stopped
there. RAMP+ (ramp.methods.ramp_plus) and the breadth method (ramp.methods.breadth) write several
an iteration and keep one; the others live only in their answers: an iteration's first program
in ``programmer_response``, the others as ``candidate`` (and ``debug``) calls in ``other_calls``
(in order), and all of them in the ``selection`` record
(id "t.k", seed, parse status, and the groups they fell in). This stage parses them back as the
method did (:func:`candidate_programs`; a parse that disagrees with the record is an error: the
parser changed since the run) and runs each distinct program on the hidden tests
(:func:`score_candidates`). For a method without a selection record its candidates are its
attempts, which score_hidden ran already: their verdicts are copied, nothing runs again.

So a run says how many tasks had a right program somewhere (the generation ceiling) beside how
many it returned one for (strict pass@1), and for RAMP+ where a right program it wrote was lost:
gated out by a sample test, or ranked below a wrong group.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from ramp.agents import programmer
from ramp.analysis.hidden import attempt_row, run_hidden
from ramp.analysis.scores import returned_index
from ramp.analysis.verdict_cache import VerdictCache
from ramp.execution.executor import Executor
from ramp.journal import Journal
from ramp.tasks import Task

ROLE_CANDIDATE = "candidate"
"""The role of RAMP+'s Programmer calls after an iteration's first (ramp.methods.ramp_plus)."""
PROGRAM_ROLES = (ROLE_CANDIDATE, programmer.ROLE_DEBUG)
"""The ``other_calls`` roles that write a program: RAMP+'s and the breadth method's further
draws, and the breadth method's rewrites of a draw (ramp.methods.breadth)."""

CANDIDATE_COLUMNS: tuple[str, ...] = (
    "task_id", "problem_id", "iteration", "candidate", "seed", "parse_status", "edit",
    "code", "chosen", "returned", "final_rank", "has_code", "n_hidden", "n_hidden_passed",
    "passed_hidden", "passed_hidden_excluding_truncated", "passed_samples", "reused",
)
PROGRAM_COLUMNS = CANDIDATE_COLUMNS[:CANDIDATE_COLUMNS.index("has_code")]
"""What :func:`candidate_programs` gives: the columns before the verdicts."""
_VERDICT_COLUMNS = ("has_code", "n_hidden", "n_hidden_passed", "passed_hidden",
                    "passed_hidden_excluding_truncated", "passed_samples")

Progress = Callable[[int, int, str, str, bool], None]


def _answers(row: Any) -> list[str]:
    """An attempt's programs' answers in the order they were made: the first Programmer
    call's, then the ``candidate`` and ``debug`` calls'."""
    others = row.other_calls if row.other_calls is not None else ()
    return [row.programmer_response or "",
            *(c["response"] for c in others if c["role"] in PROGRAM_ROLES)]


def _final_ranks(record: Mapping[str, Any]) -> dict[str, int]:
    """Candidate id -> the rank (1 = chosen) of its group in a selection record."""
    return {member: rank for rank, group in enumerate(record.get("groups") or [], start=1)
            for member in group["members"]}


def candidate_programs(attempts: pd.DataFrame, tasks: Sequence[Task]) -> pd.DataFrame:
    """Every program of a run, one row per candidate, with its code (no verdicts yet).

    ``chosen``: the program is some iteration's attempt; ``returned``: it is what the method
    returns for the task (the attempt the strict score judges: the first that passed the
    method's own tests, else the last; RAMP+'s final choice); ``final_rank``: its group's rank
    in the last selection (RAMP+; empty where the candidate was not in that pool, or for other
    methods).
    """
    by_id = {t.task_id: t for t in tasks}
    rows: list[dict[str, Any]] = []
    for task_id, mine in attempts.sort_values(["task_id", "iteration"]).groupby("task_id",
                                                                                 sort=False):
        task = by_id.get(task_id)
        if task is None:
            raise ValueError(f"attempts name task {task_id!r}, which is not in the task table")
        records = [json.loads(s) if isinstance(s, str) and s else None
                   for s in mine.get("selection", pd.Series([None] * len(mine)))]
        if records[-1] is None:  # not RAMP+: the attempts are the candidates
            its = mine["iteration"].to_numpy()
            passed = mine["passed_generated"].astype("boolean").fillna(False).to_numpy(bool)
            returned = its[returned_index(its, passed, int(its.max()))]
            for row in mine.itertuples(index=False):
                code = row.code if isinstance(row.code, str) else ""
                rows.append(_row(task, int(row.iteration), str(int(row.iteration)), None,
                                 getattr(row, "parse_status", ""), None, code, chosen=True,
                                 returned=row.iteration == returned, rank=None))
            continue
        ranks, final = _final_ranks(records[-1]), records[-1].get("chosen")
        chosen = {r.get("chosen") for r in records if r is not None}
        for row, record in zip(mine.itertuples(index=False), records, strict=True):
            if record is None:
                raise ValueError(f"task {task_id} iteration {row.iteration}: no selection record")
            made, answers = record["candidates"], _answers(row)
            if len(made) != len(answers):
                raise ValueError(f"task {task_id} iteration {row.iteration}: the selection "
                                 f"lists {len(made)} candidates, the answers are {len(answers)}")
            for cand, answer in zip(made, answers, strict=True):
                program = programmer.parse(answer, task.problem.language)
                if program.status != cand["parse_status"]:
                    raise ValueError(
                        f"task {task_id} candidate {cand['id']}: parsed as {program.status!r}, "
                        f"the run recorded {cand['parse_status']!r} (the parser changed since)")
                # The returned program may be an earlier iteration's: RAMP+ keeps a pool.
                rows.append(_row(task, int(row.iteration), cand["id"], cand["seed"],
                                 program.status, cand["edit"], program.code if program.ok else "",
                                 chosen=cand["id"] in chosen,
                                 returned=cand["id"] == final, rank=ranks.get(cand["id"])))
    return pd.DataFrame(rows, columns=list(PROGRAM_COLUMNS))


def _row(task: Task, iteration: int, candidate: str, seed: int | None, status: str,
         edit: int | None, code: str, *, chosen: bool, returned: bool,
         rank: int | None) -> dict[str, Any]:
    return {"task_id": task.task_id, "problem_id": task.problem_id, "iteration": iteration,
            "candidate": candidate, "seed": seed, "parse_status": status, "edit": edit,
            "code": code, "chosen": chosen, "returned": returned, "final_rank": rank}


def score_candidates(
    programs: pd.DataFrame,
    tasks: Sequence[Task],
    attempts: pd.DataFrame,
    hidden_attempts: pd.DataFrame,
    runner: Executor,
    *,
    stop_at_first_failure: bool = False,
    progress: Progress | None = None,
    journal: Journal | None = None,
    cache: VerdictCache | None = None,
) -> pd.DataFrame:
    """:func:`candidate_programs` with each program's hidden verdicts: copied from
    ``hidden_attempts`` where an attempt had the same program (same problem), else run once
    per distinct program of a problem (``reused`` marks every row copied from an attempt), or
    read from ``cache`` where another run scored it."""
    by_id = {t.task_id: t for t in tasks}
    known: dict[tuple[str, str], dict[str, Any]] = {}
    scored = attempts[["task_id", "iteration", "code"]].merge(
        hidden_attempts, on=["task_id", "iteration"], validate="one_to_one")
    for row in scored.to_dict("records"):
        if isinstance(row["code"], str) and row["code"].strip():
            known.setdefault((row["problem_id"], row["code"]),
                             {c: row[c] for c in _VERDICT_COLUMNS})
    out: list[dict[str, Any]] = []
    for done, row in enumerate(programs.to_dict("records"), start=1):
        task, code = by_id[row["task_id"]], row["code"]
        unit = f"{row['task_id']}:{row['candidate']}"
        key = (task.problem_id, code)
        reused = not code.strip() or key in known
        if not code.strip():
            verdicts = {c: v for c, v in attempt_row(task, row["iteration"], False, None, False)
                        .items() if c in _VERDICT_COLUMNS}
        elif key in known:
            verdicts = known[key]
        elif journal is not None and unit in journal.done:
            (verdicts,) = journal.done[unit]
            known[key] = verdicts
        elif cache is not None and (cached := cache.get(task, code)) is not None:
            verdicts = known[key] = cached
        else:
            run = run_hidden(task, code, runner, stop_at_first_failure=stop_at_first_failure)
            summary = attempt_row(task, row["iteration"], False, run, False)
            verdicts = known[key] = {c: summary[c] for c in _VERDICT_COLUMNS}
            if journal is not None:
                journal.record(unit, [verdicts])
            if cache is not None:
                cache.put(task, code, verdicts)
        out.append({**row, **verdicts, "reused": reused})
        if progress is not None:
            progress(done, len(programs), row["task_id"], row["candidate"],
                     bool(verdicts["passed_hidden"]))
    return candidates_frame(out)


def candidates_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    df = pd.DataFrame(list(rows), columns=list(CANDIDATE_COLUMNS))
    return df.astype({"iteration": "int64", "seed": "Int64", "edit": "Int64", "chosen": "bool",
                      "returned": "bool", "final_rank": "Int64", "has_code": "bool",
                      "n_hidden": "int64", "n_hidden_passed": "int64", "passed_hidden": "bool",
                      "passed_hidden_excluding_truncated": "bool", "passed_samples": "boolean",
                      "reused": "bool"})
