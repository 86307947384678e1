"""`ramp data fetch|check|manifest`: build a task file from the hub, or check one you have."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from ramp.hub.check import differences, manifest_of, manifest_text, read_manifest
from ramp.hub.fetch import FetchSettings, fetch_and_check
from ramp.hub.layout import LANGUAGES, language

HELP = "build a task file from xCodeEval on the Hugging Face hub, or check one against ours"
_DEFAULTS = FetchSettings()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["fetch", "check", "manifest"])
    parser.add_argument("file", type=Path, help="the task file to build (fetch) or read")
    parser.add_argument("--language", choices=sorted(LANGUAGES), default=_DEFAULTS.language)
    parser.add_argument(
        "--source",
        default=_DEFAULTS.source,
        help="hub dataset id, or a folder with its layout (a clone with its LFS files)",
    )
    parser.add_argument("--revision", default=_DEFAULTS.revision, help="branch, tag or commit")
    parser.add_argument(
        "--manifests",
        type=Path,
        default=Path("data/manifests"),
        help="folder of the measured files' manifests",
    )
    parser.add_argument("--force", action="store_true", help="fetch: rebuild an existing file")


def _logger() -> logging.Logger:
    log = logging.getLogger("ramp.data")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("ramp data: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
    return log


def main(args: argparse.Namespace) -> int:
    log = _logger()
    if args.action == "fetch" and (args.force or not args.file.exists()):
        settings = FetchSettings(args.language, args.source, args.revision)
        return fetch_and_check(args.file, settings, args.manifests, log)
    if not args.file.is_file():
        log.error("error: no file %s", args.file)
        return 1
    if args.action == "manifest":
        sys.stdout.write(manifest_text(manifest_of(args.file)))
        return 0
    measured_path = args.manifests / language(args.language).manifest
    found = differences(read_manifest(measured_path), manifest_of(args.file))
    if not found:
        log.info("%s is the file the study was measured on (%s)", args.file, measured_path)
    for line in found:
        log.warning("warning: not the file the study was measured on: %s", line)
    return 0
