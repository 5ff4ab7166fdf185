"""The one entry for the absorbing chain's fundamental system ``(I - Q) x = b``.

- :mod:`.structured`: the structured solver (block-triangular sweeps plus a low-rank
  correction, GMRES at scale), Numba kernels in :mod:`.blocks` and :mod:`.krylov`;
- :mod:`.moments`: the Woodbury method run by the same kernels inside one per-board
  Numba call, for batch analysis and board design.
"""

from __future__ import annotations

from .blocks import UNIT_ROUNDOFF, step_variance_kernel
from .moments import CANCELLATION, board_moments_kernel, structured_moments
from .structured import (
    SMALL_SYSTEM,
    TARGET_ERROR,
    WARN_ERROR,
    WOODBURY_BYTES,
    Solution,
    Solver,
    solver_bytes,
)


def system_solver(succ, probs, active) -> Solver:
    """The solver of ``(I - Q) x = b`` over the ``active`` squares for a successor table
    ``succ`` (``(n, faces)``) and ``probs`` (``(faces,)``, or ``(n, faces)`` per square).

    The one entry every question uses: ``solver.solve(b, trans=False)`` with ``b`` of
    shape ``(n,)`` or ``(n, m)`` returns a :class:`Solution` (``x`` of ``b``'s shape and a
    certified relative error). It picks the path by size (today: the structured solver).

    Examples
    --------
    >>> import numpy as np
    >>> succ = np.array([[1, 2], [2, 0], [2, 2]])     # square 2 is the goal
    >>> s = system_solver(succ, np.array([0.5, 0.5]), np.array([True, True, False]))
    >>> s.solve(np.array([1.0, 1.0, 0.0])).x.tolist()
    [2.0, 2.0, 0.0]
    """
    return Solver(succ, probs, active)


__all__ = ["system_solver", "CANCELLATION", "SMALL_SYSTEM", "TARGET_ERROR", "UNIT_ROUNDOFF",
           "WARN_ERROR", "WOODBURY_BYTES", "Solution", "Solver", "board_moments_kernel",
           "solver_bytes", "step_variance_kernel", "structured_moments"]
