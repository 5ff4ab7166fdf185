"""``snl analyze BOARD``: the exact single-board analysis."""

from __future__ import annotations

import argparse

from ..analysis import analyze
from ..display.text import line, value
from ..players import expected_game_length
from .common import add_board_arguments, add_command, board_from_args, check_flag, cli_words, print_json


def add_parser(sub) -> None:
    """Register ``snl analyze``."""
    p = add_command(
        sub, "analyze", help="exact single-board analysis",
        description="Everything about one board, exactly: fewest throws and a shortest play, "
                    "the mean, variance and distribution of the number of throws (with the "
                    "solver's error bound), expected visits per square and how often each "
                    "snake and ladder is used. BOARD is a built-in board or a JSON file; the "
                    "rule flags override its rules.",
        examples=["snl analyze milton-bradley",
                  "snl analyze milton-bradley --overshoot win --dice 1-3 --json",
                  "snl analyze my_board.json --players 4"])
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
    # player 1's edge: its win chance minus 1/K (snl_numeric.first_player_advantage)
    edge = (None if game is None or game.players < 2
            else float(game.win_probabilities[0]) - 1.0 / game.players)
    if args.json:
        out = result.to_dict()
        if out.get("note"):
            out["note"] = cli_words(out["note"])
        if game is not None:
            out["players"] = game.to_dict()
            if edge is not None:
                out["players"]["first_player_advantage"] = edge
        print_json(out)
    else:
        print(cli_words(str(result)))
        if game is not None:
            print(game)
        if edge is not None:
            print(line("player 1's edge", f"{value(edge)}   (its win chance - 1/{args.players})"))
    return 0
