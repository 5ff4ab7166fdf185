"""The per-board kernel of the solver family, for batch analysis and board design.

:func:`board_moments_kernel` is :class:`~snl_numeric._core.solve.Solver`'s Woodbury
method inside one ``nogil`` call that a thread makes board after board. Blocks are
single squares here (``bmax = 1``): on the small boards of a batch every backward
target fits the correction, so ``P`` is upper triangular and dense blocks would only
cost time. The columns are solved by :mod:`.blocks`' sweep of a run of single squares
(:func:`~.blocks.unit_columns_kernel`, which the structured solver's many-column sweep
runs between its dense blocks), one column by its sweep; the pivots, capacitance,
correction, residual and a priori bound are :mod:`.blocks`' and :mod:`.residual`'s own
kernels with blocks of one square. Only the structure pass with blocks of one square
(pivots, backward targets and the moves the Woodbury columns are made of, in one pass over
the table, without the block structure's allocations) is written here, inside the kernel.
The columns are solved in place.

Moments. ``t = A^-1 1`` and ``var = 2 u - t - t**2`` with ``u = A^-1 t``. Where that
formula cancels (``var * CANCELLATION < t**2``) the variance is solved from the
variance of one step of ``t`` instead (as the single-board path does), with ``t``
first corrected to double-double; this runs only when a *reported* square
cancels.
"""

from __future__ import annotations

import numpy as np

from ..numba_config import njit
from .blocks import (
    a_priori_bound,
    capacitance_kernel,
    column_tops_kernel,
    correction_kernel,
    levels_kernel,
    sweep_kernel,
    unit_columns_kernel,
)
from .residual import residual_kernel, step_variance_kernel

#: Variances use the one-step formula where ``2 N t - t - t**2`` would lose more than
#: this factor to cancellation (``var * CANCELLATION < t**2``; not where ``t = 1``
#: exactly: every throw finishes, and the formula gives 0).
CANCELLATION = 10.0


@njit()
def _cancels(v, t):  # pragma: no cover - jitted
    """Whether ``var = v`` lost too much to cancellation (NaN/inf: overflow)."""
    return not v * CANCELLATION >= t * t and t > 1.0


