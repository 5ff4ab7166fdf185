"""GTH elimination: ``A = L U`` for an M-matrix given by its off-diagonal entries and row sums.

``A = D - G`` over ``m`` unknowns, ``G >= 0`` off the diagonal and the row sums of ``A``
(the slack: in a chain, the probability of leaving in one step) ``>= 0``. Grassmann, Taksar
and Heyman's elimination forms every pivot as the slack plus what remains of the row's
off-diagonal entries, a sum of non-negative numbers, never as a difference:

    for k = 0 .. m-1:
        U[k, k] = slack[k] - sum_{j > k} A[k, j]
        for i > k with A[i, k] != 0:
            L[i, k] = A[i, k] / U[k, k]
            A[i, j] -= L[i, k] A[k, j]   (j > k)
            slack[i] -= L[i, k] slack[k]

(``slack[i]`` stays the row sum of what is left of row ``i``). ``L <= 0`` below the unit
diagonal, ``U <= 0`` above its positive diagonal: solving ``A x = b`` for ``b >= 0`` only
adds non-negative terms, and every entry of ``x`` keeps its relative accuracy however large
it is (a few units in the last place per operation along the longest chain of dependent
operations).

The factors are packed in ``A``'s own array as LAPACK's ``getrf`` leaves them (no row
exchanges): ``L``'s multipliers below the diagonal, ``U`` on and above. The NumPy body
(:func:`gth_factor`, :func:`gth_solve`: dense systems of up to a few thousand unknowns, the
solves by LAPACK) and the Numba twin (:func:`gth_factor_jit`, :func:`gth_solve_jit`: small
blocks inside kernels) take that one layout and do the same operations; they differ only in
the order in which a pivot's terms and a triangular solve's products are summed.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ..numba_config import njit

__all__ = ["gth_factor", "gth_factor_jit", "gth_solve", "gth_solve_jit"]


def gth_factor(a: np.ndarray, slack: np.ndarray) -> np.ndarray:
    """Factorise ``A`` in place by GTH elimination, vectorised over each column's non-zero
    multipliers (a column with none, as most are on a board whose throws go forward, costs
    one row sum).

    Parameters
    ----------
    a : ndarray, shape (m, m)
        ``A``'s off-diagonal entries (``<= 0``; the diagonal is not read). Overwritten by
        the packed factors ``L`` and ``U``.
    slack : ndarray, shape (m,)
        ``A``'s row sums (``>= 0``); overwritten.

    Returns
    -------
    ndarray, shape (m,)
        The pivots, ``U``'s diagonal.

    Examples
    --------
    >>> a = np.array([[0.0, -0.5], [-0.5, 0.0]])     # A = [[1, -0.5], [-0.5, 1]]
    >>> gth_factor(a, np.array([0.5, 0.5])).tolist(), a.tolist()
    ([1.0, 0.75], [[1.0, -0.5], [-0.5, 0.75]])
    """
    m = len(a)
    piv = np.empty(m)
    finite = True  # every pivot so far positive and finite (every entry finite)
    with np.errstate(divide="ignore", invalid="ignore"):  # (a pivot of 0: gth_solve's inf)
        for k in range(m):
            piv[k] = a[k, k] = slack[k] - a[k, k + 1:].sum()
            finite = finite and 0.0 < piv[k] < np.inf
            col = a[k + 1:, k]
            if finite and 2 * np.count_nonzero(col) > len(col):  # mostly non-zero: the
                # trailing block by slices (a zero multiplier leaves its row: x - 0 y == x)
                f = col / piv[k]
                a[k + 1:, k] = f
                a[k + 1:, k + 1:] -= f[:, None] * a[k, k + 1:]
                slack[k + 1:] -= f * slack[k]
                continue
            below = np.flatnonzero(col) + k + 1
            if len(below):
                f = a[below, k] / piv[k]
                a[below, k] = f
                a[below, k + 1:] -= f[:, None] * a[k, k + 1:]
                slack[below] -= f * slack[k]
    return piv


def gth_solve(lu: np.ndarray, b: np.ndarray, trans: bool = False) -> np.ndarray:
    """``x = A^-1 b`` (``A^-T b`` when ``trans``) from :func:`gth_factor`'s packed factors, by
    two triangular solves (LAPACK), ``b`` of shape ``(m,)`` or ``(m, k)``.

    Examples
    --------
    >>> a = np.array([[0.0, -0.5], [-0.5, 0.0]])
    >>> _ = gth_factor(a, np.array([0.5, 0.5]))
    >>> gth_solve(a, np.array([1.0, 1.0])).tolist(), gth_solve(a, np.array([1.5, 0.0]), True).tolist()
    ([2.0, 2.0], [2.0, 1.0])

    A pivot of 0 (a row that never leaks: ``A`` singular, a play that never ends) gives
    ``inf`` everywhere, as the kernel's division does, not LAPACK's exception.
    """
    if not lu.diagonal().all():
        return np.full(b.shape, np.inf)
    if trans:
        z = sla.solve_triangular(lu, b, trans="T", check_finite=False)
        return sla.solve_triangular(lu, z, trans="T", lower=True, unit_diagonal=True,
                                    check_finite=False)
    y = sla.solve_triangular(lu, b, lower=True, unit_diagonal=True, check_finite=False)
    return sla.solve_triangular(lu, y, check_finite=False)


# -- the Numba twin -------------------------------------------------------------------------
# Divisions follow IEEE rules (``error_model="numpy"``): a pivot that underflows to 0 gives
# ``inf``, which the solvers report, instead of an exception inside a kernel.
@njit(error_model="numpy")
def gth_factor_jit(a, slack, piv):  # pragma: no cover - jitted
    """:func:`gth_factor` for kernels, the pivots also into ``piv`` (which
    :func:`gth_solve_jit` reads: the block solver keeps every square's pivot in one
    vector)."""
    m = a.shape[0]
    for k in range(m):
        d = slack[k]
        for j in range(k + 1, m):
            d -= a[k, j]
        piv[k] = d
        a[k, k] = d
        for i in range(k + 1, m):
            f = a[i, k]
            if f == 0.0:
                continue
            f /= d
            a[i, k] = f
            for j in range(k + 1, m):
                a[i, j] -= f * a[k, j]
            slack[i] -= f * slack[k]


@njit(error_model="numpy")
def gth_solve_jit(lu, piv, x, trans):  # pragma: no cover - jitted
    """:func:`gth_solve` for kernels, in place (``x`` holds ``b``), ``piv`` the pivots
    (:func:`gth_factor_jit`). ``trans`` is a typed bool (``np.bool_(...)`` in a kernel, a
    Python bool from Python): a literal ``True`` or ``False`` in a kernel would compile a
    specialisation of its own."""
    m = lu.shape[0]
    if not trans:
        for i in range(m):  # L y = b
            acc = x[i]
            for k in range(i):
                acc -= lu[i, k] * x[k]
            x[i] = acc
        for k in range(m - 1, -1, -1):  # U x = y
            acc = x[k]
            for j in range(k + 1, m):
                acc -= lu[k, j] * x[j]
            x[k] = acc / piv[k]
        return
    for k in range(m):  # U^T z = b
        acc = x[k]
        for j in range(k):
            acc -= lu[j, k] * x[j]
        x[k] = acc / piv[k]
    for k in range(m - 1, -1, -1):  # L^T x = z
        acc = x[k]
        for i in range(k + 1, m):
            acc -= lu[i, k] * x[i]
        x[k] = acc
