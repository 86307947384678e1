"""A throw-away one-node Slurm cluster on this machine, for the end-to-end profile test.

Slurm 22.05 from Debian runs as root with every daemon in the foreground: a private munged
(its own key and socket in a temp dir), slurmctld and slurmd on free ports, one node named
after this host with its real CPUs and memory plus one placeholder GPU (a GRES backed by
/dev/null), so that rules asking for `gpu: 1` are scheduled exactly as on a GPU cluster.
Nothing is installed or started at import time; ``LocalSlurm`` is a context manager that
stops every daemon it started, also when the body fails.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGES = ("slurm-wlm", "munge")
DAEMONS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol")
# Debian's compiled-in config path. The plugin's job step strips SLURM_* variables (SLURM_CONF
# among them) before its nested `srun`, so that srun only finds the cluster through this file.
SYSTEM_CONF = Path("/etc/slurm/slurm.conf")


class SlurmUnavailable(RuntimeError):
    """This machine cannot host the test cluster; the message says why."""


@dataclass(frozen=True)
class Node:
    """The one compute node: this host, its CPUs and memory, and placeholder GPUs."""

    name: str
    cpus: int
    memory_mb: int
    gpus: int = 1


@dataclass(frozen=True)
class Ports:
    slurmctld: int
    slurmd: int


def this_node(gpus: int = 1) -> Node:
    """This host as a Slurm node; memory a little under MemTotal, as slurmd measures less."""
    meminfo = Path("/proc/meminfo").read_text(encoding="utf-8")
    total_kb = next(int(line.split()[1]) for line in meminfo.splitlines()
                    if line.startswith("MemTotal:"))
    return Node(
        name=socket.gethostname().split(".")[0],
        cpus=os.cpu_count() or 1,
        memory_mb=int(total_kb / 1024 * 0.95),
        gpus=gpus,
    )


def render_slurm_conf(node: Node, root: Path, ports: Ports, socket_path: Path) -> str:
    """slurm.conf for a one-node cluster whose state, spool and logs live in root."""
    gres = f" Gres=gpu:{node.gpus}" if node.gpus else ""
    return "\n".join([
        "ClusterName=ramptest",
        f"SlurmctldHost={node.name}(127.0.0.1)",
        f"SlurmctldPort={ports.slurmctld}",
        f"SlurmdPort={ports.slurmd}",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={socket_path}",
        "SlurmUser=root",
        "SlurmdUser=root",
        f"StateSaveLocation={root / 'state'}",
        f"SlurmdSpoolDir={root / 'spool'}",
        f"SlurmctldPidFile={root / 'slurmctld.pid'}",
        f"SlurmdPidFile={root / 'slurmd.pid'}",
        f"SlurmctldLogFile={root / 'log' / 'slurmctld.log'}",
        f"SlurmdLogFile={root / 'log' / 'slurmd.log'}",
        # No cgroups in a container: track processes by /proc and bind nothing.
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        # Memory is a consumable resource, so --mem requests are scheduled as on a real cluster.
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_CPU_Memory",
        "SchedulerType=sched/backfill",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "MpiDefault=none",
        "ReturnToService=2",
        # Finished jobs stay visible to squeue/scontrol this long: the plugin's squeue status
        # path needs it, and the test reads the jobs' final states from scontrol.
        "MinJobAge=600",
        "GresTypes=gpu",
        f"NodeName={node.name} NodeAddr=127.0.0.1 CPUs={node.cpus} "
        f"RealMemory={node.memory_mb}{gres} State=UNKNOWN",
        f"PartitionName=main Nodes={node.name} Default=YES MaxTime=INFINITE State=UP",
        "",
    ])


def render_gres_conf(node: Node) -> str:
    """gres.conf for at most one placeholder GPU.

    Slurm wants a device file per GPU; /dev/null stands in (counted, never opened), and a
    GPU line without a file registers as zero GPUs and drains the node.
    """
    if node.gpus > 1:
        raise ValueError(f"the test node has at most one placeholder GPU, not {node.gpus}")
    lines = ["AutoDetect=off"]
    if node.gpus:
        lines.append(f"NodeName={node.name} Name=gpu File=/dev/null Count=1")
    return "\n".join(lines) + "\n"


def _missing_programs() -> list[str]:
    # Daemons live in /usr/sbin, which a non-login PATH may lack.
    path = f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin"
    return [d for d in DAEMONS if shutil.which(d, path=path) is None]


def unavailable_reason() -> str | None:
    """Why this machine cannot host the cluster, or None when it can."""
    if not Path("/etc/debian_version").exists():
        return "not a Debian system (the harness installs Slurm with apt)"
    if os.geteuid() != 0:
        return "not root (slurmctld, slurmd and munged run as root here)"
    missing = _missing_programs()
    if missing and shutil.which("apt-get") is None:
        return f"Slurm is not installed ({', '.join(missing)}) and there is no apt-get"
    if SYSTEM_CONF.exists() and not SYSTEM_CONF.is_symlink():
        return f"{SYSTEM_CONF} exists: a real Slurm is configured here, the harness leaves it alone"
    return None


def ensure_installed() -> None:
    """apt-get install slurm-wlm and munge when any of their programs is missing."""
    if not _missing_programs():
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-qq"],
                ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES]):
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise SlurmUnavailable(f"{' '.join(cmd)} failed: {done.stderr.strip()[-300:]}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tail(path: Path, lines: int = 15) -> str:
    if not path.exists():
        return f"({path.name} not written)"
    return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])


class LocalSlurm:
    """Start munged, slurmctld and slurmd under ``root``; stop them all on exit.

    Client commands find the cluster through ``env`` (SLURM_CONF); jobs' nested ``srun`` finds
    it through a symlink at /etc/slurm/slurm.conf that exists only while the cluster runs.
    """

    def __init__(self, root: Path, node: Node | None = None, start_timeout_s: float = 60.0):
        self.root = root
        self.node = node or this_node()
        self.start_timeout_s = start_timeout_s
        self.conf = root / "slurm.conf"
        self._procs: list[subprocess.Popen[bytes]] = []
        self._linked = False
        self._socket_dir: Path | None = None

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def __enter__(self) -> LocalSlurm:
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _spawn(self, name: str, cmd: list[str]) -> None:
        log = (self.root / "log" / f"{name}.out").open("wb")
        self._procs.append(subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                            env=self.env, start_new_session=True))
        log.close()

    def _start(self) -> None:
        for sub in ("state", "spool", "log"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        # munged refuses a socket whose directories are not searchable by all, which pytest's
        # private temp dirs are not: the socket gets a world-searchable dir of its own.
        self._socket_dir = Path(tempfile.mkdtemp(prefix="ramp-munge-"))
        self._socket_dir.chmod(0o755)
        sock = self._socket_dir / "munge.socket"
        ports = Ports(free_port(), free_port())
        self.conf.write_text(render_slurm_conf(self.node, self.root, ports, sock),
                             encoding="utf-8")
        (self.root / "gres.conf").write_text(render_gres_conf(self.node), encoding="utf-8")
        key = self.root / "munge.key"
        subprocess.run(["mungekey", "--create", f"--keyfile={key}"], check=True,
                       capture_output=True)
        key.chmod(0o400)
        self._spawn("munged", [
            "munged", "--foreground", f"--key-file={key}",
            f"--socket={sock}", f"--pid-file={self.root / 'munged.pid'}",
            f"--seed-file={self.root / 'munge.seed'}",
            f"--log-file={self.root / 'log' / 'munged.log'}",
        ])
        self._wait(sock.exists, "the munged socket")
        if SYSTEM_CONF.is_symlink():
            SYSTEM_CONF.unlink()  # left by a harness that was killed: it points nowhere useful
        SYSTEM_CONF.parent.mkdir(parents=True, exist_ok=True)
        SYSTEM_CONF.symlink_to(self.conf)
        self._linked = True
        self._spawn("slurmctld", ["slurmctld", "-D", "-f", str(self.conf)])
        self._spawn("slurmd", ["slurmd", "-D", "-N", self.node.name, "-f", str(self.conf)])
        self._wait(self._node_idle, "the node to become idle in sinfo")

    def _node_idle(self) -> bool:
        out = self.run(["sinfo", "-h", "-N", "-o", "%t"], check=False)
        return out.strip() == "idle"

    def _wait(self, ready: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            for proc in self._procs:
                if proc.poll() is not None:
                    name = str(proc.args[0])  # type: ignore[index]
                    raise SlurmUnavailable(f"{name} exited with {proc.returncode}:\n"
                                           + _tail(self.root / "log" / f"{name}.out"))
            if ready():
                return
            time.sleep(0.5)
        raise SlurmUnavailable(f"timed out waiting for {what}:\n"
                               + _tail(self.root / "log" / "slurmctld.log"))

    def run(self, cmd: list[str], check: bool = True) -> str:
        """Run a Slurm client command against this cluster; its stdout."""
        done = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=30)
        if check and done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.strip()}")
        return done.stdout

    def job_states(self) -> dict[str, dict[str, str]]:
        """Every job slurmctld still remembers: id -> scontrol's key=value fields."""
        out = self.run(["scontrol", "show", "job", "--oneliner"], check=False)
        jobs: dict[str, dict[str, str]] = {}
        for line in out.splitlines():
            fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
            if "JobId" in fields:
                jobs[fields["JobId"]] = fields
        return jobs

    def stop(self) -> None:
        if any(p.poll() is None for p in self._procs):
            with contextlib.suppress(Exception):
                ids = self.run(["squeue", "-h", "-o", "%i"], check=False).split()
                if ids:
                    self.run(["scancel", *ids], check=False)
        # Reverse order: slurmd before slurmctld before munged, each by its own process id.
        for proc in reversed(self._procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)
        self._procs.clear()
        if self._linked and SYSTEM_CONF.is_symlink() and SYSTEM_CONF.resolve() == self.conf:
            SYSTEM_CONF.unlink()
        self._linked = False
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
            self._socket_dir = None


@contextlib.contextmanager
def local_slurm(root: Path) -> Iterator[LocalSlurm]:
    """Install Slurm if needed and run a one-node cluster under ``root`` for the body."""
    reason = unavailable_reason()
    if reason:
        raise SlurmUnavailable(reason)
    ensure_installed()
    with LocalSlurm(root) as cluster:
        yield cluster
