"""The one entry for the absorbing chain's fundamental system ``(I - Q) x = b``.

- :mod:`.structured`: the structured solver (block-triangular sweeps plus a low-rank
  correction, GMRES at scale), Numba kernels in :mod:`.blocks` and :mod:`.krylov`;
- :mod:`.moments`: the same method as one per-board Numba kernel, for batch analysis
  and board design.
"""

from __future__ import annotations

from .moments import moments_kernel, structured_moments
from .structured import (
    CANCELLATION,
    SMALL_SYSTEM,
    TARGET_ERROR,
    UNIT_ROUNDOFF,
    WARN_ERROR,
    Solution,
    Solver,
    step_variance_kernel,
)

__all__ = ["CANCELLATION", "SMALL_SYSTEM", "TARGET_ERROR", "UNIT_ROUNDOFF", "WARN_ERROR",
           "Solution", "Solver", "moments_kernel", "step_variance_kernel", "structured_moments"]
