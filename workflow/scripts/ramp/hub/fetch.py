"""Build one language's task file from the hub's files, write it atomically, and check it."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramp.hub.build import Built, Dropped, build_rows, dumps, parse_jsonl, problems_by_id
from ramp.hub.check import Manifest, differences, manifest_of_bytes, read_manifest
from ramp.hub.layout import PROBLEMS_FILE, REPO_ID, TESTS_FILE, Language, language, split_file
from ramp.hub.source import FetchError, RepoFiles, repo_files
from ramp.io import atomic_open

SPLIT = "validation"


@dataclass(frozen=True)
class FetchSettings:
    """``data.fetch`` in the config: what to build when ``data.jsonl`` is missing."""

    #: the study's language: ``ruby`` or ``cpp`` (ramp.hub.layout.LANGUAGES)
    language: str = "ruby"
    #: a hub dataset id, or a folder with its layout (a clone with its LFS files)
    source: str = REPO_ID
    #: a branch, tag or commit of the hub dataset
    revision: str = "main"


@dataclass(frozen=True)
class Fetched:
    """What was written, and how it compares with the file the study was measured on."""

    path: Path
    rows: int
    sha256: str
    dropped: list[Dropped] = field(default_factory=list)
    #: [] when the file is the measured one (or no manifest was given)
    differences: list[str] = field(default_factory=list)


def _read(files: RepoFiles, name: str, parse: Callable[[str], Any]) -> Any:
    path = files.path(name)
    try:
        return parse(path.read_text(encoding="utf-8"))
    except (ValueError, KeyError, TypeError) as e:  # JSONDecodeError is a ValueError
        raise FetchError(f"{path} is not in the hub's layout ({type(e).__name__}: {e})") from e


def _rows(files: RepoFiles, lang: Language) -> list[dict]:
    return _read(files, split_file(SPLIT, lang.hub_file), parse_jsonl)


def build(files: RepoFiles, lang: Language) -> Built:
    """``lang``'s rows of the split, joined with their problems' statements and hidden tests."""
    # The program rows first: a small download, so an unreachable hub is said soonest.
    rows = _rows(files, lang)
    problems = _read(files, PROBLEMS_FILE, lambda text: problems_by_id(parse_jsonl(text)))
    tests = _read(files, TESTS_FILE, json.loads)
    keep = None
    if lang.problems_of is not None:
        base = language(lang.problems_of)
        base_rows = build_rows(_rows(files, base), language=base, problems=problems, tests=tests)
        keep = frozenset(row["src_uid"] for row in base_rows.rows)
    return build_rows(rows, language=lang, problems=problems, tests=tests, keep_problems=keep)


def fetch_task_file(
    out: str | Path, language_name: str, files: RepoFiles, *, measured: Manifest | None = None
) -> Fetched:
    """Write ``language_name``'s task file to ``out`` (whole or not at all) and check it."""
    lang = language(language_name)
    built = build(files, lang)
    if not built.rows:
        raise FetchError(f"the hub's {SPLIT} split has no usable {lang.lang_cluster} rows")
    data = dumps(built.rows, lang.format).encode("utf-8")
    with atomic_open(out, "wb") as f:
        f.write(data)
    actual = manifest_of_bytes(data)
    found = differences(measured, actual) if measured is not None else []
    return Fetched(Path(out), actual.rows, actual.sha256, built.dropped, found)


def fetch_and_check(
    out: str | Path, settings: FetchSettings, manifests: str | Path, log: logging.Logger
) -> int:
    """Build ``out`` as ``settings`` say and log how it compares with the measured file.

    Returns 0 when the file was written (a difference from the measured file is a warning that
    names it, not a failure), 1 when it could not be built (the error says what to do).
    """
    manifest_path = Path(manifests) / language(settings.language).manifest
    measured = read_manifest(manifest_path) if manifest_path.exists() else None
    try:
        fetched = fetch_task_file(
            out,
            settings.language,
            repo_files(settings.source, settings.revision),
            measured=measured,
        )
    except FetchError as e:
        log.error("error: %s", e)
        return 1
    for dropped in fetched.dropped:
        log.warning("left out %s: %s", dropped.bug_code_uid, dropped.reason)
    log.info("%s: %d rows, sha256 %s", fetched.path, fetched.rows, fetched.sha256)
    if measured is None:
        log.warning("warning: no manifest %s to check the file against", manifest_path)
    elif not fetched.differences:
        log.info("the file is the one the study was measured on (%s)", manifest_path)
    for line in fetched.differences:
        log.warning("warning: not the file the study was measured on: %s", line)
    return 0
