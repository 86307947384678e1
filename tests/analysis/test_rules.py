import shutil
from pathlib import Path

import pandas as pd
import pytest

from ramp.analysis.hidden import validate_attempts

from .conftest import make_task

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("ruby") is None, reason="Ruby is not installed")
def test_real_executor_scores_a_ruby_program():
    from ramp.execution.executor import SandboxExecutor

    task = make_task("r", "P", n_hidden=3, truncated=1)
    attempts = pd.DataFrame([
        {"task_id": "r", "iteration": 1, "code": "puts gets.to_i", "passed_generated": True},
        {"task_id": "r", "iteration": 2, "code": "puts 0", "passed_generated": False},
    ])
    with SandboxExecutor(workers=2) as ex:
        hidden, summary = validate_attempts(attempts, [task], ex)
    s = summary.set_index("iteration")
    assert s.loc[1, "passed_hidden"] and s.loc[1, "passed_hidden_excluding_truncated"]
    assert s.loc[2, "n_hidden_passed"] == 1 and s.loc[2, "first_failing_verdict"] == "WRONG_ANSWER"
    assert len(hidden) == 6
