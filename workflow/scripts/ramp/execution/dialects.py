"""A task's ``lang`` (the dialect its program was submitted as) -> the runtime that runs it.

xCodeEval's ``lang`` names Codeforces' compilers. A GNU dialect maps to the standard that
compiler used: Codeforces passed ``-std=c++11/14/17`` (``c++0x`` is GCC's old name of c++11),
and "GNU C++" (G++ 4.x/5.1 with no ``-std``) compiled GCC's default of then, gnu++98. MSVC
has no GNU standard, so "MS C++" (Visual C++ 2010, which had most of C++0x) maps to gnu++11
and "MS C++ 2017" (whose default is /std:c++14) to gnu++14; the gnu dialects because MSVC,
too, accepts more than the standard. MSVC-only code (``__int64``, ``<conio.h>``) still fails
to compile with g++: that is a finding about the data, not something to paper over.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterable, Iterator

from .executor import SandboxExecutor
from .runtime import Runtime, cpp_runtime, python_runtime, ruby_runtime
from .sandbox import SandboxConfig

CPP_STANDARDS: dict[str, str] = {
    "GNU C++": "gnu++98",
    "GNU C++0x": "c++11",
    "GNU C++11": "c++11",
    "GNU C++14": "c++14",
    "GNU C++17": "c++17",
    "Clang++17 Diagnostics": "c++17",
    "MS C++": "gnu++11",
    "MS C++ 2017": "gnu++14",
}
"""xCodeEval's C++ ``lang`` values -> g++'s ``-std=``."""

_INTERPRETED: dict[str, Callable[[], Runtime]] = {
    "Ruby": ruby_runtime,
    "Python 3": python_runtime,
}


def known_langs() -> list[str]:
    return sorted([*CPP_STANDARDS, *_INTERPRETED])


def runtime_for_lang(lang: str) -> Runtime:
    """The runtime of a task whose ``lang`` is ``lang``; ValueError naming the known ones."""
    if lang in CPP_STANDARDS:
        return cpp_runtime(CPP_STANDARDS[lang])
    factory = _INTERPRETED.get(lang)
    if factory is None:
        raise ValueError(f"unknown lang {lang!r}: known are {', '.join(known_langs())}")
    return factory()


@contextlib.contextmanager
def executors_by_lang(
    langs: Iterable[str], workers: int, config: SandboxConfig | None = None
) -> Iterator[dict[str, SandboxExecutor]]:
    """One sandbox (``workers`` slots, ``config`` with the runtimes' paths made visible) and,
    for each of ``langs``, an executor of it running that lang's runtime: tasks of several
    dialects share the workers."""
    runtimes = {lang: runtime_for_lang(lang) for lang in dict.fromkeys(langs)}
    if not runtimes:
        raise ValueError("no lang given")
    visible = tuple(p for rt in runtimes.values() for p in rt.host_paths())
    first = next(iter(runtimes.values()))
    base = config or SandboxConfig()
    config = dataclasses.replace(base, visible_paths=(*base.visible_paths, *visible))
    with SandboxExecutor(workers, runtime=first, config=config) as executor:
        yield {lang: executor.with_runtime(rt) for lang, rt in runtimes.items()}
