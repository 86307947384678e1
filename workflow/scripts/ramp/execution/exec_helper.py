"""The exec helper (exec_helper.c): built once per machine with the C compiler, then cached.

The launcher starts every program through it (posix_spawn, no fork of the launcher: ~1-3 ms
less a run, which is most of the sandbox's fixed cost on a short C++ run). Where it cannot be
built (no C compiler, or no static C library) the launcher does the same steps in Python
after a fork, and ``build`` says why in one line.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..user_cache import ramp_cache_dir

SOURCE = Path(__file__).with_name("exec_helper.c")
COMPILERS = ("cc", "gcc", "clang")
FLAGS = ("-O2", "-static", "-Wall", "-Werror", "-std=gnu11")
NAME = "ramp-exec"
"""The binary's name, in the cache and in the sandbox's work area."""


def cache_dir() -> Path:
    """Where built helpers are kept: $XDG_CACHE_HOME/ramp/bin, else ~/.cache/ramp/bin."""
    return ramp_cache_dir() / "bin"


@dataclass(frozen=True)
class Built:
    """A usable helper (``path``), or why there is none (``why``)."""

    path: Path | None
    why: str = ""


def _compiler() -> str | None:
    return next((c for c in map(shutil.which, COMPILERS) if c), None)


def build(directory: Path | None = None) -> Built:
    """The helper for this source, compiled into ``directory`` (default ``cache_dir()``) on
    first use; the file name carries a digest of the source and flags, so an edit rebuilds."""
    source = SOURCE.read_bytes()
    digest = hashlib.sha256(source + " ".join(FLAGS).encode()).hexdigest()[:16]
    directory = directory or cache_dir()
    target = directory / f"{NAME}-{digest}"
    if os.access(target, os.X_OK):
        return Built(target)
    compiler = _compiler()
    if compiler is None:
        return Built(None, f"no C compiler ({', '.join(COMPILERS)}) on PATH")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{NAME}-", dir=directory)
        os.close(fd)
    except OSError as e:
        return Built(None, f"cannot write {directory}: {e.strerror or e}")
    try:
        done = subprocess.run(
            [compiler, *FLAGS, "-x", "c", "-o", name, SOURCE.name],
            capture_output=True, text=True, timeout=120, check=False, cwd=SOURCE.parent,
        )  # fmt: skip
        if done.returncode != 0:
            lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
            first = next((line for line in lines if "error" in line), lines[0])
            return Built(None, f"{Path(compiler).name} could not build {SOURCE.name}: {first}")
        os.chmod(name, 0o755)
        os.replace(name, target)  # atomic: a concurrent build leaves one complete file
    except (OSError, subprocess.TimeoutExpired) as e:
        return Built(None, f"building {SOURCE.name} failed: {e}")
    finally:
        if os.path.exists(name):
            os.unlink(name)
    return Built(target)
