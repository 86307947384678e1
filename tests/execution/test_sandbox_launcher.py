"""Each slot's programs are forked by a small launcher process (launcher.py), not by us: the
guarantees of the fork path hold (children inside the slot's cgroups, exact task limit, the
program's own peak, OOM detection, leftovers killed and reaped), and a launcher that dies is
replaced. The first tests run the launcher bare (no root needed); the rest use the real
cgroups and namespaces."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ramp.execution import exec_helper, launcher_client
from ramp.execution.cgroups import version as cgroup_version
from ramp.execution.jobs import Job, SetupFailed
from ramp.execution.launcher import receive, send
from ramp.execution.launcher_client import Launcher, LauncherDied, LauncherSpec
from ramp.execution.sandbox import Sandbox, SandboxConfig
from ramp.tasks import Limits

from .conftest import processes_of

LIMITS = Limits(time_s=1.0, memory_mb=128, output_bytes=1 << 20, wall_factor=2.0)
RUBY = shutil.which("ruby")

needs_v1_root = pytest.mark.skipif(
    os.geteuid() != 0 or cgroup_version() != "v1", reason="needs root and cgroup v1"
)


def _pid_alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += map(int, (task / "children").read_text().split())
    return out


# -- the launcher on its own (no cgroups, no namespaces, no uid switch) ----------------------


@pytest.fixture(params=["fork", "exec-helper"])
def bare(request: pytest.FixtureRequest) -> Iterator[tuple[Launcher, str]]:
    """A launcher that forks its programs, and one that spawns them through the exec helper."""
    helper = ""
    if request.param == "exec-helper":
        built = exec_helper.build()
        if built.path is None:
            pytest.skip(f"no exec helper: {built.why}")
        helper = str(built.path)
    work = tempfile.mkdtemp(prefix="ramp-launcher-test-")
    launcher = Launcher(LauncherSpec(name="bare", exec_helper=helper))
    try:
        yield launcher, work
    finally:
        launcher.close()
        shutil.rmtree(work)


def _job(argv: list[str], cwd: str, **kw: object) -> Job:
    base: dict[str, object] = dict(
        argv=tuple(argv), env={"PATH": "/usr/bin:/bin", "ONLY": "this"}, cwd=cwd, uid=None,
        rlimits=(), wall_s=5.0,
    )  # fmt: skip
    return Job(**{**base, **kw})  # type: ignore[arg-type]


@pytest.fixture
def fds() -> Iterator[tuple[int, int, int]]:
    """A run's stdin, stdout and stderr memfds, closed after the test even when it fails."""
    files = os.memfd_create("in"), os.memfd_create("out"), os.memfd_create("err")
    yield files
    for fd in files:
        os.close(fd)


def _read(fd: int) -> bytes:
    return os.pread(fd, 1 << 20, 0)


def test_a_bare_launcher_runs_a_job_with_its_env_cwd_and_files(
    bare: tuple[Launcher, str], fds: tuple[int, int, int]
) -> None:
    launcher, work = bare
    os.write(fds[0], b"from stdin")
    os.lseek(fds[0], 0, os.SEEK_SET)
    script = "cat; echo; pwd; env | sort; ls /proc/self/fd; echo oops >&2; exit 3"
    done = launcher.run(_job(["sh", "-c", script], work), fds)
    out = _read(fds[1]).decode().splitlines()
    assert done.exit_code == 3 and not done.wall_killed
    assert out[0] == "from stdin" and out[1] == work
    env = [line for line in out[2:] if "=" in line]
    assert sorted(k.split("=")[0] for k in env) == ["ONLY", "PATH", "PWD"]  # sh adds PWD
    assert out[-4:] == ["0", "1", "2", "3"]  # ls's own directory fd is 3: nothing leaked
    assert _read(fds[2]) == b"oops\n"
    assert done.cpu_s >= 0 and 0 < done.wall_s < 5 and done.maxrss_kb > 0


