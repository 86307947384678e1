"""Task shards: a subset's tasks split into N parts that run as separate model jobs.

A shard is a pure function of the task ids and the shard count (round-robin on the sorted ids),
and nothing a model sees depends on it: every prompt, seed and parameter is the task's own. So
the shard count changes how many jobs run at once, never a result; the gathered tables are
ordered as the subset is, whatever the count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

AUTO = "auto"
_NAME = re.compile(r"^([1-9][0-9]*)-of-([1-9][0-9]*)$")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``; its name, ``"2-of-4"``, is the {shard} wildcard."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ValueError(f"shard {self.index} of {self.count}: index must be in 1..count")

    @classmethod
    def parse(cls, name: str) -> Shard:
        m = _NAME.match(name)
        if not m:
            raise ValueError(f"not a shard name: {name!r} (expected e.g. '2-of-4')")
        return cls(int(m[1]), int(m[2]))

    @property
    def name(self) -> str:
        return f"{self.index}-of-{self.count}"

    def members(self, task_ids: Iterable[str]) -> set[str]:
        """This shard's task ids: every count-th of the sorted ids, starting at index - 1."""
        return set(sorted(set(task_ids))[self.index - 1 :: self.count])


WHOLE = Shard(1, 1)
"""The one shard holding every task."""


def all_shards(count: int) -> list[Shard]:
    return [Shard(i, count) for i in range(1, count + 1)]


def shard_count(setting: int | str, *, cores: int | None, threads_per_job: int) -> int:
    """The configured number of shards; ``auto`` is one shard per model job the cores can run
    at once (``cores // threads_per_job``), 1 when the cores are unknown."""
    if setting == AUTO:
        if not cores:
            return 1
        return max(1, int(cores) // max(1, threads_per_job))
    count = int(setting)
    if count < 1:
        raise ValueError(f"study.shards must be >= 1 or {AUTO!r}, not {setting!r}")
    return count


def in_task_order(frame: pd.DataFrame, task_order: Sequence[str], *, by: Sequence[str] = ()) -> (
    pd.DataFrame
):
    """``frame``'s rows sorted by the columns ``by`` first, then by the task's position in
    ``task_order`` (the subset's order), on a fresh index: the order an unsharded stage writes."""
    position = {task_id: i for i, task_id in enumerate(task_order)}
    unknown = set(frame.task_id) - set(position)
    if unknown:
        raise ValueError(f"{len(unknown)} task(s) not in the subset, e.g. {sorted(unknown)[0]}")
    keys = frame.assign(_position=frame.task_id.map(position))
    keys = keys.sort_values([*by, "_position"], kind="stable")
    return frame.loc[keys.index].reset_index(drop=True)
