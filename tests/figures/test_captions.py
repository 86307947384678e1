"""Every figure and table the report shows has its caption file (workflow/report/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ramp.figures.render import AUTHORS_FIGURES, AUTHORS_TABLES, FIGURES, TABLES

CAPTIONS = Path(__file__).resolve().parents[2] / "workflow" / "report"


@pytest.mark.parametrize("path", [
    *(f"figures/{name}.rst" for name in [*FIGURES, *AUTHORS_FIGURES]),
    *(f"tables/{name}.rst" for name in [*TABLES, *AUTHORS_TABLES]),
    "trajectory.rst", "runtimes.rst", "workflow.rst",
])
def test_a_caption_exists_and_says_something(path):
    text = (CAPTIONS / path).read_text(encoding="utf-8")
    assert len(text.split()) >= 10, path


def test_no_caption_is_left_over():
    named = {f"figures/{n}.rst" for n in [*FIGURES, *AUTHORS_FIGURES]}
    named |= {f"tables/{n}.rst" for n in [*TABLES, *AUTHORS_TABLES]}
    found = {p.relative_to(CAPTIONS).as_posix() for p in CAPTIONS.glob("*/*.rst")}
    assert found == named