def test_a_bare_launcher_kills_at_the_wall_clock_and_reports_signals(
    bare: tuple[Launcher, str], fds: tuple[int, int, int]
) -> None:
    launcher, work = bare
    start = time.perf_counter()
    done = launcher.run(_job(["sleep", "30"], work, wall_s=0.3), fds)
    assert done.wall_killed and done.exit_code == -9
    assert 0.3 <= done.wall_s < 2 and time.perf_counter() - start < 3
    done = launcher.run(_job(["sh", "-c", "kill -SEGV $$"], work), fds)
    assert done.exit_code == -11 and not done.wall_killed
    assert _children(launcher.pid) == []  # every child reaped


def test_the_program_gets_default_sigpipe_and_sigxfsz(
    bare: tuple[Launcher, str], fds: tuple[int, int, int]
) -> None:
    """Python ignores both; a program must not inherit that (SIGXFSZ ends output floods)."""
    launcher, work = bare
    limit = ((1, 4096, 4096),)  # RLIMIT_FSIZE
    done = launcher.run(_job(["head", "-c", "100000", "/dev/zero"], work, rlimits=limit), fds)
    assert done.exit_code == -25  # SIGXFSZ, not a write error
    assert os.fstat(fds[1]).st_size == 4096


def test_a_failing_step_and_a_missing_program_are_named(
    bare: tuple[Launcher, str], fds: tuple[int, int, int]
) -> None:
    launcher, work = bare
    with pytest.raises(SetupFailed, match=r"^ramp sandbox set-up failed at chdir /nonexistent"):
        launcher.run(_job(["true"], "/nonexistent"), fds)
    with pytest.raises(SetupFailed, match=r"set-up failed at setrlimit 7: (ValueError|OSError)"):
        launcher.run(_job(["true"], work, rlimits=((7, 64, 32),)), fds)
    with pytest.raises(FileNotFoundError, match="no-such-program"):
        launcher.run(_job(["no-such-program"], work), fds)
    assert launcher.run(_job(["true"], work), fds).exit_code == 0  # still serving


def test_a_malformed_request_is_one_error_naming_the_field(
    bare: tuple[Launcher, str], fds: tuple[int, int, int]
) -> None:
    launcher, work = bare
    sock = launcher._sock
    assert sock is not None
    send(sock, {"argv": ["true"], "env": {}, "rlimits": [], "uid": None, "wall_s": 1.0}, fds)
    reply, _ = receive(sock)
    assert "field 'cwd'" in reply["error"]
    assert launcher.run(_job(["true"], work), fds).exit_code == 0


def test_closing_mid_run_kills_the_program_and_the_launcher_exits(
    bare: tuple[Launcher, str], fds: tuple[int, int, int]
) -> None:
    launcher, work = bare
    pid_file = Path(work) / "pid"
    errors: list[BaseException] = []

    def run() -> None:
        try:
            launcher.run(_job(["sh", "-c", f"echo $$ > {pid_file}; exec sleep 30"], work), fds)
        except BaseException as e:
            errors.append(e)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 10
    while not pid_file.exists() or not pid_file.read_text().strip():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    program, pid = int(pid_file.read_text()), launcher.pid
    start = time.monotonic()
    launcher.close()
    thread.join(10)
    assert time.monotonic() - start < 5
    assert [type(e) for e in errors] == [LauncherDied]
    assert not _pid_alive(program) and not _pid_alive(pid)


# -- in the sandbox (real cgroups and namespaces) ------------------------------------------


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(1) as sb:
        yield sb


def _cgroup_lines(text: str) -> dict[str, str]:
    return dict(line.split(":", 2)[1:] for line in text.splitlines())


@needs_v1_root
def test_children_start_inside_the_slot_and_only_the_serving_thread_is_there(
    sandbox: Sandbox,
) -> None:
    slot = sandbox._all_slots[0]
    assert sandbox.isolation.launcher and slot.launcher is not None and slot.thread is None
    cg, pid = slot.cgroup, slot.launcher.pid
    assert cg is not None
    memory = "/" + str(cg.memory.relative_to("/sys/fs/cgroup/memory"))
    raw = sandbox.execute(["cat", "/proc/self/cgroup"], b"", LIMITS)
    assert raw.exit_code == 0, raw.stderr
    lines = _cgroup_lines(raw.stdout.decode())
    assert lines["memory"] == memory
    assert lines["pids"] == "/" + str(cg.pids.relative_to("/sys/fs/cgroup/pids"))
    # The launcher's main thread (its memory's owner) stays outside; one thread is inside.
    main = _cgroup_lines(Path(f"/proc/{pid}/task/{pid}/cgroup").read_text())
    assert main["memory"] != memory
    tids = [int(t) for t in (cg.pids / "tasks").read_text().split()]
    assert len(tids) == 1 and tids[0] != pid and Path(f"/proc/{pid}/task/{tids[0]}").exists()
    # Neither we nor the launcher are leftovers.
    assert str(os.getpid()) not in (cg.pids / "cgroup.procs").read_text().split()
    assert cg.pids_now() == []
    cg.kill_all()
    assert _pid_alive(pid) and sandbox.execute(["true"], b"", LIMITS).exit_code == 0


