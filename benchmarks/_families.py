"""Board families for the solver benchmarks (issue 15: no slow board families).

Each family is one way a board can stress the ``I - Q`` solver; all are random with a
fixed seed, fair d6 unless said, and finish surely from square 0 (no wall of six
snakes in a row, whose squares could never be passed).
"""

from __future__ import annotations

import numpy as np

from snl_numeric import Board
from snl_numeric.boards import random_board


def _no_walls(mask: np.ndarray) -> np.ndarray:
    """Drop a snake square that would make six in a row (a wall no throw passes)."""
    run = 0
    for i in range(len(mask)):
        run = run + 1 if mask[i] else 0
        if run >= 6:
            mask[i] = False
            run = 0
    return mask


def short_snakes(n: int, rng: int = 1) -> Board:
    """20% of the squares start a snake of length 1-7, 5% a ladder of up to n/10."""
    g = np.random.default_rng(rng)
    src = np.flatnonzero(_no_walls(g.random(n) < 0.2))
    src = src[src >= 8]
    jumps = dict(zip(src.tolist(), (src - g.integers(1, 8, size=len(src))).tolist(), strict=True))
    free = np.setdiff1d(np.arange(1, n), np.concatenate([src, list(jumps.values())]))
    for s in g.choice(free, size=int(0.05 * n), replace=False).tolist():
        d = int(min(n, s + g.integers(1, n // 10 + 2)))
        if d not in jumps and d != s:
            jumps[s] = d
    return Board(n, jumps)


def snake_chains(n: int, rng: int = 1) -> Board:
    """A chain of snakes every 97 squares down to the bottom (``chain=True``), 5% ladders."""
    g = np.random.default_rng(rng)
    jumps = {s: s - 97 for s in range(n - 1, 200, -97)}
    ends = set(jumps.values())
    for s in g.choice(np.arange(1, n), size=int(0.05 * n), replace=False).tolist():
        d = int(min(n, s + g.integers(1, 1000)))
        if s not in jumps and s not in ends and d not in jumps:
            jumps[s] = d
    return Board(n, jumps, chain=True)


def snakes_near_goal(n: int, rng: int = 1) -> Board:
    """10% jumps as ``random_board``, plus 100 snakes in the last 2,000 squares, each to a
    random square below them (the Milton Bradley board's 87->24, 93->73, ... at scale)."""
    g = np.random.default_rng(rng)
    base = dict(random_board(n, 0.1, rng=rng).jumps)
    zone = np.arange(max(1, n - 2000), n)
    for s in g.choice(zone, size=min(100, len(zone)), replace=False).tolist():
        d = int(g.integers(0, max(1, n - 2000)))
        if d not in base:
            base[s] = d
    ends = set(base.values())
    return Board(n, {s: d for s, d in base.items() if s not in ends})


FAMILIES = {
    "random": lambda n: random_board(n, 0.1, rng=1),
    "short snakes": short_snakes,
    "snake chains": snake_chains,
    "snakes near goal": snakes_near_goal,
    "bounce": lambda n: random_board(n, 0.1, rng=1, overshoot="bounce"),
    "chain=True": lambda n: random_board(n, 0.1, rng=1, chain=True),
    "skewed dice": lambda n: random_board(n, 0.1, rng=1, dice={1: 0.6, 2: 0.25, 6: 0.15}),
    # a die that nearly always throws 1: every snake is met and the chain mixes slowly;
    # GMRES, hundreds of steps unpreconditioned, is preconditioned by the likeliest paths
    # (_core/solve/greedy.py, issue 53: 50 steps at 10^6 squares)
    "die throws 1 (p=.99)": lambda n: random_board(n, 0.1, rng=1, dice={1: 0.99, 6: 0.01}),
}
