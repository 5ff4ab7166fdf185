"""``snl policy``: optimal choice between dice (and optional jumps)."""

from __future__ import annotations

import argparse
from typing import Any

from .._core.text import label
from ..chain import expected_throws
from ..policy import METHODS, OBJECTIVES, finish_within, optimal_policy
from .common import (
    DeprecatedFlag,
    add_board_arguments,
    add_command,
    board_from_args,
    check_flag,
    dice_from_flag,
    print_json,
)


def add_parser(sub: Any) -> None:
    """Register ``snl policy`` on the ``snl`` subparsers."""
    p = add_command(
        sub, "policy", help="optimal choice between dice (and optional jumps)",
        description="Before each throw the player picks one of several dice (and, with "
                    "--optional-jumps, whether to take each snake or ladder): the play with "
                    "the fewest expected throws (or, with --horizon K, the best chance to "
                    "finish within K throws), shown square by square on the board.",
        examples=["snl policy milton-bradley --action 1-3 --action 4-6",
                  "snl policy milton-bradley --action d6 --action 2d6 --optional-jumps",
                  "snl policy seed-30 --action 1-3 --action 4-6 --horizon 5 --json"])
    add_board_arguments(p, dice=False)
    p.add_argument("--action", dest="actions", action="append", metavar="DICE",
                   help="a die the player may choose before each throw (repeat the flag): "
                        "'d6', '1-3', '2d6', '1:0.5,2:0.5'; default: the board's own die")
    p.add_argument("--dice", dest="actions", action=DeprecatedFlag, new="--action",
                   metavar="DICE", help="deprecated spelling of --action (elsewhere --dice "
                                        "replaces the board's die)")
    p.add_argument("--optional-jumps", action="store_true",
                   help="the player may decline any snake or ladder")
    p.add_argument("--objective", choices=OBJECTIVES, default="min",
                   help="min: best play (default); max: worst play")
    p.add_argument("--method", choices=METHODS, default="policy",
                   help="policy iteration (default) or value iteration")
    p.add_argument("--horizon", type=int, metavar="K",
                   help="maximise instead the chance to finish within K throws")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    check_flag(args.horizon, "--horizon", low=0)
    board = board_from_args(args)
    actions = [dice_from_flag(s) for s in args.actions] if args.actions else [board.dice]
    if args.horizon is not None:
        if args.objective != "min":
            raise ValueError("--horizon maximises the chance to finish; drop --objective max")
        result: Any = finish_within(board, actions, args.horizon,
                                    optional_jumps=args.optional_jumps)
        print_json(result.to_dict()) if args.json else print(result)
        return 0
    result = optimal_policy(board, actions, objective=args.objective,
                            optional_jumps=args.optional_jumps, method=args.method)
    alone = [expected_throws(board.replace(dice=d)) for d in result.actions]
    if args.json:
        out = result.to_dict()
        out["single_die"] = {label(i): v for i, v in enumerate(alone)}
        print_json(out)
    else:
        print(result)
        print("  one die only      " + "  ".join(
            f"{label(i)}: {v:.6f}" for i, v in enumerate(alone)))
    return 0
