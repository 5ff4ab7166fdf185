"""A policy's chain, its exact evaluation, and the one-step sums of every choice.

A policy is evaluated by solving ``A t = s`` over the active squares, ``A = D - G``
(``G`` the probabilities of moving between them, ``D`` each square's probability of
moving, ``s`` the die's probabilities summed): the chain with its rows scaled to sum to
1, as the core's solver sets it up, by the core's solver (``system_solver``; answers
certified by their residuals, refined in double-double, GTH elimination where LU cannot
certify). Policy iteration evaluates several policies of a board of a hundred squares:
on systems of up to ``DENSE_MAX`` unknowns (the core's limit for a dense LU) the dense
matrices of every die are built once per set of jump decisions (:class:`DenseSystems`),
and a policy's direct solver is gathered from them (``dense_solver``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.sparse.csgraph import breadth_first_order

from .._core.numba_config import njit
from .._core.sizes import DENSE_MAX, POLICY_UPDATE_ROWS
from .._core.solve import (DirectSolver, SystemSolver, dense_solver, system_solver,
                           updated_solver)
from .._core.solve.eft import two_prod, two_sum
from .problem import Problem, csr_graph, resolve

U = np.finfo(np.float64).eps / 2


def policy_table(p: Problem, die: np.ndarray, to: np.ndarray, rows: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Resting square ``succ[x, f]`` and probability of each face under the policy (``to``:
    where each node leads under its jump decisions, ``resolve(p, take)``), on every square
    or the squares ``rows`` (in their order).

    Faces of probability 0, the goal's row and squares without a die (``-1``) stay on
    their square with probability 0, so the table's reachability is that of the chain.
    """
    rows = np.arange(p.n) if rows is None else rows
    die = die[rows]
    dies = np.maximum(die, 0)
    succ = to[p.nxt[dies, rows]]
    prob = p.face_probs(dies, rows)
    still = (prob == 0) | (die < 0)[:, None]
    still[rows == p.goal] = True
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
             check: bool = True, systems: DenseSystems | None = None,
             root: tuple[SystemSolver, np.ndarray] | None = None
             ) -> tuple[np.ndarray, float, SystemSolver | None, bool]:
    """Expected throws (or costs, :attr:`Problem.cost`) under a policy (``to``: the square
    each node leads to under its jump decisions): ``inf`` off the ``active`` squares, or
    everywhere but the goal when the policy does not finish surely from all of them (checked
    unless ``check`` is False); their certified relative error, the solver (``None`` when
    nothing was solved) and whether it was factorised (not updated from ``root``).
    ``systems``: :class:`DenseSystems` of these squares and jump decisions, when known.
    ``root``: a solver of these squares and jump decisions factorised for the dice ``die``
    of its tuple: a policy whose dice differ on at most :data:`POLICY_UPDATE_ROWS` squares
    of the system is solved by updating its factors (:func:`updated`).
    """
    values = np.full(p.n, np.inf)
    values[p.goal] = 0.0
    states = np.flatnonzero(active) if systems is None else systems.states
    table = None
    if check and len(states):
        table = policy_table(p, die, to)
        if not _proper(*table, active, p.goal):
            return values, 0.0, None, False
    if not len(states):
        return values, 0.0, None, False
    # (a dense LU costs about what an update of a few squares does: measured at 100)
    solver = (updated(p, *root, die, to, states)
              if root is not None and len(states) > DENSE_MAX else None)
    factorised = solver is None
    if solver is None and len(states) <= DENSE_MAX:
        solver = (systems or DenseSystems(p, to, states)).solver(
            die, lambda: table or policy_table(p, die, to))
    elif solver is None:
        solver = system_solver(*(table or policy_table(p, die, to)), active)
    if p.cost is None:
        sol = solver.throws()
    else:
        b = np.zeros(p.n)
        b[states] = p.cost_at(die[states], states)
        sol = solver.solve(b)
    values[states] = sol.x[states]
    return values, float(sol.error), solver, factorised


def updated(p: Problem, root: SystemSolver, root_die: np.ndarray, die: np.ndarray,
            to: np.ndarray, states: np.ndarray) -> SystemSolver | None:
    """The solver of the policy ``die`` from ``root``'s factors (a solver of the same squares
    and jump decisions for the dice ``root_die``): ``root`` itself when no die of the system
    differs, None when more than :data:`POLICY_UPDATE_ROWS` do or ``root`` has no factors
    to update (:func:`~snl_numeric._core.solve.updated_solver`)."""
    changed = states[die[states] != root_die[states]]
    if not len(changed):
        return root
    if len(changed) > POLICY_UPDATE_ROWS or not isinstance(root, DirectSolver):
        return None
    succ, prob = policy_table(p, die, to, changed)
    return updated_solver(root, changed, succ, prob, prob.sum(axis=1),  # (as the table's)
                          lambda: policy_table(p, die, to))


