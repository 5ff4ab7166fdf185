"""The ``snl`` command line.

``snl analyze BOARD`` where BOARD is a registry name (``snl boards`` lists
them) or a JSON board file; rule flags override the board's own rules.
Every command takes ``--json`` for machine-readable output. Each subcommand
lives in its own module with ``add_parser(subparsers)`` and ``run(args)``;
argparse is used nowhere else in the package.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from . import analyze, batch, boards, design, maze, policy, simulate, warmup
from .common import CommandParser, add_board_arguments, board_from_args, load_board

__all__ = ["main", "build_parser", "load_board", "add_board_arguments", "board_from_args"]


def build_parser() -> argparse.ArgumentParser:
    """The ``snl`` argument parser with every command registered."""
    parser = argparse.ArgumentParser(
        prog="snl", description="Exact analysis of Snakes-and-Ladders boards and number mazes.")
    parser.add_argument("--version", action="version", version=f"snl {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=CommandParser)
    for command in (analyze, boards, simulate, maze, design, batch, policy, warmup):
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``snl`` and ``python -m snl_numeric``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:  # Ctrl-C: long work stops between kernel rounds
        print(f"snl {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
        return 0
    except (ValueError, TypeError, OSError) as exc:
        print(f"snl {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
