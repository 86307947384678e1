"""A worker slot's launcher: a small process, standard library only, that starts its programs.

Why it exists: a fork copies the forking process's page tables and mappings, and the child
tears its copy down again at exec, in proportion to that process's memory. The executor
imports pandas (52 MB, ~660 mappings: a trivial run cost ~1.85x a bare Ruby) and in the
workflow may hold a loaded model of several GB. So each slot starts this file once with
``python -I -S`` (no site, no ramp, nothing but the standard library; a fresh exec, never a
fork of the executor), and it forks every program of the slot from its own ~10 MB image.

At start it joins what every program must be in, once, so that its children are born there:
- the slot's cgroups: under v1 only its serving thread joins (``--join-thread``). A child
  starts in the cgroups of the thread that forked it, while the launcher's own memory stays
  charged to its main thread's cgroup (user memory goes to the mm owner's), so the slot's
  peak counts the program only; the OOM killer picks thread-group leaders only, so never the
  launcher. Under v2 all threads share one memory cgroup, so the whole process joins
  (``--join-process``) and the executor subtracts the launcher's charge from the peak;
- the network and mount namespaces of the executor's holder (``--setns FD:NSTYPE``);
- nothing else of the slot: ``--pids-dir FD`` is the slot's pids cgroup, where it finds
  what a program left behind;
- a child subreaper: what a program leaves behind is reparented here and reaped before the
  reply, so no zombie outlives its run (a zombie still counts in ``pids.current``).

With ``--exec-helper PATH`` (exec_helper.c's binary, where the programs can see it) it starts
each program through that helper with ``posix_spawn``: no copy of this process's page tables,
no Python between fork and exec. Without, it forks and does the same steps in Python.

Then it serves run requests on a ``SOCK_SEQPACKET`` socket (``--socket FD``), one at a time;
every message is one ``marshal``-ed dict (both ends run the same interpreter):

- launcher -> executor once: ``{"ready": pid}``, or ``{"error": why}`` and exit;
- executor -> launcher: ``{"argv", "env", "cwd", "uid", "rlimits", "wall_s"}`` with the run's
  stdin, stdout and stderr file descriptors attached (``SCM_RIGHTS``);
- launcher -> executor: ``{"status", "cpu_s", "wall_s", "maxrss_kb", "wall_killed"}``;
  ``{"setup": "STEP: error", "errno": n, "exec": bool}`` when a step between fork and exec
  failed (nothing ran); ``{"error": why}`` for a bad request or a failure of its own.

It exits when the executor closes its end (also when the executor dies, even mid-run: the
program is killed first). It never imports anything from ramp, so this file also works as a
module of the package, where the executor takes ``send`` and ``receive`` from it.
"""

from __future__ import annotations

import array
import contextlib
import errno as errno_module
import marshal
import os
import resource
import select
import signal
import socket
import sys
import threading
import time
from typing import Any

MAX_MESSAGE = 1 << 17
"""Largest message either side sends (argv + env of a run are far smaller)."""
FDS_PER_RUN = 3
PR_SET_CHILD_SUBREAPER = 36
_LEFTOVER_KILL_S = 5.0

Message = dict[str, Any]


# -- the wire -------------------------------------------------------------------------------


def send(sock: socket.socket, message: Message, fds: tuple[int, ...] = ()) -> None:
    """Send one message (with ``fds`` attached); OSError when the peer is gone."""
    data = marshal.dumps(message)
    if len(data) > MAX_MESSAGE:
        raise ValueError(f"launcher message is {len(data)} bytes, over {MAX_MESSAGE}")
    ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
    sock.sendmsg([data], ancillary, socket.MSG_NOSIGNAL)


