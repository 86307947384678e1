"""The scripted model and the made-up task (tests/agents/scripted.py), as fixtures here."""

from tests.agents.scripted import (  # noqa: F401 - fixtures, and names tests import from here
    ROLE_MARKERS,
    TESTS_OK,
    ScriptedAgents,
    lib,
    role_of,
    ruby,
    task,
)
