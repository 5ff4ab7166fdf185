"""Both players fixed: the race is a Markov chain, solved exactly by the core's solver.

The chain's states are ``(mover's square, other square, mover's side)``, ``2 N^2`` of
them; side ``k`` wins with probability ``x_k = (I - Q)^-1 b_k``, where ``b_k`` is the
chance that side ``k`` finishes with the throw it is about to make. The core solver
(:func:`~snl_numeric._core.solve.system_solver`: today a block-triangular sweep along the diagonals
plus a low-rank or Krylov correction for the throws that go back, every pivot formed
as a sum) certifies a relative error, whatever the chain's mixing time: this is what
the sweeps fall back on when a chain mixes too slowly for them (a die that almost
always throws 2 on a board whose snakes keep the parity, say).
"""

from __future__ import annotations

import numpy as np

from .._core.solve import TARGET_ERROR, system_solver
from .graph import chain_table_kernel

#: The sweeps hand a slow chain to the solver up to this many chain states ``2 N^2``.
MAX_STATES = 200_000


def chain_index_base(n_sq: int) -> np.ndarray:
    """``cbase[s]``: first index of diagonal ``s`` (groups of four states per pair of
    squares, two for the pair ``(s / 2, s / 2)``); ``cbase[2 N - 1]`` is the count."""
    s = np.arange(2 * n_sq - 1)
    lo = np.maximum(0, s - n_sq + 1)
    hi = np.minimum(s, n_sq - 1)
    strict = np.maximum(0, np.minimum(hi, (s - 1) // 2) - lo + 1)  # pairs p < s - p
    even = (s % 2 == 0) & (s // 2 <= hi) & (s // 2 >= lo)
    sizes = 4 * strict + 2 * even
    out = np.zeros(2 * n_sq, dtype=np.int64)
    out[1:] = np.cumsum(sizes)
    return out


def solve_chain(tables, die0: np.ndarray, take0: np.ndarray, die1: np.ndarray, take1: np.ndarray,
                live0: np.ndarray, live1: np.ndarray, target: float = TARGET_ERROR
                ) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray], float]:
    """``((win0, lose0), (win1, lose1), error)``: per pair state (diagonal layout), side
    ``k``'s chance to win and the other side's when side ``k`` is about to throw, and
    the certified bound on the absolute error of every entry (the solver refines its
    answer towards the relative error ``target``)."""
    n_sq = tables.n_sq
    cbase = chain_index_base(n_sq)
    n = int(cbase[-1])
    width = tables.nodes.shape[2]
    succ = np.empty((n + 1, width), dtype=np.int64)
    prob = np.empty((n + 1, width))
    b0 = np.zeros(n + 1)
    b1 = np.zeros(n + 1)
    active = np.zeros(n + 1, dtype=np.bool_)
    chain_table_kernel(tables.nodes, tables.probs, tables.jumps, tables.optional, die0, take0,
                       die1, take1, tables.base, cbase, live0, live1, succ, prob, b0, b1,
                       active)
    succ[n] = n
    prob[n] = 0.0
    solver = system_solver(succ, prob, active)
    x0 = solver.solve(b0, target=target)
    x1 = solver.solve(b1, target=target)
    error = max(x0.error * float(np.max(x0.x, initial=0.0)),
                x1.error * float(np.max(x1.x, initial=0.0)))
    # back to the diagonal layout of pair states, for side 0 (k = 0) and side 1 (k = 1)
    idx = np.empty((2, n_sq * n_sq), dtype=np.int64)
    for s in range(2 * n_sq - 1):
        lo = max(0, s - n_sq + 1)
        me = np.arange(lo, min(s, n_sq - 1) + 1)
        other = s - me
        group = cbase[s] + 4 * (np.minimum(me, other) - lo) + 2 * (me > other)
        pos = tables.base[s] + me
        idx[0, pos] = group
        idx[1, pos] = group + 1
    x0v = np.where(active, x0.x, 0.0)
    x1v = np.where(active, x1.x, 0.0)
    side0 = (x0v[idx[0]], x1v[idx[0]])
    side1 = (x1v[idx[1]], x0v[idx[1]])
    return side0, side1, float(error)
