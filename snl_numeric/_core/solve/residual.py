"""The certificate's residuals in double-double arithmetic, and the one-step variance
(private; see :mod:`.structured`).

:func:`residual_kernel` forms ``b - A x`` (:func:`residual_t_kernel` ``b - A^T x``) for
``x`` given as a double-double pair, every product and sum an error-free transformation
(:mod:`.eft`), with a bound on what rounding is left;
:func:`difference_residual_kernel` forms it in double precision, from differences of
nearby values; :func:`bound_kernel` reduces either to what the error bounds take.
"""

from __future__ import annotations

import numpy as np

from ..numba_config import njit
from .certify import DD_EPS, UNIT_ROUNDOFF
from .eft import two_prod_jit, two_sum_jit


@njit(inline="always")
def _die_sum(probs, pstride):  # pragma: no cover - jitted
    """One die: the sum of its probabilities, exactly, as a double-double pair."""
    dh = dl = 0.0
    for f in range(probs.shape[1] if pstride == 0 else 0):
        dh, e = two_sum_jit(dh, probs[0, f])
        dl += e
    return dh, dl


@njit(inline="always")
def _dd_row(succ, probs, pstride, active, b, xhi, xlo, x, dh, dl):  # pragma: no cover
    """Row ``x`` of ``b - A (xhi + xlo)`` in double-double and the sum of its absolute
    terms (see :func:`residual_kernel`)."""
    nf = succ.shape[1]
    vx, lx = xhi[x], xlo[x]
    rh, rl, sx = b[x], 0.0, abs(b[x])
    row = x * pstride
    moves = 0
    for f in range(nf):
        p = probs[row, f]
        y = succ[x, f]
        if p == 0.0 or y == x:
            continue
        moves += 1
        if active[y]:  # the off-diagonal entry
            qh, ql = two_prod_jit(p, xhi[y])
            ql += p * xlo[y]
            rh, e = two_sum_jit(rh, qh)
            rl += e + ql
            sx += abs(qh)
    if pstride == 0 and moves == nf:  # the pivot, every face moving: the die's sum
        ph, pl = two_prod_jit(dh, vx)
        pl += dh * lx + dl * vx
        rh, e = two_sum_jit(rh, -ph)
        rl += e - pl
        sx += abs(ph)
    else:  # the pivot's terms one by one
        for f in range(nf):
            p = probs[row, f]
            if p == 0.0 or succ[x, f] == x:
                continue
            ph, pl = two_prod_jit(p, vx)
            pl += p * lx
            rh, e = two_sum_jit(rh, -ph)
            rl += e - pl
            sx += abs(ph)
    return rh + rl, sx


@njit()
def residual_kernel(succ, probs, pstride, active, b, xhi, xlo, r, size):  # pragma: no cover
    """``r = b - A (xhi + xlo)`` in double-double arithmetic, row by row (the sums in
    registers), the pivot ``A[x, x]`` being the exact sum of ``x``'s moving probabilities
    (with one die and every face moving, the die's sum, formed once as a double-double).

    ``size[i]`` receives the sum of the absolute terms of row ``i``: the rounding error
    of ``r[i]`` is below ``(terms + 4) * 2**-104 * size[i]``.
    """
    n = succ.shape[0]
    dh, dl = _die_sum(probs, pstride)
    for x in range(n):
        r[x] = size[x] = 0.0
        if active[x]:
            r[x], size[x] = _dd_row(succ, probs, pstride, active, b, xhi, xlo, x, dh, dl)


@njit()
def residual_t_kernel(succ, probs, pstride, active, b, xhi, xlo, r, size):  # pragma: no cover
    """``r = b - A^T (xhi + xlo)`` as :func:`residual_kernel` forms ``b - A (xhi + xlo)``
    (the same terms and ``size``), row ``x``'s moves added to the rows they land on."""
    n, nf = succ.shape
    rh = np.empty(n)
    rl = np.empty(n)
    for i in range(n):
        rh[i] = rl[i] = size[i] = 0.0
        if active[i]:
            rh[i] = b[i]
            size[i] = abs(b[i])
    for x in range(n):
        if not active[x]:
            continue
        vx, lx = xhi[x], xlo[x]
        for f in range(nf):
            p = probs[x * pstride, f]
            y = succ[x, f]
            if p == 0.0 or y == x:
                continue
            # the pivot: -p * x[x] for every move out of x
            ph, pl = two_prod_jit(p, vx)
            pl += p * lx
            s, e = two_sum_jit(rh[x], -ph)
            rl[x] += e - pl
            rh[x] = s
            size[x] += abs(ph)
            if active[y]:  # the off-diagonal entry: + p * x[x] into row y, the same term
                s, e = two_sum_jit(rh[y], ph)
                rl[y] += e + pl
                rh[y] = s
                size[y] += abs(ph)
    for i in range(n):
        r[i] = rh[i] + rl[i] if active[i] else 0.0