class DenseSystems:
    """The systems of every policy of ``p`` over the squares ``states`` (at most
    ``DENSE_MAX``) under the jump decisions ``to``: ``A = D - G`` of each die as a dense
    matrix, with its rows, from which a policy's solver is gathered at once."""

    def __init__(self, p: Problem, to: np.ndarray, states: np.ndarray) -> None:
        m, n_act = len(states), p.n_actions
        pos = np.full(p.n, m)  # each square's place in the system, m off it
        pos[states] = np.arange(m)
        self.to = dest = pos[to[p.nxt[:, states]]]
        self.moving = moving = np.where(dest == np.arange(m)[:, None], 0.0,
                                        p.probs[:, states] if p.per_row
                                        else p.probs[:, None, :])
        self.pivot = pivot = moving.sum(axis=2)  # the probability of moving (the faces that
        # stay not)
        idx = (np.arange(n_act * m) * (m + 1))[:, None] + dest.reshape(n_act * m, dest.shape[2])
        a = np.bincount(idx.ravel(), weights=-moving.ravel(), minlength=n_act * m * (m + 1))
        self.a = a.reshape(n_act, m, m + 1)[:, :, :m]  # a last column for "off the system"
        self.a[:, np.arange(m), np.arange(m)] = pivot
        self.p, self.states = p, states
        self.rows = np.arange(m)

    def solver(self, die: np.ndarray, table: Callable[[], tuple]) -> SystemSolver:
        """The direct solver of the policy throwing ``die`` (``table()``: its successor
        table and probabilities, :func:`policy_table`)."""
        d, rows = die[self.states], self.rows
        p = self.p
        return dense_solver(self.a[d, rows], self.to[d, rows], p.face_probs(d, self.states),
                            self.moving[d, rows], self.pivot[d, rows],
                            p.rowsum_at(np.maximum(die, 0), np.arange(p.n)),
                            self.states, table)


def face_sums(p: Problem, w: np.ndarray, land: np.ndarray | None = None) -> np.ndarray:
    """``q[..., a, x] = sum_f probs[a, f] w[..., land[a, x, f]]`` for every die and square
    (``land`` is ``p.nxt`` unless given; ``w`` over the nodes, finite or ``inf``, never
    NaN; several rows of ``w`` at once on the NumPy path)."""
    if p.per_row:  # (gathers by take: faster than indexing w[..., land])
        gathered = w.take(p.nxt if land is None else land, axis=-1)
        return np.matmul(gathered[..., None, :], p.probs[..., None])[..., 0, 0]
    if not p.kernels:
        return np.matmul(w.take(p.nxt if land is None else land, axis=-1),
                         p.probs[:, :, None])[..., 0]
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
def exact_rows(rowsum: np.ndarray, rowsum_lo: np.ndarray, probs: np.ndarray,
               after: np.ndarray, here: np.ndarray, cost: np.ndarray | float = 1.0
               ) -> tuple[np.ndarray, np.ndarray]:
    """``S cost + sum_f probs[:, f] after[:, f] - S here`` per row, ``S = rowsum +
    rowsum_lo`` the exact sum of the row's probabilities (:attr:`Problem.rowsum_lo`: the
    row divided by ``S`` sums to 1 exactly, so a play that stays among squares of equal
    value changes nothing, however its probabilities round), as ``hi + lo`` (products
    exact, summed as Ogita, Rump and Oishi's Sum2), and a bound on its error. ``S`` differs
    from ``rowsum`` by at most ``(faces - 1) u rowsum``: dividing by ``rowsum`` instead
    leaves that relative error."""
    sh, sl = rowsum, rowsum_lo
    ph, pl = two_prod(probs, after)
    dh, dl = two_prod(sh, here)
    dl += sl * here
    if np.isscalar(cost) and cost == 1.0:
        s, lo = sh.copy(), sl - dl + pl.sum(axis=1)
        first = sh
    else:
        s, cl = two_prod(sh, np.broadcast_to(cost, sh.shape))
        lo = cl + sl * cost - dl + pl.sum(axis=1)
        first = np.abs(s)
    for f in range(probs.shape[1]):
        s, err = two_sum(s, ph[:, f])
        lo += err
    s, err = two_sum(s, -dh)
    lo += err
    k = 2 * probs.shape[1] + 4  # (the terms of lo, the sums into rowsum_lo among them)
    size = first + np.abs(ph).sum(axis=1) + np.abs(dh)
    return s + lo, 2 * U * np.abs(s + lo) + 3 * (2 * k * U) ** 2 * size
