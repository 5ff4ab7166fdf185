"""Racing to win (``optimal_race``): ordered, bracketed Gauss-Seidel vs plain value iteration.

Rows: Milton Bradley with dice 1-3 / 4-6 (compulsory and optional jumps), random
boards of 300 squares, and the 10^6 pair states of a random 1,000-square board and
of one with many snakes (long games: the accelerated finish).
The baseline is plain pair-state value iteration (the issue's scheme, Numba-jitted
like ours): ``V <- T V`` from 0 over all pair states at once, stopped when two
consecutive iterates (which bracket the answer) are within 1e-12. Both reach the
same certificate; the note gives the answer, our sweeps and the baseline's
iterations. The 10^6 row runs in a child process so that its peak resident memory
(``ru_maxrss``) is its own.

With ``SNL_BENCH_BASE`` set to a checkout of an earlier commit (e.g. ``git worktree
add /tmp/base c035537``), Milton Bradley and the random 1,000-square board are also timed
against that tree in the same run: fresh processes, alternating old and new, medians.

Usage: ``PYTHONPATH=. python -m benchmarks.bench_race [--quick]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numba
import numpy as np

from snl_numeric import boards, optimal_race
from snl_numeric.boards import random_board
from snl_numeric.dice import parse_dice

from ._util import median_time, row

DICE = ["1-3", "4-6"]


@numba.njit(cache=False, nogil=True)
def plain_value_iteration(succ, probs, tol, max_iter):  # pragma: no cover - benchmark
    """Jacobi value iteration over the pair states; returns (V, iterations)."""
    n_act, n, width = succ.shape
    goal = n - 1
    v = np.zeros((goal, goal))
    w = np.empty((goal, goal))
    for it in range(1, max_iter + 1):
        diff = 0.0
        for i in range(goal):
            for j in range(goal):
                best = 0.0
                for a in range(n_act):
                    acc = 0.0
                    for f in range(width):
                        y = succ[a, i, f]
                        acc += probs[a, f] * (1.0 if y == goal else 1.0 - v[j, y])
                    best = max(best, acc)
                w[i, j] = best
                diff = max(diff, abs(best - v[i, j]))
        v, w = w, v
        if diff < tol:
            return v, it
    return v, max_iter


def plain_tables(board, specs):
    """Resting squares per die, face and square (compulsory jumps), and face probabilities."""
    dice = [parse_dice(s) for s in specs]
    width = max(len(d.faces) for d in dice)
    succ = np.full((len(dice), board.size + 1, width), board.size, dtype=np.int64)
    probs = np.zeros((len(dice), width))
    for a, d in enumerate(dice):
        succ[a, :, : len(d.faces)] = board.replace(dice=d).compiled.succ
        probs[a, : len(d.faces)] = d.probs
    return succ, probs


def plain(board, specs):
    succ, probs = plain_tables(board, specs)
    v, it = plain_value_iteration(succ, probs, 1e-12, 1_000_000)
    return float(v[board.start, board.start]), it


_BIG = """
import json, resource, sys, time
from snl_numeric import optimal_race
from snl_numeric.boards import random_board
optimal_race(random_board(60, 0.1, rng=2), ["1-3", "4-6"])  # compile
size, repeats, density, snakes, rng = sys.argv[1:6]
b = random_board(int(size), float(density), snake_fraction=float(snakes), rng=int(rng))
times = []
for _ in range(int(repeats)):
    t = time.perf_counter(); r = optimal_race(b, ["1-3", "4-6"]); times.append(time.perf_counter() - t)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(json.dumps({"times": times, "p": r.win_probability, "sweeps": r.convergence.sweeps,
                  "bracket": r.bracket, "peak_gib": peak}))
"""

_BIG_PLAIN = """
import json, sys, time
from benchmarks.bench_race import plain
from snl_numeric.boards import random_board
plain(random_board(60, 0.1, rng=2), ["1-3", "4-6"])  # compile
size, density, snakes, rng = sys.argv[1:5]
b = random_board(int(size), float(density), snake_fraction=float(snakes), rng=int(rng))
t = time.perf_counter(); p, it = plain(b, ["1-3", "4-6"])
print(json.dumps({"time": time.perf_counter() - t, "p": p, "iterations": it}))
"""


_TIMED = """
import json, statistics, sys, time
from snl_numeric import boards, optimal_race
from snl_numeric.boards import random_board
name, repeats = sys.argv[1], int(sys.argv[2])
b = boards.get(name) if name in boards.names() else random_board(int(name), 0.1,
                                                                 snake_fraction=0.5, rng=1)
