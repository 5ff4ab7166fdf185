"""Dense products through SciPy's BLAS, the library our LAPACK factorisations use, and
LAPACK solves kept on the calling thread.

NumPy and SciPy wheels each bundle their own OpenBLAS, each with its own pool of worker
threads that spin for a while after a call. A single-board answer alternates LU solves
(SciPy) with dense products; made with NumPy's ``@``, the two pools' spinning workers
starve each other on a machine with few cores. So the dense products of the single-board
path (residuals, the distribution's blocked powers) go through :func:`matmul`.

OpenBLAS also hands a product of more than :data:`SERIAL_PRODUCT` multiply-adds to its
worker threads, where, on a machine whose other cores are busy, a worker waits for a
time slice. :func:`matmul` therefore splits a larger product into panels that stay under
that size: every panel runs on the calling thread, whatever the machine is doing.
OpenBLAS's triangular and LU solves (``dgetrs``, ``dtrtrs``) go to the workers for any
two or more columns, at every size: :func:`columns` solves them one column at a time.

Not ``threadpoolctl``: its limits are the libraries' process-wide thread counts, set on
entry and restored on exit, so a limit taken by one thread of the caller's program would
change, and then reset, the BLAS threads of every other; and entering
``threadpool_limits`` looks the libraries up again each time. The measurements are on
the performance page (docs: Performance, Small products).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
from scipy.linalg.blas import dgemm, dgemv

__all__ = ["SERIAL_PRODUCT", "columns", "matmul", "right_product"]

#: The most multiply-adds (``m * n * k``) of a product that OpenBLAS runs on the calling
#: thread (its ``SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD``, 65536 * 4).
SERIAL_PRODUCT = 2**18


def _fortran(a: np.ndarray) -> tuple[np.ndarray, int]:
    """``(a or a.T, trans)``: a Fortran-ordered operand for BLAS without a copy when
    ``a`` is C- or Fortran-contiguous."""
    if a.flags.f_contiguous:
        return a, 0
    if a.flags.c_contiguous:
        return a.T, 1
    return np.asfortranarray(a), 0


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for float64 arrays of one or two dimensions, by SciPy's BLAS, in panels of
    at most :data:`SERIAL_PRODUCT` multiply-adds.

    Examples
    --------
    >>> a = np.arange(6.0).reshape(2, 3)
    >>> matmul(a, np.ones(3)).tolist(), matmul(np.ones(2), a).tolist()
    ([3.0, 12.0], [3.0, 5.0, 7.0])
    >>> bool((matmul(a, a.T) == a @ a.T).all())
    True
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim == 1 and b.ndim == 1:
        return np.asarray(a @ b)
    if a.ndim == 1:  # v M = M^T v
        return matmul(b.T, a)
    if a.shape[1] == 0 or a.shape[0] == 0 or b.shape[-1] == 0:
        return a @ b
    if b.ndim == 1:
        fa, ta = _fortran(a)
        return dgemv(1.0, fa, b, trans=ta)
    rows, inner, cols = a.shape[0], a.shape[1], b.shape[1]
    # BLAS is column-major and a C-ordered array is its transpose's Fortran array: C = A B
    # is made as C^T = B^T A^T, with no copy of C-ordered operands, and a panel of A's
    # rows, like one of C's, is contiguous (written in place)
    a, bt = np.ascontiguousarray(a), np.ascontiguousarray(b).T
    out = np.empty((rows, cols))
    split = rows * inner * cols > SERIAL_PRODUCT
    if split and cols > rows:  # panels of b's columns (a few rows, many columns)
        width = _panel(cols, rows * inner)
        for j in range(0, cols, width):
            out[:, j:j + width] = dgemm(1.0, bt[j:j + width], a.T).T
        return out
    height = _panel(rows, inner * cols) if split else rows
    for i in range(0, rows, height):
        dgemm(1.0, bt, a[i:i + height].T, c=out[i:i + height].T, overwrite_c=True)
    return out


def _panel(length: int, per_unit: int) -> int:
    """The width of equal panels of ``length`` units of ``per_unit`` multiply-adds each that
    stay under :data:`SERIAL_PRODUCT` (one unit at least)."""
    panels = -(-length // max(1, SERIAL_PRODUCT // per_unit))
    return -(-length // panels)


def right_product(b: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """``v -> v @ b`` for vectors ``v``, with ``b``'s BLAS operand prepared once (for
    products repeated many times).

    Examples
    --------
    >>> right_product(np.arange(6.0).reshape(2, 3))(np.ones(2)).tolist()
    [3.0, 5.0, 7.0]
    """
    fb, tb = _fortran(np.asarray(b, dtype=np.float64).T)
    return partial(dgemv, 1.0, fb, trans=tb)


def columns(solve: Callable[[np.ndarray], np.ndarray], b: np.ndarray) -> np.ndarray:
    """``solve(b)`` for a LAPACK solve of a matrix ``b``, one column at a time (each on the
    calling thread).

    Examples
    --------
    >>> columns(lambda c: 2.0 * c, np.ones((2, 3))).tolist()
    [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]
    """
    if b.ndim == 1 or b.shape[1] == 1:
        return solve(b)
    out = np.empty(b.shape, order="F")
    for j in range(b.shape[1]):
        out[:, j] = solve(b[:, j])
    return out
