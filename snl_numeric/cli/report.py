"""``snl report BOARD``: one self-contained HTML page about a board."""

from __future__ import annotations

import argparse
import os

from .._core.memory import format_bytes
from ..report import report
from .common import (
    add_board_arguments,
    add_command,
    board_from_args,
    check_flag,
    check_output_file,
    dice_from_flag,
)


def add_parser(sub) -> None:
    """Register ``snl report``."""
    p = add_command(
        sub, "report", help="write a self-contained HTML report about a board",
        description="Write one HTML page about a board that opens anywhere, offline: the "
                    "board drawn, the key numbers with their error bounds, the distribution "
                    "of the number of throws, expected visits per square and each jump's "
                    "impact; with --action the optimal choice of dice, with --race the race "
                    "of two players choosing; with --players K, K players racing (under the "
                    "board's --capture rule when set). BOARD is a built-in board or a JSON file.",
        examples=["snl report milton-bradley",
                  "snl report milton-bradley -o mb.html --action 1-3 --action 4-6 --race",
                  "snl report my_board.json --overshoot bounce -o bounce.html",
                  "snl report milton-bradley --players 3 --capture start -o bump.html"])
    add_board_arguments(p)
    p.add_argument("-o", "--output", default="report.html", metavar="FILE",
                   help="where to write the page (default: report.html)")
    p.add_argument("--action", dest="actions", action="append", metavar="DICE",
                   help="a die the player may choose before each throw (repeat the flag): "
                        "adds the optimal policy; 'd6', '1-3', '2d6', '1:0.5,2:0.5'")
    p.add_argument("--race", action="store_true",
                   help="add the race of two players choosing between the --action dice "
                        "(the board's own die without them)")
    p.add_argument("--players", type=int, metavar="K",
                   help="add K players racing (K >= 2): win chances, the first player's "
                        "edge and the number of rounds, exact (with --capture: players who "
                        "meet)")
    p.add_argument("--edit", action="store_true",
                   help="make the page an editor too: change jumps, rules and dice in the "
                        "browser and see every number solved again in the page")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    check_output_file(args.output, "-o")
    check_flag(args.players, "--players", low=2)
    board = board_from_args(args)
    actions = [dice_from_flag(s, "--action") for s in args.actions] if args.actions else None
    report(board, args.output, actions=actions, race=args.race, players=args.players,
           editable=args.edit)
    print(f"wrote {args.output} ({format_bytes(os.path.getsize(args.output))})")
    return 0
