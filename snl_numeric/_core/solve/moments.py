"""The per-board Numba variant of the solver family, for batch analysis and board design.

:func:`moments_kernel` is :class:`~snl_numeric._core.solve.Solver`'s Woodbury method
(cancellation-free, with the same fallback where the variance formula cancels) as one
``nogil`` kernel that a thread calls board after board. Blocks are single squares
here: on the small boards of a batch every backward target fits the correction, so
``P`` is upper triangular and one short loop solves it.
"""

from __future__ import annotations

import numpy as np

from ..numba_config import njit
from ..table import reach_kernel
from .blocks import gth_factor_kernel, gth_solve_kernel, residual_kernel
from .structured import CANCELLATION, UNIT_ROUNDOFF, step_variance_kernel


@njit(error_model="numpy")  # divisions as the block kernels do theirs
def _unit_solve(succ, probs, pstride, active, piv, rhs, out):  # pragma: no cover - jitted
    """``out = P^-1 rhs`` for the columns of ``rhs`` when every block is one square (``P``
    upper triangular, ``piv`` its diagonal): what :func:`block_solve_kernel` and
    :func:`sweep_kernel` compute there, in the same order, in a fraction of the code."""
    n, nf = succ.shape
    m = rhs.shape[1]
    for x in range(n - 1, -1, -1):
        if not active[x]:
            for j in range(m):
                out[x, j] = 0.0
            continue
        for j in range(m):
            out[x, j] = rhs[x, j]
        for f in range(nf):
            y = succ[x, f]
            if y > x:
                p = probs[x * pstride, f]
                for j in range(m):
                    out[x, j] += p * out[y, j]
        d = piv[x]
        for j in range(m):
            out[x, j] /= d


@njit(error_model="numpy")
def _woodbury_solve(succ, probs, pstride, active, piv, z, targets, cap, cap_piv, rhs,
                    out):  # pragma: no cover - jitted
    """``out = A^-1 rhs`` (one column) by the Woodbury method, ``W = z[:, 1 : k + 1]``."""
    n, nf = succ.shape
    k = targets.shape[0]
    for x in range(n - 1, -1, -1):  # _unit_solve for one column, as sweep_kernel does it
        if not active[x]:
            out[x] = 0.0
            continue
        acc = rhs[x]
        for f in range(nf):
            y = succ[x, f]
            if y > x:
                acc += probs[x * pstride, f] * out[y]
        out[x] = acc / piv[x]
    coef = np.empty(k)
    for a in range(k):
        coef[a] = out[targets[a]]
    gth_solve_kernel(cap, cap_piv, coef)
    for x in range(n):
        acc = out[x]
        for a in range(k):
            acc += z[x, 1 + a] * coef[a]
        out[x] = acc


