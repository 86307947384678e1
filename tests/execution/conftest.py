from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Collection, Iterator
from pathlib import Path

import pytest

from ramp.execution.executor import SandboxExecutor

if shutil.which("ruby") is None:  # pragma: no cover - ramp.sh installs Ruby
    pytest.skip("Ruby is not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def executor() -> Iterator[SandboxExecutor]:
    with SandboxExecutor(workers=2) as ex:
        yield ex


def processes_of(uids: Collection[int]) -> list[int]:
    """Pids of every process (zombies included) owned by one of ``uids``: the sandbox's slot
    uids, so an empty list means nothing a program started is left."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if d.stat().st_uid in uids:
                    found.append(int(d.name))
            except FileNotFoundError:
                pass
    return found


def ramp_run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`python -m ramp run ARGS` as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "ramp", "run", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
