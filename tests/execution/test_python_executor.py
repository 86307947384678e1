"""Python programs in the sandbox: every verdict on the real system Python, under both memory
mechanisms (cgroup and RLIMIT_AS), and hostile programs that must get the right verdict AND
leave nothing behind (no process of the sandbox's uids, nothing in its work area, no file
outside it), the same checks as the Ruby hostile tests.
"""

from __future__ import annotations

import shutil
import signal
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ramp.execution.executor import SandboxExecutor
from ramp.execution.runtime import SYSTEM_PATH, python_runtime
from ramp.execution.sandbox import SandboxConfig
from ramp.tasks import Limits, TestCase, TestResult, Verdict

from .conftest import processes_of

if shutil.which("python3", path=SYSTEM_PATH) is None:  # pragma: no cover - Debian has one
    pytest.skip("no system python3", allow_module_level=True)

LIMITS = Limits(time_s=0.5, memory_mb=256, output_bytes=1 << 20, wall_factor=2.0, wall_grace_s=0.5)
ADD = TestCase("1 2\r\n", ("3",))
ADD_PY = "a, b = map(int, input().split())\nprint(a + b)\n"
# The memory tests' limits: the same 256 MB, with time to spare, so that on a loaded machine the
# hog meets the memory limit before any time limit (these tests are about memory, not time).
MEMORY_LIMITS = Limits(time_s=10.0, memory_mb=256, output_bytes=1 << 20, wall_factor=3.0,
                       wall_grace_s=10.0)
HOG = "a = []\nwhile True:\n    a.append(b'x' * 10_000_000)\n"


@pytest.fixture(scope="module")
def py() -> Iterator[SandboxExecutor]:
    with SandboxExecutor(workers=2, runtime=python_runtime()) as ex:
        yield ex


@pytest.fixture(scope="module")
def py_rlimit() -> Iterator[SandboxExecutor]:
    """No cgroup: memory is bounded by RLIMIT_AS (limit + headroom) instead."""
    config = SandboxConfig(use_cgroups=False)
    with SandboxExecutor(workers=1, runtime=python_runtime(), config=config) as ex:
        yield ex


@pytest.fixture
def clean(py: SandboxExecutor) -> Iterator[SandboxExecutor]:
    yield py
    assert processes_of(py.sandbox.uids) == []
    assert py.sandbox.leftovers() == []


def one(
    executor: SandboxExecutor, program: str, test: TestCase = ADD, limits: Limits = LIMITS
) -> TestResult:
    report = executor.run(program, [test], limits)
    assert not report.compile_error, report.compile_error
    assert len(report.results) == 1
    return report.results[0]


# -- verdicts ------------------------------------------------------------------------------


def test_passed_with_sensible_peak_memory(py: SandboxExecutor) -> None:
    r = one(py, ADD_PY)
    assert r.verdict is Verdict.PASSED, r.stderr_tail
    assert r.exit_code == 0 and r.signal is None
    assert r.stdout_tail == "3\n"
    assert 0 < r.wall_s < 5 and r.cpu_s > 0
    assert r.peak_memory_mb is not None and 1 < r.peak_memory_mb < 50


def test_wrong_answer(py: SandboxExecutor) -> None:
    assert one(py, "print(4)").verdict is Verdict.WRONG_ANSWER


def test_exception_is_runtime_error_with_traceback(py: SandboxExecutor) -> None:
    r = one(py, "x = None\nx.foo()\n")
    assert (r.verdict, r.exit_code) == (Verdict.RUNTIME_ERROR, 1)
    assert "AttributeError" in r.stderr_tail and 'main.py", line 2' in r.stderr_tail


def test_sys_exit_3_is_runtime_error(py: SandboxExecutor) -> None:
    """Also shows the syntax check compiles without running: run, this would fail the check."""
    r = one(py, "import sys\nprint(3)\nsys.exit(3)\n")
    assert (r.verdict, r.exit_code, r.note) == (Verdict.RUNTIME_ERROR, 3, "exit code 3")


def test_deep_recursion_is_runtime_error(py: SandboxExecutor) -> None:
    r = one(py, "def f(n):\n    return f(n + 1)\nf(0)\n")
    assert r.verdict is Verdict.RUNTIME_ERROR
    assert "RecursionError" in r.stderr_tail


