"""``snl simulate BOARD --games N``: Monte Carlo simulation."""

from __future__ import annotations

from typing import Any

from .._core.parallel import max_threads
from ..simulate import DEFAULT_MAX_THROWS
from ..simulate.run import play_games
from .common import (
    add_board_arguments,
    add_command,
    add_progress_arguments,
    board_from_args,
    check_flag,
    cli_words,
    print_json,
    whole_number,
)


def add_parser(sub: Any) -> None:
    """Register ``snl simulate BOARD --games N ...`` on the ``snl`` subparsers."""
    p = add_command(
        sub, "simulate", help="Monte Carlo simulation of the number of throws",
        description="Play N games of the board at random (in parallel, reproducible for a "
                    "seed whatever the thread count) and report the mean, its standard error "
                    "and confidence interval, and the histogram of the number of throws.",
        examples=["snl simulate milton-bradley --games 1e6 --seed 1",
                  "snl simulate my_board.json --games 100000 --dice 2d6 --json"])
    add_board_arguments(p)
    p.add_argument("--games", type=whole_number, required=True, metavar="N",
                   help="games to play (e.g. 100000, 1e6)")
    p.add_argument("--seed", type=int, metavar="S",
                   help="integer seed (default: fresh entropy, printed for reproduction)")
    p.add_argument("--max-throws", type=whole_number, default=DEFAULT_MAX_THROWS, metavar="M",
                   help=f"stop a game after M throws (default {DEFAULT_MAX_THROWS})")
    p.add_argument("--threads", type=int, metavar="T", help="Numba threads (default: all)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_progress_arguments(p)
    p.set_defaults(func=run)


def run(args: Any) -> int:
    check_flag(args.games, "--games", low=1)
    check_flag(args.seed, "--seed", low=0, high=None)
    check_flag(args.max_throws, "--max-throws", low=1)
    check_flag(args.threads, "--threads", low=1, high=max_threads())
    check_flag(args.confidence, "--confidence", low=0, high=1, what="in (0, 1)")
    if args.confidence in (0, 1):
        raise ValueError(f"--confidence must be in (0, 1), got {args.confidence}")
    board = board_from_args(args)
    # games that did not finish are reported in the output itself: no warning to silence
    result = play_games(board, args.games, rng=args.seed, max_throws=args.max_throws,
                        threads=args.threads, progress=args.progress, confidence=args.confidence)
    if args.json:
        print_json(result.to_dict())
    else:
        print(cli_words(str(result)))
    return 0
