"""One program start as data: what to start (``Job``), how it ended (``Finished``), and the
error for a start that failed before the program ran (``SetupFailed``).

The two ways a slot starts programs (its launcher process, launcher_client.py, or a fork of
the executor, spawner.py) both take a Job and give a Finished, so the sandbox treats them
alike: it builds the Job, retries a SetupFailed, and reads the rest from the cgroup.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

SETUP_FAILED = "ramp sandbox set-up failed at "
"""How every set-up failure message starts; the step and the error follow."""


@dataclass(frozen=True)
class Job:
    """Everything needed to start one program and bound its wall time."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: str
    uid: int | None
    """Drop to this uid (and gid) before exec; None: stay who we are (not root)."""
    rlimits: tuple[tuple[int, int, int], ...]
    """(resource, soft, hard) triples, set before the uid switch."""
    wall_s: float


@dataclass(frozen=True)
class Finished:
    """How a started program ended (it was reaped and all it left behind killed)."""

    status: int
    """The raw wait status."""
    cpu_s: float
    wall_s: float
    maxrss_kb: int
    wall_killed: bool

    @property
    def exit_code(self) -> int:
        """The exit code, or minus the signal that ended it."""
        return os.waitstatus_to_exitcode(self.status)


class SetupFailed(RuntimeError):
    """A step between fork and exec failed (the message names it). Nothing ran, so it is the
    machine's fault and never the program's: the sandbox retries it and, if it persists,
    raises an error instead of giving a verdict."""
