"""Run one command on one input under limits, isolated, and report what happened.

The sandbox is dumb and language-generic: it never judges output. Each worker slot has a
launcher, a small stdlib-only process started once (launcher.py) that joined the slot's
cgroups and the shared namespaces; per run the sandbox sends it the job and three memfds
(stdin/stdout/stderr) over a Unix socket, and it forks+execs the program (rlimits, uid drop,
fd redirection in the child), waits with a wall-clock limit, kills and reaps what is left
and replies with the exit status and CPU time. Forking that small process instead of the
executor (which imports pandas and may hold a model) is what keeps a run's overhead low; the
children are born inside the slot's cgroups, so nothing migrates per run. Where no launcher
can start, the executor forks the programs itself (spawner.py). Around that, a run costs a
mkdir/rmtree of the private working directory and a few cgroup file reads and writes.

What it enforces, and how (``Isolation`` records which of these are active):
- CPU time: RLIMIT_CPU a little above the limit (the verdict compares the measured time);
  wall clock: the run is killed at ``Limits.wall_s``.
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
import dataclasses
import itertools
import logging
import math
import os
import queue
import resource
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..tasks import Limits
from . import exec_helper
from .cgroups import CgroupSlot, remove_stale
from .cgroups import version as cgroup_version
from .jobs import Finished, Job, SetupFailed
from .launcher_client import Launcher, LauncherDied, LauncherSpec
from .namespaces import NamespaceHolder, hidden_entries
from .spawner import ForkSpawner, SlotThread

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
    launcher: bool = False  # programs start from a per-slot launcher, not a fork of ours
    exec_helper: bool = False  # the launcher spawns them through exec_helper.c (no fork)
    hidden: tuple[str, ...] = ()  # top-level host paths covered in the mount namespace


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
    visible_paths: tuple[str, ...] = ()
    """Host paths programs must see besides the system directories (namespaces.SYSTEM_DIRS):
    the executor adds its runtime's interpreter and library paths; every other top-level entry
    of / is hidden from the programs (the data set with its hidden tests included)."""
    use_cgroups: bool = True
    use_launcher: bool = True
    """Start programs from a small per-slot launcher process (launcher.py); False, or if it
    cannot start: fork the executor for every program (slower the larger the executor)."""
    use_exec_helper: bool = True
    """The launcher starts programs through a small C helper (exec_helper.c, built once with
    the C compiler and cached) with posix_spawn, not a fork of itself: ~1-3 ms less a run.
    False, or if it cannot be built: the launcher forks and does the same steps in Python."""


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
    files: Mapping[str, bytes] = field(default_factory=dict)
    """The regular files named in ``execute(keep=...)`` that the run left in its directory
    (a compiler's output)."""


@dataclass(frozen=True)
class Staged:
    """Read-only files for a program; ``path`` is where the program sees them."""

    path: str
    host: Path

    def put(self, name: str, data: bytes, *, executable: bool = False) -> None:
        """Add a read-only file (owned by us: a program can run it, never change it)."""
        (self.host / name).write_bytes(data)
        (self.host / name).chmod(0o755 if executable else 0o644)


@dataclass
class _Slot:
    index: int
    uid: int | None
    cgroup: CgroupSlot | None
    launcher: Launcher | None = None
    """Starts this slot's programs; None: ``fork`` does (the executor forks them)."""
    fork: ForkSpawner | None = None

    @property
    def thread(self) -> SlotThread | None:
        """The fallback's thread inside the slot's cgroups (v1), if there is one."""
        return self.fork.thread if self.fork is not None else None


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
        if slot.launcher is not None:
            pid = slot.launcher.pid
            slot.launcher.close()  # it exits, so the slot's cgroups are empty
            if slot.cgroup is not None:
                slot.cgroup.dismiss(pid)
        if slot.fork is not None:
            slot.fork.close()  # its thread leaves the cgroups
        if slot.cgroup is not None:
            slot.cgroup.remove()
    if holder is not None:
        holder.close()
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)