@needs_v1_root
@pytest.mark.parametrize("helper", [True, False], ids=["exec-helper", "fork"])
@pytest.mark.parametrize(("max_tasks", "second_fork_ok"), [(2, False), (3, True)])
def test_the_program_gets_exactly_max_tasks(
    max_tasks: int, second_fork_ok: bool, helper: bool
) -> None:
    script = "echo one-child-ok & wait; sleep 0.5 & sleep 0.05 && echo second; wait"
    config = SandboxConfig(max_tasks=max_tasks, use_exec_helper=helper)
    with Sandbox(1, config) as sb:
        assert sb.isolation.launcher
        raw = sb.execute(["sh", "-c", script], b"", LIMITS)
    out = raw.stdout.decode()
    assert "one-child-ok" in out, raw.stderr
    assert ("second" in out) is second_fork_ok, (out, raw.stderr)


@needs_v1_root
@pytest.mark.parametrize("helper", [True, False], ids=["exec-helper", "fork"])
def test_leftovers_are_killed_and_reaped_before_the_run_returns(helper: bool) -> None:
    with Sandbox(1, SandboxConfig(max_tasks=4, use_exec_helper=helper)) as sb:
        slot = sb._all_slots[0]
        assert slot.launcher is not None and slot.uid is not None
        start = time.perf_counter()
        raw = sb.execute(["sh", "-c", "sleep 60 & (setsid sleep 60 &) ; exit 0"], b"", LIMITS)
        assert raw.exit_code == 0 and time.perf_counter() - start < 5
        assert processes_of([slot.uid]) == []  # no process and no zombie of the slot's uid
        assert _children(slot.launcher.pid) == []


@needs_v1_root
def test_peak_memory_matches_the_fork_path_within_a_few_mb() -> None:
    if RUBY is None:
        pytest.skip("no Ruby")
    small = [RUBY, "--disable-gems", "-e", "puts 1"]
    big = [RUBY, "--disable-gems", "-e", "s = 'x' * (48 << 20); puts s.size"]
    # Whichever cgroup first reads Ruby's files from disk is charged their page cache (~5 MB):
    # read them here first, so that neither path pays for a cold cache.
    subprocess.run(small, check=True, capture_output=True)
    peaks: dict[bool, list[float]] = {}
    for use_launcher in (True, False):
        with Sandbox(1, SandboxConfig(use_launcher=use_launcher)) as sb:
            assert sb.isolation.launcher is use_launcher
            runs = [sb.execute(argv, b"", LIMITS) for argv in (small, small, big)]
            assert all(r.exit_code == 0 and not r.oom_killed for r in runs)
            peaks[use_launcher] = [r.peak_memory_mb or 0.0 for r in runs]
    new, old = peaks[True], peaks[False]
    assert 1 < new[1] < 32 and 48 < new[2] < 48 + 32
    assert abs(new[1] - old[1]) < 3 and abs(new[2] - old[2]) < 3, (new, old)


@needs_v1_root
def test_changed_memory_limits_apply_and_the_oom_killer_spares_the_launcher(
    sandbox: Sandbox,
) -> None:
    if RUBY is None:
        pytest.skip("no Ruby")
    launcher = sandbox._all_slots[0].launcher
    assert launcher is not None
    pid = launcher.pid
    hog = [RUBY, "--disable-gems", "-e", "s = 'x' * (100 << 20); puts s.size"]
    tight, roomy = Limits(time_s=2.0, memory_mb=64), Limits(time_s=2.0, memory_mb=256)
    got = [sandbox.execute(hog, b"", lim).oom_killed for lim in (tight, tight, roomy, tight)]
    assert got == [True, True, False, True]
    assert launcher.pid == pid and _pid_alive(pid)


