"""Dense products through SciPy's BLAS, the library our LAPACK factorisations use.

NumPy and SciPy wheels each bundle their own OpenBLAS, each with its own pool of worker
threads that spin for a while after a call. A single-board answer alternates LU solves
(SciPy) with dense products; made with NumPy's ``@``, the two pools' spinning workers
starve each other on a machine with few cores: measured on 2 cores, an 81 x 81 product
followed by an 18-column LU solve took 3.9 ms and 4.0 ms alternating NumPy and SciPy,
against 54 us and 46 us when both went through SciPy. So the dense products of the
single-board path (residuals, the distribution's blocked powers) go through
:func:`matmul`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
from scipy.linalg.blas import dgemm, dgemv

__all__ = ["matmul", "right_product"]


def _fortran(a: np.ndarray) -> tuple[np.ndarray, int]:
    """``(a or a.T, trans)``: a Fortran-ordered operand for BLAS without a copy when
    ``a`` is C- or Fortran-contiguous."""
    if a.flags.f_contiguous:
        return a, 0
    if a.flags.c_contiguous:
        return a.T, 1
    return np.asfortranarray(a), 0


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for float64 arrays of one or two dimensions, by SciPy's BLAS.

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
    fa, ta = _fortran(a)
    if b.ndim == 1:
        return dgemv(1.0, fa, b, trans=ta)
    fb, tb = _fortran(b)
    return dgemm(1.0, fa, fb, trans_a=ta, trans_b=tb)


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
