"""Numba options shared by every kernel in the package.

Kernels are compiled lazily, on first call, and cached on disk
(``cache=True``), so importing :mod:`snl_numeric` never compiles anything.
``fastmath`` is deliberately off: probabilities and Monte Carlo estimates
must keep IEEE semantics for NaN and infinity.
"""

from __future__ import annotations

import threading

import numba

#: Held while a parallel (``prange``) kernel runs. Numba's workqueue threading layer is
#: not thread-safe: two parallel kernels launched at once from two Python threads (Dask
#: threaded workers, a ThreadPoolExecutor) can abort the process. Serial kernels release
#: the GIL (``nogil``) and run concurrently; parallel ones take turns, each using every
#: core it was given. ``numba.set_num_threads`` is per Python thread, so each caller's
#: thread count holds for its own kernels.
PARALLEL_LOCK = threading.Lock()

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
