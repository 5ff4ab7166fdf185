"""The ``snl`` command line.

``snl analyze BOARD`` where BOARD is a registry name (``snl boards`` lists
them) or a JSON board file; rule flags override the board's own rules.
Every command takes ``--json`` for machine-readable output. Each subcommand
lives in its own module with ``add_parser(subparsers)`` and ``run(args)``;
argparse is used nowhere else in the package.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from collections.abc import Sequence

from .. import __version__
from .common import (
    CommandParser,
    OneLineParser,
    add_board_arguments,
    board_from_args,
    cli_words,
    load_board,
)
from .notes import command_notes, one_line, stderr_line

__all__ = ["main", "build_parser", "load_board", "add_board_arguments", "board_from_args"]


#: Every command and its line in ``snl --help``, in that order. The module ``cli/NAME.py``
#: registers the command's arguments and runs it; :func:`main` imports only the module of
#: the command given, so that ``snl --help`` and each command load only what they use.
COMMANDS = {
    "analyze": "exact single-board analysis",
    "boards": "list the built-in boards",
    "simulate": "Monte Carlo simulation of the number of throws",
    "maze": "paths through a number maze",
    "design": "search a board layout with a wanted expected length",
    "batch": "analyse many boards from a JSON Lines or Parquet file",
    "policy": "optimal choice between dice (and optional jumps)",
    "race": "optimal play against an opponent when players choose their dice (chance to win)",
    "report": "write a self-contained HTML report about a board",
    "warmup": "compile every kernel now, into the cache directory",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``snl`` argument parser with every command registered.

    With ``only``, only that command's arguments are registered (its module imported);
    the others are listed with their help line (``snl --help`` is the same).
    """
    parser = OneLineParser(
        prog="snl", description="Exact analysis of Snakes-and-Ladders boards and number mazes.")
    parser.add_argument("--version", action="version", version=f"snl {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=CommandParser)
    for name, line in COMMANDS.items():
        if only is None or name == only:
            importlib.import_module(f".{name}", __name__).add_parser(sub)
        else:
            sub.add_parser(name, help=line)
    return parser


#: Set to 1 to get the Python traceback of an unexpected failure.
DEBUG_ENV = "SNL_DEBUG"


def _quiet_stdout() -> None:
    """Point standard output at /dev/null: the reader went away (``| head``), and Python
    must not complain about it again when it flushes at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file descriptor (tests)
        pass


def failure_message(exc: BaseException) -> str:
    """The one line that says why a command failed (no traceback)."""
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply"
    if isinstance(exc, MemoryError) and not str(exc):
        return "out of memory"
    if isinstance(exc, OverflowError):
        return f"a number is too large: {exc}"
    if isinstance(exc, (ValueError, TypeError, OSError, MemoryError, RuntimeError,
                        ImportError, KeyError)):
        return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    return f"{type(exc).__name__}: {exc}"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``snl`` and ``python -m snl_numeric``.

    Exit codes: 0 success, 2 any failure (one line on standard error, no traceback;
    set ``SNL_DEBUG=1`` for it), 130 interrupted (Ctrl-C). A closed output pipe
    (``snl maze ... | head -1``) ends the command quietly with 0.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    # the command is the first word that is not an option (snl's own take no value)
    parser = build_parser(only=next((a for a in argv if not a.startswith("-")), ""))
    args = parser.parse_args(argv)
    with command_notes(args.command):  # its notes and warnings: one line of ours each
        try:
            with warnings.catch_warnings():  # its warnings shown again in a second call
                code = int(args.func(args) or 0)
            sys.stdout.flush()  # a closed pipe shows here, not at exit
            return code
        except KeyboardInterrupt:  # Ctrl-C: long work stops between kernel rounds
            stderr_line(f"snl {args.command}: interrupted")
            return 130
        except BrokenPipeError:  # e.g. piped into `head`
            _quiet_stdout()
            return 0
        except Exception as exc:  # every failure: one line, exit 2
            if os.environ.get(DEBUG_ENV):
                raise
            message = cli_words(failure_message(exc))
            stderr_line(one_line(f"snl {args.command}: error: {message}"))
            return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
