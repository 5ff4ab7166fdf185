"""Jump impact and jump candidates: low-rank updates against re-solving boards.

Rows (fresh ``Board`` objects every call, so nothing cached is reused; ours and the
baseline alternate, medians over the repeats):

- ``jump_candidates`` on Milton Bradley (every jump ``a -> b`` one could add, 101 x 101)
  against 100 fresh ``expected_throws`` calls (the issue's yardstick: rebuilding all
  8,100 boards would take 81 times as long);
- ``jump_impact`` on Milton Bradley (mean and standard deviation without each of the 19
  jumps) against 5 fresh ``analyze`` calls;
- ``jump_impact`` on a random board of 3,000 squares against removing each jump, one
  new board each, with ``expected_throws`` and ``throws_variance``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from snl_numeric import (
    analyze,
    boards,
    expected_throws,
    jump_candidates,
    jump_impact,
    throws_variance,
)

from ._util import row


def alternate(ours: Callable[[], Any], base: Callable[[], Any], repeats: int
              ) -> tuple[float, float]:
    """Median times of ``ours`` and ``base``, run in turn ``repeats`` times each."""
    t_ours, t_base = [], []
    for _ in range(repeats):
        for fn, times in ((base, t_base), (ours, t_ours)):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    return statistics.median(t_ours), statistics.median(t_base)


def _one_by_one(board) -> None:
    for src in board.jumps:
        smaller = board.replace(jumps={s: d for s, d in board.jumps.items() if s != src})
        expected_throws(smaller)
        throws_variance(smaller)


def run(repeats: int = 7, quick: bool = False) -> list[dict]:
    mb = boards.get("milton-bradley")
    jump_candidates(mb.replace()), jump_impact(mb.replace()), analyze(mb.replace())  # warm up
    reps = 3 if quick else repeats
    rows = []
    ours, base = alternate(lambda: jump_candidates(mb.replace()),
                           lambda: [expected_throws(mb.replace()) for _ in range(100)], reps)
    rows.append(row("jump_candidates milton-bradley (101 x 101)", ours,
                    "100 fresh expected_throws", base, "every a -> b; fresh board each call"))
    ours, base = alternate(lambda: jump_impact(mb.replace()),
                           lambda: [analyze(mb.replace()) for _ in range(5)], reps)
    rows.append(row("jump_impact milton-bradley (19 jumps)", ours, "5 fresh analyze", base,
                    "mean and std without each jump"))
    big = boards.random_board(1000 if quick else 3000, 0.05, rng=26)
    jump_impact(big.replace())
    ours, base = alternate(lambda: jump_impact(big.replace()), lambda: _one_by_one(big),
                           1 if quick else 3)
    rows.append(row(f"jump_impact random {big.size} ({len(big.jumps)} jumps)", ours,
                    "each jump removed, re-solved", base, "mean and std"))
    return rows
