"""Run one command on one input under limits, isolated, and report what happened.

The sandbox is dumb and language-generic: it never judges output. Per run it costs one
fork+exec (the child joins the shared namespaces, sets rlimits and drops to the slot's uid in
``preexec_fn``), three memfds for stdin/stdout/stderr, a pidfd wait, and a mkdir/rmtree of the
private working directory. The child is born inside the slot's cgroups: under cgroup v1 the
fork is done by a thread of ours that lives there (spawner.py), because moving every child in
cost 2-20 ms a run (more under load); under v2 the child still moves itself in.

What it enforces, and how (``Isolation`` records which of these are active):
- CPU time: RLIMIT_CPU a little above the limit (the verdict compares the measured time);
  wall clock: the parent kills the run at ``Limits.wall_s``.
- memory: the slot's cgroup (v1 or v2), else RLIMIT_AS at the limit plus headroom.
- tasks: the cgroup ``pids.max`` counts processes and threads; also RLIMIT_NPROC on the
  slot's own uid. Leftovers are SIGKILLed through the cgroup after every run.
- output: stdout/stderr are memfds capped by RLIMIT_FSIZE (the kernel stops the writer).
- files: an unprivileged uid per slot, a read-only root and a private /tmp (mount namespace);
  the working directory is removed after the run.
- network: a network namespace with no interface up.
- environment: only ``PATH``, ``LANG``, ``LC_ALL``, ``HOME`` and ``TMPDIR`` reach the program.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import os
import queue
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..tasks import Limits
from .cgroups import CgroupSlot, remove_stale
from .cgroups import version as cgroup_version
from .namespaces import NamespaceHolder
from .spawner import SlotThread

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Isolation:
    """Which isolation features are active (they degrade when not root or no cgroup)."""

    network_namespace: bool = False
    mount_namespace: bool = False
    cgroup: str = ""  # "v1", "v2" or "" (none)
    memory_limit: str = "rlimit"  # "cgroup" or "rlimit"
    task_limit: str = ""  # "cgroup", "rlimit" or "" (none)
    unprivileged_uid: bool = False
    env_scrubbed: bool = True


@dataclass(frozen=True)
class SandboxConfig:
    """Knobs of the sandbox; the defaults suit competitive-programming Ruby."""

    max_tasks: int = 1
    """Processes + threads a run may have at once. Ruby needs one; 1 forbids child processes
    (and threads): a fork fails with EAGAIN."""
    base_uid: int = 200000
    """Slots run as uids from base_uid + 64 * (our pid mod 100000) on: one uid per slot, unique
    per executor process, so no program can signal or trace another executor's programs."""
    rlimit_headroom_mb: int = 192
    """Without a cgroup, RLIMIT_AS = memory limit + this (Ruby reserves address space early)."""
    tail_chars: int = 2000
    """How much of stdout/stderr a record keeps."""
    env: tuple[tuple[str, str], ...] = (
        ("PATH", "/usr/local/bin:/usr/bin:/bin"),
        ("LANG", "C.UTF-8"),
        ("LC_ALL", "C.UTF-8"),
    )
    """The whole environment of a program, plus HOME and TMPDIR set to its directory."""
    use_namespaces: bool = True
    use_cgroups: bool = True


@dataclass(frozen=True)
class RawRun:
    """What one sandboxed process did: facts only, no verdict."""

    exit_code: int | None
    signal: int | None
    cpu_s: float
    wall_s: float
    peak_memory_mb: float | None
    stdout: bytes
    stderr: bytes
    wall_killed: bool = False
    oom_killed: bool = False
    output_exceeded: bool = False


@dataclass(frozen=True)
class Staged:
    """Read-only files for a program; ``path`` is where the program sees them."""

    path: str
    host: Path


SETUP_FAILED = "ramp sandbox set-up failed at "


