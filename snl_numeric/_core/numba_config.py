"""Numba options shared by every kernel in the package.

Kernels are compiled lazily, on first call, and cached on disk
(``cache=True``), so importing :mod:`snl_numeric` never compiles anything.
``fastmath`` is deliberately off: probabilities and Monte Carlo estimates
must keep IEEE semantics for NaN and infinity.
"""

from __future__ import annotations

import numba

#: Options for serial kernels.
JIT = {"nogil": True, "cache": True, "fastmath": False}
#: Options for kernels that use ``numba.prange``.
PARALLEL_JIT = {**JIT, "parallel": True}


def njit(**overrides):
    """``numba.njit`` with the package defaults, optionally overridden."""
    return numba.njit(**{**JIT, **overrides})


def pjit(**overrides):
    """``numba.njit`` with the parallel package defaults."""
    return numba.njit(**{**PARALLEL_JIT, **overrides})
