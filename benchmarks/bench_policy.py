"""Optimal dice choice: policy iteration vs plain value iteration.

Rows: ``optimal_policy`` on the Milton Bradley board with 2, 3 and 6 dice
(baseline: seed-style Gauss-Seidel value iteration in plain Python, to a
relative change of 1e-12), optional jumps, ``finish_within`` (baseline: plain
Python backward induction), random boards of 10^5 squares (compared with
our own value iteration, ``method="value"``), and a board at the size where the
NumPy path hands over to the Numba kernels (``policy.problem.KERNEL_SQUARES``),
answered both ways.
"""

from __future__ import annotations

import numpy as np

from snl_numeric import boards, finish_within, optimal_policy
from snl_numeric.dice import parse_dice
from snl_numeric.policy import problem

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

    edge = boards.random_board(problem.KERNEL_SQUARES, 0.1, rng=3)
    numpy_path = {name: median_time(fn, 1 if quick else 3) for name, fn in _edge_calls(edge)}
    saved = problem.KERNEL_SQUARES
    problem.KERNEL_SQUARES = 0
    try:
        for name, fn in _edge_calls(edge):
            fn()  # compile the kernels
            rows.append(row(f"{name}, {edge.size:,} squares: NumPy path", numpy_path[name],
                            "Numba kernels", median_time(fn, 1 if quick else 3)))
    finally:
        problem.KERNEL_SQUARES = saved

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
    return rows


def _edge_calls(board):
    return [("optimal_policy", lambda: optimal_policy(board, DICE_2)),
            ("optimal_policy method='value'",
             lambda: optimal_policy(board, DICE_2, method="value")),
            ("finish_within K=30", lambda: finish_within(board, DICE_2, 30))]


if __name__ == "__main__":
    for r in run():
        print(r)
