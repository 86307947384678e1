"""The coverage figure and page (ramp.figures.coverage) from made-up curves."""

import pandas as pd

from ramp.figures.coverage import has_coverage, publish_coverage, render_coverage


def test_the_figure_and_page_are_written_with_the_command_and_tables(tmp_path) -> None:
    curve = pd.DataFrame([
        {"model": "m", "method": "zero_shot x4", "kind": "draws", "k": k,
         "tokens_per_task": 500.0 * k, "pass_at_k": 0.1 * k, "covered": 0.3 * k, "tasks": 3}
        for k in (1, 2, 3, 4)
    ] + [
        {"model": "m", "method": "ramp", "kind": "iterations", "k": t,
         "tokens_per_task": 3000.0 * t, "pass_at_k": 1 / 3, "covered": 1.0, "tasks": 3,
         "hidden_feedback": False}
        for t in (1, 2)
    ] + [
        {"model": "m", "method": "oracle_feedback", "kind": "iterations", "k": 1,
         "tokens_per_task": 4000.0, "pass_at_k": 2 / 3, "covered": 2.0, "tasks": 3,
         "hidden_feedback": True}
    ])
    units = pd.DataFrame([
        {"model": "m", "method": "zero_shot x4", "level": "problem", "unit": "P",
         "problem_id": "P", "n": 8, "right": 2, "k": 1, "pass_at_k": 0.25},
    ])
    curve.to_parquet(tmp_path / "c.parquet")
    units.to_parquet(tmp_path / "u.parquet")
    out = tmp_path / "out"
    assert not has_coverage(out)
    publish_coverage(tmp_path / "c.parquet", tmp_path / "u.parquet", out,
                     "./ramp.sh workflow --configfile config/x.yaml")
    assert has_coverage(out)
    assert (tmp_path / "out" / "coverage.png").stat().st_size > 0
    assert (tmp_path / "out" / "coverage.pdf").stat().st_size > 0
    page = (tmp_path / "out" / "coverage.md").read_text()
    assert "`./ramp.sh workflow --configfile config/x.yaml`" in page
    # k = 1, 2, 4 and the largest k (4) of the draws, each once; k = 3 is not reported.
    assert _rows(page, "## Draws: unbiased") == [
        ["m", "zero_shot x4", "1", "10", "0.3", "500"],
        ["m", "zero_shot x4", "2", "20", "0.6", "1000"],
        ["m", "zero_shot x4", "4", "40", "1.2", "2000"]]
    # Each run at its last iteration; the one fed the hidden tests is named so.
    assert _rows(page, "## Runs") == [
        ["m", "ramp", "2", "33.3", "1", "6000"],
        ["m", "oracle_feedback [hidden-test feedback]", "1", "66.7", "2", "4000"]]
    assert _rows(page, "## Draws per problem") == [["m", "zero_shot x4", "P", "8", "2", "25"]]
    # Redrawn from the source data alone (what rerender does), the page comes back the same.
    (out / "coverage.md").unlink()
    (out / "coverage.png").unlink()
    written = render_coverage(out)
    assert (out / "coverage.md").read_text() == page
    assert sorted(p.name for p in written) == ["coverage.md", "coverage.pdf", "coverage.png"]
    assert (out / "coverage.png").stat().st_size > 0


def _rows(page: str, heading: str) -> list[list[str]]:
    """The body rows of the first Markdown table after ``heading``, as stripped cells."""
    section = page.split(heading, 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")][2:]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