@pytest.mark.parametrize(
    ("program", "message"),
    [
        ("def f(\nprint(1)\n", "File \"main.py\", line 1\n    def f(\n         ^\n"
                               "SyntaxError: '(' was never closed"),
        ("if 1:\nprint(2)\n", "IndentationError: expected an indented block"),
        ("x = 1\n  y = 2\n", "IndentationError: unexpected indent"),
        ("print(1)\nbreak\n", "SyntaxError: 'break' outside loop"),  # parses, fails to compile
        ("a = 1\x00\n", "ValueError: source code string cannot contain null bytes"),
    ],
)  # fmt: skip
def test_compilation_error_for_every_test(py: SandboxExecutor, program: str, message: str) -> None:
    report = py.run(program, [ADD, ADD, ADD], LIMITS)
    assert message in report.compile_error
    assert "Traceback" not in report.compile_error  # Python's message, not the checker's stack
    assert [r.verdict for r in report.results] == [Verdict.COMPILATION_ERROR] * 3
    assert report.verdict is Verdict.COMPILATION_ERROR and not report.passed


def test_output_of_reports_a_compilation_error(py: SandboxExecutor) -> None:
    out, why = py.output_of("print(1\n", "", LIMITS)
    assert out == "" and why.startswith("COMPILATION_ERROR: ") and "never closed" in why
    assert py.output_of("print(input() * 2)\n", "ab\n", LIMITS) == ("abab\n", "")


def test_time_limit_exceeded_by_a_busy_loop(clean: SandboxExecutor) -> None:
    r = one(clean, "while True:\n    pass\n")
    assert r.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert r.signal in (signal.SIGXCPU, signal.SIGKILL)  # RLIMIT_CPU, or the wall backstop


def test_sleep_forever_hits_the_wall_clock(clean: SandboxExecutor) -> None:
    r = one(clean, "import time\ntime.sleep(1000)\n")
    assert r.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert r.cpu_s < LIMITS.time_s and LIMITS.wall_s <= r.wall_s < LIMITS.wall_s + 2


def test_trapping_signals_does_not_help(clean: SandboxExecutor) -> None:
    program = (
        "import signal\nfor s in ('SIGTERM', 'SIGINT', 'SIGHUP', 'SIGXCPU'):\n"
        "    signal.signal(getattr(signal, s), lambda *a: None)\nwhile True:\n    pass\n"
    )
    assert one(clean, program).verdict is Verdict.TIME_LIMIT_EXCEEDED


@pytest.mark.parametrize("mechanism", ["cgroup", "rlimit"])
def test_memory_limit_256mb(
    mechanism: str, request: pytest.FixtureRequest, py: SandboxExecutor
) -> None:
    """Python starts and runs under the 256 MB limit, may use most of it, and dies above it."""
    ex = py if mechanism == "cgroup" else request.getfixturevalue("py_rlimit")
    if ex.isolation.memory_limit != mechanism:
        pytest.skip(f"memory limit is {ex.isolation.memory_limit}, not {mechanism}")
    assert one(ex, ADD_PY, ADD, MEMORY_LIMITS).verdict is Verdict.PASSED
    big = one(ex, "x = b'x' * (150 << 20)\nprint(len(x) >> 20)\n", TestCase("", ("150",)),
              MEMORY_LIMITS)
    assert big.verdict is Verdict.PASSED, big.stderr_tail
    assert big.peak_memory_mb is not None and 150 < big.peak_memory_mb < 256
    hog = one(ex, HOG, ADD, MEMORY_LIMITS)
    assert hog.verdict is Verdict.MEMORY_LIMIT_EXCEEDED, (hog.note, hog.stderr_tail)
    if mechanism == "rlimit":
        assert "MemoryError" in hog.stderr_tail
    # one allocation far above the limit
    huge = one(ex, "x = bytearray(4 << 30)\n", ADD, MEMORY_LIMITS)
    assert huge.verdict is Verdict.MEMORY_LIMIT_EXCEEDED


def test_output_limit_exceeded(clean: SandboxExecutor) -> None:
    r = one(clean, "while True:\n    print('y' * 1000)\n")
    assert r.verdict is Verdict.OUTPUT_LIMIT_EXCEEDED


def test_stderr_flood(clean: SandboxExecutor) -> None:
    r = one(clean, "import sys\nwhile True:\n    sys.stderr.write('e' * 65536)\n")
    assert r.verdict is Verdict.OUTPUT_LIMIT_EXCEEDED


def test_utf8_input_and_output(py: SandboxExecutor) -> None:
    test = TestCase("añb ✓ 日本\n", ("本日 ✓ bña 8",))
    r = one(py, "s = input()\nprint(s[::-1], len(s))\n", test)
    assert r.verdict is Verdict.PASSED, r.stdout_tail + r.stderr_tail


