"""Benchmark: counting number-maze paths, Numba DFS vs seed 003's recursion.

Random 12 x 12 mazes with values 1-4 (fixed seed), paths from the top-left
corner to the middle (6, 6). These mazes have astronomically many simple
paths, so each count stops after ``BOUND`` paths (``count_paths(...,
bound=BOUND)``); both implementations then do exactly the same search,
step for step, and report the same step count (checked). A step is one cell
entered: one call of seed 003's recursive ``solve``.

Run ``PYTHONPATH=. python benchmarks/bench_maze.py``.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from snl_numeric import maze as mz

SEED = 2024
N_MAZES = 2
SIDE = 12
BOUND = 100_000
START, GOAL = (0, 0), (SIDE // 2, SIDE // 2)


def recursive_count(maze, start, goal, bound):
    """Seed 003's backtracker with a set, counting paths; stops above ``bound``.

    Returns ``(count, steps)``.
    """
    rows, cols = len(maze), len(maze[0])
    visited = {start}
    count = 0
    steps = 0

    def solve(cur):
        nonlocal count, steps
        steps += 1
        if cur == goal:
            count += 1
            return count > bound
        n = maze[cur[0]][cur[1]]
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            nxt = (cur[0] + dr * n, cur[1] + dc * n)
            if 0 <= nxt[0] < rows and 0 <= nxt[1] < cols and nxt not in visited:
                visited.add(nxt)
                stop = solve(nxt)
                visited.remove(nxt)
                if stop:
                    return True
        return False

    solve(start)
    return count, steps


def make_mazes(n: int = N_MAZES, seed: int = SEED) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(1, 5, size=(SIDE, SIDE)) for _ in range(n)]


def _median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    """Time ``count_paths`` and the recursive baseline on the same mazes.

    ``quick`` uses 2 repeats (the recursive baseline takes seconds per run).

    Each repeat counts (up to ``BOUND``) on all ``N_MAZES`` mazes; the row
    holds median seconds over ``repeats`` for each side, their ratio and our
    DFS steps per second.
    """
    if quick:
        repeats = min(repeats, 2)
    mazes = make_mazes()
    lists = [m.tolist() for m in mazes]
    mz.count_paths(mazes[0], START, GOAL, bound=1)  # compile (or load the cache)

    def ours():
        return [mz.count_paths(m, START, GOAL, bound=BOUND) for m in mazes]

    def baseline():
        return [recursive_count(m, START, GOAL, BOUND) for m in lists]

    ours_s, results = _median_time(ours, repeats)
    base_s, expected = _median_time(baseline, repeats)
    assert [(r.count, r.steps) for r in results] == expected, "baseline disagrees"
    steps = sum(r.steps for r in results)
    return [{
        "benchmark": f"maze.count_paths {SIDE}x{SIDE}",
        "ours_s": ours_s,
        "baseline": "recursive Python (seed 003)",
        "baseline_s": base_s,
        "ratio": base_s / ours_s,
        "note": (
            f"{N_MAZES} random mazes (seed {SEED}, values 1-4), {START}->{GOAL}, "
            f"bound {BOUND:,} paths each: {steps:,} DFS steps, "
            f"{steps / ours_s / 1e6:.0f} M DFS steps/s"
        ),
    }]


if __name__ == "__main__":
    for row in run():
        print(
            f"{row['benchmark']}: ours {row['ours_s']:.4f} s, {row['baseline']} "
            f"{row['baseline_s']:.2f} s, ratio {row['ratio']:.0f}x; {row['note']}"
        )
