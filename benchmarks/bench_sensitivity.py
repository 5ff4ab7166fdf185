"""Derivatives against the analysis they come from.

Rows (fresh ``Board`` objects every call, so no factorisation is reused; ours and
``analyze`` alternate, medians over the repeats): ``sensitivity`` of the mean and of the
variance with respect to the dice and to the transitions, and of the first player's win
chance with respect to the dice, on Milton Bradley and on a random board of 1,000
squares; the issue's yardstick is at most 1.5 times ``analyze`` (ratio >= 0.67).
"""

from __future__ import annotations

from snl_numeric import analyze, boards, sensitivity

from ._util import row
from .bench_impact import alternate

CASES = (("mean", "dice"), ("mean", "transitions"), ("variance", "dice"),
         ("variance", "transitions"), ("win", "dice"))


def run(repeats: int = 7, quick: bool = False) -> list[dict]:
    reps = 3 if quick else repeats
    rows = []
    for name, board in (("milton-bradley", boards.get("milton-bradley")),
                        ("random 1000", boards.random_board(1000, 0.1, rng=1))):
        analyze(board.replace()), sensitivity(board.replace())  # warm up
        for of, wrt in CASES:
            ours, base = alternate(lambda of=of, wrt=wrt: sensitivity(board.replace(), of=of,
                                                                      wrt=wrt),
                                   lambda: analyze(board.replace()), reps)
            rows.append(row(f"sensitivity {name} of={of} wrt={wrt}", ours, "analyze", base,
                            "fresh board each call"))
    return rows