def receive(sock: socket.socket, max_fds: int = 0) -> tuple[Message, list[int]]:
    """One message and the fds that came with it (close-on-exec); EOFError when the peer is
    gone."""
    fd_size = array.array("i").itemsize
    data, ancillary, flags, _ = sock.recvmsg(
        MAX_MESSAGE + 1, socket.CMSG_SPACE(max(1, max_fds) * fd_size), socket.MSG_CMSG_CLOEXEC
    )
    fds = array.array("i")
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fd_size])
    if not data:
        for fd in fds:
            os.close(fd)
        raise EOFError("launcher socket closed")
    if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC) or len(fds) > max_fds:
        for fd in fds:
            os.close(fd)
        raise ValueError("launcher message truncated or with unexpected file descriptors")
    message = marshal.loads(data)
    if not isinstance(message, dict):
        raise ValueError(f"launcher message is a {type(message).__name__}, not a dict")
    return message, list(fds)


# -- one run --------------------------------------------------------------------------------


def _field(request: Message, name: str, kind: type | tuple[type, ...]) -> Any:
    value = request.get(name)
    if not isinstance(value, kind):
        raise ValueError(f"launcher request: field {name!r} is {value!r}, not {kind}")
    return value


def _child(request: Message, fds: list[int], report: int) -> None:
    """Between fork and exec: every step is named, so a failure says which one. Never returns."""
    step = "start"
    try:
        argv = request["argv"]
        step = "setsid"
        os.setsid()  # its own process group: the whole group is killed at the end
        step = f"chdir {request['cwd']}"
        os.chdir(request["cwd"])
        for res, soft, hard in request["rlimits"]:
            step = f"setrlimit {res}"
            resource.setrlimit(res, (soft, hard))
        uid = request["uid"]
        if uid is not None:
            step = f"switch to uid {uid}"
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        step = "redirect stdin/stdout/stderr"
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        step = f"exec {argv[0]}"
        os.execvpe(argv[0], argv, request["env"])
    except BaseException as e:  # reported to the parent, which decides
        errno = getattr(e, "errno", None) or 0
        with contextlib.suppress(BaseException):
            os.write(report, f"{step}\0{errno}\0{e!r}".encode("utf-8", "replace"))
    finally:
        os._exit(127)


def _read_report(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 4096):
        chunks.append(chunk)
    return b"".join(chunks)


