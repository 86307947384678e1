"""The stage logger and the hidden-scoring progress lines."""

from __future__ import annotations

import logging

from ramp.logs import stage_logger, verdict_progress


def test_a_stage_logs_each_scored_program_to_its_log_file(tmp_path):
    log = stage_logger("score_hidden", str(tmp_path / "logs" / "score.log"))
    try:
        progress = verdict_progress(log, "iteration")
        progress(1, 2, "abc", 3, True)
        progress(2, 2, "abc", 4, False)
    finally:
        package = logging.getLogger("ramp")
        for handler in list(package.handlers):
            package.removeHandler(handler)
            handler.close()
    lines = (tmp_path / "logs" / "score.log").read_text().splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == [
        "1/2  abc  iteration 3  PASSED", "2/2  abc  iteration 4  failed"]