@dataclass(frozen=True)
class _ChildPlan:
    """Everything the child does between fork and exec (only syscalls, no allocation-heavy code)."""

    procs_fds: tuple[int, ...]
    ns_fds: tuple[tuple[int, int], ...]
    setns: Callable[[int, int], None] | None
    cwd: str
    rlimits: tuple[tuple[int, int, int], ...]
    uid: int | None

    def __call__(self) -> None:
        step = "start"
        try:
            pid = str(os.getpid()).encode()
            for fd in self.procs_fds:
                step = f"join cgroup (fd {fd})"
                os.write(fd, pid)
            if self.setns is not None:
                for fd, nstype in self.ns_fds:
                    step = f"setns {nstype:#x}"
                    self.setns(fd, nstype)
            step = f"chdir {self.cwd}"
            os.chdir(self.cwd)
            for res, soft, hard in self.rlimits:
                step = f"setrlimit {res}"
                resource.setrlimit(res, (soft, hard))
            if self.uid is not None:
                step = f"switch to uid {self.uid}"
                os.setgroups([])
                os.setresgid(self.uid, self.uid, self.uid)
                os.setresuid(self.uid, self.uid, self.uid)
        except BaseException as e:
            # subprocess reports only "Exception occurred in preexec_fn"; stderr (already the
            # run's stderr file here) keeps which step failed, for the parent's error message.
            os.write(2, f"{SETUP_FAILED}{step}: {e!r}\n".encode())
            raise


def _setup_failure(fd_err: int) -> str:
    """What a failed child wrote about its set-up; the stderr file is emptied for a retry."""
    size = os.fstat(fd_err).st_size
    text = os.pread(fd_err, min(size, 4096), 0).decode("utf-8", "replace")
    os.ftruncate(fd_err, 0)
    os.lseek(fd_err, 0, os.SEEK_SET)
    start = text.find(SETUP_FAILED)
    return text[start:].strip() if start >= 0 else ""


@dataclass
class _Slot:
    index: int
    uid: int | None
    cgroup: CgroupSlot | None
    thread: SlotThread | None = None
    """Forks this slot's children from inside its cgroups (v1); None: children move in."""

    def fork(self, start: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
        return self.thread.call(start) if self.thread is not None else start()


@dataclass
class _Counter:
    value: Iterator[int] = field(default_factory=itertools.count)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next(self) -> int:
        with self.lock:
            return next(self.value)


_INSTANCES = _Counter()


def _release(slots: list[_Slot], holder: NamespaceHolder | None, tmp: Path | None) -> None:
    for slot in slots:
        if slot.thread is not None:
            slot.thread.close()  # it leaves the cgroups, which can then be removed
        if slot.cgroup is not None:
            slot.cgroup.remove()
    if holder is not None:
        holder.close()
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)


