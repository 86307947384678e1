"""The languages a study can repair programs in, as data.

A study's language (config ``data.language``) is one of :data:`LANGUAGES`; the tasks say theirs
too: xCodeEval's ``lang`` names the dialect a program was submitted as ("Ruby", "GNU C++11"),
and :func:`language_of` maps it to its language. Everything that differs between languages
follows from this record: how prompts name the language and tag its code blocks, which fence
tags an answer may use for it, the executor's runtime (``key`` is the runtime's name in
ramp.execution.runtime.RUNTIMES), the stop rule of a code call (``program:<key>``), and the
few-shot examples (``prompts/<agent>/examples/<key>/``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Language:
    key: str
    """``ruby``, ``cpp`` or ``python``: the config's name, the runtime's, the examples' folder."""
    name: str
    """How prompts name it: ``Ruby``, ``C++``."""
    fence: str
    """The tag prompts put on its code blocks (```ruby, ```cpp)."""
    tags: frozenset[str]
    """The fence tags an answer may put on a program of this language."""
    langs: tuple[str, ...]
    """xCodeEval's ``lang`` values (submission dialects) of this language."""
    suffixes: tuple[str, ...] = ()
    """File name endings of its programs (the first is the one a written program gets)."""
    file_lang: str = ""
    """The ``lang`` a program read from a file is given (``ramp repair``): its dialect."""

    @property
    def stop_rule(self) -> str:
        """The rule that ends a call answered by a program (ramp.llm.answer_end)."""
        return f"program:{self.key}"


RUBY = Language("ruby", "Ruby", "ruby", frozenset({"ruby", "rb"}), ("Ruby",), (".rb",), "Ruby")
CPP = Language(
    "cpp", "C++", "cpp", frozenset({"cpp", "c++", "cc"}),
    # Codeforces' C++ compilers as xCodeEval names them (ramp.execution.dialects maps each to
    # the g++ standard that runs a buggy program as it was submitted).
    ("GNU C++", "GNU C++0x", "GNU C++11", "GNU C++14", "GNU C++17", "Clang++17 Diagnostics",
     "MS C++", "MS C++ 2017"),
    (".cpp", ".cc", ".cxx", ".c++"),
    "GNU C++17",
)
PYTHON = Language("python", "Python", "python", frozenset({"python", "py", "python3"}),
                  ("Python 3",), (".py",), "Python 3")

LANGUAGES: dict[str, Language] = {lang.key: lang for lang in (RUBY, CPP, PYTHON)}
"""Every language by key."""
STUDY_LANGUAGES = ("ruby", "cpp")
"""The languages of the xCodeEval data a study can be configured with (``data.language``)."""


def language(key: str) -> Language:
    """The language called ``key``; ValueError naming the known ones."""
    try:
        return LANGUAGES[key]
    except KeyError:
        raise ValueError(f"unknown language {key!r}: known are {', '.join(LANGUAGES)}") from None


_BY_LANG = {lang: language for language in LANGUAGES.values() for lang in language.langs}


def language_of(lang: str) -> Language:
    """The language of a task whose ``lang`` (xCodeEval's dialect name) is ``lang``."""
    try:
        return _BY_LANG[lang]
    except KeyError:
        raise ValueError(
            f"unknown lang {lang!r}: known are {', '.join(sorted(_BY_LANG))}") from None


def names(keys: Iterable[str]) -> str:
    """How a help text names the languages ``keys``: ``Ruby, C++ or Python``."""
    named = [LANGUAGES[k].name for k in keys]
    return " or ".join([", ".join(named[:-1]), named[-1]] if len(named) > 1 else named)


def suffixes(keys: Iterable[str]) -> str:
    """The file name endings of the languages ``keys``: ``.rb ruby; .cpp .cc .cxx .c++ cpp``."""
    return "; ".join(f"{' '.join(LANGUAGES[k].suffixes)} {k}" for k in keys)


def language_of_file(name: str | Path, lang: str | None = None,
                     keys: Sequence[str] = STUDY_LANGUAGES) -> Language:
    """The language of the program file ``name`` among ``keys``: ``lang`` when given, else the
    one its name's ending says (``buggy.rb``, ``a.cpp``). The one rule of every command that
    reads a program (``ramp run``, ``ramp repair``); ValueError, one line naming the choices."""
    if lang is not None:
        if lang not in keys:
            raise ValueError(f"--lang {lang}: not one of {', '.join(keys)}")
        return LANGUAGES[lang]
    name = Path(name).name
    suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    for key in keys:
        if suffix in LANGUAGES[key].suffixes:
            return LANGUAGES[key]
    raise ValueError(f"{name}: cannot tell the program's language from its name "
                     f"({suffixes(keys)}): rename it or give --lang ({', '.join(keys)})")