def _signal_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _reap(block: bool) -> None:
    """Reap every child that has ended (``block``: every child, waiting for each)."""
    flags = 0 if block else os.WNOHANG
    while True:
        try:
            pid, _ = os.waitpid(-1, flags)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _describe(pid: int) -> str:
    """``pid (name) state, parent`` from /proc, for an error message."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return f"{pid} (gone)"
    name, _, rest = stat.partition("(")[2].rpartition(")")
    fields = rest.split()
    return f"{pid} ({name}) state {fields[0]}, parent {fields[1]}"


def _listed(pids_dir: int) -> list[int]:
    """The processes in a pids cgroup. Opened afresh every time: under v1 an open
    ``cgroup.procs`` keeps serving the list it first loaded (the kernel caches it per open
    file while it is read), so re-reading one fd would never see a process go."""
    fd = os.open("cgroup.procs", os.O_RDONLY | os.O_CLOEXEC, dir_fd=pids_dir)
    try:
        return [int(p) for p in os.read(fd, 1 << 20).split()]
    finally:
        os.close(fd)


def _kill_leftovers(pgid: int, pids_dir: int | None) -> None:
    """SIGKILL what the program left: its process group, and with a pids cgroup (``pids_dir``)
    everything in the slot but us; then reap it all (we are their subreaper), so nothing of
    the run exists when the executor gets the reply."""
    _signal_group(pgid)
    if pids_dir is None:
        _reap(block=False)
        return
    me = os.getpid()
    deadline = time.monotonic() + _LEFTOVER_KILL_S
    while others := [p for p in _listed(pids_dir) if p != me]:
        for pid in others:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _reap(block=False)
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes survived SIGKILL: {', '.join(map(_describe, others))}")
        time.sleep(0.001)
    _reap(block=True)  # all that is left are our (dying) children


def _spawn(request: Message, fds: list[int], report: int, helper: str) -> int:
    """Start the program through the exec helper (exec_helper.c); its pid. The helper finds
    the report pipe on fd 3 and does the Python path's steps (``_child``) in C."""
    uid = request["uid"]
    args = [helper, "3", request["cwd"], str(-1 if uid is None else uid)]
    args += [str(len(request["rlimits"])), *(str(x) for r in request["rlimits"] for x in r)]
    actions = [(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(fds)]
    actions.append((os.POSIX_SPAWN_DUP2, report, 3))
    return os.posix_spawn(
        helper, args + list(request["argv"]), request["env"], file_actions=actions,
        setsid=True, setsigmask=(), setsigdef=(signal.SIGPIPE, signal.SIGXFSZ),
    )  # fmt: skip


def _failure(report: bytes, helper: bool) -> tuple[str, int, str]:
    """(step, errno, why) from what the child wrote to the report pipe."""
    if helper:  # "STEP\0ERRNO": name the error as Python would
        step, _, number = report.decode("utf-8", "replace").partition("\0")
        code = int(number) if number.isdigit() else 0
        return step, code, repr(OSError(code, os.strerror(code)))
    step, code, why = report.decode("utf-8", "replace").split("\0", 2)
    return step, int(code), why


def run(
    request: Message,
    fds: list[int],
    sock: socket.socket,
    pids_dir: int | None,
    helper: str | None = None,
) -> Message | None:
    """Start one program, wait for it (killing it at the wall clock), clean up, report.

    None: the executor hung up meanwhile (the program was killed; we should exit)."""
    for name, kind in (("argv", list), ("env", dict), ("cwd", str), ("rlimits", list)):
        _field(request, name, kind)
    _field(request, "uid", (int, type(None)))
    wall_limit = float(_field(request, "wall_s", (int, float)))
    if not request["argv"]:
        raise ValueError("launcher request: field 'argv' is empty")
    if len(fds) != FDS_PER_RUN:
        raise ValueError(f"launcher request: {len(fds)} file descriptors, not {FDS_PER_RUN}")
    report_r, report_w = os.pipe()  # both close-on-exec: exec closes the child's end
    start = time.perf_counter()
    try:
        pid = _spawn(request, fds, report_w, helper) if helper else os.fork()
    except OSError as e:
        os.close(report_r)
        os.close(report_w)
        step = "spawn" if helper else "fork"
        return {"setup": f"{step}: {e!r}", "errno": e.errno or 0, "exec": False}
    if pid == 0:
        os.close(report_r)
        _child(request, fds, report_w)
    os.close(report_w)
    try:
        return _supervise(pid, report_r, start, wall_limit, sock, pids_dir, helper is not None)
    except BaseException:
        _signal_group(pid)  # never leave a program running behind an error
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        raise


def _supervise(
    pid: int,
    report: int,
    start: float,
    wall_limit: float,
    sock: socket.socket,
    pids_dir: int | None,
    helper: bool,
) -> Message | None:
    """The parent's part of ``run``, from fork to reply."""
    try:
        failure = _read_report(report)
    finally:
        os.close(report)
    if failure:
        os.waitpid(pid, 0)
        _kill_leftovers(pid, pids_dir)
        step, errno, why = _failure(failure, helper)
        return {"setup": f"{step}: {why}", "errno": errno, "exec": step.startswith("exec")}
    pidfd = os.pidfd_open(pid)
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        poller.register(sock, select.POLLRDHUP)
        events = dict(poller.poll(max(0.0, wall_limit - (time.perf_counter() - start)) * 1000))
        exited = pidfd in events
    finally:
        os.close(pidfd)
    hung_up = sock.fileno() in events
    if not exited:
        _signal_group(pid)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    _kill_leftovers(pid, pids_dir)
    if hung_up:
        return None
    return {
        "status": status,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "wall_s": wall,
        "maxrss_kb": usage.ru_maxrss,
        "wall_killed": not exited,
    }


def serve(sock: socket.socket, pids_dir: int | None, helper: str | None = None) -> int:
    """Say ready, then run requests until the executor closes its end."""
    send(sock, {"ready": os.getpid()})
    while True:
        try:
            request, fds = receive(sock, FDS_PER_RUN)
        except EOFError:
            return 0
        except (ValueError, TypeError) as e:  # marshal's, or a malformed message
            send(sock, {"error": f"bad request: {e}"})
            continue
        try:
            reply = run(request, fds, sock, pids_dir, helper)
        except Exception as e:  # the executor turns it into one error line
            reply = {"error": f"{type(e).__name__}: {e}"}
        finally:
            for fd in fds:
                os.close(fd)
        if reply is None:
            return 0
        send(sock, reply)


# -- start-up -------------------------------------------------------------------------------


class _Libc:
    """The two libc calls Python 3.11 lacks (``prctl``, ``setns``), as OSError-raising methods."""

    def __init__(self) -> None:
        import ctypes

        self._ctypes = ctypes
        self._libc = ctypes.CDLL(None, use_errno=True)
        ulong = ctypes.c_ulong
        self._libc.prctl.argtypes = (ctypes.c_int, ulong, ulong, ulong, ulong)
        self._libc.setns.argtypes = (ctypes.c_int, ctypes.c_int)

    def _check(self, result: int, what: str) -> None:
        if result != 0:
            err = self._ctypes.get_errno()
            raise OSError(err, f"{what}: {os.strerror(err)}")

    def prctl(self, option: int, value: int) -> None:
        self._check(self._libc.prctl(option, value, 0, 0, 0), "prctl")

    def setns(self, fd: int, nstype: int) -> None:
        self._check(self._libc.setns(fd, nstype), "setns")


def _join_cgroups(fds: list[int], ident: int) -> None:
    for fd in fds:
        os.write(fd, str(ident).encode())
        os.close(fd)


def _parse(argv: list[str]) -> dict[str, list[str]]:
    options: dict[str, list[str]] = {}
    if len(argv) % 2:
        raise ValueError(f"launcher: options come in pairs, got {argv}")
    for key, value in zip(argv[::2], argv[1::2], strict=True):
        if key not in (
            "--socket", "--join-thread", "--join-process", "--setns", "--pids-dir", "--exec-helper"
        ):
            raise ValueError(f"launcher: unknown option {key}")
        options.setdefault(key, []).append(value)
    if "--socket" not in options:
        raise ValueError("launcher: --socket FD is required")
    return options


def _fds(options: dict[str, list[str]], key: str) -> list[int]:
    return [int(fd) for value in options.get(key, []) for fd in value.split(",") if fd]


def main(argv: list[str]) -> int:
    options = _parse(argv)
    sock = socket.socket(fileno=int(options["--socket"][0]))
    sock.set_inheritable(False)
    for fd in (0, 1, 2):  # the program's fds must land on 0-2, never on a hole of ours
        try:
            os.fstat(fd)
        except OSError:
            os.dup2(os.open(os.devnull, os.O_RDWR), fd)
    # Python ignores these two; a program must get the default (SIGXFSZ ends an output flood).
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    pids_dir = int(options["--pids-dir"][0]) if "--pids-dir" in options else None
    helper = options["--exec-helper"][0] if "--exec-helper" in options else None
    if pids_dir is not None:
        os.set_inheritable(pids_dir, False)
    step = "start"
    try:
        libc = _Libc()
        step = "become a child subreaper"
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1)
        step = "join cgroup"
        _join_cgroups(_fds(options, "--join-process"), os.getpid())
        for pair in options.get("--setns", []):
            fd, _, nstype = pair.partition(":")
            step = f"setns {nstype}"
            libc.setns(int(fd), int(nstype, 0))
            os.close(int(fd))
        if helper is not None and not os.access(helper, os.X_OK):
            step = f"exec helper {helper}"
            raise OSError(errno_module.ENOENT, "not an executable file here")
    except OSError as e:
        send(sock, {"error": f"{step}: {e!r}"})
        return 1
    join_thread = _fds(options, "--join-thread")
    if not join_thread:
        return serve(sock, pids_dir, helper)
    # v1: only the serving thread joins; the main thread (the mm owner) stays outside.
    result = [1]

    def serving_thread() -> None:
        try:
            _join_cgroups(join_thread, threading.get_native_id())
        except OSError as e:
            send(sock, {"error": f"join cgroup (thread): {e!r}"})
            return
        result[0] = serve(sock, pids_dir, helper)

    thread = threading.Thread(target=serving_thread, name="launcher")
    thread.start()
    thread.join()
    return result[0]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
