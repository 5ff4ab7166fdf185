"""The ``snl`` command line.

``snl analyze BOARD`` where BOARD is a registry name (``snl boards`` lists
them) or a JSON board file; rule flags override the board's own rules.
Every command takes ``--json`` for machine-readable output. Other commands
register themselves through ``add_*_parser(subparsers)`` hooks.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from . import boards
from ._maze_cli import add_maze_parser
from .analysis import analyze
from .batch import add_batch_parser
from .board import OVERSHOOT_RULES, Board
from .design import add_design_parser
from .dice import parse_dice
from .players import expected_game_length
from .policy import add_policy_parser
from .simulate import add_simulate_parser

__all__ = ["main", "build_parser", "load_board", "add_board_arguments"]


def load_board(spec: str) -> Board:
    """A board from a registry name or the path of a JSON board file.

    Examples
    --------
    >>> load_board("seed-30").size
    29
    """
    if spec in boards.names():
        return boards.get(spec)
    if os.path.exists(spec):
        return Board.from_json(os.fspath(spec))
    raise ValueError(
        f"{spec!r} is neither a known board ({', '.join(boards.names())}) nor a JSON file"
    )


def add_board_arguments(parser: argparse.ArgumentParser, *, dice: bool = True) -> None:
    """The BOARD argument and the rule-override flags, shared by commands.

    ``dice=False`` leaves out ``--dice`` for commands that use it otherwise.
    """
    parser.add_argument("board", metavar="BOARD",
                        help="a registry name (see 'snl boards') or a JSON board file")
    parser.add_argument("--overshoot", choices=OVERSHOOT_RULES, help="override the overshoot rule")
    chain = parser.add_mutually_exclusive_group()
    chain.add_argument("--chain", dest="chain", action="store_true", default=None,
                       help="follow chained jumps")
    chain.add_argument("--no-chain", dest="chain", action="store_false",
                       help="follow at most one jump per throw")
    parser.add_argument("--start", type=int, help="override the start square")
    if dice:
        parser.add_argument("--dice", dest="dice_spec", metavar="DICE",
                            help="dice: 'd6', '1-3', '2d6' or '1:0.5,2:0.5'")


def board_from_args(args: argparse.Namespace) -> Board:
    """Load ``args.board`` and apply the rule overrides."""
    board = load_board(args.board)
    changes: dict[str, Any] = {}
    if args.overshoot is not None:
        changes["overshoot"] = args.overshoot
    if args.chain is not None:
        changes["chain"] = args.chain
    if args.start is not None:
        changes["start"] = args.start
    if getattr(args, "dice_spec", None):
        changes["dice"] = parse_dice(args.dice_spec)
    return board.replace(**changes) if changes else board


def _run_analyze(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    result = analyze(board)
    game = None if args.players is None else expected_game_length(board, args.players)
    if args.json:
        out = result.to_dict()
        if game is not None:
            out["players"] = game.to_dict()
        print(json.dumps(out, indent=2))
    else:
        print(result)
        if game is not None:
            print(game)
    return 0


def _run_boards(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps({n: boards.describe(n) for n in boards.names()}, indent=2))
    else:
        for n in boards.names():
            print(f"{n:<20} {boards.describe(n)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``snl`` argument parser with every command registered."""
    parser = argparse.ArgumentParser(
        prog="snl", description="Exact analysis of Snakes-and-Ladders boards and number mazes.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("analyze", help="exact single-board analysis")
    add_board_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--players", type=int, metavar="K",
                   help="also give win chances and game length for K players")
    p.set_defaults(func=_run_analyze)

    p = sub.add_parser("boards", help="list the built-in boards")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_run_boards)

    add_simulate_parser(sub)
    add_maze_parser(sub)
    add_design_parser(sub)
    add_batch_parser(sub)
    add_policy_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``snl`` and ``python -m snl_numeric``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
        return 0
    except (ValueError, TypeError, OSError) as exc:
        print(f"snl {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