@njit()
def difference_residual_kernel(succ, probs, pstride, active, b, xhi, xlo, limit, r, size
                               ):  # pragma: no cover - jitted
    """``r = b - A (xhi + xlo)`` in double precision and ``size[i]``, a bound on the
    rounding error of ``r[i]``: row ``i`` summed as ``sum_f p_f ((xhi_i - xhi_to) +
    (xlo_i - xlo_to))`` over its moves (``xhi`` and ``xlo`` must be 0 off the system, as
    the solvers' answers are), as the direct solver's residual is (see :meth:`.direct.DirectSolver._residual`), within
    ``gamma(2 faces + 6) (|b_i| + sum_f p_f (|xhi_i - xhi_to| + |xlo_i - xlo_to|))``
    of the exact residual. The differences are of nearby squares' values, so the bound
    stays near the rounding of ``b`` except on the rows of jumps between squares of far
    apart values: a row whose bound is above ``limit |b_i|`` is formed again in
    double-double (:func:`residual_kernel`)."""
    n, nf = succ.shape
    gam = (2 * nf + 6) * UNIT_ROUNDOFF / (1.0 - (2 * nf + 6) * UNIT_ROUNDOFF)  # gamma(..)
    dd = (2 * nf + 6) * DD_EPS  # as residual_kernel's rows
    dh, dl = _die_sum(probs, pstride)
    for i in range(n):
        r[i] = size[i] = 0.0
        if not active[i]:
            continue
        vx, lx = xhi[i], xlo[i]
        row = i * pstride
        acc = sx = 0.0
        for f in range(nf):
            p = probs[row, f]
            y = succ[i, f]
            if p == 0.0 or y == i:
                continue
            h = vx - xhi[y]
            lo = lx - xlo[y]
            acc += p * (h + lo)
            sx += p * (abs(h) + abs(lo))
        bi = b[i]
        allowance = gam * (abs(bi) + sx)
        if allowance <= limit * abs(bi):
            r[i], size[i] = bi - acc, allowance
        else:
            v, terms = _dd_row(succ, probs, pstride, active, b, xhi, xlo, i, dh, dl)
            r[i], size[i] = v, dd * terms + UNIT_ROUNDOFF * abs(v)


@njit()
def bound_kernel(r, size, factor, x, lo, b, active):  # pragma: no cover - jitted
    """What the error bounds take from ``e = |r| + factor * size`` (a bound on
    ``|b - A (x + lo)|`` from :func:`residual_kernel`'s outputs), over the system's
    squares: ``(max e, max |x + lo|, max |b|, min b, max e / b, sum e, sum |x + lo|,
    max factor * size / b)`` (the ratios are ``inf`` unless ``b > 0`` throughout). A NaN
    in ``r`` or ``x`` makes the maxima and sums NaN (no bound), as NumPy's reductions do."""
    top = xmax = bmax = ratio = rsum = xsum = slack = 0.0
    bmin = np.inf
    for i in range(r.shape[0]):
        e = abs(r[i]) + factor * size[i]
        if not active[i]:
            continue
        v = abs(x[i] + lo[i])
        top = max(top, e)
        xmax = max(xmax, v)
        bmax = max(bmax, abs(b[i]))
        bmin = min(bmin, b[i])
        ratio = max(ratio, e / b[i]) if b[i] > 0.0 else np.inf
        slack = max(slack, factor * size[i] / b[i]) if b[i] > 0.0 else np.inf
        rsum += e
        xsum += v
    if np.isnan(rsum) or np.isnan(xsum):  # (max skips a NaN; the sums keep it)
        top = xmax = ratio = np.nan
    return top, xmax, bmax, bmin, ratio, rsum, xsum, slack


@njit()
def step_variance_kernel(succ, probs, pstride, active, thi, tlo, w):  # pragma: no cover
    """``w[x] = sum_y Q[x, y] (t[y] - t[x] + 1)**2``, the variance of ``t`` after one throw
    from ``x`` (``t`` given as a double-double pair, 0 off the system), each difference
    formed exactly before it is squared."""
    n, nf = succ.shape
    for x in range(n):
        w[x] = 0.0
        if not active[x]:
            continue
        stays = False
        for f in range(nf):
            if active[succ[x, f]] and probs[x * pstride, f] > 0.0:
                stays = True
        if not stays:  # every throw leaves: t[x] is exactly 1, and so is every step
            continue
        acc = 0.0
        for f in range(nf):
            p = probs[x * pstride, f]
            if p == 0.0:
                continue
            y = succ[x, f]
            yh = thi[y] if active[y] else 0.0
            yl = tlo[y] if active[y] else 0.0
            s, e = two_sum_jit(yh, -thi[x])
            d = s + (e + (yl - tlo[x]) + 1.0)
            acc += p * d * d
        w[x] = acc
