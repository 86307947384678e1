"""Committed model answers: a study's cache entries as one compressed file in the repository.

The record/replay cache (ramp.llm.cache) keeps one JSON file per call under results/, which a
clone does not have. ``export`` packs the entries into ``<name>.jsonl.gz`` (one line per call:
its key, the model identity and the completion - answer text, token counts, seconds - sorted by
key, gzip without a time stamp, so the same entries give the same bytes). No prompt is stored: the
key already names model, prompt and parameters, and the prompts hold data-set text. A cache
configured with ``committed`` files answers from them before it would call the model, so a
clone replays a committed study with zero model calls (ramp.llm.cache.CachedLLM).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from ramp.io import atomic_path
from ramp.llm.base import Completion, LLMError

SUFFIX = ".jsonl.gz"


def cache_entries(directory: str | os.PathLike[str]) -> Iterator[dict]:
    """Every entry of a cache folder (``<dir>/<key[:2]>/<key>.json``), in key order."""
    for path in sorted(Path(directory).glob("??/*.json")):
        try:
            yield json.loads(path.read_text(encoding="utf-8"))
        except ValueError as e:
            raise LLMError(f"{path}: corrupt cache entry ({e})") from e


def export(entries: Iterable[Mapping], out: str | os.PathLike[str]) -> int:
    """Write ``entries`` (cache entries: key, model_id, completion) to ``out``; how many."""
    rows = sorted(({"key": e["key"], "model_id": e["model_id"], "completion": e["completion"]}
                   for e in entries), key=lambda e: e["key"])
    with atomic_path(out) as tmp, open(tmp, "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        for row in rows:
            f.write((json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n").encode())
    return len(rows)


def _files(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    found = []
    for p in map(Path, paths):
        if p.is_dir():
            found += sorted(p.glob(f"*{SUFFIX}"))
        elif p.is_file():
            found.append(p)
        else:
            raise LLMError(f"committed answers: {p} does not exist")
    return found


def file_entries(path: str | os.PathLike[str]) -> Iterator[dict]:
    """The entries of a committed file (key, model identity, completion), in its order."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            try:
                row = json.loads(line)
                Completion.from_json(row["completion"])  # a bad answer is named by its line
                entry = {"key": row["key"], "model_id": row["model_id"],
                         "completion": row["completion"]}
            except (ValueError, KeyError, TypeError) as e:
                raise LLMError(f"{path}:{number}: not a committed answer ({e})") from e
            yield entry


def merged(*sources: Iterable[Mapping]) -> list[Mapping]:
    """Entries of every source, one per key: a later source's entry replaces an earlier one."""
    by_key = {e["key"]: e for source in sources for e in source}
    return list(by_key.values())


def load(paths: Sequence[str | os.PathLike[str]]) -> dict[str, Completion]:
    """Every committed answer in ``paths`` (files, or folders of ``*.jsonl.gz``), by cache key."""
    return {entry["key"]: Completion.from_json(entry["completion"])
            for path in _files(paths) for entry in file_entries(path)}


HELP = "pack the model cache's answers into a committable file (answers only, no prompts)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cache", type=Path, default=Path("results/cache/llm"),
                        help="the cache folder (models.cache.dir)")
    parser.add_argument("--model-id", action="append", default=[],
                        help="keep only entries of this model identity (repeatable)")
    parser.add_argument("--out", type=Path, required=True, help=f"the file (*{SUFFIX}) to write")
    parser.add_argument("--update", action="store_true",
                        help="keep the answers already in --out and add the cache's (a study "
                             "resumed from its committed answers records only its new calls)")
    parser.add_argument("--skip", action="append", default=[], type=Path,
                        help="leave out the answers already in this committed file or folder "
                             "(repeatable; --out itself is never skipped): a new study's file "
                             "holds only its own calls")


def main(args: argparse.Namespace) -> int:
    if not args.out.name.endswith(SUFFIX):
        print(f"ramp answers: --out must end in {SUFFIX}", file=sys.stderr)
        return 2
    try:
        kept = list(file_entries(args.out)) if args.update and args.out.is_file() else []
        skip_files = [f for f in _files(args.skip) if f.resolve() != args.out.resolve()]
        skipped = set(load(skip_files))
        entries = [e for e in merged(kept, cache_entries(args.cache))
                   if (not args.model_id or e["model_id"] in args.model_id)
                   and e["key"] not in skipped]
    except LLMError as e:  # a missing --skip path, a corrupt file or cache entry: named
        print(f"ramp answers: {e}", file=sys.stderr)
        return 2
    n = export(entries, args.out)
    print(f"{n} answers written to {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")
    return 0
