"""The one entry for the absorbing chain's fundamental system ``(I - Q) x = b``.

:func:`system_solver` picks the path by size (:func:`~snl_numeric._core.sizes.ordinary`):

- :mod:`.direct`: ordinary boards: LAPACK/SuperLU with certified residuals
  (:mod:`.certify`), GTH elimination where those cannot certify; nothing compiled; also a
  chain's CSR rows (:func:`csr_solver`, :mod:`.csr`) where a table would be mostly padding;
- :mod:`.structured`: large boards: block-triangular sweeps plus a low-rank correction,
  GMRES at scale, Numba kernels in :mod:`.blocks` and :mod:`.krylov` (the certificate's
  residuals in :mod:`.residual`);
- :mod:`.moments`: the structured method's Woodbury correction run by the same kernels
  inside one per-board Numba call, for batch analysis and board design.

Both bodies satisfy :class:`SystemSolver`, the protocol every consumer (the questions,
policies, races) programs against; none of them tests which body it holds. The two
single-board paths are each other's twins in the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from ..sizes import ordinary
from .certify import UNIT_ROUNDOFF, Solution
from .direct import DirectSolver
from .moments import CANCELLATION, board_moments_kernel
from .structured import TARGET_ERROR, WARN_ERROR, Solver, solver_bytes
from .update import updated_solver


class SystemSolver(Protocol):
    """What a solver of ``A x = b`` over the ``active`` squares of a chain offers, ``A`` the
    chain's ``I - Q`` with rows scaled by the dice's row sums (:mod:`.certify`).

    Attributes
    ----------
    n : int
        Squares of the chain (the system's and the others).
    unknowns : int
        Squares of the system.
    active : ndarray of bool, shape (n,)
        The system's squares.
    rowsum : ndarray
        The dice's probabilities summed on each square (shape ``(n,)``, or ``(1,)`` for
        one die everywhere).
    method : str
        How the solver solves (``"lu"``, ``"splu"``, ``"triangular"``, ``"woodbury"``,
        ``"gmres"``); :attr:`Solution.method` names the method that gave an answer.
    k : int
        Distinct squares the system's backward moves lead to.
    blocks : int
        Diagonal blocks of the structured sweep (0 for the direct body).
    structural_zeros : bool
        Whether an answer is exactly 0 wherever ``A^-1 b`` is 0 by the chain's structure
        (a square no path reaches): False where the roundings of an LU factorisation can
        leave tiny values there, which callers clear themselves.
    """

    n: int
    unknowns: int
    active: np.ndarray
    method: str
    blocks: int
    structural_zeros: bool

    @property
    def rowsum(self) -> np.ndarray: ...

    @property
    def k(self) -> int: ...

    def solve(self, b: np.ndarray, trans: bool = False, *, target: float = ...,
              measure: bool = False) -> Solution:
        """``A^-1 b`` (``A^-T b``) for ``b`` of shape ``(n,)`` or ``(n, m)`` (zero off the
        system), refined until its certified relative error is below ``target``."""

    def refined(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``A^-1 b`` as a double-double pair, refined to about ``2**-100`` relative."""

    def throws(self) -> Solution:
        """The expected throws from every square, solved once."""

    def tmax(self) -> float:
        """``max(t)``, the expected throws' largest: ``||(I - Q)^-1||_inf``."""

    def step_variance(self, thi: np.ndarray, tlo: np.ndarray) -> np.ndarray:
        """The variance of ``t`` (a double-double pair) after one throw from each
        square."""


def system_solver(succ: np.ndarray, probs: np.ndarray, active: np.ndarray, *,
                  structured: bool | None = None) -> SystemSolver:
    """The solver of ``(I - Q) x = b`` over the ``active`` squares for a successor table
    ``succ`` (``(n, faces)``) and ``probs`` (``(faces,)``, or ``(n, faces)`` per square).

    The one entry every question uses: ``solver.solve(b, trans=False)`` with ``b`` of
    shape ``(n,)`` or ``(n, m)`` returns a :class:`Solution` (``x`` of ``b``'s shape and a
    certified relative error). Ordinary boards get the direct solver, large ones the
    structured solver; ``structured`` forces one (tests compare the two).

    Examples
    --------
    >>> succ = np.array([[1, 2], [2, 0], [2, 2]])     # square 2 is the goal
    >>> s = system_solver(succ, np.array([0.5, 0.5]), np.array([True, True, False]))
    >>> s.method, s.solve(np.array([1.0, 1.0, 0.0])).x.tolist()
    ('lu', [2.0, 2.0, 0.0])
    """
    if structured is None:
        structured = not ordinary(*np.shape(succ))
    return Solver(succ, probs, active) if structured else DirectSolver(succ, probs, active)


def csr_solver(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
               active: np.ndarray) -> DirectSolver:
    """The direct solver of a chain given by its CSR rows (``n x n``: ``indptr``,
    ``indices``, ``data``, each row's columns distinct) over its ``active`` states, for
    chains too uneven for a successor table (:meth:`DirectSolver.csr`: SciPy's SuperLU on
    ``I - Q`` built from the rows, certified as the table's answers are).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> P = sp.csr_array(np.array([[0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0, 1.0]]))
    >>> s = csr_solver(P.indptr, P.indices, P.data, np.array([True, True, False]))
    >>> s.method, s.throws().x.tolist(), s.throws().error < 1e-14
    ('splu', [6.0, 4.0, 0.0], True)
    """
    return DirectSolver.csr(indptr, indices, data, active)


def dense_solver(a: np.ndarray, to: np.ndarray, probs: np.ndarray, moving: np.ndarray,
                 pivot: np.ndarray, rowsum: np.ndarray, states: np.ndarray,
                 table: Callable[[], tuple]) -> SystemSolver:
    """The direct solver of a system of at most ``DENSE_MAX`` unknowns handed over as its
    dense matrix and rows (:meth:`DirectSolver.dense`: a caller that holds the systems of
    many policies at once gathers each one's without building it from a table).

    Examples
    --------
    >>> a = np.array([[1.0, -0.5], [-0.5, 1.0]])  # the system of system_solver's example
    >>> to = np.array([[1, 2], [2, 0]])            # (2: off the system)
    >>> probs = np.full((2, 2), 0.5)
    >>> moving = probs.copy()
    >>> s = dense_solver(a, to, probs, moving, np.ones(2), np.ones(3), np.array([0, 1]),
    ...                  lambda: None)
    >>> s.method, s.throws().x.tolist()
    ('lu', [2.0, 2.0, 0.0])
    """
    return DirectSolver.dense(a, to, probs, moving, pivot, rowsum, states, table)


__all__ = ["CANCELLATION", "TARGET_ERROR", "UNIT_ROUNDOFF", "WARN_ERROR", "DirectSolver",
           "Solution", "Solver", "SystemSolver", "board_moments_kernel", "csr_solver",
           "dense_solver", "solver_bytes", "system_solver", "updated_solver"]
