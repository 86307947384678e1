"""Is a task file the one the study was measured on? A manifest says, and names what differs.

A manifest holds a file's sha256 and row count, its task ids in file order, and one digest per
field over the rows in id order. The sha256 alone says *that* a rebuilt file differs; the rest
says *how*: rows missing or added, another order, which fields' values changed, or only the
bytes (key order, escaping) with every value the same.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ID_FIELD = "bug_code_uid"
_NAMED = 5  # ids named in a difference before the rest are only counted


@dataclass(frozen=True)
class Manifest:
    rows: int
    sha256: str
    #: task ids (``bug_code_uid``) in file order
    ids: tuple[str, ...]
    #: field -> sha256 of its values, one canonical JSON text a row, rows in id order
    fields: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "sha256": self.sha256,
            "fields": dict(self.fields),
            "ids": list(self.ids),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Manifest:
        return cls(
            int(data["rows"]), str(data["sha256"]), tuple(data["ids"]), dict(data.get("fields", {}))
        )


def _digest(texts: list[str]) -> str:
    return hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()


def manifest_of_bytes(data: bytes) -> Manifest:
    """The manifest of a task file's bytes."""
    rows = [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
    ids = tuple(str(row.get(ID_FIELD)) for row in rows)
    in_id_order = [row for _, row in sorted(zip(ids, rows, strict=True), key=lambda p: p[0])]
    names = sorted({name for row in rows for name in row})
    fields = {
        name: _digest(
            [json.dumps(row.get(name), sort_keys=True, ensure_ascii=False) for row in in_id_order]
        )
        for name in names
    }
    return Manifest(len(rows), hashlib.sha256(data).hexdigest(), ids, fields)


def manifest_of(path: str | Path) -> Manifest:
    return manifest_of_bytes(Path(path).read_bytes())


def read_manifest(path: str | Path) -> Manifest:
    return Manifest.from_json(json.loads(Path(path).read_text(encoding="utf-8")))


def manifest_text(manifest: Manifest) -> str:
    return json.dumps(manifest.to_json(), indent=1) + "\n"


def _named(ids: list[str]) -> str:
    shown = ", ".join(ids[:_NAMED])
    return shown + (f" and {len(ids) - _NAMED} more" if len(ids) > _NAMED else "")


def differences(expected: Manifest, actual: Manifest) -> list[str]:
    """What differs between the measured file (``expected``) and a built one; [] if the same."""
    if expected.sha256 == actual.sha256:
        return []
    out = [f"sha256 {actual.sha256[:12]}… where {expected.sha256[:12]}… was measured"]
    if expected.rows != actual.rows:
        out.append(f"{actual.rows} rows where {expected.rows} were measured")
    missing = sorted(set(expected.ids) - set(actual.ids))
    added = sorted(set(actual.ids) - set(expected.ids))
    if missing:
        out.append(f"{len(missing)} measured tasks are missing: {_named(missing)}")
    if added:
        out.append(f"{len(added)} tasks were not measured: {_named(added)}")
    if missing or added:
        return out
    if expected.ids != actual.ids:
        out.append("the same tasks in another order (numbered subsets follow the file's order)")
    gone = sorted(set(expected.fields) - set(actual.fields))
    new = sorted(set(actual.fields) - set(expected.fields))
    common = set(expected.fields) & set(actual.fields)
    changed = sorted(n for n in common if expected.fields[n] != actual.fields[n])
    if gone:
        out.append(f"fields missing: {', '.join(gone)}")
    if new:
        out.append(f"fields not measured: {', '.join(new)}")
    if changed:
        out.append(f"values differ in fields: {', '.join(changed)}")
    if len(out) == 1:
        out.append("every task and value is the same; only the bytes differ (key order, escaping)")
    return out
