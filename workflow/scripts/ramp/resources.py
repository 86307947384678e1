"""What a stage's own process used: its peak resident memory (the loaded model, on CPU)."""

from __future__ import annotations

import resource


def peak_rss_mb() -> float:
    """This process's peak resident set size so far, in MiB (Linux reports KiB).

    Children (the sandboxed programs, the executor's launchers) are not included: their memory
    is measured per run by the executor.
    """
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
