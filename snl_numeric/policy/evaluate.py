"""A policy's chain, its exact evaluation, and the one-step sums of every choice.

A policy is evaluated by solving ``A t = s`` over the active squares, ``A = D - G``
(``G`` the probabilities of moving between them, ``D`` each square's probability of
moving, ``s`` the die's probabilities summed): the chain with its rows scaled to sum to
1, as the core's solver sets it up. Systems of up to ``DENSE_MAX`` unknowns (the core's
own limit for a dense LU) are factorised here by LAPACK: policy iteration evaluates
several policies of a board of a hundred squares, on which the core's solver, set up
for every question about a board, spends more than its factorisation. The answer is
certified as the core certifies it: by its residual, with a bound on the residual's
own rounding, componentwise (``A^-1 >= 0`` and ``s > 0``). An answer not certified to
the core's target, and every larger system, is the core's (``system_solver``: SuperLU,
refinement in double-double, GTH elimination).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg.lapack import dgesv, dgetrs
from scipy.sparse.csgraph import breadth_first_order

from .._core.blas import matmul
from .._core.numba_config import njit
from .._core.solve import Solution, system_solver
from .._core.solve.certify import gamma, total_error
from .._core.solve.direct import DENSE_MAX, LAPACK_LOCK, TARGET
from .problem import Problem, csr_graph, resolve

U = np.finfo(np.float64).eps / 2


def policy_table(p: Problem, die: np.ndarray, to: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Resting square ``succ[x, f]`` and probability of each face under the policy (``to``:
    where each node leads under its jump decisions, ``resolve(p, take)``).

    Faces of probability 0, the goal's row and squares without a die (``-1``) stay on
    their square with probability 0, so the table's reachability is that of the chain.
    """
    rows = np.arange(p.n)
    dies = np.maximum(die, 0)
    succ = to[p.nxt[dies, rows]]
    prob = p.probs[dies]
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
    return _proper(*policy_table(p, die, resolve(p, take)), active, p.goal)


def evaluate(p: Problem, die: np.ndarray, to: np.ndarray, active: np.ndarray,
             check: bool = True, systems: DenseSystems | None = None
             ) -> tuple[np.ndarray, float, Any]:
    """Expected throws under a policy (``to``: the square each node leads to under its jump
    decisions): ``inf`` off the ``active`` squares, or everywhere but the goal when the
    policy does not finish surely from all of them (checked unless ``check`` is False);
    their certified relative error and the solver (``None`` when nothing was solved).
    ``systems``: :class:`DenseSystems` of these squares and jump decisions, when known.
    """
    values = np.full(p.n, np.inf)
    values[p.goal] = 0.0
    states = np.flatnonzero(active) if systems is None else systems.states
    table = None
    if check and len(states):
        table = policy_table(p, die, to)
        if not _proper(*table, active, p.goal):
            return values, 0.0, None
    if not len(states):
        return values, 0.0, None
    if len(states) <= DENSE_MAX:
        dense = (systems or DenseSystems(p, to, states)).solver(die)
        if dense.error <= TARGET:
            values[states] = dense.t
            return values, dense.error, dense
    solver = system_solver(*(table or policy_table(p, die, to)), active)
    sol = solver.solve(active.astype(np.float64))
    values[active] = sol.x[active]
    return values, float(sol.error), solver


class DenseSystems:
    """The systems of every policy of ``p`` over the squares ``states`` (at most
    ``DENSE_MAX``) under the jump decisions ``to``: ``A = D - G`` of each die as a dense
    matrix, from which a policy's rows are gathered at once."""

    def __init__(self, p: Problem, to: np.ndarray, states: np.ndarray) -> None:
        m, n_act = len(states), p.n_actions
        pos = np.full(p.n, m)  # each square's place in the system, m off it
        pos[states] = np.arange(m)
        self.to = dest = pos[to[p.nxt[:, states]]]
        moving = np.where(dest == np.arange(m)[:, None], 0.0, p.probs[:, None, :])
        self.pivot = moving.sum(axis=2)  # the probability of moving (the faces that stay not)
        idx = (np.arange(n_act * m) * (m + 1))[:, None] + dest.reshape(n_act * m, dest.shape[2])
        a = np.bincount(idx.ravel(), weights=-moving.ravel(), minlength=n_act * m * (m + 1))
        self.a = a.reshape(n_act, m, m + 1)[:, :, :m]  # a last column for "off the system"
        self.a[:, np.arange(m), np.arange(m)] = self.pivot
        self.p, self.states = p, states

    def solver(self, die: np.ndarray) -> DenseSolver:
        """The solver of the policy throwing ``die``."""
        d, rows = die[self.states], np.arange(len(self.states))
        return DenseSolver(self.a[d, rows], self.pivot[d, rows], self.p.rowsum[d],
                           self.p.probs[d], self.to[d, rows], self.states, self.p.n)


