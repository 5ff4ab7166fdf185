"""Derivatives against the analysis they come from.

Rows (a fresh ``Board.from_dict`` of the board's description every call, so no
factorisation is reused; ours and ``analyze`` alternate, medians of wall and CPU time
over the repeats): ``sensitivity`` of the mean, of the variance and of the first
player's win chance with respect to the dice and to the transitions, on Milton Bradley
and on a random board of 1,000 squares; the issue's yardstick is at most 1.5 times
``analyze`` (ratio >= 0.67).
"""

from __future__ import annotations

from snl_numeric import Board, analyze, boards, sensitivity

from ._util import pair_row, pair_times

CASES = (("mean", "dice"), ("mean", "transitions"), ("variance", "dice"),
         ("variance", "transitions"), ("win", "dice"), ("win", "transitions"))


def run(repeats: int = 7, quick: bool = False) -> list[dict]:
    reps = 3 if quick else repeats
    rows = []
    for name, board in (("milton-bradley", boards.get("milton-bradley")),
                        ("random 1000", boards.random_board(1000, 0.1, rng=1))):
        d = board.to_dict()
        fresh = lambda d=d: Board.from_dict(d)  # noqa: E731
        analyze(fresh()), sensitivity(fresh())  # warm up
        for of, wrt in CASES:
            t = pair_times(lambda of=of, wrt=wrt, fresh=fresh: sensitivity(fresh(), of=of, wrt=wrt),
                      lambda fresh=fresh: analyze(fresh()), reps)
            rows.append(pair_row(f"sensitivity {name} of={of} wrt={wrt}", t, "analyze",
                             "fresh board each call",
                             f"ours: sensitivity(Board.from_dict(d), of={of!r}, wrt={wrt!r}); "
                             "baseline: analyze(Board.from_dict(d))"))
    return rows
