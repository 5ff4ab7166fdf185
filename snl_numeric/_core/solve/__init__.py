"""The one entry for the absorbing chain's fundamental system ``(I - Q) x = b``.

:func:`system_solver` picks the path by size:

- :mod:`.direct`: ordinary boards (up to :data:`~snl_numeric._core.vectorised.ORDINARY_ENTRIES`
  table entries): LAPACK/SuperLU with certified residuals (:mod:`.certify`), GTH
  elimination where those cannot certify; nothing compiled;
- :mod:`.structured`: large boards: block-triangular sweeps plus a low-rank correction,
  GMRES at scale, Numba kernels in :mod:`.blocks` and :mod:`.krylov` (the certificate's
  residuals in :mod:`.residual`);
- :mod:`.moments`: the structured method's Woodbury correction run by the same kernels
  inside one per-board Numba call, for batch analysis and board design.

The two single-board paths are each other's twins in the tests.
"""

from __future__ import annotations

import numpy as np

from ..vectorised import ordinary
from .certify import UNIT_ROUNDOFF, Solution
from .direct import DirectSolver
from .moments import CANCELLATION, board_moments_kernel, structured_moments
from .residual import step_variance_kernel
from .structured import (
    SMALL_SYSTEM,
    TARGET_ERROR,
    WARN_ERROR,
    WOODBURY_BYTES,
    Solver,
    solver_bytes,
)


def system_solver(succ: np.ndarray, probs: np.ndarray, active: np.ndarray, *,
                  structured: bool | None = None) -> DirectSolver | Solver:
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


__all__ = ["CANCELLATION", "SMALL_SYSTEM", "TARGET_ERROR", "UNIT_ROUNDOFF", "WARN_ERROR",
           "WOODBURY_BYTES", "DirectSolver", "Solution", "Solver", "board_moments_kernel",
           "solver_bytes", "step_variance_kernel", "structured_moments", "system_solver"]
