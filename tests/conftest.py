"""Suite-wide hooks."""

from __future__ import annotations

import signal


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def pytest_configure(config):
    # A suite stopped by SIGTERM (a CI time-out, `timeout`) unwinds as on Ctrl-C, so a running
    # subprocess.run kills its child (the tiny study's Snakemake) instead of leaving it behind.
    signal.signal(signal.SIGTERM, _interrupt)
