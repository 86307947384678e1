"""Starting a slot's programs by forking the executor: the fallback when no launcher runs.

Normally each slot's programs are forked by its launcher process (launcher.py), whose small
image makes the fork cheap. Where that cannot start, the executor forks them itself with
``subprocess`` and a ``preexec_fn`` (``ForkSpawner``): that copies the executor's page tables
(5.9 ms from a 52 MB process, far more beside a loaded model), but works anywhere.

Under cgroup v1 the fork is done by a ``SlotThread``, a thread that lives inside the slot's
cgroups, so the processes it forks start there. Moving a process into a cgroup v1 hierarchy is
slow: each write to cgroup.procs write-locks every fork in the system and waits for an RCU
grace period (measured here: ~2 ms at load 1.5, ~20 ms at load 2.6 on 2 cores). Under v1 a
membership belongs to a thread, and a child starts in the cgroups of the thread that forked it.

Why the executor's own process is unaffected: user memory is charged to the cgroup of the
process's main thread (the mm owner), so the slot's counter and peak still see only its
programs (plus the kernel memory of the fork itself, e.g. the child's page tables until exec);
the OOM killer only picks thread-group leaders in a cgroup, so never us; and the sandbox never
signals its own pid, which the slot's cgroup.procs lists. cgroup v2 keeps all threads of a
process in one memory cgroup, so there the children still move themselves in.
"""

from __future__ import annotations

import contextlib
import os
import queue
import resource
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TypeVar

from .cgroups import CgroupSlot
from .jobs import SETUP_FAILED, Finished, Job, SetupFailed

T = TypeVar("T")

_Call = tuple[Callable[[], object], "Future[object]"]


class SlotThread:
    """Runs callables, one at a time, on a thread that ``enter(tid)`` placed (and that calls
    ``leave(tid)`` before it ends, so the slot's cgroups are empty and can be removed)."""

    def __init__(
        self, name: str, enter: Callable[[int], None], leave: Callable[[int], None]
    ) -> None:
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._lock = threading.Lock()  # orders every call before the stop sentinel
        self._stopped = False
        ready: Future[None] = Future()
        # A daemon thread: an executor nobody closed must not hang interpreter exit (the
        # sandbox's finaliser stops the thread at exit anyway).
        self._thread = threading.Thread(
            target=self._serve, args=(enter, leave, ready), name=name, daemon=True
        )
        self._thread.start()
        try:
            ready.result()
        except BaseException:
            self._thread.join()
            raise

    def _serve(
        self, enter: Callable[[int], None], leave: Callable[[int], None], ready: Future[None]
    ) -> None:
        tid = threading.get_native_id()
        try:
            enter(tid)
        except BaseException as e:
            ready.set_exception(e)
            return
        ready.set_result(None)
        try:
            while (item := self._calls.get()) is not None:
                fn, future = item
                try:
                    future.set_result(fn())
                except BaseException as e:
                    future.set_exception(e)
        finally:
            leave(tid)

    def call(self, fn: Callable[[], T]) -> T:
        """``fn()`` run on the thread; its exception, if any, is raised here."""
        future: Future[object] = Future()
        with self._lock:
            if self._stopped:
                raise RuntimeError(f"{self._thread.name} has stopped")
            self._calls.put((fn, future))
        return future.result()  # type: ignore[return-value]

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop the thread once the call in progress (if any) returns (idempotent)."""
        with self._lock:
            if not self._stopped:
                self._stopped = True
                self._calls.put(None)
        self._thread.join(timeout_s)


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


@dataclass(frozen=True)
class ForkSpawner:
    """Runs a slot's jobs by forking the executor (see the module docstring)."""

    cgroup: CgroupSlot | None
    thread: SlotThread | None
    """Forks from inside the slot's cgroups (v1); None: each child moves itself in."""
    ns_fds: tuple[tuple[int, int], ...] = ()
    setns: Callable[[int, int], None] | None = None

    def run(self, job: Job, fds: tuple[int, int, int]) -> Finished:
        """Start ``job`` (SetupFailed if a step before exec failed), wait for it, killing it
        at its wall limit, and kill what it left behind."""
        cg = self.cgroup
        plan = _ChildPlan(
            procs_fds=cg.procs_fds if cg is not None and self.thread is None else (),
            ns_fds=self.ns_fds,
            setns=self.setns,
            cwd=job.cwd,
            rlimits=job.rlimits,
            uid=job.uid,
        )
        start = time.perf_counter()
        proc = self._spawn(job, fds, plan)
        wall_killed = not self._wait(proc.pid, job.wall_s)
        if wall_killed:
            self._kill(proc.pid)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        self._kill(proc.pid)  # whatever it forked or daemonised
        return Finished(status, usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss, wall_killed)

    def _spawn(
        self, job: Job, fds: tuple[int, int, int], plan: _ChildPlan
    ) -> subprocess.Popen[bytes]:
        fd_in, fd_out, fd_err = fds

        def start() -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                list(job.argv),
                stdin=fd_in,
                stdout=fd_out,
                stderr=fd_err,
                env=dict(job.env),
                preexec_fn=plan,
                start_new_session=True,
                close_fds=True,
            )

        try:
            return self.thread.call(start) if self.thread is not None else start()
        except (subprocess.SubprocessError, BlockingIOError) as e:
            # Under heavy load the set-up between fork and exec (cgroup attach, setns, exec
            # itself) has been seen to fail with EAGAIN now and then.
            raise SetupFailed(_setup_failure(fd_err) or str(e)) from e

    @staticmethod
    def _wait(pid: int, timeout_s: float) -> bool:
        """Wait until ``pid`` exits or ``timeout_s`` passes; True if it exited."""
        pidfd = os.pidfd_open(pid)
        try:
            ready, _, _ = select.select([pidfd], [], [], timeout_s)
            return bool(ready)
        finally:
            os.close(pidfd)

    def _kill(self, pid: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        if self.cgroup is not None:
            self.cgroup.kill_all()

    def close(self) -> None:
        if self.thread is not None:
            self.thread.close()  # it leaves the cgroups, which can then be removed
