"""ramp.sh's own logic that needs no set-up: stale Snakemake locks after a killed run, and how
it builds llama-cpp-python (with a stand-in for the venv's python)."""

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


FAKE_PYTHON = """#!/usr/bin/env bash
# Logs how it was called; `pip wheel ... -w DIR` leaves a wheel in DIR.
echo "CFLAGS=${CFLAGS:-} CXXFLAGS=${CXXFLAGS:-} | $*" >> "$RAMP_TEST_LOG"
while [ $# -gt 0 ]; do
    if [ "$1" = -w ]; then mkdir -p "$2"; touch "$2/llama_cpp_python-0.3.36-py3-none-any.whl"; fi
    shift
done
"""


def fake_venv(tmp_path: Path) -> Path:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    for name, text in (("python", FAKE_PYTHON), ("snakemake", "#!/bin/sh\nexit 0\n")):
        (venv / "bin" / name).write_text(text)
        (venv / "bin" / name).chmod(0o755)
    return venv


def test_llama_cpp_is_built_without_amx_kernels_once_and_then_from_the_kept_wheel(
        tmp_path: Path) -> None:
    root, venv, log = project(tmp_path), fake_venv(tmp_path), tmp_path / "calls.log"
    (root / "pyproject.toml").symlink_to(REPO / "pyproject.toml")
    (root / "requirements").symlink_to(REPO / "requirements")
    env = {**os.environ, "RAMP_VENV": str(venv), "RAMP_TEST_LOG": str(log), "RAMP_SKIP_APT": "1",
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    for name in ("CFLAGS", "CXXFLAGS", "CMAKE_ARGS"):
        env.pop(name, None)

    def setup() -> list[str]:
        log.write_text("")
        done = subprocess.run(["bash", str(root / "ramp.sh"), "rerender"], cwd=root, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return [line for line in log.read_text().splitlines() if "llama" in line]

    first = setup()
    assert len(first) == 2, first  # built, then installed
    build, install = first
    assert " wheel " in build and "--no-cache-dir" in build
    assert "-mno-amx-int8" in build.split("CXXFLAGS=")[0]  # C and C++ alike
    assert "-mno-amx-int8" in build.split("CXXFLAGS=")[1]
    assert " install " in install and "--force-reinstall" in install and ".whl" in install
    assert setup() == []  # the venv has it: nothing to do
    (venv / ".ramp-llama-build").unlink()  # a new venv: the kept wheel, no build
    again = setup()
    assert len(again) == 1 and " install " in again[0], again
