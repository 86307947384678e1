"""A language runtime, as data: how to syntax-check (or compile) a source file and how to run it.

The sandbox knows nothing about Ruby; a runtime is two command lines with a ``{source}``
placeholder plus the few facts a verdict needs (which stderr text means "out of memory").
A compiled language's check command writes a binary (``binary_name``) that the run command
names as ``{binary}``. ``RUNTIMES`` maps a language name to the function that builds its
runtime; ``dialects.runtime_for_lang`` maps a task's ``lang`` to one.
"""

from __future__ import annotations

import resource
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..tasks import Limits

SOURCE = "{source}"
BINARY = "{binary}"

# Compiles to an instruction sequence without running anything: this catches what `ruby -c`
# lets through (an invalid top-level `break`, for instance) and prints only Ruby's message.
_RUBY_CHECK = (
    "begin; RubyVM::InstructionSequence.compile(File.read(ARGV[0]), File.basename(ARGV[0]));"
    " rescue SyntaxError => e; $stderr.puts(e.message); exit 1; end"
)
# Bundled (not default) gems: with --disable-gems their lib dirs are not on the load path,
# so `require 'prime'` would fail. rubygems-update is a tool, not a library.
_RUBY_GEM_DIRS = (
    "Gem::Specification.reject { |s| s.default_gem? || s.name == 'rubygems-update' }"
    ".flat_map(&:full_require_paths).uniq.each { |d| puts d if File.directory?(d) }"
)

# Compiles without running (compile() never executes the module) and prints what Python itself
# would print for the error, less the "Traceback" lines: file, line, caret and message.
# RecursionError/MemoryError: a source nested too deeply to compile would fail to run too.
_PYTHON_CHECK = (
    "import sys, os, traceback\n"
    "path = sys.argv[1]\n"
    "try:\n"
    "    compile(open(path, 'rb').read(), os.path.basename(path), 'exec', dont_inherit=True)\n"
    "except (SyntaxError, ValueError, RecursionError, MemoryError) as e:\n"
    "    sys.stderr.write(''.join(traceback.format_exception_only(type(e), e)))\n"
    "    sys.exit(1)\n"
)
# Generous: checking is not the program's time; the limits only guard against a hang.
CHECK_LIMITS = Limits(time_s=10.0, memory_mb=512, wall_factor=2.0)

# A judge's flags: -O2 as Codeforces (where the data's programs and verdicts come from)
# compiles, -static and ONLINE_JUDGE as it does too (programs test `#ifndef ONLINE_JUDGE`
# to read a local file instead of stdin; a static binary starts without the dynamic
# loader and maps only itself); -pipe writes no temporary files; -fmax-errors keeps the
# trace agents see to the first errors.
CPP_FLAGS = ("-O2", "-static", "-DONLINE_JUDGE", "-pipe", "-fmax-errors=10")
# Compiling is bounded like running, with its own limits: CPU and memory for a template or
# constexpr bomb, output size for a binary swollen by a huge initialised array.
CPP_COMPILE_LIMITS = Limits(
    time_s=15.0, memory_mb=1024, output_bytes=64 << 20, wall_factor=2.0, wall_grace_s=5.0
)

# Where programs look for executables (the sandbox's PATH): an interpreter is resolved here,
# not on ours, so that a shim in a private home (pyenv's, under /root) is never chosen.
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass(frozen=True)
class Runtime:
    """How to check and run one language's programs.

    ``run_argv`` and ``check_argv`` contain ``{source}`` where the program's path goes.
    ``memory_markers`` are stderr fragments (lower-case) that mean the program ran out of
    memory, for when no cgroup reports it.
    """

    name: str
    source_name: str
    run_argv: tuple[str, ...]
    check_argv: tuple[str, ...] = ()
    memory_markers: tuple[str, ...] = ()
    binary_name: str = ""
    """Compiled languages: the file the check command writes in its working directory; the
    executor keeps it beside the source, and ``{binary}`` in ``run_argv`` is its path."""
    check_limits: Limits = CHECK_LIMITS
    check_tasks: int | None = None
    """Processes the check may run at once; None: the sandbox's ``max_tasks`` (g++ runs
    cc1plus, as, collect2 and ld)."""
    address_space: bool = False
    """The memory limit also bounds the address space and the stack, as a judge of compiled
    programs does (Codeforces counts memory a program reserves, not only what it touches):
    a ``new`` over the limit fails, and a static array over it cannot even be loaded."""

    def host_paths(self) -> tuple[str, ...]:
        """The absolute host paths in the commands (interpreter, -I library directories): the
        sandbox keeps them visible."""
        paths = []
        for arg in (*self.run_argv, *self.check_argv):
            path = arg[2:] if arg.startswith("-I") else arg
            if path.startswith("/"):
                paths.append(path)
        return tuple(dict.fromkeys(paths))

    def run_command(self, source: str, binary: str = "") -> list[str]:
        fill = {SOURCE: source, BINARY: binary}
        return [fill.get(a, a) for a in self.run_argv]

    def run_rlimits(self, limits: Limits) -> tuple[tuple[int, int, int], ...]:
        """The (resource, soft, hard) limits a run needs besides the sandbox's own."""
        if not self.address_space:
            return ()
        size = limits.memory_mb << 20
        return ((resource.RLIMIT_AS, size, size), (resource.RLIMIT_STACK, size, size))

    def check_command(self, source: str) -> list[str]:
        return [source if a == SOURCE else a for a in self.check_argv]


