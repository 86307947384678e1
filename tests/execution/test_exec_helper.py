"""The exec helper (exec_helper.c): built once and cached, its steps and their failures, and
what the sandbox does without it."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
from pathlib import Path

import pytest

from ramp.execution import exec_helper
from ramp.execution.sandbox import Sandbox, SandboxConfig
from ramp.tasks import Limits

needs_cc = pytest.mark.skipif(
    not any(map(shutil.which, exec_helper.COMPILERS)), reason="no C compiler"
)
LIMITS = Limits(time_s=1.0, memory_mb=128)


@pytest.fixture(scope="module")
def helper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = exec_helper.build(tmp_path_factory.mktemp("bin"))
    if built.path is None:
        pytest.skip(f"no exec helper: {built.why}")
    return built.path


def _run(helper: Path, args: list[str], cwd: str = "/") -> tuple[int, str, bytes]:
    """Run the helper with a report pipe on fd 3: (exit code, stdout, report)."""
    read, write = os.pipe()
    done = subprocess.Popen(
        [str(helper), "3", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
        close_fds=False, env={"PATH": "/usr/bin:/bin"},
        preexec_fn=lambda: os.dup2(write, 3),  # dup2 makes fd 3 inheritable
    )  # fmt: skip
    os.close(write)
    with os.fdopen(read, "rb") as f:
        report = f.read()
    out, _ = done.communicate(timeout=10)
    return done.returncode, out.decode(), report


@needs_cc
def test_it_is_built_once_and_named_by_its_source(tmp_path: Path) -> None:
    first = exec_helper.build(tmp_path)
    assert first.path is not None and first.why == "", first.why
    assert first.path.parent == tmp_path and first.path.name.startswith("ramp-exec-")
    stamp = first.path.stat().st_mtime_ns
    again = exec_helper.build(tmp_path)
    assert again.path == first.path and again.path.stat().st_mtime_ns == stamp  # not rebuilt
    assert [p.name for p in tmp_path.iterdir()] == [first.path.name]  # no temporary left


def test_without_a_compiler_it_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exec_helper, "COMPILERS", ("no-such-cc-1", "no-such-cc-2"))
    built = exec_helper.build(tmp_path)
    assert built.path is None
    assert built.why == "no C compiler (no-such-cc-1, no-such-cc-2) on PATH"


@needs_cc
def test_a_source_that_does_not_compile_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "exec_helper.c"
    broken.write_text("int main(void) { return undeclared; }\n")
    monkeypatch.setattr(exec_helper, "SOURCE", broken)
    built = exec_helper.build(tmp_path / "bin")
    assert built.path is None
    assert "could not build exec_helper.c: " in built.why and "\n" not in built.why
    assert "undeclared" in built.why
    assert list((tmp_path / "bin").iterdir()) == []


@needs_cc
def test_it_sets_the_directory_and_limits_then_execs_with_a_path_search(
    helper: Path, tmp_path: Path
) -> None:
    fsize = resource.RLIMIT_FSIZE
    code, out, report = _run(
        helper, [str(tmp_path), "-1", "2", str(fsize), "4096", "8192",
                 str(resource.RLIMIT_CORE), "0", "-1", "sh", "-c", "pwd; ulimit -f; ulimit -Hc"],
    )  # fmt: skip
    assert (code, report) == (0, b""), report  # exec closed the report pipe: nothing written
    assert out.split() == [str(tmp_path), "8", "unlimited"]  # 4096 bytes = 8 blocks of 512


@needs_cc
@pytest.mark.parametrize(
    ("args", "step", "errno"),
    [
        (["/nonexistent", "-1", "0", "true"], "chdir /nonexistent", 2),
        (["/", "-1", "1", "7", "64", "32", "true"], "setrlimit 7", 22),  # soft above hard
        (["/", "-1", "0", "no-such-program-anywhere"], "exec no-such-program-anywhere", 2),
        (["/", "-1", "2", "7", "1", "true"], "rlimit count", 22),  # a triple short
        (["/", "x", "0", "true"], "uid", 22),
    ],
)
def test_a_failing_step_is_reported_by_name_and_errno(
    helper: Path, args: list[str], step: str, errno: int
) -> None:
    code, _, report = _run(helper, args)
    assert code == 127
    assert report == f"{step}\0{errno}".encode()


@needs_cc
def test_a_file_it_cannot_exec_is_named_with_no_shell_fallback(
    helper: Path, tmp_path: Path
) -> None:
    """As os.execvpe: a text file with the x bit is ENOEXEC (glibc's execvpe would run it
    with /bin/sh), one without is EACCES."""
    for mode, errno in ((0o755, 8), (0o644, 13)):
        script = tmp_path / f"script-{mode:o}"
        script.write_text("echo ran by a shell\n")
        script.chmod(mode)
        code, out, report = _run(helper, ["/", "-1", "0", str(script)])
        assert (code, out, report) == (127, "", f"exec {script}\0{errno}".encode())


@needs_cc
def test_too_few_arguments_is_a_usage_line(helper: Path) -> None:
    done = subprocess.run([str(helper), "3"], capture_output=True, text=True, check=False)
    assert done.returncode == 126 and done.stderr.startswith("usage: ramp-exec REPORT_FD")


@needs_cc
@pytest.mark.skipif(os.geteuid() != 0, reason="the uid switch needs root")
def test_it_drops_every_id_and_group_before_the_exec(helper: Path) -> None:
    code, out, report = _run(helper, ["/", "54321", "0", "id"])
    assert (code, report) == (0, b"")
    assert out.split()[:3] == ["uid=54321", "gid=54321", "groups=54321"]


@needs_cc
@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox's work area is only root's as root")
def test_the_sandbox_uses_it_and_its_programs_cannot_replace_it() -> None:
    with Sandbox(1, SandboxConfig(max_tasks=4)) as sb:  # sh forks cp and ls
        assert sb.isolation.launcher and sb.isolation.exec_helper
        assert sb.leftovers() == []  # the helper is not a run's leftover
        raw = sb.execute(["sh", "-c", 'cp /bin/true "$0" || rm -f "$0"; ls -l "$0"',
                          sb._helper], b"", LIMITS)  # fmt: skip
        assert raw.exit_code == 0, raw.stderr
        assert raw.stdout.decode().startswith("-r-xr-xr-x 1 root root"), raw.stdout
        assert sb.execute(["sh", "-c", "echo still"], b"", LIMITS).stdout == b"still\n"


def test_without_the_helper_the_launcher_forks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exec_helper, "COMPILERS", ("no-such-cc",))
    monkeypatch.setenv("XDG_CACHE_HOME", "/nonexistent-cache")
    with Sandbox(1) as sb:
        assert sb.isolation.launcher and not sb.isolation.exec_helper
        assert sb.execute(["sh", "-c", "echo forked"], b"", LIMITS).stdout == b"forked\n"
    with Sandbox(1, SandboxConfig(use_exec_helper=False)) as sb:
        assert not sb.isolation.exec_helper
