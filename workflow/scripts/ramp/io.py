"""Atomic file output: a stage's artifact is either complete or absent, never half-written."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pandas as pd


def _umask() -> int:
    """The process umask, read without changing it (Linux); 022 where it cannot be read."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    return 0o022


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path`` in one rename."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    # mkstemp makes the file 0600; an artifact gets the usual mode (0666 less the umask).
    os.fchmod(fd, 0o666 & ~_umask())
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    finally:
        tmp_path.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w") -> Iterator[IO]:
    """Open a file for writing that appears at ``path`` only once closed without error."""
    with atomic_path(path) as tmp, open(tmp, mode, encoding=None if "b" in mode else "utf-8") as f:
        yield f


def write_text(path: str | os.PathLike[str], text: str) -> None:
    with atomic_open(path) as f:
        f.write(text)


def write_parquet(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write ``df`` to Parquet atomically, without the pandas index."""
    with atomic_path(path) as tmp:
        df.to_parquet(tmp, index=False)
