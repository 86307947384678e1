"""A suite stopped by SIGTERM leaves no child process behind (tests/conftest.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

CHILD = ("import os, signal, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); "
         "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead too: it only waits to be reaped by its (init) parent.
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"


def test_sigterm_kills_a_running_tests_child(tmp_path: Path) -> None:
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    pid_file = tmp_path / "pid"
    (tmp_path / "test_child.py").write_text(
        "import subprocess, sys\n"
        "def test_child():\n"
        f"    subprocess.run([sys.executable, '-c', {CHILD!r}, {str(pid_file)!r}])\n")
    suite = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              str(tmp_path)], cwd=tmp_path, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(pid_file.read_text())
    suite.terminate()  # SIGTERM, as a time-out sends it; the child ignores it
    suite.wait(timeout=30)
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert not _alive(child), "the test's child outlived the suite"
    finally:
        if _alive(child):
            os.kill(child, 9)
