"""A language runtime, as data: how to syntax-check a source file and how to run it.

The sandbox knows nothing about Ruby; a runtime is two command lines with a ``{source}``
placeholder plus the few facts a verdict needs (which stderr text means "out of memory").
``RUNTIMES`` maps a language name to the function that builds its runtime.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

SOURCE = "{source}"

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

    def host_paths(self) -> tuple[str, ...]:
        """The absolute host paths in the commands (interpreter, -I library directories): the
        sandbox keeps them visible."""
        paths = []
        for arg in (*self.run_argv, *self.check_argv):
            path = arg[2:] if arg.startswith("-I") else arg
            if path.startswith("/"):
                paths.append(path)
        return tuple(dict.fromkeys(paths))

    def run_command(self, source: str) -> list[str]:
        return [source if a == SOURCE else a for a in self.run_argv]

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


RUNTIMES: dict[str, Callable[[], Runtime]] = {"ruby": ruby_runtime, "python": python_runtime}
"""Language name -> the function that builds its runtime with the defaults."""


def runtime_named(name: str) -> Runtime:
    """The runtime of language ``name`` (as in ``RUNTIMES``), built with its defaults."""
    factory = RUNTIMES.get(name)
    if factory is None:
        known = ", ".join(sorted(RUNTIMES))
        raise ValueError(f"unknown language {name!r}: known languages are {known}")
    return factory()
