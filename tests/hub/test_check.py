"""Manifests: the sha256 says that a file differs, the rest names how."""

from __future__ import annotations

import json

from ramp.hub.check import Manifest, differences, manifest_of_bytes, manifest_text


def _file(rows: list[dict], **dump) -> bytes:
    return "".join(json.dumps(r, **dump) + "\n" for r in rows).encode()


ROWS = [
    {"bug_code_uid": "a", "difficulty": 800.0, "lang": "Ruby", "note": "≤"},
    {"bug_code_uid": "b", "difficulty": 1200.0, "lang": "Ruby", "note": None},
    {"bug_code_uid": "c", "difficulty": 1600.0, "lang": "Ruby", "note": ""},
]
MEASURED = manifest_of_bytes(_file(ROWS))


def test_the_same_bytes_have_no_difference_and_the_manifest_round_trips() -> None:
    assert MEASURED.rows == 3 and MEASURED.ids == ("a", "b", "c")
    assert differences(MEASURED, manifest_of_bytes(_file(ROWS))) == []
    assert Manifest.from_json(json.loads(manifest_text(MEASURED))) == MEASURED


def test_missing_and_added_tasks_are_named_and_counted() -> None:
    other = [*ROWS[:2], {**ROWS[2], "bug_code_uid": "d"}]
    found = differences(MEASURED, manifest_of_bytes(_file(other)))
    assert found[0].startswith("sha256 ")
    assert "1 measured tasks are missing: c" in found
    assert "1 tasks were not measured: d" in found
    fewer = differences(MEASURED, manifest_of_bytes(_file(ROWS[:1])))
    assert "1 rows where 3 were measured" in fewer
    assert "2 measured tasks are missing: b, c" in fewer


def test_a_changed_value_type_names_its_field() -> None:
    # 1600 and 1600.0 load the same, but they are other bytes: the field is named.
    ints = [{**r, "difficulty": int(r["difficulty"])} for r in ROWS]
    found = differences(MEASURED, manifest_of_bytes(_file(ints)))
    assert found[1:] == ["values differ in fields: difficulty"]


def test_order_fields_and_formatting_are_told_apart() -> None:
    assert differences(MEASURED, manifest_of_bytes(_file(ROWS[::-1])))[1:] == [
        "the same tasks in another order (numbered subsets follow the file's order)"
    ]
    fewer_fields = [{k: v for k, v in r.items() if k != "lang"} for r in ROWS]
    assert differences(MEASURED, manifest_of_bytes(_file(fewer_fields)))[1:] == [
        "fields missing: lang"
    ]
    utf8 = differences(MEASURED, manifest_of_bytes(_file(ROWS, ensure_ascii=False)))
    assert utf8[1:] == [
        "every task and value is the same; only the bytes differ (key order, escaping)"
    ]
