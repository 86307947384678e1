"""ramp.sh's own logic that needs no set-up: stale Snakemake locks after a killed run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent.parent


def project(tmp_path: Path) -> Path:
    """A project folder like the repository, with a lock a SIGKILLed Snakemake left behind."""
    root = tmp_path / "project"
    root.mkdir()
    for item in ("ramp.sh", "Snakefile", "workflow", "config", "prompts"):
        (root / item).symlink_to(REPO / item)
    locks = root / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    (locks / "0.output.lock").write_text("results/runs/x/attempts.parquet\n")
    return root


def unlock(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RAMP_VENV": str(VENV)}
    return subprocess.run(["bash", str(root / "ramp.sh"), "unlock"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_locks_of_a_killed_run_are_removed(tmp_path: Path) -> None:
    root = project(tmp_path)
    done = unlock(root)
    assert done.returncode == 0, done.stderr
    assert "removing the locks of an interrupted run" in done.stderr
    assert list((root / ".snakemake" / "locks").glob("*")) == []


def test_the_locks_of_a_running_snakemake_are_kept(tmp_path: Path) -> None:
    root = project(tmp_path)
    # A process named snakemake working in this folder: a live run.
    live = subprocess.Popen(["bash", "-c", "exec -a snakemake sleep 60"], cwd=root)
    try:
        done = unlock(root)
    finally:
        live.kill()
        live.wait()
    assert done.returncode == 0, done.stderr
    assert "removing" not in done.stderr
    assert [p.name for p in (root / ".snakemake" / "locks").iterdir()] == ["0.output.lock"]
