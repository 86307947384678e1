"""A program's hidden-test verdicts, kept across runs (scoring.verdict_cache).

Studies score the same programs again and again: the breadth variants share their draws, and a
named study re-scores the programs of the study it extends. Hidden scoring is the slowest stage
a replayed study has, so :func:`ramp.analysis.candidates.score_candidates` asks this store
before it runs a program. An entry is keyed on everything its verdicts depend on: the program,
the task's hidden and sample tests, its limits, the language runtime and the scoring options;
so a changed test set or limit misses and runs again. Like the model cache it only saves time:
a run with it and one without write the same table.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ramp.io import write_text
from ramp.tasks import Task

_KEY_VERSION = 1  # bump when the key's recipe changes, so old entries are never misread


@dataclasses.dataclass(frozen=True)
class VerdictCache:
    """Verdict summaries under ``directory``, one JSON file each; ``salt``: what else decides
    a verdict (the runtime, the scoring options)."""

    directory: Path
    salt: str = ""

    def key(self, task: Task, code: str) -> str:
        payload = {
            "v": _KEY_VERSION, "salt": self.salt, "language": task.lang, "code": code,
            "hidden": [dataclasses.asdict(t) for t in task.hidden_tests],
            "samples": [dataclasses.asdict(t) for t in task.problem.samples],
            "limits": dataclasses.asdict(task.limits),
        }
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                          default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def path_of(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, task: Task, code: str) -> dict[str, Any] | None:
        path = self.path_of(self.key(task, code))
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except ValueError as e:
            raise ValueError(f"{path}: corrupt verdict cache entry ({e}); delete it") from e

    def put(self, task: Task, code: str, verdicts: Mapping[str, Any]) -> None:
        write_text(self.path_of(self.key(task, code)),
                   json.dumps(dict(verdicts), ensure_ascii=False, default=_plain))


def _plain(value: Any) -> Any:
    """numpy scalars as Python ones (a verdict table's bools and ints)."""
    return value.item()
