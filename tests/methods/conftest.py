"""The methods' tests share the agents' scripted model and made-up task
(tests/agents/scripted.py)."""

from tests.agents.scripted import lib, task  # noqa: F401 - fixtures
