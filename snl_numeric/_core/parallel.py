"""Threads over ``nogil`` kernels: the package's parallelism (private layer).

Parallel kernels are plain serial Numba functions compiled with
``nogil=True``; the work is split into tasks that a pool of Python threads
runs at once. Compared with ``parallel=True``/``prange`` this compiles in a
fraction of the time, and the caller regains control between rounds of
tasks, so long runs can report progress and stop on Ctrl-C
(:class:`KeyboardInterrupt`) within one round. Each task writes only its own
rows of the outputs; results never depend on the number of threads.

The pool holds ``NUMBA_NUM_THREADS`` workers (Numba's own setting, by default
the number of cores), started on first use.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def max_threads() -> int:
    """The most threads a parallel run may use (``NUMBA_NUM_THREADS``, read, never set)."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


def default_threads() -> int:
    """Threads used when a call does not say: ``numba.get_num_threads()`` (which
    ``numba.set_num_threads`` changes), at most :func:`max_threads`."""
    import numba

    return max(1, min(int(numba.get_num_threads()), max_threads()))


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=max_threads(), thread_name_prefix="snl_numeric")
        return _POOL


def run_tasks(fn: Callable[[int], T], n_tasks: int) -> list[T]:
    """``[fn(0), ..., fn(n_tasks - 1)]``, the tasks run at once on the worker threads.

    One task runs in the calling thread. On an exception (a
    ``KeyboardInterrupt`` included) tasks not yet started are cancelled, the
    running ones finish (each is meant to be short) and the exception
    propagates.
    """
    if n_tasks <= 1:
        return [fn(0)] if n_tasks == 1 else []
    pool = _pool()
    futures: list[Future] = [pool.submit(fn, i) for i in range(n_tasks)]
    try:
        return [f.result() for f in futures]
    except BaseException:
        for f in futures:
            f.cancel()
        raise


def split(items: Sequence[Any] | int, parts: int) -> list[Any]:
    """``items`` (or ``range(items)``) cut into at most ``parts`` interleaved shares
    ``items[i::parts]``, empty ones left out (arrays come back contiguous).

    Examples
    --------
    >>> [list(s) for s in split(5, 2)]
    [[0, 2, 4], [1, 3]]
    """
    seq = range(items) if isinstance(items, int) else items
    shares = [seq[i::parts] for i in range(min(parts, len(seq)))]
    if isinstance(seq, np.ndarray):  # contiguous: kernels compile for one layout
        shares = [np.ascontiguousarray(s) for s in shares]
    return shares