@needs_v1_root
def test_a_dead_launcher_is_replaced_between_runs_and_mid_run(sandbox: Sandbox) -> None:
    if RUBY is None:
        pytest.skip("no Ruby")
    slot = sandbox._all_slots[0]
    assert slot.launcher is not None and slot.cgroup is not None and slot.uid is not None
    first = slot.launcher.pid
    os.kill(first, 9)
    raw = sandbox.execute(["sh", "-c", "echo alive"], b"", LIMITS)
    second = slot.launcher.pid
    assert raw.stdout == b"alive\n" and second != first
    assert slot.cgroup.guests == {second: 1}

    killer = threading.Timer(0.3, os.kill, (second, 9))
    killer.start()
    slow = [RUBY, "--disable-gems", "-e", "sleep 0.6; puts 'second try'"]
    raw = sandbox.execute(slow, b"", LIMITS)
    killer.join()
    assert raw.exit_code == 0 and raw.stdout == b"second try\n", raw  # the run was redone
    assert slot.launcher.pid not in (first, second)
    assert processes_of([slot.uid]) == []


@needs_v1_root
def test_a_launcher_that_cannot_be_restarted_is_one_clear_error(sandbox: Sandbox) -> None:
    launcher = sandbox._all_slots[0].launcher
    assert launcher is not None
    launcher.spec = dataclasses.replace(launcher.spec, python="/bin/false")
    os.kill(launcher.pid, 9)
    with pytest.raises(RuntimeError, match=r"launcher of slot 0 died .* could not be restarted"):
        sandbox.execute(["true"], b"", LIMITS)


def test_without_a_launcher_the_sandbox_forks_the_programs_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(launcher_client, "LAUNCHER", Path("/nonexistent/launcher.py"))
    with Sandbox(1) as sb:
        slot = sb._all_slots[0]
        assert not sb.isolation.launcher and slot.launcher is None and slot.fork is not None
        assert sb.execute(["sh", "-c", "echo forked"], b"", LIMITS).stdout == b"forked\n"


@needs_v1_root
def test_two_workers_in_parallel_get_their_own_results_and_nothing_leaks() -> None:
    with Sandbox(2) as sb:
        launchers = [s.launcher for s in sb._all_slots]
        assert all(launchers)
        fds_before = [len(os.listdir(f"/proc/{lau.pid}/fd")) for lau in launchers if lau]
        ours_before = len(os.listdir("/proc/self/fd"))
        results: dict[int, bytes] = {}

        def work(i: int) -> None:
            results[i] = sb.execute(["cat"], str(i).encode(), LIMITS).stdout

        threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == {i: str(i).encode() for i in range(16)}
        assert [len(os.listdir(f"/proc/{lau.pid}/fd")) for lau in launchers if lau] == fds_before
        assert len(os.listdir("/proc/self/fd")) == ours_before
        assert all(_children(lau.pid) == [] for lau in launchers if lau)


@needs_v1_root
def test_close_stops_the_launchers_and_removes_the_cgroups() -> None:
    sb = Sandbox(2)
    dirs = sb.cgroup_dirs
    pids = [s.launcher.pid for s in sb._all_slots if s.launcher]
    assert dirs and len(pids) == 2 and all(map(_pid_alive, pids))
    assert sb.execute(["true"], b"", LIMITS).exit_code == 0
    sb.close()
    assert [p for p in pids if _pid_alive(p)] == []  # exited and reaped (no zombie)
    assert [d for d in dirs if d.exists()] == []


def test_the_launcher_imports_nothing_but_the_standard_library() -> None:
    """It runs with -I -S: the executor's packages (pandas, torch) must never load there."""
    code = (
        "import sys, runpy;"
        f"runpy.run_path({str(launcher_client.LAUNCHER)!r}, run_name='not_main');"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('ramp', 'pandas', 'numpy', 'torch')];"
        "print(bad)"
    )
    import sys

    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
