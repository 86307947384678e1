"""A workflow's plan as data: the jobs of ``snakemake --dag`` and what each waits for, and how
long such a plan takes on a number of slots (cores or GPUs), given each job's seconds.

Snakemake labels a job of the dot graph with its rule and only the wildcards its dependencies
do not have; :func:`parse_dot` gives each job back the wildcards its dependencies agree on, so
that a repair iteration knows its model, variant, subset and shard. Pure functions: the
benchmarks and the tests read the graph's text and schedule it, nothing here runs Snakemake.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

_NODE = re.compile(r'^\s*(\d+)\[label = "([^"]*)"', re.MULTILINE)
_EDGE = re.compile(r"^\s*(\d+) -> (\d+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Job:
    id: int
    rule: str
    wildcards: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """Jobs by id, and the ids each job waits for."""

    jobs: Mapping[int, Job]
    needs: Mapping[int, frozenset[int]]

    def of_rules(self, rules: Iterable[str]) -> list[Job]:
        wanted = set(rules)
        return [j for j in self.jobs.values() if j.rule in wanted]

    def ancestors(self, job_id: int) -> set[int]:
        seen: set[int] = set()
        todo = list(self.needs[job_id])
        while todo:
            j = todo.pop()
            if j not in seen:
                seen.add(j)
                todo.extend(self.needs[j])
        return seen

    def first_wave(self, rules: Iterable[str]) -> list[Job]:
        """The jobs of ``rules`` that wait for no other job of ``rules``: those that can all run
        at once as soon as the jobs before them (data, not model) are done."""
        wanted = set(rules)
        return [j for j in self.of_rules(wanted)
                if not any(self.jobs[a].rule in wanted for a in self.ancestors(j.id))]


def _topological(plan: Plan) -> list[int]:
    order: list[int] = []
    state: dict[int, int] = {}
    for root in sorted(plan.jobs):
        stack = [(root, False)]
        while stack:
            job, done = stack.pop()
            if done:
                state[job] = 2
                order.append(job)
                continue
            if state.get(job):
                continue
            state[job] = 1
            stack.append((job, True))
            stack.extend((d, False) for d in sorted(plan.needs[job]) if not state.get(d))
    return order


def parse_dot(text: str) -> Plan:
    """The plan of ``snakemake --dag`` (dot) output."""
    labels = {int(i): label.split("\\n") for i, label in _NODE.findall(text)}
    needs: dict[int, set[int]] = {i: set() for i in labels}
    for before, after in _EDGE.findall(text):
        needs[int(after)].add(int(before))
    own = {i: dict(line.split(": ", 1) for line in label[1:]) for i, label in labels.items()}
    plan = Plan({i: Job(i, label[0]) for i, label in labels.items()},
                {i: frozenset(d) for i, d in needs.items()})
    full: dict[int, dict[str, str]] = {}
    for i in _topological(plan):
        inherited: dict[str, str] = {}
        conflicting: set[str] = set()
        for d in plan.needs[i]:
            for key, value in full[d].items():
                if inherited.get(key, value) != value:
                    conflicting.add(key)
                inherited.setdefault(key, value)
        full[i] = {**{k: v for k, v in inherited.items() if k not in conflicting}, **own[i]}
    return Plan({i: Job(i, labels[i][0], full[i]) for i in labels}, plan.needs)


@dataclass(frozen=True)
class Schedule:
    wall_s: float
    critical_path_s: float
    busy_s: float
    """Slot-seconds of work (each job's seconds times its slots)."""


def critical_path(plan: Plan, seconds: Mapping[int, float]) -> dict[int, float]:
    """For each job, the longest chain of seconds from it to the end of the plan (itself in)."""
    after: dict[int, set[int]] = {i: set() for i in plan.jobs}
    for job, needs in plan.needs.items():
        for d in needs:
            after[d].add(job)
    tail: dict[int, float] = {}
    for i in reversed(_topological(plan)):
        tail[i] = seconds[i] + max((tail[a] for a in after[i]), default=0.0)
    return tail


def schedule(
    plan: Plan,
    seconds: Mapping[int, float],
    slots: Callable[[Job], int],
    capacity: int | None,
) -> Schedule:
    """Run the plan on ``capacity`` slots (None: as many as needed), each job holding
    ``slots(job)`` of them (0: off the pool, e.g. a CPU job beside GPU jobs) for its seconds;
    a ready job starts as soon as its slots are free, the longest remaining chain first."""
    tail = critical_path(plan, seconds)
    waiting = {i: len(d) for i, d in plan.needs.items()}
    after: dict[int, list[int]] = {i: [] for i in plan.jobs}
    for job, needs in plan.needs.items():
        for d in needs:
            after[d].append(job)
    ready = [(-tail[i], i) for i, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    running: list[tuple[float, int]] = []
    free = capacity
    now = 0.0
    busy = 0.0
    while ready or running:
        blocked = []
        while ready:
            key, job = heapq.heappop(ready)
            need = min(slots(plan.jobs[job]), capacity) if capacity else slots(plan.jobs[job])
            if free is not None and need > free:
                blocked.append((key, job))
                continue
            if free is not None:
                free -= need
            busy += need * seconds[job]
            heapq.heappush(running, (now + seconds[job], job))
        for item in blocked:
            heapq.heappush(ready, item)
        now, job = heapq.heappop(running)
        if free is not None:
            free += min(slots(plan.jobs[job]), capacity) if capacity else slots(plan.jobs[job])
        for a in after[job]:
            waiting[a] -= 1
            if waiting[a] == 0:
                heapq.heappush(ready, (-tail[a], a))
    return Schedule(now, max(tail.values(), default=0.0), busy)