def _merged(
    base: Sequence[tuple[int, int, int]], extra: Sequence[tuple[int, int, int]], max_tasks: int
) -> tuple[tuple[int, int, int], ...]:
    """The sandbox's rlimits with a run's own: ``extra`` wins (RLIMIT_AS included), and
    RLIMIT_NPROC, where the sandbox uses it, follows the run's task limit."""
    merged = {res: (soft, hard) for res, soft, hard in base}
    if resource.RLIMIT_NPROC in merged:
        merged[resource.RLIMIT_NPROC] = (max_tasks, max_tasks)
    for res, soft, hard in extra:
        merged[res] = (soft, hard)
    return tuple((res, soft, hard) for res, (soft, hard) in merged.items())


def _collect(directory: Path, names: Sequence[str]) -> dict[str, bytes]:
    """The regular files ``names`` in a run's directory. The run is over (nothing of it is
    left), but it chose what is there: a symlink or a FIFO under that name is skipped, never
    followed or waited on."""
    found = {}
    for name in names:
        try:
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            fd = os.open(directory / name, flags)
        except OSError:
            continue
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                with os.fdopen(os.dup(fd), "rb") as f:
                    found[name] = f.read()
        finally:
            os.close(fd)
    return found


def _rewind(fds: tuple[int, int, int]) -> None:
    """Make the run's files as new for a retry: the child shared their offsets."""
    fd_in, fd_out, fd_err = fds
    os.lseek(fd_in, 0, os.SEEK_SET)
    for fd in (fd_out, fd_err):
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)


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
                self._holder = NamespaceHolder(hide=hidden_entries(self._visible()))
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
        self._helper = self._place_helper() if self.config.use_launcher else ""
        if self.config.use_cgroups and cgroup_version() and self._root:
            remove_stale()
        # Runs on close(), on garbage collection, or at interpreter exit, whichever is first;
        # it releases every slot appended to the list, also if a later one fails to start.
        self._finalizer = weakref.finalize(self, _release, self._all_slots, self._holder, self._tmp)
        try:
            for i in range(workers):
                self._add_slot(i, tag)
        except BaseException:
            self.close()
            raise
        first = self._all_slots[0]
        self.isolation = Isolation(
            network_namespace=self._holder is not None,
            mount_namespace=self._holder is not None and self._holder.mount,
            cgroup=first.cgroup.version if first.cgroup else "",
            memory_limit="cgroup" if first.cgroup else "rlimit",
            task_limit="cgroup" if first.cgroup else ("rlimit" if first.uid else ""),
            unprivileged_uid=first.uid is not None,
            launcher=first.launcher is not None,
            exec_helper=first.launcher is not None and bool(self._helper),
            hidden=self._holder.hidden if self._holder is not None else (),
        )

    def _visible(self) -> list[str]:
        """What must stay visible: the configured paths, and the Python installation that runs
        the slots' launchers (it may live under a home directory, e.g. pyenv; a virtual
        environment's own folder is not needed once the launcher has started)."""
        return [*self.config.visible_paths, os.path.realpath(sys.executable), sys.base_prefix]

    def _place_helper(self) -> str:
        """Copy the built exec helper into the work area (where programs can run it: the home
        directory it is cached in may be hidden), root-owned and read-only; its inner path,
        or "" (logged) when there is none."""
        if not self.config.use_exec_helper:
            return ""
        built = exec_helper.build()
        if built.path is None:
            log.warning("sandbox: programs start by a fork of the launcher (slower): %s", built.why)
            return ""
        inner = f"{self._base}/{exec_helper.NAME}"
        try:
            shutil.copyfile(built.path, self._host(inner))
            os.chmod(self._host(inner), 0o555)
        except OSError as e:
            log.warning("sandbox: programs start by a fork of the launcher (slower): %s", e)
            return ""
        return inner

    def _add_slot(self, i: int, tag: str) -> None:
        cg = None
        if self.config.use_cgroups and cgroup_version():
            try:
                cg = CgroupSlot(f"{tag}-{i}")
            except OSError as e:
                log.warning("sandbox without cgroups: %s", e)
        slot = _Slot(i, self._first_uid + i if self._root else None, cg)
        self._all_slots.append(slot)
        if self.config.use_launcher:
            slot.launcher = self._start_launcher(cg, f"{tag}-{i}")
        if slot.launcher is None:
            slot.fork = ForkSpawner(
                cg,
                self._slot_thread(cg, f"ramp-slot-{i}"),
                ns_fds=tuple(self._holder.fds) if self._holder is not None else (),
                setns=self._holder.setns if self._holder is not None else None,
            )
        self._slots.put(slot)

    def _launcher_spec(self, cg: CgroupSlot | None, name: str) -> LauncherSpec:
        threads, processes = cg.launcher_files() if cg is not None else ((), ())
        return LauncherSpec(
            name=name,
            join_thread=tuple(map(str, threads)),
            join_process=tuple(map(str, processes)),
            pids_dir=str(cg.pids) if cg is not None else "",
            ns_fds=tuple(self._holder.fds) if self._holder is not None else (),
            exec_helper=self._helper,
        )

    def _start_launcher(self, cg: CgroupSlot | None, name: str) -> Launcher | None:
        try:
            launcher = Launcher(self._launcher_spec(cg, name))
        except OSError as e:
            log.warning("sandbox: %s forks its programs from the executor (slower): %s", name, e)
            return None
        if cg is not None:
            cg.admit(launcher.pid)
        return launcher

    def _restart(self, slot: _Slot, why: str) -> None:
        """Replace a slot's dead launcher; one RuntimeError if no new one starts."""
        assert slot.launcher is not None
        cg = slot.cgroup
        if cg is not None:
            cg.dismiss(slot.launcher.pid)
        log.warning("sandbox: restarting the launcher of slot %d: %s", slot.index, why)
        try:
            slot.launcher.restart()
        except OSError as e:
            raise RuntimeError(
                f"sandbox: the launcher of slot {slot.index} died ({why}) and could not be "
                f"restarted: {e}"
            ) from e
        if cg is not None:
            cg.admit(slot.launcher.pid)

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
            staged = Staged(inner, host)
            for name, data in files.items():
                staged.put(name, data)
            yield staged
        finally:
            shutil.rmtree(host, ignore_errors=True)

    def leftovers(self) -> list[str]:
        """Entries in the sandbox's work area (empty between runs, unless a stage is open),
        but the exec helper."""
        helper = os.path.basename(self._helper)
        return sorted(p.name for p in self._host(self._base).iterdir() if p.name != helper)

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
        self,
        argv: Sequence[str],
        stdin: bytes,
        limits: Limits,
        *,
        env: Mapping[str, str] = {},
        rlimits: Sequence[tuple[int, int, int]] = (),
        max_tasks: int | None = None,
        keep: Sequence[str] = (),
    ) -> RawRun:
        """Run ``argv`` with ``stdin`` under ``limits`` in a fresh private directory.

        ``rlimits``: (resource, soft, hard) triples set besides (or instead of) the sandbox's
        own; ``max_tasks``: this run's process + thread limit (default: the config's);
        ``keep``: names of files the run leaves in its directory to return in
        ``RawRun.files`` (regular files only; the directory is removed all the same).
        """
        if self._closed:
            raise RuntimeError("sandbox is closed")
        tasks = self.config.max_tasks if max_tasks is None else max_tasks
        slot = self._slots.get()
        try:
            return self._execute(slot, argv, stdin, limits, env, (tuple(rlimits), tasks, keep))
        finally:
            self._slots.put(slot)

    def _execute(
        self,
        slot: _Slot,
        argv: Sequence[str],
        stdin: bytes,
        limits: Limits,
        extra_env: Mapping[str, str],
        shape: tuple[tuple[tuple[int, int, int], ...], int, Sequence[str]],
    ) -> RawRun:
        extra_rlimits, max_tasks, keep = shape
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
                cg.prepare(limits.memory_mb << 20, max_tasks)
            job = Job(
                argv=tuple(argv),
                env={**dict(self.config.env), "HOME": inner, "TMPDIR": inner, **extra_env},
                cwd=inner,
                uid=slot.uid,
                rlimits=_merged(self._rlimits(limits, slot), extra_rlimits, max_tasks),
                wall_s=limits.wall_s,
            )
            done = self._run(slot, job, (fd_in, fd_out, fd_err))
            if cg is not None:
                cg.kill_all()  # a guard: whoever ran it has killed its leftovers already
            raw = self._record(done, cg, fds, limits)
            if not keep:
                return raw
            if cg is not None:
                cg.reclaim()  # a build step: its cache must not count in the runs' peaks
            return dataclasses.replace(raw, files=_collect(host, keep))
        finally:
            for fd in fds:
                os.close(fd)
            shutil.rmtree(host, ignore_errors=True)

    def _run(self, slot: _Slot, job: Job, fds: tuple[int, int, int], attempts: int = 3) -> Finished:
        """Run the job on the slot's launcher (or fork); retry when it could not start.

        Under heavy load the set-up between fork and exec has been seen to fail with EAGAIN
        now and then, and a launcher may die (it is restarted); that is the machine's fault,
        never the program's, so it is retried rather than reported as a verdict.
        """
        for attempt in range(1, attempts + 1):
            try:
                if slot.launcher is not None:
                    return slot.launcher.run(job, fds)
                assert slot.fork is not None
                return slot.fork.run(job, fds)
            except LauncherDied as e:
                if self._closed:
                    raise RuntimeError("sandbox is closed") from e
                error: Exception = e
                self._restart(slot, str(e))
            except (SetupFailed, BlockingIOError) as e:
                error = e
            if slot.cgroup is not None:
                slot.cgroup.kill_all()
                if isinstance(error, LauncherDied):
                    slot.cgroup.settle()  # its orphaned program must be reaped first
            _rewind(fds)
            if attempt == attempts:
                raise RuntimeError(
                    f"sandbox: could not start {job.argv[0]} after {attempts} attempts: {error}"
                ) from error
            log.warning("sandbox: starting %s failed (%s); retrying", job.argv[0], error)
            time.sleep(0.05 * attempt)
        raise AssertionError("unreachable")

    def _record(
        self, done: Finished, cg: CgroupSlot | None, fds: list[int], limits: Limits
    ) -> RawRun:
        _, fd_out, fd_err = fds
        out_size, err_size = os.fstat(fd_out).st_size, os.fstat(fd_err).st_size
        stdout = os.pread(fd_out, out_size, 0)
        tail = 4 * self.config.tail_chars
        stderr = os.pread(fd_err, min(err_size, tail), max(0, err_size - tail))
        peak = cg.peak_bytes() if cg is not None else None
        peak_mb = peak / 2**20 if peak is not None else done.maxrss_kb / 1024
        code = done.exit_code
        sig = -code if code < 0 else None
        return RawRun(
            exit_code=code if code >= 0 else None,
            signal=sig,
            cpu_s=done.cpu_s,
            wall_s=done.wall_s,
            peak_memory_mb=round(peak_mb, 2),
            stdout=stdout,
            stderr=stderr,
            wall_killed=done.wall_killed,
            oom_killed=cg.oom_killed() if cg is not None else False,
            output_exceeded=sig == signal.SIGXFSZ or max(out_size, err_size) >= limits.output_bytes,
        )

    # -- lifetime --------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the launchers, remove cgroups, stop the namespace holder, delete temp dirs
        (idempotent)."""
        self._closed = True
        self._finalizer()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
