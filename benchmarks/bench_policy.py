"""Optimal dice choice: policy iteration vs plain value iteration.

Rows: ``optimal_policy`` on the Milton Bradley board with 2, 3 and 6 dice
(baseline: seed-style Gauss-Seidel value iteration in plain Python, to a
relative change of 1e-12), optional jumps, ``finish_within`` (baseline: plain
Python backward induction), random boards of 10^5 squares (compared with
our own value iteration, ``method="value"``), and a board at the size where the
NumPy path hands over to the Numba kernels (``_core.sizes.POLICY_KERNEL_SQUARES``),
answered both ways.

With ``SNL_BENCH_BASE`` set to a checkout of an earlier commit (e.g. ``git worktree
add /tmp/base c035537``, the release before the NumPy path), the warm calls on Milton
Bradley are also timed against that tree in the same run: fresh processes, old and new
alternating, the median of each process's median CPU time (``time.thread_time``: the
machine may be shared).

Usage: ``python -m benchmarks --only policy`` (``PYTHONPATH=. python -m
benchmarks.bench_policy [--quick]``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from snl_numeric import boards, finish_within, optimal_policy, options
from snl_numeric._core.sizes import POLICY_KERNEL_SQUARES
from snl_numeric.dice import parse_dice

from ._util import median_time, row

DICE_2 = ["1-3", "4-6"]
DICE_3 = ["1-3", "4-6", "d6"]
DICE_6 = ["1-3", "4-6", "d6", "2d6", "1-2", "1:0.5,3:0.5"]


def _plain(board, specs):
    size, jumps, rule = board.size, dict(board.jumps), board.overshoot
    dice = [list(zip(d.faces.tolist(), d.probs.tolist(), strict=True))
            for d in map(parse_dice, specs)]

    def land(x, face):  # resting square, or None when the throw is lost (exact rule)
        t = x + face
        if t > size:
            if rule == "exact":
                return None
            t = size if rule == "win" else 2 * size - t
        return jumps.get(t, t)

    return size, dice, land


def python_value_iteration(board, specs, tol=1e-12, max_sweeps=100_000):
    """Seed-style value iteration: sweep from the goal down until nothing moves."""
    size, dice, land = _plain(board, specs)
    v = [0.0] * (size + 1)
    for _ in range(max_sweeps):
        change = 0.0
        for x in range(size - 1, -1, -1):
            best = float("inf")
            for d in dice:
                q = 1.0
                for face, p in d:
                    y = land(x, face)
                    q += p * v[x if y is None else y]
                best = min(best, q)
            change = max(change, abs(best - v[x]))
            v[x] = best
        if change <= tol * max(1.0, max(v)):
            break
    return v


def python_finish_within(board, specs, k):
    """Plain backward induction for the best chance to finish within k throws."""
    size, dice, land = _plain(board, specs)
    p = [0.0] * size + [1.0]
    for _ in range(k):
        prev = p
        p = [max(sum(q * prev[x if (y := land(x, f)) is None else y] for f, q in d)
                 for d in dice) for x in range(size)] + [1.0]
    return p


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    rows = []
    mb = boards.get("milton-bradley")
    optimal_policy(mb, DICE_2)  # compile the kernels
    optimal_policy(mb, DICE_2, method="value")
    finish_within(mb, DICE_2, 5)
    base_reps = 1 if quick else 3
    for specs in (DICE_2, DICE_3, DICE_6):
        ours = median_time(lambda s=specs: optimal_policy(mb, s), repeats, number=5)
        r = optimal_policy(mb, specs)
        v = python_value_iteration(mb, specs)
        assert abs(v[0] - r.mean) < 1e-8 * r.mean
        base = median_time(lambda s=specs: python_value_iteration(mb, s), base_reps)
        rows.append(row(f"optimal_policy milton-bradley, {len(specs)} dice", ours,
                        "Python Gauss-Seidel value iteration", base,
                        f"E[T]={r.mean:.6f}, {r.convergence.iterations} PI steps"))
    ours = median_time(lambda: optimal_policy(mb, DICE_2, method="value"), repeats, number=5)
    rows.append(row("optimal_policy method='value' milton-bradley, 2 dice", ours,
                    "Python Gauss-Seidel value iteration", rows[0]["baseline_s"]))
    ours = median_time(lambda: optimal_policy(mb, DICE_3, optional_jumps=True), repeats,
                       number=5)
    r = optimal_policy(mb, DICE_3, optional_jumps=True)
    rows.append(row("optimal_policy milton-bradley, 3 dice, optional jumps", ours,
                    note=f"E[T]={r.mean:.6f}, declines {len(r.declined)} jumps"))
    ours = median_time(lambda: finish_within(mb, DICE_2, 30), repeats, number=3)
    base = median_time(lambda: python_finish_within(mb, DICE_2, 30), base_reps)
    f = finish_within(mb, DICE_2, 30)
    rows.append(row("finish_within milton-bradley, 2 dice, K=30", ours,
                    "Python backward induction", base,
                    f"P(T<=30)={f.probability_start:.6f}"))

    edge = boards.random_board(POLICY_KERNEL_SQUARES, 0.1, rng=3)
    numpy_path = {name: median_time(fn, 1 if quick else 3) for name, fn in _edge_calls(edge)}
    with options(path="structured"):  # (the board's solves are the structured solver's)
        for name, fn in _edge_calls(edge):
            fn()  # compile the kernels
            rows.append(row(f"{name}, {edge.size:,} squares: NumPy path", numpy_path[name],
                            "Numba kernels", median_time(fn, 1 if quick else 3)))

    size = 10**4 if quick else 10**5
    big = boards.random_board(size, 0.1, rng=np.random.default_rng(12345))
    for specs in (DICE_2, DICE_6):
        ours = median_time(lambda s=specs: optimal_policy(big, s), 1 if quick else 3)
        vi = median_time(lambda s=specs: optimal_policy(big, s, method="value"),
                         1 if quick else 3)
        r = optimal_policy(big, specs)
        rows.append(row(f"optimal_policy random board {size}, {len(specs)} dice", ours,
                        "ours, method='value'", vi,
                        f"E[T]={r.mean:.4f}, {r.convergence.iterations} PI steps"))
    if os.environ.get("SNL_BENCH_BASE"):
        rows += against_tree(os.environ["SNL_BENCH_BASE"], quick)
    return rows


#: Warm calls timed against an earlier tree, by name: the same code runs in both trees.
_WARM = {
    "optimal_policy milton-bradley 1-3/4-6": "optimal_policy(Board.from_dict(dmb), D)",
    "optimal_policy milton-bradley, optional jumps":
        "optimal_policy(Board.from_dict(dmb), D, optional_jumps=True)",
    "optimal_policy milton-bradley objective='max' (overshoot 'win')":
        "optimal_policy(Board.from_dict(dwin), D, objective='max')",
    "optimal_policy milton-bradley objective='max' (infinite: the error)":
        "worst(Board.from_dict(dmb))",
    "optimal_policy milton-bradley method='value'":
        "optimal_policy(Board.from_dict(dmb), D, method='value')",
    "finish_within milton-bradley K=30": "finish_within(Board.from_dict(dmb), D, 30)",
    "optimal_policy random board 1000": "optimal_policy(Board.from_dict(dbig), D)",
}

_TIMED = """
import json, statistics, sys, time
from snl_numeric import Board, boards, finish_within, optimal_policy
mb, D = boards.get("milton-bradley"), ["1-3", "4-6"]
big = boards.random_board(1000, 0.1, rng=5)
# a new board every call, as a user's loop builds it
dmb, dbig = mb.to_dict(), big.to_dict()
dwin = {**dmb, "overshoot": "win"}
def worst(b):
    try:
        optimal_policy(b, D, objective="max")
    except ValueError:
        return
    raise AssertionError("the worst play should be infinite")
