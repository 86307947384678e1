"""The hand-made tasks and the scripted executor (tests/analysis/handmade.py), as fixtures."""

from tests.analysis.handmade import (  # noqa: F401 - a fixture, and names tests import from here
    EchoRunner,
    hidden_attempts,
    make_task,
    runner,
)