class Sandbox:
    """A pool of ``workers`` isolated slots; ``execute`` is thread-safe (one run per slot)."""

    def __init__(self, workers: int = 2, config: SandboxConfig | None = None) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.config = config or SandboxConfig()
        self._root = os.geteuid() == 0
        self._holder: NamespaceHolder | None = None
        self._tmp: Path | None = None
        self._slots: queue.Queue[_Slot] = queue.Queue()
        self._all_slots: list[_Slot] = []
        self._ids = _Counter()
        self._closed = False
        if self.config.use_namespaces and self._root:
            try:
                self._holder = NamespaceHolder()
            except OSError as e:
                log.warning("sandbox without namespaces: %s", e)
        if self._holder is not None and self._holder.mount:
            self._base = "/tmp"
        else:
            self._tmp = Path(tempfile.mkdtemp(prefix="ramp-sandbox-"))
            self._tmp.chmod(0o755)
            self._base = str(self._tmp)
        tag = f"ramp-{os.getpid()}-{id(self):x}"
        # Two executors in one process get distinct uid blocks too.
        self._first_uid = (
            self.config.base_uid
            + 64 * (os.getpid() % 100000)
            + workers * (_INSTANCES.next() % max(1, 64 // workers))
        )
        if self.config.use_cgroups and cgroup_version() and self._root:
            remove_stale()
        for i in range(workers):
            cg = None
            if self.config.use_cgroups and cgroup_version():
                try:
                    cg = CgroupSlot(f"{tag}-{i}")
                except OSError as e:
                    log.warning("sandbox without cgroups: %s", e)
            uid = self._first_uid + i if self._root else None
            slot = _Slot(i, uid, cg, self._slot_thread(cg, f"ramp-slot-{i}"))
            self._all_slots.append(slot)
            self._slots.put(slot)
        # Runs on close(), on garbage collection, or at interpreter exit, whichever is first.
        self._finalizer = weakref.finalize(
            self, _release, list(self._all_slots), self._holder, self._tmp
        )
        first = self._all_slots[0]
        self.isolation = Isolation(
            network_namespace=self._holder is not None,
            mount_namespace=self._holder is not None and self._holder.mount,
            cgroup=first.cgroup.version if first.cgroup else "",
            memory_limit="cgroup" if first.cgroup else "rlimit",
            task_limit="cgroup" if first.cgroup else ("rlimit" if first.uid else ""),
            unprivileged_uid=first.uid is not None,
        )

    @staticmethod
    def _slot_thread(cg: CgroupSlot | None, name: str) -> SlotThread | None:
        if cg is None or cg.version != "v1":
            return None
        try:
            return SlotThread(name, cg.enter_thread, cg.leave_thread)
        except OSError as e:
            log.warning("sandbox: children will move into their cgroups (slower): %s", e)
            return None

    # -- files -----------------------------------------------------------------------------

    def _host(self, inner: str) -> Path:
        return self._holder.host_path(inner) if self._holder is not None else Path(inner)

    @contextlib.contextmanager
    def stage(self, files: Mapping[str, bytes]) -> Iterator[Staged]:
        """Put read-only ``files`` where programs can read them, for the block's duration."""
        inner = f"{self._base}/p-{self._ids.next()}"
        host = self._host(inner)
        host.mkdir(mode=0o755)
        try:
            for name, data in files.items():
                (host / name).write_bytes(data)
                (host / name).chmod(0o644)
            yield Staged(inner, host)
        finally:
            shutil.rmtree(host, ignore_errors=True)

    def leftovers(self) -> list[str]:
        """Entries in the sandbox's work area (empty between runs, unless a stage is open)."""
        return sorted(p.name for p in self._host(self._base).iterdir())

    @property
    def uids(self) -> list[int]:
        """The uids programs run as (empty when not root)."""
        return [s.uid for s in self._all_slots if s.uid is not None]

    @property
    def cgroup_dirs(self) -> list[Path]:
        return [d for s in self._all_slots if s.cgroup for d in {s.cgroup.memory, s.cgroup.pids}]

    # -- running ---------------------------------------------------------------------------

    def _rlimits(self, limits: Limits, slot: _Slot) -> tuple[tuple[int, int, int], ...]:
        cpu = math.floor(limits.time_s) + 1
        out = [
            (resource.RLIMIT_CPU, cpu, cpu + 1),
            (resource.RLIMIT_CORE, 0, 0),
            (resource.RLIMIT_FSIZE, limits.output_bytes, limits.output_bytes),
        ]
        if slot.cgroup is None:
            as_bytes = (limits.memory_mb + self.config.rlimit_headroom_mb) << 20
            out.append((resource.RLIMIT_AS, as_bytes, as_bytes))
        if slot.uid is not None and slot.cgroup is None:
            # Only without a pids cgroup: the per-uid count lags behind reaping, so with
            # RLIMIT_NPROC a run right after a killed one could fail to exec.
            out.append((resource.RLIMIT_NPROC, self.config.max_tasks, self.config.max_tasks))
        return tuple(out)

    def execute(
        self, argv: Sequence[str], stdin: bytes, limits: Limits, *, env: Mapping[str, str] = {}
    ) -> RawRun:
        """Run ``argv`` with ``stdin`` under ``limits`` in a fresh private directory."""
        if self._closed:
            raise RuntimeError("sandbox is closed")
        slot = self._slots.get()
        try:
            return self._execute(slot, argv, stdin, limits, env)
        finally:
            self._slots.put(slot)

    def _execute(
        self,
        slot: _Slot,
        argv: Sequence[str],
        stdin: bytes,
        limits: Limits,
        extra_env: Mapping[str, str],
    ) -> RawRun:
        inner = f"{self._base}/w-{self._ids.next()}"
        host = self._host(inner)
        host.mkdir(mode=0o700)
        fds: list[int] = []
        try:
            if slot.uid is not None:
                os.chown(host, slot.uid, slot.uid)
            fd_in, fd_out, fd_err = (os.memfd_create(n) for n in ("stdin", "stdout", "stderr"))
            fds += [fd_in, fd_out, fd_err]
            os.write(fd_in, stdin)
            os.lseek(fd_in, 0, os.SEEK_SET)
            cg = slot.cgroup
            if cg is not None:
                cg.prepare(limits.memory_mb << 20, self.config.max_tasks)
            plan = _ChildPlan(
                procs_fds=cg.procs_fds if cg is not None and slot.thread is None else (),
                ns_fds=tuple(self._holder.fds) if self._holder is not None else (),
                setns=self._holder.setns if self._holder is not None else None,
                cwd=inner,
                rlimits=self._rlimits(limits, slot),
                uid=slot.uid,
            )
            env = {**dict(self.config.env), "HOME": inner, "TMPDIR": inner, **extra_env}
            start = time.perf_counter()
            proc = self._spawn(argv, fd_in, fd_out, fd_err, env, plan, slot)
            wall_killed = not self._wait(proc.pid, limits.wall_s)
            if wall_killed:
                self._kill(proc.pid, cg)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            self._kill(proc.pid, cg)  # whatever it forked or daemonised
            return self._record(proc.returncode, usage, wall, wall_killed, cg, fds, limits)
        finally:
            for fd in fds:
                os.close(fd)
            shutil.rmtree(host, ignore_errors=True)

    @staticmethod
    def _spawn(
        argv: Sequence[str],
        fd_in: int,
        fd_out: int,
        fd_err: int,
        env: Mapping[str, str],
        plan: _ChildPlan,
        slot: _Slot,
        attempts: int = 3,
    ) -> subprocess.Popen[bytes]:
        """Start the child; retry when its set-up fails transiently.

        Under heavy load the set-up between fork and exec (cgroup attach, setns, exec itself)
        has been seen to fail with EAGAIN now and then; that is the machine's fault, never
        the program's, so it is retried rather than reported as a verdict.
        """

        def start() -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                list(argv),
                stdin=fd_in,
                stdout=fd_out,
                stderr=fd_err,
                env=env,
                preexec_fn=plan,
                start_new_session=True,
                close_fds=True,
            )

        for attempt in range(1, attempts + 1):
            try:
                return slot.fork(start)
            except (subprocess.SubprocessError, BlockingIOError) as e:
                if slot.cgroup is not None:
                    slot.cgroup.kill_all()
                why = _setup_failure(fd_err) or str(e)
                if attempt == attempts:
                    raise RuntimeError(
                        f"sandbox: could not start {argv[0]} after {attempts} attempts: {why}"
                    ) from e
                log.warning("sandbox: starting %s failed (%s); retrying", argv[0], why)
                time.sleep(0.05 * attempt)
        raise AssertionError("unreachable")

    @staticmethod
    def _wait(pid: int, timeout_s: float) -> bool:
        """Wait until ``pid`` exits or ``timeout_s`` passes; True if it exited."""
        pidfd = os.pidfd_open(pid)
        try:
            ready, _, _ = select.select([pidfd], [], [], timeout_s)
            return bool(ready)
        finally:
            os.close(pidfd)

    @staticmethod
    def _kill(pid: int, cg: CgroupSlot | None) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        if cg is not None:
            cg.kill_all()

    def _record(
        self,
        code: int,
        usage: resource.struct_rusage,
        wall: float,
        wall_killed: bool,
        cg: CgroupSlot | None,
        fds: list[int],
        limits: Limits,
    ) -> RawRun:
        _, fd_out, fd_err = fds
        out_size, err_size = os.fstat(fd_out).st_size, os.fstat(fd_err).st_size
        stdout = os.pread(fd_out, out_size, 0)
        tail = 4 * self.config.tail_chars
        stderr = os.pread(fd_err, min(err_size, tail), max(0, err_size - tail))
        peak = cg.peak_bytes() if cg is not None else None
        peak_mb = peak / 2**20 if peak is not None else usage.ru_maxrss / 1024
        sig = -code if code < 0 else None
        return RawRun(
            exit_code=code if code >= 0 else None,
            signal=sig,
            cpu_s=usage.ru_utime + usage.ru_stime,
            wall_s=wall,
            peak_memory_mb=round(peak_mb, 2),
            stdout=stdout,
            stderr=stderr,
            wall_killed=wall_killed,
            oom_killed=cg.oom_killed() if cg is not None else False,
            output_exceeded=sig == signal.SIGXFSZ or max(out_size, err_size) >= limits.output_bytes,
        )

    # -- lifetime --------------------------------------------------------------------------

    def close(self) -> None:
        """Remove cgroups, stop the namespace holder, delete temp dirs (idempotent)."""
        self._closed = True
        self._finalizer()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
