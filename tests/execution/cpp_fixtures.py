"""Shared by the C++ executor tests: a module-wide C++ executor (skipped without g++)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from ramp.execution.executor import SandboxExecutor
from ramp.execution.runtime import cpp_runtime


@pytest.fixture(scope="module")
def cpp() -> Iterator[SandboxExecutor]:
    if shutil.which("g++") is None:  # pragma: no cover - ramp.sh installs g++
        pytest.skip("g++ is not installed")
    with SandboxExecutor(workers=2, runtime=cpp_runtime()) as ex:
        yield ex