@njit(error_model="numpy")
def board_moments_kernel(succ, probs, sure, report, kmax, want_var, mean,
                         var):  # pragma: no cover - jitted
    """Expected throws from every square into ``mean`` and (if ``want_var``) the variance
    from the squares of ``report`` into ``var`` (``inf`` where the goal is not sure, 0 on
    the goal, NaN on the other squares of the system).

    ``probs`` is one die, ``(1, faces)``. The variance's cancellation fallback runs when
    a square of ``report`` cancels (and then fixes every one that does). Returns the
    number of backward targets ``k``; nothing is written when it is above ``kmax``.
    """
    n, nf = succ.shape
    active = sure.copy()
    active[n - 1] = False  # the goal: absorbing, not in the system
    # the per-square work arrays in one allocation per type (small boards: allocating
    # is a good part of the time)
    iwork = np.empty((2, n + 1), dtype=np.int32)  # int32, as the structured solver's
    tcol, block_start = iwork[0, :n], iwork[1]
    moves = np.empty((2, n * nf), dtype=np.int32)  # the moves down or off the system: x, f
    work = np.empty((4, n))
    piv, t, u, rhs = work[0], work[1], work[2], work[3]
    # P with blocks of one square, in one pass over the table: the pivots piv (the sum of a
    # square's probabilities of moving; 1 off the system), block_start (0 .. n), the column
    # tcol[y] of each square that a backward move lands on (numbered from the highest move
    # down, else -1), k of them, and the moves that the columns [e | C] below are made of
    k = 0
    nm = 0
    for x in range(n + 1):
        block_start[x] = x
    for x in range(n - 1, -1, -1):
        tcol[x] = -1
    for x in range(n - 1, -1, -1):
        if not active[x]:
            piv[x] = 1.0
            continue
        d = 0.0
        for f in range(nf):
            y = succ[x, f]
            p = probs[0, f]
            if p == 0.0 or y == x:
                continue
            d += p
            if active[y] and y > x:
                continue
            if active[y] and tcol[y] < 0:
                tcol[y] = k
                k += 1
            moves[0, nm], moves[1, nm] = x, f
            nm += 1
        piv[x] = d
    if k > kmax:
        return k
    # the block kernels' arguments typed as the structured solver passes them, so that each
    # compiles once for both: one die for every square (pstride), col0 and the columns of
    # unit_columns_kernel int64 values, not literals; no dense blocks (offsets and lu
    # empty: read for blocks of two squares or more only): views, not module constants,
    # which Numba types read-only
    pstride, col0, zero = np.int64(0), np.int64(2), np.int64(0)
    lu = work[0, :0]  # empty views of the work arrays: no allocation
    every = report[:0]  # correction_kernel's rows: all
    # the arrays sized by k, again in one allocation per type
    kwork = np.empty(2 * k + 2, dtype=np.int64)
    targets, first = kwork[:k], kwork[k:]
    offsets = kwork[:0]
    m = k + 2
    fwork = np.zeros(n * m + (k + 1) * k)
    z = fwork[: n * m].reshape((n, m))
    cap = fwork[n * m:].reshape((k + 1, k))  # the capacitance's factors, then its pivots
    for y in range(n):
        if tcol[y] >= 0:
            targets[tcol[y]] = y
    rowsum = 0.0  # the chain's rows scaled to sum to 1 (see Solver)
    for f in range(nf):
        rowsum += probs[0, f]
    # the columns [b | e | C], solved in place: b = rowsum, e what leaves the system in one
    # throw, C the moves down to the targets, from the moves of the pass above (first: each
    # column's highest non-zero row, so that the sweep need not look for it); then z holds
    # t before its correction, h and W
    for j in range(m):
        first[j] = -1
    for x in range(n):
        if active[x]:
            z[x, 0] = rowsum
            first[0] = x
    for i in range(nm):
        x, f = moves[0, i], moves[1, i]
        y = succ[x, f]
        j = 2 + tcol[y] if active[y] else 1
        z[x, j] += probs[0, f]
        if first[j] < 0:
            first[j] = x
    tops = column_tops_kernel(z, active, first)
    unit_columns_kernel(succ, probs, pstride, active, block_start, n - 1, piv, z, tops, zero, z)
    cap_piv = cap[k]
    cap = cap[:k]
    capacitance_kernel(z, col0, targets, cap, cap_piv)
    for x in range(n):
        t[x] = z[x, 0]
    correction_kernel(z, col0, targets, cap, cap_piv, t, every)
    for x in range(n):
        mean[x] = t[x] if active[x] else (0.0 if x == n - 1 else np.inf)
        var[x] = np.nan if active[x] else mean[x]
    if not want_var:
        return k
    for x in range(n):
        rhs[x] = t[x] * rowsum
    sweep_kernel(succ, probs, pstride, active, block_start, offsets, lu, piv, rhs, u)
    # u corrected at the reported squares only: the variance is not wanted elsewhere
    correction_kernel(z, col0, targets, cap, cap_piv, u, report)
    cancel = False
    for x in range(n):
        if active[x] and report[x]:
            var[x] = 2.0 * u[x] - t[x] - t[x] * t[x]
            cancel |= _cancels(var[x], t[x])
    if cancel:  # the variance of one step of t, solved
        # t to double-double (one correction from the exact residual), so that the
        # differences t[y] - t[x] in the step variance are exact to about 2**-100
        r = np.empty(n)
        size = np.empty(n)
        tlo = np.zeros(n)
        for x in range(n):  # b again (z holds its solution)
            rhs[x] = rowsum if active[x] else 0.0
        residual_kernel(succ, probs, pstride, active, rhs, t, tlo, r, size)
        sweep_kernel(succ, probs, pstride, active, block_start, offsets, lu, piv, r, tlo)
        correction_kernel(z, col0, targets, cap, cap_piv, tlo, every)
        # the residual has both signs, so its solve may cancel: a correction larger than
        # the a priori error of t is known wrong, and dropped
        bound = a_priori_bound(levels_kernel(succ, probs, pstride, active, block_start), nf, k, 1)
        if not np.all(np.abs(tlo) <= bound * np.abs(t)):
            tlo[:] = 0.0
        w = np.empty(n)
        step_variance_kernel(succ, probs, pstride, active, t, tlo, w)
        sweep_kernel(succ, probs, pstride, active, block_start, offsets, lu, piv, w, u)
        correction_kernel(z, col0, targets, cap, cap_piv, u, report)
        for x in range(n):
            if active[x] and report[x] and _cancels(var[x], t[x]):
                var[x] = u[x]
    for x in range(n):
        if var[x] < 0.0:
            var[x] = 0.0
    return k

