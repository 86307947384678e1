"""The session's one-node Slurm cluster, started only when a test asks for it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slurm_cluster import LocalSlurm, SlurmUnavailable, ensure_installed, unavailable_reason


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSlurm]:
    """Install Slurm if missing, start munged + slurmctld + slurmd, stop them afterwards.

    Skips (with the reason) where the machine cannot host it; a cluster that is installed but
    fails to start is an error, not a skip.
    """
    reason = unavailable_reason()
    if reason:
        pytest.skip(f"local Slurm unavailable: {reason}")
    try:
        ensure_installed()
    except SlurmUnavailable as exc:
        pytest.skip(f"local Slurm unavailable: {exc}")
    with LocalSlurm(tmp_path_factory.mktemp("slurm")) as cluster:
        yield cluster
