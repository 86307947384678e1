"""The executor's side of a worker slot's launcher (launcher.py): start it, hand it runs, notice
that it died and start another, stop it.

The launcher is started with ``subprocess`` (an exec of ``python -I -S launcher.py``, which
``subprocess`` does with vfork: no copy of the executor however large it is), once per slot
and again only if it dies. What it must join (the slot's cgroups, the holder's namespaces) is
described by a ``LauncherSpec`` and handed over as file descriptors at every start.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from .jobs import SETUP_FAILED, Finished, Job, SetupFailed
from .launcher import receive, send

LAUNCHER = Path(__file__).with_name("launcher.py")
START_TIMEOUT_S = 30.0
"""How long a starting launcher may take to say it is ready (Python starts in ~20 ms)."""
REPLY_GRACE_S = 30.0
"""How long past a run's wall limit the reply may take (killing and reaping are quick)."""


@dataclass(frozen=True)
class LauncherSpec:
    """What a slot's launcher joins at start; re-opened at every (re)start."""

    name: str
    join_thread: tuple[str, ...] = ()
    """cgroup v1 ``tasks`` files its serving thread joins (its memory stays charged outside)."""
    join_process: tuple[str, ...] = ()
    """cgroup v2 ``cgroup.procs`` files the whole launcher joins."""
    pids_dir: str = ""
    """The slot's pids cgroup, where it finds what a program left behind."""
    ns_fds: tuple[tuple[int, int], ...] = ()
    """(fd, nstype) of the namespaces to enter; the fds stay ours (the holder's)."""
    python: str = sys.executable
    exec_helper: str = ""
    """The exec helper's path as the launcher sees it (inside the namespaces); "": fork."""


class LauncherDied(RuntimeError):
    """The launcher exited or stopped answering; a run in progress was lost."""


class Launcher:
    """One slot's launcher process; one run at a time (the sandbox holds the slot)."""

    def __init__(self, spec: LauncherSpec) -> None:
        self.spec = spec
        self._proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()  # close() may come from another thread mid-run
        self._start()

    @property
    def pid(self) -> int:
        return self._proc.pid if self._proc is not None else 0

    def _start(self) -> None:
        spec = self.spec
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        opened: list[int] = []
        try:
            args = ["--socket", str(theirs.fileno())]
            for flag, paths, mode in (
                ("--join-thread", spec.join_thread, os.O_WRONLY),
                ("--join-process", spec.join_process, os.O_WRONLY),
                ("--pids-dir", (spec.pids_dir,) if spec.pids_dir else (), os.O_RDONLY),
            ):
                fds = [os.open(p, mode | os.O_CLOEXEC) for p in paths]
                opened += fds
                if fds:
                    args += [flag, ",".join(map(str, fds))]
            for fd, nstype in spec.ns_fds:
                args += ["--setns", f"{fd}:{nstype:#x}"]
            if spec.exec_helper:
                args += ["--exec-helper", spec.exec_helper]
            self._proc = subprocess.Popen(
                [spec.python, "-I", "-S", str(LAUNCHER), *args],
                pass_fds=(theirs.fileno(), *opened, *(fd for fd, _ in spec.ns_fds)),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env={},
                # Not in our session: a Ctrl-C meant for us must not kill it mid-run (it
                # exits when our end of the socket closes, also when we die).
                start_new_session=True,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
            for fd in opened:
                os.close(fd)
        self._sock = ours
        try:
            ours.settimeout(START_TIMEOUT_S)
            message, _ = receive(ours)
            why = str(message.get("error", "")) or f"unexpected first message {message}"
        except (OSError, EOFError, ValueError) as e:
            message, why = {}, f"no ready message ({type(e).__name__}: {e})"
        if "ready" not in message:
            self._stop(kill=True)
            raise OSError(f"launcher {spec.name} did not start: {why}")

    def run(self, job: Job, fds: tuple[int, int, int]) -> Finished:
        """Run ``job`` with ``fds`` as its stdin, stdout and stderr.

        SetupFailed: a step before exec failed (nothing ran). OSError: the program could not
        be executed (e.g. FileNotFoundError). LauncherDied: start another (``restart``).
        """
        if self._sock is None:
            raise LauncherDied(f"launcher {self.spec.name} is stopped")
        request = {
            "argv": list(job.argv),
            "env": dict(job.env),
            "cwd": job.cwd,
            "uid": job.uid,
            "rlimits": [list(r) for r in job.rlimits],
            "wall_s": float(job.wall_s),
        }
        try:
            send(self._sock, request, fds)
            self._sock.settimeout(job.wall_s + REPLY_GRACE_S)
            reply, _ = receive(self._sock)
        except TimeoutError as e:
            pid = self.pid
            self._stop(kill=True)
            raise LauncherDied(
                f"launcher {self.spec.name} (pid {pid}) gave no reply within "
                f"{job.wall_s + REPLY_GRACE_S:.0f} s"
            ) from e
        except (OSError, EOFError) as e:
            pid = self.pid
            self._stop(kill=False)  # dead, or exiting: it kills a program still running
            code = self._proc.returncode if self._proc is not None else None
            raise LauncherDied(
                f"launcher {self.spec.name} (pid {pid}) is gone (exit status {code}): {e}"
            ) from e
        if "error" in reply:
            raise RuntimeError(f"sandbox: launcher {self.spec.name}: {reply['error']}")
        if "setup" in reply:
            code = int(reply.get("errno", 0))
            if reply.get("exec") and code and code != errno.EAGAIN:
                raise OSError(code, os.strerror(code), job.argv[0])
            raise SetupFailed(SETUP_FAILED + str(reply["setup"]))
        return Finished(
            status=int(reply["status"]),
            cpu_s=float(reply["cpu_s"]),
            wall_s=float(reply["wall_s"]),
            maxrss_kb=int(reply["maxrss_kb"]),
            wall_killed=bool(reply["wall_killed"]),
        )

    def restart(self) -> None:
        """Stop this launcher (if it still runs) and start a fresh one (OSError if it can't)."""
        self._stop(kill=True)
        self._start()

    def _stop(self, kill: bool) -> None:
        with self._lock:
            sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes a run waiting for a reply
            sock.close()
        if self._proc is None:
            return
        if kill:
            self._proc.kill()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

    def close(self) -> None:
        """Let the launcher exit (it kills a program still running first); idempotent."""
        self._stop(kill=False)
