"""Jump impact and jump candidates: low-rank updates against re-solving boards.

Rows (a fresh ``Board`` every call, built as a user's loop builds it: ``Board.from_dict``
of the board's description, or the constructor; so nothing cached is reused; ours and
the baseline alternate, medians of wall and CPU time over the repeats):

- ``jump_candidates`` on Milton Bradley (every jump ``a -> b`` one could add, 101 x 101)
  against 100 fresh ``expected_throws`` calls (the issue's yardstick: rebuilding all
  8,100 boards would take 81 times as long);
- ``jump_candidates`` on a random board of 1,000 squares (``random_board(1000, 0.1)``,
  1,001 x 1,001) against 100 fresh ``expected_throws`` calls of the same board (issue 53:
  at least 10x);
- ``jump_impact`` on Milton Bradley (mean and standard deviation without each of the 19
  jumps) against 5 fresh ``analyze`` calls;
- ``jump_impact`` on a random board of 3,000 squares against removing each jump, one
  new board each, with ``expected_throws`` and ``throws_variance``.
"""

from __future__ import annotations

from snl_numeric import (
    Board,
    analyze,
    boards,
    expected_throws,
    jump_candidates,
    jump_impact,
    throws_variance,
)

from ._util import pair_row, pair_times


def _one_by_one(board) -> None:
    """Each jump removed in turn, a new board built with the constructor and re-solved."""
    for src in board.jumps:
        smaller = Board(board.size, {s: d for s, d in board.jumps.items() if s != src},
                        start=board.start, overshoot=board.overshoot, chain=board.chain,
                        dice=board.dice)
        expected_throws(smaller)
        throws_variance(smaller)


FRESH = "each call on Board.from_dict(d) of the board's description d"


def run(repeats: int = 7, quick: bool = False) -> list[dict]:
    mb = boards.get("milton-bradley")
    d = mb.to_dict()
    fresh = lambda: Board.from_dict(d)  # noqa: E731
    jump_candidates(fresh()), jump_impact(fresh()), analyze(fresh())  # warm up
    reps = 3 if quick else repeats
    rows = []
    t = pair_times(lambda: jump_candidates(fresh()),
              lambda: [expected_throws(fresh()) for _ in range(100)], reps)
    rows.append(pair_row("jump_candidates milton-bradley (101 x 101)", t,
                     "100 fresh expected_throws", "every a -> b; fresh board each call",
                     f"ours: jump_candidates, {FRESH}; baseline: 100 x expected_throws, "
                     f"{FRESH}"))
    mid = boards.random_board(1000, 0.1, rng=1)
    dm = mid.to_dict()
    jump_candidates(Board.from_dict(dm)), expected_throws(Board.from_dict(dm))  # warm up
    t = pair_times(lambda: jump_candidates(Board.from_dict(dm)),
                   lambda: [expected_throws(Board.from_dict(dm)) for _ in range(100)], reps)
    rows.append(pair_row("jump_candidates random 1,000 (1,001 x 1,001)", t,
                         "100 fresh expected_throws", "every a -> b; fresh board each call",
                         "ours: jump_candidates(Board.from_dict(d)), d = random_board(1000, "
                         "0.1, rng=1).to_dict(); baseline: 100 x expected_throws("
                         "Board.from_dict(d))"))
    t = pair_times(lambda: jump_impact(fresh()), lambda: [analyze(fresh()) for _ in range(5)],
              reps)
    rows.append(pair_row("jump_impact milton-bradley (19 jumps)", t, "5 fresh analyze",
                     "mean and std without each jump",
                     f"ours: jump_impact, {FRESH}; baseline: 5 x analyze, {FRESH}"))
    big = boards.random_board(1000 if quick else 3000, 0.05, rng=26)
    db = big.to_dict()
    jump_impact(Board.from_dict(db))
    t = pair_times(lambda: jump_impact(Board.from_dict(db)), lambda: _one_by_one(big),
              1 if quick else 3)
    rows.append(pair_row(f"jump_impact random {big.size} ({len(big.jumps)} jumps)", t,
                     "each jump removed, re-solved", "mean and std",
                     "ours: jump_impact(Board.from_dict(d)); baseline: bench_impact._one_by_one,"
                     " per jump Board(size, the other jumps, rules) then expected_throws and "
                     "throws_variance"))
    return rows