call, repeats = sys.argv[1], int(sys.argv[2])
fn = eval("lambda: " + call)
for _ in range(3):
    fn()
times, walls = [], []
for _ in range(repeats):
    t, w = time.thread_time(), time.perf_counter(); fn()
    times.append(time.thread_time() - t); walls.append(time.perf_counter() - w)
print(json.dumps({"time": statistics.median(times), "wall": statistics.median(walls)}))
"""


def _child(tree: str, call: str, repeats: int) -> dict:
    # run inside the tree: ``python -c`` puts the working directory first on the path
    proc = subprocess.run([sys.executable, "-c", _TIMED, call, str(repeats)],
                          capture_output=True, text=True, check=True, cwd=tree,
                          env={**os.environ, "PYTHONPATH": tree})
    return json.loads(proc.stdout.strip().splitlines()[-1])


def against_tree(tree: str, quick: bool = False) -> list[dict]:
    """The warm calls of :data:`_WARM`, this tree against ``tree``: fresh processes, old
    and new alternating, the median of each process's median CPU time."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rounds, repeats = (1, 5) if quick else (5, 40)
    rows = []
    for name, call in _WARM.items():
        new, old = [], []
        for i in range(rounds):
            for which in ((here, new), (tree, old))[:: 1 if i % 2 == 0 else -1]:
                which[1].append(_child(which[0], call, repeats // 4 if "1000" in name
                                       else repeats))
        cpu_new, cpu_old = (float(np.median([r["time"] for r in x])) for x in (new, old))
        wall_new, wall_old = (float(np.median([r["wall"] for r in x])) for x in (new, old))
        rows.append(row(f"{name}: A/B", cpu_new,
                        f"the same at {os.path.basename(tree.rstrip('/'))}", cpu_old,
                        f"CPU time; wall {wall_new * 1e3:.3g} vs {wall_old * 1e3:.3g} ms; "
                        f"fresh processes, {rounds} alternating rounds",
                        ours_cpu_s=cpu_new, baseline_cpu_s=cpu_old,
                        method=f"{call} in both trees, a new Board.from_dict each call; "
                               "median of each process's median"))
    return rows


def _edge_calls(board):
    return [("optimal_policy", lambda: optimal_policy(board, DICE_2)),
            ("optimal_policy method='value'",
             lambda: optimal_policy(board, DICE_2, method="value")),
            ("finish_within K=30", lambda: finish_within(board, DICE_2, 30))]


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv):
        print(r)
