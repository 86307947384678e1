"""Programs see the system directories and their interpreter, nothing else of the host: no home,
no project, no data set (a candidate that could read the hidden tests could print them)."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ramp.execution.executor import SandboxExecutor
from ramp.execution.namespaces import SYSTEM_DIRS, NamespaceHolder, covered, hidden_entries
from ramp.execution.runtime import Runtime, python_runtime
from ramp.tasks import Limits, TestCase, Verdict

LIMITS = Limits(time_s=2.0, memory_mb=256)


def test_hidden_entries_keep_the_system_the_visible_paths_and_symlinks(tmp_path: Path) -> None:
    for name in ("usr", "etc", "home", "work", "opt", "data"):
        (tmp_path / name).mkdir()
    (tmp_path / "info.json").write_text("{}")
    (tmp_path / "bin").symlink_to("usr")
    hidden = hidden_entries(["/opt/ruby/bin/ruby", "relative/ignored"], root=str(tmp_path))
    assert hidden == [str(tmp_path / n) for n in ("data", "home", "info.json", "work")]
    assert {"usr", "etc", "bin", "tmp", "proc", "dev"} <= SYSTEM_DIRS


def test_covered_reads_the_holders_hidden_lines() -> None:
    paths = ["/a", "/b c", "/d"]
    said = [b"hidden 2", b"hidden 0", b"noise"]
    assert covered(paths, said) == ("/a", "/d")
    assert covered(paths, []) == ()


def test_the_holder_reports_only_the_covers_that_held(planted: Path) -> None:
    missing = f"/ramp-missing-{uuid.uuid4().hex[:8]}"  # no such entry: its cover must fail
    holder = NamespaceHolder(hide=[str(planted.parent), missing])
    try:
        if not holder.mount:
            pytest.skip("no mount namespace here")
        assert holder.hidden == (str(planted.parent),)
        assert list(holder.host_path(str(planted.parent)).iterdir()) == []
    finally:
        holder.close()


def test_a_runtime_names_its_host_paths() -> None:
    runtime = Runtime("ruby", "main.rb", ("/opt/r/bin/ruby", "--disable-gems", "-I/opt/gems/x",
                                          "{source}"), ("/opt/r/bin/ruby", "-c", "{source}"))
    assert runtime.host_paths() == ("/opt/r/bin/ruby", "/opt/gems/x")
    assert python_runtime().host_paths()[0].startswith("/")


@pytest.fixture
def planted() -> Iterator[Path]:
    """A world-readable file in a new top-level directory, as a data set outside the system."""
    if os.geteuid() != 0:
        pytest.skip("the mount namespace needs root")
    top = Path(f"/ramp-planted-{uuid.uuid4().hex[:8]}")
    top.mkdir(mode=0o755)
    secret = top / "hidden_tests.jsonl"
    secret.write_text("the expected outputs\n")
    secret.chmod(0o644)
    try:
        yield secret
    finally:
        shutil.rmtree(top)


def test_a_world_readable_file_outside_the_system_is_not_there(planted: Path) -> None:
    with SandboxExecutor(workers=1) as ex:  # started after the file exists, as a data set is
        if not ex.isolation.mount_namespace:
            pytest.skip("no mount namespace here")
        assert str(planted.parent) in ex.isolation.hidden
        program = (
            f"p = {str(planted)!r}\n"
            "puts(File.exist?(p) ? 'seen' : 'hidden')\n"
            "puts Dir.children(File.dirname(p)).size\n"
            "puts File.read('/etc/hostname').empty? ? 'no etc' : 'etc'\n"
        )
        report = ex.run(program, [TestCase("", ("hidden\n0\netc\n",))], LIMITS)
    r = report.results[0]
    assert r.verdict is Verdict.PASSED, r.stdout_tail + r.stderr_tail
    assert planted.read_text() == "the expected outputs\n"  # the host still has it
