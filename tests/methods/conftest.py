"""The methods' tests share the agents' scripted model and made-up task
(tests/agents/scripted.py), and a real sandbox pool per test module."""

import pytest

from ramp.methods.base import sandbox_executors
from tests.agents.scripted import lib, task  # noqa: F401 - fixtures


@pytest.fixture(scope="module")
def executors():
    """Two real sandbox workers per language, closed when the module's tests are done."""
    pool = sandbox_executors(workers=2)
    yield pool
    pool.close()
