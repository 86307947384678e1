"""Where ramp keeps, per user, what it fetches or builds once per machine."""

from __future__ import annotations

import os
from pathlib import Path


def ramp_cache_dir() -> Path:
    """$XDG_CACHE_HOME/ramp, else ~/.cache/ramp (models/: the embedded weights; bin/: the
    sandbox's exec helper)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ramp"
