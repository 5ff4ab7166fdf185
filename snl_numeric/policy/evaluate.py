"""A policy's chain, its exact evaluation through the core's solver, and the one-step
sums of every choice."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.sparse.csgraph import breadth_first_order

from .._core.numba_config import njit
from .._core.solve import system_solver
from .problem import Problem, csr_graph, resolve


def policy_table(p: Problem, die: np.ndarray, take: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Resting square ``succ[x, f]`` and probability of each face under the policy.

    Faces of probability 0, the goal's row and squares without a die (``-1``) stay on
    their square with probability 0, so the table's reachability is that of the chain.
    """
    rows = np.arange(p.n)
    succ = resolve(p, take)[p.nxt[np.maximum(die, 0), rows]]
    prob = p.probs[np.maximum(die, 0)]
    still = (prob == 0) | (die < 0)[:, None]
    still[p.goal] = True
    return np.where(still, rows[:, None], succ), np.where(still, 0.0, prob)


def _proper(succ: np.ndarray, prob: np.ndarray, active: np.ndarray, goal: int) -> bool:
    """Whether the chain finishes surely from every active square: no active square
    moves outside ``active`` and the goal, and each can reach the goal."""
    rows, faces = np.nonzero((prob > 0.0) & active[:, None])
    land = succ[rows, faces]
    if not np.all(active[land] | (land == goal)):
        return False
    reached = np.zeros(len(succ), dtype=bool)
    reached[breadth_first_order(csr_graph(land, rows, len(succ)), goal,
                                return_predecessors=False)] = True
    return bool(np.all(reached[active]))


def proper(p: Problem, die: np.ndarray, take: np.ndarray, active: np.ndarray) -> bool:
    """Whether the policy finishes surely from every ``active`` square."""
    return _proper(*policy_table(p, die, take), active, p.goal)


def evaluate(p: Problem, die: np.ndarray, take: np.ndarray, active: np.ndarray,
             check: bool = True) -> tuple[np.ndarray, float, Any]:
    """Expected throws under a policy (``inf`` off the ``active`` squares, or everywhere
    but the goal when the policy does not finish surely from all of them: checked unless
    ``check`` is False), their certified relative error and the solver (``None`` when
    nothing was solved).

    The policy's chain is a successor table with per-square probabilities, solved by
    the core's one entry for the fundamental system.
    """
    succ, prob = policy_table(p, die, take)
    values = np.full(p.n, np.inf)
    values[p.goal] = 0.0
    if not active.any() or (check and not _proper(succ, prob, active, p.goal)):
        return values, 0.0, None
    solver = system_solver(succ, prob, active)
    sol = solver.solve(active.astype(np.float64))
    values[active] = sol.x[active]
    return values, float(sol.error), solver


def face_sums(p: Problem, w: np.ndarray) -> np.ndarray:
    """``q[a, x] = sum_f probs[a, f] w[nxt[a, x, f]]`` for every die and square (``w``
    over the nodes, finite or ``inf``, never NaN)."""
    if not p.kernels:
        return np.einsum("af,anf->an", p.probs, w[p.nxt])
    q = np.empty((p.n_actions, p.n))
    _face_sums_kernel(p.nxt, p.probs, w, q)
    return q


@njit()
def _face_sums_kernel(nxt, probs, w, q):  # pragma: no cover - jitted
    n_act, n, width = nxt.shape
    for a in range(n_act):
        for x in range(n):
            s = 0.0
            for f in range(width):
                if probs[a, f] > 0.0:
                    s += probs[a, f] * w[nxt[a, x, f]]
            q[a, x] = s
