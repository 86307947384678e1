import json
import logging

import pytest

from ramp.analysis.references import Reference, configured_references, parse_references

LINES = "\n".join(json.dumps(r) for r in (
    {"src_uid": "P", "language": "ruby", "code": "puts 1", "hidden_tests": 3},
    {"src_uid": "Q", "language": "ruby", "code": "puts 2"},
))


def test_references_are_read_per_problem():
    assert parse_references(LINES) == {"P": Reference("P", "ruby", "puts 1"),
                                       "Q": Reference("Q", "ruby", "puts 2")}


@pytest.mark.parametrize("bad, message", [
    ('{"src_uid": "P", "code": "puts 1"}', "line 1: missing ['language']"),
    (LINES + "\n" + LINES.splitlines()[0], "line 3: problem P twice"),
])
def test_a_malformed_file_is_an_error_naming_its_line(bad, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_references(bad, "refs")


def test_a_missing_file_is_a_warning_and_no_reference(tmp_path, caplog):
    log = logging.getLogger("test.oracle")
    with caplog.at_level(logging.WARNING, logger="test.oracle"):
        assert configured_references(tmp_path / "none.jsonl", log) == {}
    assert "none.jsonl not found; every oracle is a program found in the runs" in caplog.text
    assert configured_references(None, log) == {}
    (tmp_path / "refs.jsonl").write_text(LINES)
    assert set(configured_references(tmp_path / "refs.jsonl", log)) == {"P", "Q"}


def test_the_shared_file_has_one_reference_for_each_of_the_52_problems():
    from pathlib import Path

    shared = Path(__file__).resolve().parents[2] / "../shared/data/ramp-oracles/reference.jsonl"
    if not shared.is_file():
        pytest.skip("the shared reference file is not here")
    references = parse_references(shared.read_text(encoding="utf-8"))
    assert len(references) == 52 and {r.language for r in references.values()} == {"ruby"}
