"""The fallback path (no launcher; ``use_launcher=False``): children are forked from a thread
that lives in the slot's cgroups (v1): they start inside, our own process is never killed or
charged, and the limits still hold exactly."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator

import pytest

from ramp.execution.cgroups import version as cgroup_version
from ramp.execution.sandbox import Sandbox, SandboxConfig
from ramp.execution.spawner import SlotThread
from ramp.tasks import Limits

LIMITS = Limits(time_s=1.0, memory_mb=128, output_bytes=1 << 20, wall_factor=2.0)
FORK_PATH = SandboxConfig(use_launcher=False)

needs_v1_root = pytest.mark.skipif(
    os.geteuid() != 0 or cgroup_version() != "v1", reason="needs root and cgroup v1"
)


# -- SlotThread on its own ----------------------------------------------------------------


def test_slot_thread_runs_calls_on_its_own_thread_after_enter_and_leaves_on_close() -> None:
    events: list[tuple[str, int]] = []
    st = SlotThread(
        "t-slot",
        lambda tid: events.append(("enter", tid)),
        lambda tid: events.append(("leave", tid)),
    )
    tid = st.call(threading.get_native_id)
    assert tid != threading.get_native_id()
    assert st.call(lambda: 6 * 7) == 42
    st.close()
    st.close()  # idempotent
    assert events == [("enter", tid), ("leave", tid)]
    with pytest.raises(RuntimeError, match="t-slot has stopped"):
        st.call(lambda: 1)


def test_slot_thread_raises_the_callables_exception_in_the_caller() -> None:
    st = SlotThread("t-slot", lambda tid: None, lambda tid: None)
    with pytest.raises(ZeroDivisionError):
        st.call(lambda: 1 // 0)
    assert st.call(lambda: "still serving") == "still serving"
    st.close()


def test_slot_thread_whose_enter_fails_raises_and_stops() -> None:
    def refuse(tid: int) -> None:
        raise PermissionError(1, "no cgroup for you")

    before = threading.active_count()
    with pytest.raises(PermissionError, match="no cgroup for you"):
        SlotThread("t-slot", refuse, lambda tid: None)
    assert threading.active_count() == before


# -- the sandbox's use of it (real cgroups, real processes) ---------------------------------


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(1, FORK_PATH) as sb:
        yield sb


@needs_v1_root
def test_children_start_inside_the_slot_cgroups(sandbox: Sandbox) -> None:
    slot = sandbox._all_slots[0]
    assert slot.thread is not None and slot.cgroup is not None
    raw = sandbox.execute(["cat", "/proc/self/cgroup"], b"", LIMITS)
    assert raw.exit_code == 0, raw.stderr
    lines = _cgroup_lines(raw.stdout)
    assert lines["memory"] == "/" + str(slot.cgroup.memory.relative_to("/sys/fs/cgroup/memory"))
    assert lines["pids"] == "/" + str(slot.cgroup.pids.relative_to("/sys/fs/cgroup/pids"))


@needs_v1_root
def test_our_own_process_is_listed_in_the_slot_but_never_a_leftover(sandbox: Sandbox) -> None:
    cg = sandbox._all_slots[0].cgroup
    assert cg is not None
    assert str(os.getpid()) in (cg.pids / "cgroup.procs").read_text().split()
    assert cg.pids_now() == []
    cg.kill_all()  # must return, and must not kill this test
    assert sandbox.execute(["true"], b"", LIMITS).exit_code == 0


@needs_v1_root
@pytest.mark.parametrize(("max_tasks", "second_fork_ok"), [(2, False), (3, True)])
def test_the_program_gets_exactly_max_tasks(max_tasks: int, second_fork_ok: bool) -> None:
    """pids.max adds our resident thread, so the program itself gets max_tasks: here the
    shell plus one or two children at once."""
    script = "echo one-child-ok & wait; sleep 0.5 & sleep 0.05 && echo second; wait"
    with Sandbox(1, SandboxConfig(max_tasks=max_tasks, use_launcher=False)) as sb:
        raw = sb.execute(["sh", "-c", script], b"", LIMITS)
    out = raw.stdout.decode()
    assert "one-child-ok" in out, raw.stderr
    assert ("second" in out) is second_fork_ok, (out, raw.stderr)
    assert (b"Cannot fork" in raw.stderr) is not second_fork_ok


@needs_v1_root
def test_peak_memory_is_the_programs_not_the_threads(sandbox: Sandbox) -> None:
    slot = sandbox._all_slots[0]
    assert slot.thread is not None
    ruby = shutil.which("ruby")
    if ruby is None:
        pytest.skip("no Ruby")
    # 96 MiB written by our resident thread: charged to the executor, not to the slot.
    ballast = slot.thread.call(lambda: b"x" * (96 << 20))
    small = sandbox.execute([ruby, "--disable-gems", "-e", "puts 1"], b"", LIMITS)
    big = sandbox.execute(
        [ruby, "--disable-gems", "-e", "s = 'x' * (48 << 20); puts s.size"], b"", LIMITS
    )
    del ballast
    assert small.peak_memory_mb is not None and small.peak_memory_mb < 32
    assert big.peak_memory_mb is not None and 48 < big.peak_memory_mb < 48 + 32
    assert not small.oom_killed and not big.oom_killed


@needs_v1_root
def test_a_changed_memory_limit_is_applied_every_time_and_the_oom_killer_spares_us(
    sandbox: Sandbox,
) -> None:
    """Our thread is in the slot's memory cgroup, but the OOM killer only picks thread-group
    leaders there; 300 MiB of ballast would make this process its first choice otherwise."""
    slot = sandbox._all_slots[0]
    assert slot.thread is not None
    ruby = shutil.which("ruby")
    if ruby is None:
        pytest.skip("no Ruby")
    ballast = slot.thread.call(lambda: b"x" * (300 << 20))
    hog = [ruby, "--disable-gems", "-e", "s = 'x' * (100 << 20); puts s.size"]
    tight, roomy = Limits(time_s=2.0, memory_mb=64), Limits(time_s=2.0, memory_mb=256)
    got = [sandbox.execute(hog, b"", lim).oom_killed for lim in (tight, tight, roomy, tight)]
    assert got == [True, True, False, True]
    assert len(ballast) == 300 << 20


def _cgroup_lines(raw_stdout: bytes) -> dict[str, str]:
    return dict(line.split(":", 2)[1:] for line in raw_stdout.decode().splitlines())


@needs_v1_root
def test_close_stops_the_threads_and_removes_the_cgroups() -> None:
    sb = Sandbox(2, FORK_PATH)
    dirs = sb.cgroup_dirs
    tids = [s.thread.call(threading.get_native_id) for s in sb._all_slots if s.thread]
    assert dirs and len(tids) == 2
    assert sb.execute(["true"], b"", LIMITS).exit_code == 0
    sb.close()
    assert [t for t in tids if os.path.exists(f"/proc/self/task/{t}")] == []
    assert [d for d in dirs if d.exists()] == []


@needs_v1_root
def test_without_a_slot_thread_children_move_in_themselves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ramp.execution import cgroups

    def refuse(self: cgroups.CgroupSlot, tid: int) -> None:
        raise OSError("refused for the test")

    monkeypatch.setattr(cgroups.CgroupSlot, "enter_thread", refuse)
    with Sandbox(1, FORK_PATH) as sb:
        slot = sb._all_slots[0]
        assert slot.thread is None and slot.cgroup is not None
        raw = sb.execute(["cat", "/proc/self/cgroup"], b"", LIMITS)
        assert raw.exit_code == 0, raw.stderr
        assert str(slot.cgroup.pids).endswith(_cgroup_lines(raw.stdout)["pids"])
        assert str(os.getpid()) not in (slot.cgroup.pids / "cgroup.procs").read_text().split()
