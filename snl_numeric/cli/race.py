"""``snl race``: two players racing, each choosing a die before every throw."""

from __future__ import annotations

import argparse
from typing import Any

from ..policy import optimal_policy
from ..race import optimal_race, race_value
from .common import (
    add_board_arguments,
    add_command,
    add_progress_arguments,
    board_from_args,
    dice_from_flag,
    print_json,
)


def add_parser(sub: Any) -> None:
    """Register ``snl race`` on the ``snl`` subparsers."""
    p = add_command(
        sub, "race", help="optimal play against an opponent when players choose "
                     "their dice (chance to win)",
        description="Two players alternate on one board; before each throw each picks a die "
                    "to maximise their own chance of winning. Prints the first player's "
                    "chance with a proven error bracket and the die to throw on each square.",
        examples=["snl race milton-bradley --action 1-3 --action 4-6",
                  "snl race seed-30 --action d6 --action 2d6 --vs-fewest-throws --json"])
    add_board_arguments(p, dice=False)
    p.add_argument("--action", "--dice", dest="race_dice", action="append", metavar="DICE",
                   help="a die both players choose from (repeat): 'd6', '1-3', '2d6', "
                        "'1:0.5,2:0.5'; default: the board's own die (--dice: the same)")
    p.add_argument("--optional-jumps", action="store_true",
                   help="players may decline any snake or ladder")
    p.add_argument("--vs-fewest-throws", action="store_true",
                   help="also: what playing for the fewest expected throws costs the first "
                        "player against an optimal opponent")
    p.add_argument("--json", action="store_true", help="print JSON (without the tables)")
    add_progress_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    dice = [dice_from_flag(s) for s in args.race_dice] if args.race_dice else [board.dice]
    jumps, bar = args.optional_jumps, args.progress
    result = optimal_race(board, dice, optional_jumps=jumps, progress=bar)
    out = result.to_dict(tables=False)
    lines = [str(result)]
    if args.vs_fewest_throws:
        fewest = optimal_policy(board, dice, optional_jumps=jumps)
        first = race_value(board, dice, fewest, result, optional_jumps=jumps, progress=bar)
        against = race_value(board, dice, result, fewest, optional_jumps=jumps, progress=bar)
        exploit = optimal_race(board, dice, opponent=fewest, optional_jumps=jumps, progress=bar)
        exploited = race_value(board, dice, fewest, exploit, optional_jumps=jumps, progress=bar)
        p = result.win_probability
        out["vs_fewest_throws"] = {
            "mean": fewest.mean,
            "win_probability_first": first, "cost_first": p - first,
            "optimal_first_against_it": against,
            "win_probability_first_exploited": exploited,
        }
        lines += [
            f"  fewest expected throws ({fewest.mean:.4f} throws) against an optimal "
            "opponent:",
            f"    moving first    wins {first:.12f} (optimal play {p:.12f}, costs "
            f"{p - first:.3g})",
            f"    moving second   an optimal first player wins {against:.12f} (against "
            f"optimal play {p:.12f})",
            f"    moving first against a player who knows it: wins {exploited:.12f}",
        ]
    if args.json:
        print_json(out)
    else:
        print("\n".join(lines))
    return 0
