from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from ramp.execution.executor import RubyExecutor

if shutil.which("ruby") is None:  # pragma: no cover - ramp.sh installs Ruby
    pytest.skip("Ruby is not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def executor() -> Iterator[RubyExecutor]:
    with RubyExecutor(workers=2) as ex:
        yield ex