def ruby_gem_dirs(ruby: str) -> list[str]:
    """The require paths of the bundled gems (asked once: this starts Ruby with gems on)."""
    done = subprocess.run(
        [ruby, "-e", _RUBY_GEM_DIRS], capture_output=True, text=True, timeout=60, check=False
    )
    return [line for line in done.stdout.splitlines() if line]


def ruby_runtime(ruby: str = "ruby", gem_dirs: Sequence[str] | None = None) -> Runtime:
    """Ruby run with ``--disable-gems`` (5x faster start) and the bundled gems on -I."""
    exe = shutil.which(ruby)
    if exe is None:
        raise FileNotFoundError(f"Ruby interpreter not found: {ruby}")
    dirs = ruby_gem_dirs(exe) if gem_dirs is None else list(gem_dirs)
    includes = tuple(f"-I{d}" for d in dirs)
    return Runtime(
        name="ruby",
        source_name="main.rb",
        run_argv=(exe, "--disable-gems", *includes, SOURCE),
        check_argv=(exe, "--disable-gems", "-e", _RUBY_CHECK, SOURCE),
        memory_markers=("failed to allocate memory", "nomemoryerror"),
    )


def python_runtime(python: str = "python3", path: str = SYSTEM_PATH) -> Runtime:
    """The system Python, isolated: ``-I`` (no environment, no user site, no script dir on
    sys.path), ``-S`` (no site import: a third faster start; the standard library stays
    importable) and ``-B`` (no .pyc written, the program's directory is read-only anyway).

    ``python`` is looked up on ``path`` (the sandbox's PATH) unless it contains a slash.
    """
    exe = shutil.which(python, path=path)
    if exe is None:
        raise FileNotFoundError(f"Python interpreter not found: {python} (searched {path})")
    flags = ("-I", "-S", "-B")
    return Runtime(
        name="python",
        source_name="main.py",
        run_argv=(exe, *flags, SOURCE),
        check_argv=(exe, *flags, "-c", _PYTHON_CHECK, SOURCE),
        memory_markers=("memoryerror", "cannot allocate memory"),
    )


def cpp_runtime(standard: str = "c++17", compiler: str = "g++", path: str = SYSTEM_PATH) -> Runtime:
    """C++ compiled once by g++ at ``standard`` (``-std=``) into a static binary that each
    test runs; memory is bounded as address space (see ``Runtime.address_space``).

    ``compiler`` is looked up on ``path`` (the sandbox's PATH) unless it contains a slash.
    """
    exe = shutil.which(compiler, path=path)
    if exe is None:
        raise FileNotFoundError(f"C++ compiler not found: {compiler} (searched {path})")
    return Runtime(
        name="cpp",
        source_name="main.cpp",
        run_argv=(BINARY,),
        check_argv=(exe, f"-std={standard}", *CPP_FLAGS, "-o", "main", SOURCE),
        # What libstdc++ prints when `new` fails (the address-space limit was reached).
        memory_markers=("std::bad_alloc",),
        binary_name="main",
        check_limits=CPP_COMPILE_LIMITS,
        check_tasks=8,
        address_space=True,
    )


RUNTIMES: dict[str, Callable[[], Runtime]] = {
    "ruby": ruby_runtime,
    "python": python_runtime,
    "cpp": cpp_runtime,
}
"""Language name -> the function that builds its runtime with the defaults."""


def runtime_named(name: str) -> Runtime:
    """The runtime of language ``name`` (as in ``RUNTIMES``), built with its defaults."""
    factory = RUNTIMES.get(name)
    if factory is None:
        known = ", ".join(sorted(RUNTIMES))
        raise ValueError(f"unknown language {name!r}: known languages are {known}")
    return factory()
