"""One long-lived network + mount namespace that every sandboxed program runs in.

Creating namespaces per run would cost a process (unshare/bwrap) per test; instead a tiny
holder process (``unshare ... cat``) keeps them alive for the executor's lifetime. Each
slot's launcher (launcher.py) calls setns() on its two file descriptors once, at start, so
every program it forks is born inside; where the executor forks programs itself (the
fallback), each child calls setns() before exec, which costs microseconds.

Inside: no network interface is up (not even loopback), the root file system is read-only,
and /tmp is a private tmpfs where the executor creates the programs' directories; /var/tmp,
/run/lock and /dev/shm are covered by empty read-only tmpfs so there is nowhere else to
write. Every top-level entry of / but the system directories (SYSTEM_DIRS) and those the
interpreters live in is covered too (an empty tmpfs, or /dev/null for a file): a program sees no
home directory, no project, and no data set with the hidden tests in it. The holder reads its
stdin, a pipe only we hold, so it exits (and the tmpfs with all it holds vanishes) when we close
it or die.
"""

from __future__ import annotations

import ctypes
import os
import shlex
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

CLONE_FS = 0x00000200
CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000

# The top-level directories a program may need: interpreters, their libraries, /etc, devices.
SYSTEM_DIRS = frozenset(
    {"bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "run", "sbin", "sys", "tmp",
     "usr", "var"}
)

_MOUNT_SCRIPT = """set -e
mount -o remount,bind,ro /
mount -t tmpfs -o mode=0755,size={size} ramp /tmp
for d in /var/tmp /run/lock /dev/shm; do
    [ -d "$d" ] && mount -t tmpfs -o ro,mode=0755,size=4k none "$d"
done
{hide}
echo ready
exec cat >/dev/null
"""
_NET_ONLY_SCRIPT = "echo ready\nexec cat >/dev/null\n"


def hidden_entries(visible: Iterable[str], root: str = "/") -> list[str]:
    """The top-level entries of ``root`` that programs must not see: all but SYSTEM_DIRS, the
    top-level directories of the ``visible`` paths (as given and resolved), and symlinks (they
    lead into a directory that is kept or hidden itself)."""
    keep = set(SYSTEM_DIRS)
    for p in map(Path, visible):
        if not p.is_absolute():
            continue
        for path in (p, p.resolve()):
            if len(path.parts) > 1:
                keep.add(path.parts[1])
    out = []
    for entry in sorted(os.listdir(root)):
        path = os.path.join(root, entry)
        if entry not in keep and not os.path.islink(path) and (
            os.path.isdir(path) or os.path.isfile(path)
        ):
            out.append(path)
    return out


def _hide_lines(paths: Sequence[str]) -> str:
    """Shell lines covering each path; one that cannot be covered is skipped, not fatal. Each
    cover that holds prints ``hidden I`` (I: the path's index), so the holder reports exactly
    what it covered (:func:`covered`)."""
    lines = []
    for i, p in enumerate(paths):
        q = shlex.quote(p)
        if os.path.isdir(p):
            cover = f"mount -t tmpfs -o ro,mode=0755,size=4k none {q}"
        else:
            cover = f"mount --bind -o ro /dev/null {q}"
        lines.append(f"{cover} 2>/dev/null && echo hidden {i} || true")
    return "\n".join(lines)


def covered(paths: Sequence[str], lines: Iterable[bytes]) -> tuple[str, ...]:
    """The paths whose cover the holder reported (``hidden I`` lines), in the given order."""
    done = {int(line.split()[1]) for line in lines if line.startswith(b"hidden ")}
    return tuple(p for i, p in enumerate(paths) if i in done)


class SetNs:
    """libc's setns(), which Python 3.11 lacks; loaded once per executor, called in children
    of the fallback path (the launcher has its own copy: it imports nothing of ours)."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._libc.setns.argtypes = (ctypes.c_int, ctypes.c_int)
        self._libc.unshare.argtypes = (ctypes.c_int,)

    def __call__(self, fd: int, nstype: int) -> None:
        if nstype == CLONE_NEWNS and self._libc.unshare(CLONE_FS) != 0:
            # setns() into a mount namespace fails with EINVAL while the caller shares its
            # file-system attributes with another thread, and a forked child can have one:
            # libraries loaded in the parent (torch, OpenMP) start threads from fork handlers.
            err = ctypes.get_errno()
            raise OSError(err, f"unshare(CLONE_FS): {os.strerror(err)}")
        if self._libc.setns(fd, nstype) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns: {os.strerror(err)}")


class NamespaceHolder:
    """Keeps a network (and, when possible, mount) namespace alive; see the module docstring.

    ``fds`` are (fd, nstype) pairs for setns(); ``host_path(p)`` maps a path inside the
    namespace's private /tmp to one the (root) parent can use: /proc/PID/root/...
    """

    def __init__(self, tmpfs_size: str = "2g", hide: Sequence[str] = ()) -> None:
        if os.geteuid() != 0 or shutil.which("unshare") is None:
            raise OSError("namespaces need root and util-linux unshare")
        self.mount = True
        try:
            self._proc, said = self._start(
                ["--mount", "--net", "--propagation", "private"],
                _MOUNT_SCRIPT.format(size=tmpfs_size, hide=_hide_lines(hide)),
            )
        except OSError:
            self.mount = False
            self._proc, said = self._start(["--net"], _NET_ONLY_SCRIPT)
        self.hidden: tuple[str, ...] = covered(hide, said) if self.mount else ()
        self.pid = self._proc.pid
        self.fds: list[tuple[int, int]] = [
            (os.open(f"/proc/{self.pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC), CLONE_NEWNET)
        ]
        if self.mount:
            mnt = os.open(f"/proc/{self.pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
            self.fds.append((mnt, CLONE_NEWNS))
        self.setns = SetNs()

    @staticmethod
    def _start(flags: list[str], script: str) -> tuple[subprocess.Popen[bytes], list[bytes]]:
        """The running holder and the lines it printed before ``ready``."""
        proc = subprocess.Popen(
            ["unshare", *flags, "--", "sh", "-c", script],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"},
        )
        assert proc.stdout is not None
        said = []
        line = proc.stdout.readline()
        while line.startswith(b"hidden "):
            said.append(line.strip())
            line = proc.stdout.readline()
        if line.strip() != b"ready":
            err = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
            proc.kill()
            proc.wait()
            raise OSError(f"namespace holder failed: {err or 'no ready line'}")
        return proc, said

    def host_path(self, inner: str) -> Path:
        return Path(f"/proc/{self.pid}/root{inner}") if self.mount else Path(inner)

    def close(self) -> None:
        for fd, _ in self.fds:
            os.close(fd)
        self.fds = []
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()
