"""Resume inside a long stage: a journal of finished units next to the stage's output.

A stage that runs many independent units (a buggy program on its hidden tests, an attempt on
the hidden tests) writes its Parquet once, at the end. If the job is killed after 13 of 14
minutes, Snakemake reruns it from the start. With a journal, each finished unit's rows are
appended (and flushed to disk) to ``<output>.journal`` as one JSON line; the rerun reads them
back and skips those units. The first line holds a fingerprint of the stage's inputs and
parameters: a journal written for other inputs is discarded, never mixed in. The journal is
removed once the output is written.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SUFFIX = ".journal"


def fingerprint(files: Iterable[str | os.PathLike[str]], params: Mapping[str, Any]) -> str:
    """A digest of the input files' bytes and the parameters that change a unit's result."""
    h = hashlib.sha256()
    for f in files:
        h.update(Path(f).read_bytes())
        h.update(b"\0")
    h.update(json.dumps(dict(params), sort_keys=True, default=str).encode())
    return h.hexdigest()


def _native(value: Any) -> Any:
    """JSON for numpy scalars and arrays (pandas hands those out); anything else is an error."""
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"journal: cannot store a {type(value).__name__}")


class Journal:
    """Finished units of one stage output, keyed by a string, with their rows (dicts)."""

    def __init__(self, output: str | os.PathLike[str], fingerprint: str) -> None:
        self.path = Path(f"{output}{SUFFIX}")
        self.fingerprint = fingerprint
        self.done: dict[str, list[dict[str, Any]]] = self._load()
        self._file = None

    def _load(self) -> dict[str, list[dict[str, Any]]]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return {}
        try:
            header = json.loads(lines[0]) if lines else {}
        except ValueError:
            header = {}
        if header.get("fingerprint") != self.fingerprint:
            log.info("%s: written for other inputs; starting over", self.path)
            self.path.unlink()
            return {}
        done: dict[str, list[dict[str, Any]]] = {}
        for n, line in enumerate(lines[1:], start=2):
            try:
                entry = json.loads(line)
            except ValueError:
                # A line cut off by the kill: that unit is simply done again.
                log.info("%s:%d: incomplete entry ignored", self.path, n)
                continue
            done[entry["unit"]] = entry["rows"]
        if done:
            log.info("%s: resuming, %d unit(s) already done", self.path, len(done))
        return done

    def record(self, unit: str, rows: list[dict[str, Any]]) -> None:
        """Append one finished unit (on disk before this returns)."""
        if self._file is None:
            fresh = not self.path.exists()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (kept open)
            if fresh:
                self._file.write(json.dumps({"fingerprint": self.fingerprint}) + "\n")
            elif self.done:
                self._file.write("\n")  # end a line a kill may have cut
        self._file.write(json.dumps({"unit": unit, "rows": rows}, default=_native) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())
        self.done[unit] = rows

    def finish(self) -> None:
        """The output is written: the journal is no longer needed."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self.path.unlink(missing_ok=True)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
