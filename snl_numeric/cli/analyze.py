"""``snl analyze BOARD``: the exact single-board analysis."""

from __future__ import annotations

import argparse

from ..analysis import analyze
from ..players import expected_game_length
from .common import add_board_arguments, board_from_args, check_flag, cli_words, print_json


def add_parser(sub) -> None:
    """Register ``snl analyze``."""
    p = sub.add_parser("analyze", help="exact single-board analysis")
    add_board_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--players", type=int, metavar="K",
                   help="also give win chances and game length for K players")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    check_flag(args.players, "--players", low=1)
    board = board_from_args(args)
    result = analyze(board)
    game = None if args.players is None else expected_game_length(board, args.players)
    if args.json:
        out = result.to_dict()
        if out.get("note"):
            out["note"] = cli_words(out["note"])
        if game is not None:
            out["players"] = game.to_dict()
        print_json(out)
    else:
        print(cli_words(str(result)))
        if game is not None:
            print(game)
    return 0
