"""``snl design``: search a board layout with a wanted expected length."""

from __future__ import annotations

import argparse
from typing import Any

from ..board import OVERSHOOT_RULES
from ..design import METHODS, design_board
from .common import (
    add_command,
    add_progress_arguments,
    check_flag,
    check_output_file,
    dice_from_flag,
    print_json,
)


def add_parser(sub: Any) -> None:
    """Register ``snl design`` on the ``snl`` subparsers."""
    p = add_command(
        sub, "design", help="search a board layout with a wanted expected length",
        description="Place K snakes and M ladders on a board so that the expected number of "
                    "throws is as long or as short as possible, or close to a target; every "
                    "candidate is scored exactly.",
        examples=["snl design --size 100 --snakes 10 --ladders 10 --max --seed 1",
                  "snl design --size 50 --snakes 4 --ladders 4 --target 30 -o board.json",
                  "snl design --snakes 8 --ladders 8 --min --iterations 2000 --json"])
    p.add_argument("--size", type=int, default=100, metavar="N",
                   help="goal square (default 100)")
    p.add_argument("--snakes", type=int, required=True, metavar="K",
                   help="how many snakes to place")
    p.add_argument("--ladders", type=int, required=True, metavar="M",
                   help="how many ladders to place")
    goal = p.add_mutually_exclusive_group(required=True)
    goal.add_argument("--max", dest="objective", action="store_const", const="max",
                      help="longest expected game")
    goal.add_argument("--min", dest="objective", action="store_const", const="min",
                      help="shortest expected game")
    goal.add_argument("--target", type=float, metavar="X",
                      help="expected length as close to X as possible")
    p.add_argument("--method", choices=METHODS, default="anneal",
                   help="simulated annealing (default) or iterated local search")
    p.add_argument("--iterations", type=int, default=20_000,
                   help="steps per chain (default 20000)")
    p.add_argument("--chains", type=int, default=8,
                   help="independent annealing chains, run in parallel (default 8)")
    p.add_argument("--min-length", type=int, default=1, metavar="L",
                   help="shortest allowed snake or ladder, in squares (default 1)")
    p.add_argument("--max-length", type=int, metavar="L",
                   help="longest allowed snake or ladder (default: the board size)")
    p.add_argument("--forbidden", type=int, nargs="*", default=(), metavar="SQUARE",
                   help="squares where no snake or ladder may start or end")
    p.add_argument("--overshoot", choices=OVERSHOOT_RULES, default="win",
                   help="the overshoot rule of the designed board (default win)")
    p.add_argument("--chain", action="store_true", help="follow chained jumps")
    p.add_argument("--start", type=int, default=0, help="start square (default 0)")
    p.add_argument("--dice", dest="dice_spec", metavar="DICE",
                   help="dice: 'd6', '1-3', '2d6' or '1:0.5,2:0.5'")
    p.add_argument("--seed", type=int, help="random seed (reproducible runs)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("-o", "--output", metavar="FILE", help="write the board JSON here")
    add_progress_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.output:
        check_output_file(args.output, "-o")
    check_flag(args.size, "--size", low=1)
    for flag in ("snakes", "ladders"):
        check_flag(getattr(args, flag), f"--{flag}", low=0)
    for flag in ("iterations", "chains", "min_length", "max_length"):
        check_flag(getattr(args, flag), "--" + flag.replace("_", "-"), low=1)
    check_flag(args.start, "--start", low=0)
    check_flag(args.seed, "--seed", low=0, high=None)
    res = design_board(
        args.size, snakes=args.snakes, ladders=args.ladders, objective=args.objective,
        target=args.target, method=args.method, iterations=args.iterations,
        chains=args.chains, min_length=args.min_length, max_length=args.max_length,
        forbidden=args.forbidden, overshoot=args.overshoot, chain=args.chain,
        dice=dice_from_flag(args.dice_spec) if args.dice_spec is not None else None, start=args.start,
        rng=args.seed, progress=args.progress)
    if args.output:
        res.board.to_json(args.output, indent=2)
    if args.json:
        print_json(res.to_dict())
    else:
        print(res)
    return 0
