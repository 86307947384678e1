"""Per-worker cgroups: a memory limit with an exact peak, a task (process + thread) limit, and
a reliable way to kill everything a program left behind.

One cgroup pair per worker slot is created once and reused (limits rewritten, peak reset
before each run), because mkdir/rmdir per test would cost more than the run's overhead budget.
Children are born inside instead of migrating: the slot's launcher process joins once
(``admit``; under v1 only its forking thread, see launcher.py), or, as a fallback, one thread
of the executor lives in the slot (``enter_thread``; spawner.py). ``pids.max`` counts those
tasks too, and the leftover killer spares them.
cgroup v1 (separate ``memory`` and ``pids`` hierarchies) and v2 (one unified hierarchy) are
both handled; where neither is writable, ``open_slot`` raises OSError and the sandbox falls
back to rlimits.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")


def _own_path(controller: str) -> str:
    """This process's cgroup path in ``controller``'s hierarchy ('' = the v2 unified one)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return path
    return "/"


def version() -> str:
    """'v1', 'v2' or '' (none usable)."""
    if (ROOT / "memory" / "memory.limit_in_bytes").exists() and (ROOT / "pids").is_dir():
        return "v1"
    if (ROOT / "cgroup.controllers").exists():
        return "v2"
    return ""


def _write(path: Path, value: str | int) -> None:
    path.write_text(str(value))


def _try_write(path: Path, value: str | int) -> None:
    with contextlib.suppress(OSError):
        _write(path, value)


def slot_parents() -> list[Path]:
    """Where slot cgroups are created: under our own cgroup (v1), beside it (v2)."""
    v = version()
    if v == "v1":
        return [ROOT / c / _own_path(c).lstrip("/") for c in ("memory", "pids")]
    if v == "v2":
        own = ROOT / _own_path("").lstrip("/")
        return [own.parent if own != ROOT else ROOT]
    return []


def remove_stale(prefix: str = "ramp-") -> list[Path]:
    """Remove empty slot cgroups (``ramp-PID-...``) whose creating process is gone.

    close() and the finaliser remove an executor's cgroups; this catches executors that were
    SIGKILLed. rmdir refuses a cgroup that still holds processes, so those stay.
    """
    removed = []
    for parent in slot_parents():
        for d in parent.glob(f"{prefix}*"):
            pid = d.name.split("-")[1] if d.name.count("-") >= 2 else ""
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                with contextlib.suppress(OSError):
                    d.rmdir()
                    removed.append(d)
    return removed