optimal_race(b, ["1-3", "4-6"])  # compile or load the kernels
times = []
for _ in range(repeats):
    t = time.perf_counter(); r = optimal_race(b, ["1-3", "4-6"]); times.append(time.perf_counter() - t)
print(json.dumps({"time": statistics.median(times), "p": r.win_probability}))
"""


def _child(code: str, *args: object, tree: str | None = None) -> dict:
    env = None if tree is None else {**os.environ, "PYTHONPATH": tree}
    # run inside the tree: ``python -c`` puts the working directory first on the path
    proc = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                          text=True, check=True, env=env, cwd=tree)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def against_tree(tree: str, quick: bool = False) -> list[dict]:
    """Milton Bradley and a random 1,000-square board, this tree against ``tree``: fresh
    processes, old and new alternating, the median of each process's median."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rows = []
    for name, repeats, rounds in (("milton-bradley", 20, 5), ("400" if quick else "1000", 1, 3)):
        new, old = [], []
        for _ in range(1 if quick else rounds):
            new.append(_child(_TIMED, name, repeats, tree=here))
            old.append(_child(_TIMED, name, repeats, tree=tree))
        assert abs(new[0]["p"] - old[0]["p"]) < 1e-11
        rows.append(row(f"optimal_race {name}, 1-3/4-6: A/B", float(np.median([x["time"] for x in new])),
                        f"the same at {os.path.basename(tree)}",
                        float(np.median([x["time"] for x in old])),
                        f"P={new[0]['p']:.12f}; fresh processes, {rounds} alternating rounds"))
    return rows


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    rows = []
    mb = boards.get("milton-bradley")
    optimal_race(mb, DICE)  # compile
    optimal_race(mb, DICE, optional_jumps=True)
    plain(mb, DICE)
    base_reps = 1 if quick else 3
    r = optimal_race(mb, DICE)
    p, it = plain(mb, DICE)
    assert abs(p - r.win_probability) < 1e-11
    ours = median_time(lambda: optimal_race(mb, DICE), repeats, number=5)
    base = median_time(lambda: plain(mb, DICE), base_reps)
    rows.append(row("optimal_race milton-bradley 1-3/4-6", ours, "plain pair-state VI (Numba)",
                    base, f"P(first wins)={r.win_probability:.12f}, {r.convergence.sweeps} "
                          f"sweeps vs {it} iterations, bracket {r.bracket:.1e}"))
    r = optimal_race(mb, DICE, optional_jumps=True)
    ours = median_time(lambda: optimal_race(mb, DICE, optional_jumps=True), repeats, number=5)
    rows.append(row("optimal_race milton-bradley, optional jumps", ours,
                    note=f"P(first wins)={r.win_probability:.12f}, "
                         f"{r.convergence.sweeps} sweeps"))

    size = 150 if quick else 300
    b = random_board(size, 0.1, rng=1)
    r = optimal_race(b, DICE)
    p, it = plain(b, DICE)
    assert abs(p - r.win_probability) < 1e-11
    ours = median_time(lambda: optimal_race(b, DICE), base_reps)
    base = median_time(lambda: plain(b, DICE), base_reps)
    rows.append(row(f"optimal_race random board {size}, 1-3/4-6", ours,
                    "plain pair-state VI (Numba)", base,
                    f"P={r.win_probability:.12f}, {r.convergence.sweeps} sweeps vs "
                    f"{it} iterations"))

    size = 400 if quick else 1000
    # a random board, and one of many snakes (80% of 20% of squares: long games, the
    # accelerated finish), each in a child process for its own peak memory
    for label, board in (("random board", (0.1, 0.5, 1)), ("many snakes", (0.2, 0.8, 5))):
        big = _child(_BIG, size, 1 if quick else 3, *board)
        base_big = None if quick else _child(_BIG_PLAIN, size, *board)
        note = (f"{size**2:,} pair states, P={big['p']:.12f}, {big['sweeps']} sweeps, "
                f"bracket {big['bracket']:.1e}, peak RSS {big['peak_gib']:.2f} GiB")
        if base_big is not None:
            note += f"; baseline {base_big['iterations']} iterations, P={base_big['p']:.12f}"
        rows.append(row(f"optimal_race {label} {size}, 1-3/4-6", float(np.median(big["times"])),
                        None if base_big is None else "plain pair-state VI (Numba)",
                        None if base_big is None else base_big["time"], note))
    if os.environ.get("SNL_BENCH_BASE"):
        rows += against_tree(os.environ["SNL_BENCH_BASE"], quick)
    return rows


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    for r in run(quick=quick):
        print(r)
    print(f"threads: NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS}")