def test_invalid_utf8_bytes_pass_through(clean: SandboxExecutor) -> None:
    stdin = "ok \udcff\udcfe\n"  # surrogate-escaped bytes 0xff 0xfe reach the program raw
    program = (
        "import sys\ns = sys.stdin.buffer.read()\nsys.stdout.buffer.write(s)\n"
        "sys.exit(0 if len(s) == 6 else 5)\n"
    )
    r = one(clean, program, TestCase(stdin, ("ok",)))
    assert r.exit_code == 0
    assert r.verdict is Verdict.WRONG_ANSWER  # 'ok' plus two undecodable bytes
    assert r.stdout_tail.startswith("ok \ufffd")


# -- hostile -------------------------------------------------------------------------------

OK = TestCase("", ("ok",))


def test_fork_bomb(clean: SandboxExecutor) -> None:
    program = (
        "import os\nwhile True:\n    try:\n        if os.fork() == 0:\n            while True:\n"
        "                try:\n                    os.fork()\n                except OSError:\n"
        "                    pass\n    except OSError:\n        pass\n"
    )
    r = one(clean, program, OK)
    assert r.verdict in (Verdict.TIME_LIMIT_EXCEEDED, Verdict.RUNTIME_ERROR)


@pytest.mark.parametrize(
    "start",
    [
        "import os\npid = os.fork()\nif pid == 0:\n    os._exit(0)",
        "import subprocess\nsubprocess.run(['/bin/true'])",
        "import threading\nthreading.Thread(target=print).start()",
    ],
)
def test_no_child_process_or_thread_can_start(clean: SandboxExecutor, start: str) -> None:
    indented = start.replace("\n", "\n    ")
    program = f"try:\n    {indented}\n    print('started')\nexcept (OSError, RuntimeError):\n"
    program += "    print('ok')\n"
    r = one(clean, program, OK)
    assert r.verdict is Verdict.PASSED, r.stdout_tail + r.stderr_tail


@pytest.mark.parametrize("external", [False, True])
def test_no_network(clean: SandboxExecutor, external: bool) -> None:
    if not clean.isolation.network_namespace:
        pytest.skip("no network namespace (not root)")
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0.3)
        host, port = ("1.1.1.1", 53) if external else server.getsockname()
        program = (
            f"import socket\ns = socket.create_connection(('{host}', {port}), timeout=0.5)\n"
            "s.sendall(b'hi')\nprint('ok')\n"
        )
        r = one(clean, program, OK)
        with pytest.raises(TimeoutError):
            server.accept()
    assert r.verdict is Verdict.RUNTIME_ERROR
    assert "Network is unreachable" in r.stderr_tail


def test_writes_stay_inside_the_private_directory(clean: SandboxExecutor, tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    targets = [
        f"/tmp/{token}",
        f"/var/tmp/{token}",
        f"/dev/shm/{token}",
        f"{tmp_path}/{token}",
        f"/{token}",
        f"{Path.cwd()}/{token}",
        f"/root/{token}",
    ]
    program = (
        f"denied = 0\nfor p in {targets!r}:\n    try:\n        open(p, 'w').write('x')\n"
        "    except OSError:\n        denied += 1\n"
        "open('local.txt', 'w').write('fine')\n"
        f"print('ok' if denied == {len(targets)} else 'escaped')\n"
    )
    r = one(clean, program, OK)
    assert r.verdict is Verdict.PASSED, r.stdout_tail + r.stderr_tail
    for target in targets:
        assert not Path(target).exists(), target


def test_private_files_cannot_be_read(clean: SandboxExecutor) -> None:
    if not clean.isolation.unprivileged_uid:
        pytest.skip("programs run as our own uid (not root)")
    paths = ["/root", "/root/.bashrc", "/proc/1/environ", "/etc/shadow"]
    program = (
        f"import os\nfor p in {paths!r}:\n    try:\n"
        "        os.listdir(p) if os.path.isdir(p) else open(p, 'rb').read()\n"
        "        print('read', p)\n    except OSError:\n        print('ok')\n"
    )
    r = one(clean, program, TestCase("", ("ok\n" * len(paths),)))
    assert r.verdict is Verdict.PASSED, r.stdout_tail + r.stderr_tail


def test_environment_is_scrubbed(clean: SandboxExecutor, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "s3cret-" + uuid.uuid4().hex
    monkeypatch.setenv("RAMP_PLANTED_SECRET", secret)
    monkeypatch.setenv("PYTHONPATH", "/nonexistent/planted")
    r = one(clean, "import os\nprint(sorted(os.environ.items()))\n", OK)
    assert r.verdict is Verdict.WRONG_ANSWER
    assert secret not in r.stdout_tail and "PYTHON" not in r.stdout_tail
    assert "('LANG', 'C.UTF-8')" in r.stdout_tail
