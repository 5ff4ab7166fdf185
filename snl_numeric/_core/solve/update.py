"""A direct solver whose rows on a few squares differ from a factorised one's: solved by the
Sherman-Morrison-Woodbury formula with the other's factors, certified as any answer.

Policy iteration evaluates policies a step or a trial apart, each one a few squares' rows
from the last policy it factorised: with ``A' = A + U D`` (``U`` the changed squares' unit
columns, ``D`` their rows' differences, ``k`` of them), ``A'^-1 b = y - Z S^-1 D y`` with
``y = A^-1 b``, ``Z = A^-1 U`` and ``S = I + D Z`` (``k x k``); ``A'^-T b = y - W S^-T U^T y``
with ``y = A^-T b`` and ``W = A^-T D^T``. ``k`` solves by the factors (``W``'s on first use)
instead of a factorisation. Answers are certified by their residuals over the new rows and
refined as :class:`~.direct.DirectSolver`'s; where that cannot certify one (an ill-conditioned
``S``), the solver factorises its own rows and answers as a plain direct solver.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .direct import DENSE_MAX, LAPACK_LOCK, REFACTOR_ERROR, DirectSolver

__all__ = ["updated_solver"]


def updated_solver(base: DirectSolver, squares: np.ndarray, succ: np.ndarray,
                   probs: np.ndarray, rowsum: np.ndarray, table: Callable[[], tuple]
                   ) -> DirectSolver | None:
    """The solver of ``base``'s system with the rows of ``squares`` (squares of the system,
    distinct) replaced: ``succ[i, f]`` the square face ``f`` of ``squares[i]`` rests on,
    ``probs[i, f]`` its probability (0: the face stays), ``rowsum[i]`` the probabilities'
    sum; ``table()`` the whole table (for the structured fallback). None where ``base`` has
    no factors to update (a chain's CSR rows) or ``S`` is singular.

    Examples
    --------
    >>> succ = np.array([[1, 2], [2, 0], [2, 2]])     # square 2 is the goal
    >>> base = DirectSolver(succ, np.array([0.5, 0.5]), np.array([True, True, False]))
    >>> s = updated_solver(base, np.array([1]), np.array([[2, 2]]), np.array([[0.5, 0.5]]),
    ...                    np.array([1.0]), lambda: None)
    >>> s.throws().x.tolist()                          # square 1 now always finishes
    [1.5, 1.0, 0.0]
    """
    if base.rows_csr is not None or isinstance(base, _Updated):
        return None
    solver = _Updated(base, squares, succ, probs, rowsum, table)
    return solver if solver.ready else None


class _Updated(DirectSolver):
    """:func:`updated_solver`'s solver (its rows over ``base``'s squares, in its order)."""

    def __init__(self, base: DirectSolver, squares: np.ndarray, succ: np.ndarray,
                 probs: np.ndarray, rowsum: np.ndarray, table: Callable[[], tuple]) -> None:
        self.n, self.faces = base.n, base.faces
        self.active, self.states, self.unknowns = base.active, base.states, base.unknowns
        m, k = self.unknowns, len(squares)
        self._mu = 0  # (every square's column as it comes: the base's factors answer)
        pos = np.full(self.n, m)
        pos[self.states] = np.arange(m)
        at = pos[squares]
        moving_at = np.where(succ == squares[:, None], 0.0, probs)
        to, moving, pivot = base.to.copy(), base.moving.copy(), base.pivot.copy()
        rows_probs = np.broadcast_to(base.probs, to.shape).copy()
        scale = np.broadcast_to(base.scale, (m, 1)).copy()
        to[at], moving[at], rows_probs[at] = pos[succ], moving_at, probs
        pivot[at] = moving_at.sum(axis=1)
        scale[at, 0] = rowsum
        self.rowsum = np.broadcast_to(base.rowsum, (self.n,)).copy()
        self.rowsum[squares] = rowsum
        self._setup(to, rows_probs, moving, scale, table, pivot)
        self.method = base.method
        self._base: DirectSolver | None = base
        self._at = at
        self._d = self._dense(at=at) - base._dense(at=at)  # (D: the rows' differences)
        unit = np.zeros((m, k))
        unit[at, np.arange(k)] = 1.0
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            self._z = base.by_factors(unit, False)[0]
            s = np.eye(k) + self._d @ self._z
        self.ready = bool(np.isfinite(s).all())
        self._w: np.ndarray | None = None
        if self.ready:
            try:
                with LAPACK_LOCK:
                    self._s_inv = np.linalg.inv(s)
            except np.linalg.LinAlgError:
                self.ready = False

    def by_factors(self, rhs: np.ndarray, trans: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """As :class:`~.direct.DirectSolver`'s, by the update (``near`` None: the residual
        gathers it from the new rows)."""
        base = self._base
        if base is None:  # (factorised its own rows)
            return super().by_factors(rhs, trans)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            y = base.by_factors(rhs, trans)[0]
            if trans:
                return y - self._trans_columns(base) @ (self._s_inv.T @ y[self._at]), None
            return y - self._z @ (self._s_inv @ (self._d @ y)), None

    def _trans_columns(self, base: DirectSolver) -> np.ndarray:
        """``W = A^-T D^T`` by ``base``'s factors (built on first use; ``base`` as the caller
        read it: another thread may have factorised the solver's own rows since)."""
        with self._lock:
            if self._w is None:
                self._w = base.by_factors(np.ascontiguousarray(self._d.T), True)[0]
            return self._w

    def _certified(self, rhs: np.ndarray, trans: bool, target: float, measure: bool = False,
                   first: tuple | None = None):
        if self._base is not None:
            x, lo, error, backward = self._refine(self.by_factors, rhs, trans, target, measure,
                                                  first=first)
            if error <= max(target, REFACTOR_ERROR):
                return x, lo, error, backward, self.method
            self._own()
            first = None
        return super()._certified(rhs, trans, target, measure, first)

    def _own(self) -> None:
        """Factorise the solver's own rows (where the update cannot certify an answer)."""
        with self._lock:
            if self._base is None:
                return
            if self.unknowns <= DENSE_MAX:
                self._factorise(self._dense())
            else:
                self._superlu()
            self._base = None

