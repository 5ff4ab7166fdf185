"""The iterated exact local search of :func:`~snl_numeric.design_board` (``method="local"``
and ``objective="fair"``), written once over an evaluator.

From the current layout, its whole neighbourhood (``neighbours_kernel``: move one end of a
jump, move a jump, swap two jumps' starts) is shuffled and evaluated in batches; the best of
the first batch that improves the cost becomes the current layout. When no neighbour
improves (an exact local optimum, or an empty neighbourhood), the best layout so far is
kicked by a few random moves (``kick_kernel``, from its own random stream) and the search
goes on from there, until the budget of evaluations is spent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .kernels import kick_kernel, neighbours_kernel

__all__ = ["local_search"]

#: Random moves applied at a local optimum.
KICK = 3

#: ``evaluate(src_rows, dst_rows) -> (cost, extra)``: each layout's cost (inf: rejected) and
#: a row of values kept with the best layout (for instance its mean and variance).
Evaluator = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def local_search(p: Any, src: np.ndarray, dst: np.ndarray, cost: float, extra: np.ndarray,
                 evaluate: Evaluator, *, evals: int, budget: int, batch: int, floor: float,
                 shuffle: np.random.Generator, kick_state: np.ndarray, bar: Any
                 ) -> tuple[np.ndarray, np.ndarray, float, np.ndarray, np.ndarray,
                            np.ndarray, int]:
    """Minimise ``evaluate``'s cost from the layout ``src``/``dst`` (cost ``cost``, values
    ``extra``) of the problem ``p`` (its ``space``, ``k`` jumps and ``size``), while fewer
    than ``budget`` evaluations are counted (``evals`` so far).

    A neighbour improves when its cost is below ``cur - 1e-12 * max(floor, |cur|)``.
    Returns the best layout ``(src, dst, cost, extra, trace, trace_evaluations,
    evaluations)``: after each batch and each kick, the best cost so far and the
    evaluations spent."""
    cur_src, cur_dst, cur = src.copy(), dst.copy(), float(cost)
    best = (cur_src.copy(), cur_dst.copy(), cur, np.array(extra, dtype=float))
    rec = np.empty((p.k * (4 * p.size + p.k + 4), 4), dtype=np.int64)
    out_src = np.empty((batch, p.k), dtype=np.int64)
    out_dst = np.empty((batch, p.k), dtype=np.int64)
    trace: list[float] = []
    trace_evals: list[int] = []
    while evals < budget:
        count = neighbours_kernel(p.space, cur_src, cur_dst, rec)
        order = shuffle.permutation(count)
        moved = False
        for lo in range(0, count, batch):
            take = order[lo:min(lo + batch, count, lo + budget - evals)]
            if not len(take):
                break
            cs, cd = out_src[:len(take)], out_dst[:len(take)]
            _apply_moves(cur_src, cur_dst, rec[take], cs, cd)
            costs, extras = evaluate(cs, cd)
            evals += len(take)
            bar.update(len(take))
            i = int(np.argmin(costs))
            if costs[i] < cur - 1e-12 * max(floor, abs(cur)):
                cur_src, cur_dst, cur = cs[i].copy(), cd[i].copy(), float(costs[i])
                if cur < best[2]:
                    best = (cur_src.copy(), cur_dst.copy(), cur, extras[i].copy())
                moved = True
            trace.append(best[2])
            trace_evals.append(evals)
            if moved:
                break
        if not moved and evals < budget:  # a local optimum (or no neighbour): kick
            cur_src, cur_dst = best[0].copy(), best[1].copy()
            kick_kernel(p.space, cur_src, cur_dst, kick_state, 0, KICK)
            costs, extras = evaluate(cur_src[None, :], cur_dst[None, :])
            evals += 1
            bar.update(1)
            cur = float(costs[0])
            if not np.isfinite(cur):
                cur_src, cur_dst, cur = best[0].copy(), best[1].copy(), best[2]
            elif cur < best[2]:
                best = (cur_src.copy(), cur_dst.copy(), cur, extras[0].copy())
            trace.append(best[2])
            trace_evals.append(evals)
    return (best[0], best[1], best[2], best[3], np.array(trace, dtype=float),
            np.array(trace_evals, dtype=np.int64), evals)


def _apply_moves(src: np.ndarray, dst: np.ndarray, moves: np.ndarray, out_src: np.ndarray,
                 out_dst: np.ndarray) -> None:
    """Row ``i`` of ``out_*``: the layout ``src``/``dst`` after move ``moves[i]`` (a row of
    ``neighbours_kernel``'s record: jump, kind, then the new start and end, or for kind 3
    the jump whose start it swaps with)."""
    out_src[:] = src
    out_dst[:] = dst
    rows = np.arange(len(moves))
    j, kind, a, b = moves.T
    swap = kind == 3
    out_src[rows[swap], j[swap]] = src[a[swap]]
    out_src[rows[swap], a[swap]] = src[j[swap]]
    out_src[rows[~swap], j[~swap]] = a[~swap]
    out_dst[rows[~swap], j[~swap]] = b[~swap]
