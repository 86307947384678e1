"""`python -m ramp COMMAND ...`: one entry point, subcommands registered by module name.

Each module named in COMMANDS exposes ``HELP`` (one line), ``add_arguments(parser)`` and
``main(args) -> int``. Every command's module is imported to build the parser, so each keeps its
heavy imports (the model stack, pandas) inside ``main``: `ramp run` never loads the model stack.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS: dict[str, str] = {
    "run": "ramp.execution.cli",
    "chat": "ramp.llm.cli_chat",
    "models": "ramp.llm.cli_models",
    "answers": "ramp.llm.answers",
    "subset-ids": "ramp.sampling",
    "repair": "ramp.repair_cli",
    "data": "ramp.hub.cli",
    "bugs": "ramp.bug_validation_cli",
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ramp", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return int(args._module.main(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
