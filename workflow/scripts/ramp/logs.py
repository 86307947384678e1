"""Logging for a workflow stage: progress to the terminal and to the rule's log file."""

from __future__ import annotations

import logging
import sys
from pathlib import Path


def stage_logger(name: str, log_path: str | None) -> logging.Logger:
    """The logger of stage ``name``.

    Handlers go on the package logger ``ramp``, so that what the library reports while the
    stage runs (a retried sandbox start, a model warning) lands in the same log.
    """
    package = logging.getLogger("ramp")
    package.setLevel(logging.INFO)
    for handler in list(package.handlers):
        package.removeHandler(handler)
        handler.close()
    fmt = logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S")
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_path, mode="w"))
    for handler in handlers:
        handler.setFormatter(fmt)
        package.addHandler(handler)
    return logging.getLogger(f"ramp.stage.{name}")