class CgroupSlot:
    """The cgroup(s) of one worker slot; see the module docstring."""

    def __init__(self, name: str) -> None:
        self.version = version()
        parents = slot_parents()
        if not parents:
            raise OSError("no cgroup hierarchy found")
        # v2: a leaf beside our own cgroup, because ours holds processes and so (no internal
        # processes rule) cannot have controller-enabled children.
        self.memory = parents[0] / name
        self.memory.mkdir()
        self.pids = parents[-1] / name
        if self.pids != self.memory:
            try:
                self.pids.mkdir()
            except OSError:
                self.memory.rmdir()
                raise
        self._oom_before = 0
        self._limits: tuple[int, int] | None = None
        self._parents = parents
        self.resident: list[int] = []
        """Our own threads inside the slot (thread ids); never killed, counted in pids.max."""
        self.guests: dict[int, int] = {}
        """Processes of ours with tasks inside (launchers): pid -> tasks; never killed, their
        tasks counted in pids.max."""
        self._baseline = 0
        try:
            self.procs_fds = tuple(
                os.open(d / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
                for d in dict.fromkeys((self.memory, self.pids))
            )
        except OSError:
            self.remove()
            raise

    def enter_thread(self, tid: int) -> None:
        """Move our thread ``tid`` into the slot (v1 only: v2 keeps a process's threads in one
        memory cgroup); what it forks from then on starts inside."""
        if self.version != "v1":
            raise OSError(f"cgroup {self.version}: threads cannot join a memory cgroup alone")
        self.resident.append(tid)
        try:
            for d in dict.fromkeys((self.memory, self.pids)):
                _write(d / "tasks", tid)
        except OSError:
            self.leave_thread(tid)
            raise

    def launcher_files(self) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        """Where a launcher writes its id to join: (``tasks`` files for its forking thread, v1;
        ``cgroup.procs`` files for its whole process, v2). One of the two is empty."""
        dirs = tuple(dict.fromkeys((self.memory, self.pids)))
        if self.version == "v1":
            return tuple(d / "tasks" for d in dirs), ()
        return (), tuple(d / "cgroup.procs" for d in dirs)

    def admit(self, pid: int, tasks: int = 1) -> None:
        """Process ``pid`` of ours has ``tasks`` tasks inside: spare it, count them."""
        self.guests[pid] = tasks

    def dismiss(self, pid: int) -> None:
        self.guests.pop(pid, None)

    def leave_thread(self, tid: int) -> None:
        """Move thread ``tid`` back to our own cgroups, so the slot can be removed."""
        for d in dict.fromkeys(self._parents):
            _try_write(d / "tasks", tid)
        if tid in self.resident:
            self.resident.remove(tid)

    def prepare(self, memory_bytes: int, max_tasks: int) -> None:
        """Set the limits for the next run and reset its peak and OOM counters.

        Limits are written only when they differ from the last run's (only we write them):
        consecutive tests of one program share them, and each write is a syscall round trip.
        """
        limits = (memory_bytes, max_tasks + len(self.resident) + sum(self.guests.values()))
        if limits != self._limits:
            self._limits = None  # unknown until every write succeeded
            self._set_limits(*limits)
            self._limits = limits
        if self.version == "v1":
            _write(self.memory / "memory.max_usage_in_bytes", 0)
        else:
            _try_write(self.memory / "memory.peak", 0)  # resettable since Linux 6.12
            # A whole launcher lives in the v2 slot: what it holds now is not the program's.
            self._baseline = int((self.memory / "memory.current").read_text()) if self.guests else 0
        self._oom_before = self._oom_kills()

    def reclaim(self) -> None:
        """Give back the page cache charged to the slot (best effort). A compiler reads
        megabytes of headers; that cache stays charged here and would count in the next runs'
        peak (v1 resets the peak to the current usage, cache included)."""
        if self.version == "v1":
            _try_write(self.memory / "memory.force_empty", 0)
        else:
            with contextlib.suppress(OSError, ValueError):
                usage = int((self.memory / "memory.current").read_text())
                _write(self.memory / "memory.reclaim", usage)

    def _set_limits(self, memory_bytes: int, max_tasks: int) -> None:
        if self.version == "v1":
            mem = self.memory
            # memsw must stay >= limit, so order the two writes by direction.
            _try_write(mem / "memory.memsw.limit_in_bytes", -1)
            _write(mem / "memory.limit_in_bytes", memory_bytes)
            _try_write(mem / "memory.memsw.limit_in_bytes", memory_bytes)
        else:
            _write(self.memory / "memory.max", memory_bytes)
            _try_write(self.memory / "memory.swap.max", 0)
        _write(self.pids / "pids.max", max_tasks)

    def _oom_kills(self) -> int:
        name = "memory.oom_control" if self.version == "v1" else "memory.events"
        for line in (self.memory / name).read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def oom_killed(self) -> bool:
        return self._oom_kills() > self._oom_before

    def peak_bytes(self) -> int | None:
        name = "memory.max_usage_in_bytes" if self.version == "v1" else "memory.peak"
        try:
            return max(0, int((self.memory / name).read_text()) - self._baseline)
        except (OSError, ValueError):
            return None

    def pids_now(self) -> list[int]:
        """Processes in the slot, never ours (we are listed while a thread of ours is inside;
        launchers are guests)."""
        ours = {os.getpid(), *self.guests}
        listed = map(int, (self.pids / "cgroup.procs").read_text().split())
        return [p for p in listed if p not in ours]

    def kill_all(self, timeout_s: float = 5.0) -> None:
        """SIGKILL every process in the slot until none is left (a fork bomb may race us)."""
        deadline = time.monotonic() + timeout_s
        while pids := self.pids_now():
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() > deadline:
                raise RuntimeError(f"cgroup {self.pids} still holds processes {pids}")
            time.sleep(0.001)

    def settle(self, timeout_s: float = 5.0) -> bool:
        """Wait until ``pids.current`` counts only our own tasks; False if it did not in time.

        A killed process counts until its parent reaps it. The launcher reaps what its
        programs leave; but when a launcher dies, its program's parent becomes init, which
        here reaps only every ~2 s, and until then the slot has no room for the next run.
        """
        ours = len(self.resident) + sum(self.guests.values())
        deadline = time.monotonic() + timeout_s
        while int((self.pids / "pids.current").read_text()) > ours:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            self.kill_all()
        for fd in getattr(self, "procs_fds", ()):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.procs_fds = ()
        for d in dict.fromkeys((self.memory, getattr(self, "pids", self.memory))):
            with contextlib.suppress(OSError):
                d.rmdir()