@njit()
def moments_kernel(succ, probs, pstride, sure, mean, var, kmax, want_var):  # pragma: no cover
    """Expected throws and (if ``want_var``, else NaN) variance from every square (``inf``
    where not sure), by the Woodbury method of ``Solver`` (cancellation-free).
    Returns 0, or 1 (nothing written) when the board has more than ``kmax`` backward
    targets.

    Blocks are single squares here: on the small boards of a batch every backward target
    fits the correction, and dense blocks would only cost time.
    """
    n, nf = succ.shape
    sure = sure.copy()
    sure[n - 1] = False  # the goal: absorbing, not in the system
    # structure_kernel's answer for blocks of one square: the backward targets numbered
    # from the highest move down, and the longest chain of forward moves
    tcol = np.empty(n, dtype=np.int64)
    level = np.empty(n, dtype=np.int64)
    for x in range(n):
        tcol[x] = -1
    k = 0
    levels = 0
    for x in range(n - 1, -1, -1):
        lv = 0
        if sure[x]:
            for f in range(nf):
                y = succ[x, f]
                if not sure[y] or probs[x * pstride, f] == 0.0:
                    continue
                if y > x:
                    if level[y] > lv:
                        lv = level[y]
                elif y < x and tcol[y] < 0:
                    tcol[y] = k
                    k += 1
        level[x] = lv + 1
        if lv + 1 > levels:
            levels = lv + 1
    if k > kmax:
        return 1
    piv = np.empty(n)  # the pivots (block_factor_kernel's, for blocks of one square)
    for x in range(n):
        d = 1.0
        if sure[x]:
            d = 0.0
            for f in range(nf):
                if succ[x, f] != x:
                    d += probs[x * pstride, f]
        piv[x] = d
    # columns: the ones, the R columns (backward_columns_kernel's), the probability of leaving
    rhs = np.empty((n, k + 2))
    rowsum = np.empty(n)  # the chain's rows scaled to sum to 1 (see Solver)
    for x in range(n):
        acc = 0.0
        for f in range(nf):
            acc += probs[x * pstride, f]
        rowsum[x] = acc
        for c in range(k + 2):
            rhs[x, c] = 0.0
        if sure[x]:
            rhs[x, 0] = acc
            for f in range(nf):
                p = probs[x * pstride, f]
                y = succ[x, f]
                if p == 0.0:
                    continue
                if not sure[y]:
                    rhs[x, k + 1] += p
                elif y < x:
                    rhs[x, 1 + tcol[y]] += p
    z = np.empty((n, k + 2))
    _unit_solve(succ, probs, pstride, sure, piv, rhs, z)
    targets = np.empty(k, dtype=np.int64)
    for y in range(n):
        if tcol[y] >= 0:
            targets[tcol[y]] = y
    cap = np.empty((k, k))
    slack = np.empty(k)
    for a in range(k):
        for c in range(k):
            cap[a, c] = z[targets[a], 1 + c]
        slack[a] = z[targets[a], k + 1]
    cap_piv = np.empty(k)
    gth_factor_kernel(cap, slack, cap_piv)
    coef = np.empty(k)
    for a in range(k):
        coef[a] = z[targets[a], 0]
    gth_solve_kernel(cap, cap_piv, coef)
    t = np.empty((n, 1))
    for x in range(n):
        acc = z[x, 0]
        for a in range(k):
            acc += z[x, 1 + a] * coef[a]
        t[x, 0] = acc if sure[x] else 0.0
    for x in range(n):
        mean[x] = 0.0 if x == n - 1 else np.inf
        var[x] = mean[x]
        if sure[x]:
            mean[x] = t[x, 0]
            var[x] = np.nan
    if not want_var:
        return 0
    u = np.empty(n)
    ts = np.empty(n)
    for x in range(n):
        ts[x] = t[x, 0] * rowsum[x]
    _woodbury_solve(succ, probs, pstride, sure, piv, z, targets, cap, cap_piv, ts, u)
    cancel = False
    for x in range(n):
        if sure[x]:
            tx = t[x, 0]
            mean[x] = tx
            var[x] = 2.0 * u[x] - tx - tx * tx
            if not var[x] * CANCELLATION >= tx * tx and tx > 1.0:  # NaN/inf: overflow
                cancel = True
    if cancel:  # where the formula cancels: the variance of one step of t, solved
        tt = np.empty(n)
        for x in range(n):
            tt[x] = t[x, 0]
        # t to double-double (one correction from the exact residual), so that the
        # differences t[y] - t[x] in the step variance are exact to about 2**-100
        r = np.empty(n)
        size = np.empty(n)
        b = np.empty(n)
        for x in range(n):
            b[x] = rhs[x, 0]
        zero = np.empty(n)
        for x in range(n):
            zero[x] = 0.0
        residual_kernel(succ, probs, pstride, sure, b, tt, zero, False, r, size)
        tlo = np.empty(n)
        _woodbury_solve(succ, probs, pstride, sure, piv, z, targets, cap, cap_piv, r, tlo)
        # the residual has both signs, so its solve may cancel: a correction larger than
        # the a priori error of t (Solver.a_priori) is known wrong, and dropped
        bound = UNIT_ROUNDOFF * (levels * (2 * nf + 6) + 6 * (k + 1) + 10)
        for x in range(n):
            if not abs(tlo[x]) <= bound * abs(tt[x]):
                for y in range(n):
                    tlo[y] = 0.0
                break
        w = np.empty(n)
        step_variance_kernel(succ, probs, pstride, sure, tt, tlo, w)
        _woodbury_solve(succ, probs, pstride, sure, piv, z, targets, cap, cap_piv, w, u)
        for x in range(n):
            if sure[x] and not var[x] * CANCELLATION >= mean[x] * mean[x] and mean[x] > 1.0:
                var[x] = u[x]
    for x in range(n):
        if var[x] < 0.0:
            var[x] = 0.0
    return 0


def structured_moments(succ: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                      np.ndarray]:
    """Distances, means and variances from a successor table (for one board).

    Examples
    --------
    >>> from snl_numeric import boards
    >>> cb = boards.get("milton-bradley").compiled
    >>> dist, mean, var = structured_moments(cb.succ, cb.probs)
    >>> int(dist[0]), round(float(mean[0]), 6)
    (7, 39.225122)
    """
    succ = np.ascontiguousarray(succ, dtype=np.int64)
    n = succ.shape[0]
    dist = np.empty(n, dtype=np.int64)
    sure = np.empty(n, dtype=np.bool_)
    reach_kernel(succ, dist, sure)
    mean = np.empty(n)
    var = np.empty(n)
    probs2 = np.ascontiguousarray(np.asarray(probs, dtype=np.float64).reshape(1, -1))
    moments_kernel(succ, probs2, 0, sure, mean, var, n, True)
    return dist, mean, var