class DenseSolver:
    """``A x = b`` over the squares ``states`` (of ``n``) by LAPACK's dense LU, ``t = A^-1 s``
    (the expected throws) solved at once; every answer with its certified relative error.

    ``a`` is ``A``, ``pivot`` its diagonal, ``rowsum`` the row sums ``s`` of the dice's
    probabilities ``prob``, ``to`` where each face leads (``len(states)``: off the system).
    """

    def __init__(self, a: np.ndarray, pivot: np.ndarray, rowsum: np.ndarray,
                 prob: np.ndarray, to: np.ndarray, states: np.ndarray, n: int) -> None:
        self.a, self.pivot, self.rowsum, self.states, self.n = a, pivot, rowsum, states, n
        self.faces = prob.shape[1]
        self.gamma = gamma(2 * self.faces + 6)  # the residual's rounding, and the pivots'
        with LAPACK_LOCK:
            self.lu, self.piv, t, info = dgesv(a, rowsum[:, None])
        self.t = t = t[:, 0]
        self.error = np.inf
        if info == 0 and t.min() >= 0.0:  # (False for NaN; inf gives an infinite error)
            ax = matmul(a, t)
            err = np.abs(rowsum - ax) + self.gamma * (rowsum + 2.0 * pivot * t - ax)
            self.error = self._relative(err)
            if self.error > TARGET:  # the residual's rounding may hide its size: exactly
                r, err = exact_rows(rowsum, prob, np.append(t, 0.0)[to], t)
                self.error = min(self.error, self._relative(np.abs(r) + err))

    def _relative(self, err: np.ndarray) -> float:
        """The relative error of ``t`` from a bound ``err`` on its exact residual."""
        worst = float(np.max(err / self.rowsum)) * (1 + 4 * U)
        return total_error(worst / (1.0 - worst), self.faces) if worst < 1.0 else np.inf

    def solve(self, b: np.ndarray) -> Solution:
        """``x`` of the chain with rows scaled to sum to 1 (``A x = s b``; ``b`` over the
        squares, zero off the system) and its relative error, normwise:
        ``||A^-1||_inf <= max(t) / min(s)``."""
        rhs = b[self.states] * self.rowsum
        with LAPACK_LOCK:
            x = dgetrs(self.lu, self.piv, rhs)[0]
        a, ab = self.a, np.abs(x)
        size = np.abs(rhs) + 2.0 * self.pivot * ab - matmul(a, ab)
        err = float(np.max(np.abs(rhs - matmul(a, x)) + self.gamma * size))
        top = float(ab.max())
        inverse = float(self.t.max()) * (1.0 + self.error) / float(self.rowsum.min())
        error = err * inverse / top if top > 0.0 else (0.0 if err == 0.0 else np.inf)
        out = np.zeros(self.n)
        out[self.states] = x
        return Solution(out, 0, total_error(error, self.faces), np.nan, "lu")


def face_sums(p: Problem, w: np.ndarray, land: np.ndarray | None = None) -> np.ndarray:
    """``q[..., a, x] = sum_f probs[a, f] w[..., land[a, x, f]]`` for every die and square
    (``land`` is ``p.nxt`` unless given; ``w`` over the nodes, finite or ``inf``, never
    NaN; several rows of ``w`` at once on the NumPy path)."""
    if not p.kernels:
        return np.matmul(w[..., p.nxt if land is None else land], p.probs[:, :, None])[..., 0]
    q = np.empty((p.n_actions, p.n))
    _face_sums_kernel(p.nxt if land is None else land, p.probs, w, q)
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


# =============================================================================
# Residuals in error-free arithmetic
# =============================================================================
def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = 134217729.0 * a  # 2**27 + 1 (Dekker)
    hi = t - (t - a)
    return hi, a - hi


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a * b == p + e`` exactly."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a + b == s + e`` exactly."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def exact_rows(scale: np.ndarray, probs: np.ndarray, after: np.ndarray, here: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """``scale + sum_f probs[:, f] after[:, f] - scale here`` per row, as ``hi + lo``
    (products exact, summed as Ogita, Rump and Oishi's Sum2), and a bound on its error."""
    ph, pl = _two_prod(probs, after)
    dh, dl = _two_prod(scale, here)
    s, lo = scale.copy(), -dl + pl.sum(axis=1)
    for f in range(probs.shape[1]):
        s, err = _two_sum(s, ph[:, f])
        lo += err
    s, err = _two_sum(s, -dh)
    lo += err
    k = probs.shape[1] + 2
    size = scale + np.abs(ph).sum(axis=1) + np.abs(dh)
    return s + lo, 2 * U * np.abs(s + lo) + 3 * (2 * k * U) ** 2 * size
