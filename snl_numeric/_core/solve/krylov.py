"""Restarted GMRES on the capacitance system of the structured solver (private).

With ``A = P - R`` (:mod:`.blocks`), ``R = C E_D^T`` of rank ``k``, the solve
``x = P^-1 (b + C y)`` is exact when ``y`` solves the ``k x k`` system
``(I - E_D^T P^-1 C) y = (P^-1 b)[D]``; its operator costs one sweep of ``P^-1``.
:func:`gmres_kernel` runs GMRES on it inside one compiled call (the Arnoldi
step, the Givens rotations and the sweeps; its work arrays allocated once),
rather than :func:`scipy.sparse.linalg.gmres`, whose Python loop and threaded
level-1 BLAS calls cost many times the sweeps here (measured 8 s of 12 s on a
10^6-square board on a busy 2-core machine).

Stopping. The residual of ``x`` in the full system is ``r = b - A x = C rho``
with ``rho`` the capacitance residual. So GMRES can stop on the criterion the
certificate uses (``max |r_i| / b_i``, see :mod:`.structured`), and one solve
certifies: at every step it knows ``||rho||_2``, which bounds ``|r_i|`` by
``||rho||_2`` times row ``i``'s sum of ``C``; once that bound is within
``sqrt(k)`` of the target it forms ``rho`` from the basis (``O(j k)``) and ``C rho``
from the entries of ``C`` (no sweep), and stops when ``max |r_i| / b_i`` is below
the target.

The sweep of a step (:func:`far_sweep_kernel`) reads what lies far from the square
it solves from two short arrays rather than the board's: the values at the targets
(``v`` itself, not scattered over ``n`` squares) and a copy of the values at the far
squares that moves forward land on, written as each is solved. On a random board
the moves that jump are a tenth of the reads and most of the time of the board's own
sweep (a read from far in an array of ``n`` values waits on memory, and the next
square waits on it); from the short arrays, in cache, the step's sweep takes 0.65x
the time (10^6 squares), with the same operations in the same order. The table of
reads (:func:`far_table_kernel`, ``n x faces`` int32) is made for each solve and
dropped after it. Tried and slower: the far reads as one stream consumed in order
(the next read's place then waits on every branch before it: no faster than the
board's sweep), and one byte per move with a per-square offset into the far reads
(two dependent loads: 1.25x the time of this table's).
"""

from __future__ import annotations

import numpy as np

from ..numba_config import njit
from .blocks import block_solve_t_kernel, gth_solve_kernel

#: Below ``FLOOR`` (relative), stop after ``STALL`` steps that do not halve the residual:
#: the rounding floor of the sweeps, where refinement takes over.
STALL = 8
FLOOR = 1e-10


@njit()
def _dot(a, b):  # pragma: no cover - jitted
    """``a . b`` in four running sums (a single sum waits on every addition)."""
    s0 = s1 = s2 = s3 = 0.0
    m = a.shape[0] - a.shape[0] % 4
    for t in range(0, m, 4):
        s0 += a[t] * b[t]
        s1 += a[t + 1] * b[t + 1]
        s2 += a[t + 2] * b[t + 2]
        s3 += a[t + 3] * b[t + 3]
    for t in range(m, a.shape[0]):
        s0 += a[t] * b[t]
    return (s0 + s1) + (s2 + s3)


@njit()
def _norm(v):  # pragma: no cover - jitted
    return np.sqrt(_dot(v, v))


@njit()
def _relative(rho, c_rows, c_cols, c_vals, b):  # pragma: no cover - jitted
    """``max |(C rho)_i| / b_i`` over the rows of ``C`` (entries with rows increasing)."""
    top = 0.0
    i = 0
    while i < c_rows.shape[0]:
        row = c_rows[i]
        acc = 0.0
        while i < c_rows.shape[0] and c_rows[i] == row:
            acc += c_vals[i] * rho[c_cols[i]]
            i += 1
        top = max(top, abs(acc) / b[row])
    return top


#: Moves forward by at most this many squares read the swept vector itself (in cache).
NEAR = 64


@njit()
def far_table_kernel(succ, active, block_start, tcol, k):  # pragma: no cover - jitted
    """The reads of :func:`far_sweep_kernel`: ``ref[x, f] >= 0`` reads the swept vector
    there (a move up by at most :data:`NEAR`, or to a square outside the system: 0);
    ``ref[x, f] = -1 - c`` reads ``near[c]``, the short array of ``k`` target values
    (``c = tcol[y]`` for a move to a lower block), a 0 at ``k`` (a move inside its block,
    or down to a square with no column: a zero probability) and, from ``k + 1``, the
    far squares moved up to, numbered in ``far`` (-1 for the others). Returns ``(ref,
    far, m)``, ``m`` the far squares."""
    n, nf = succ.shape
    ref = np.empty((n, nf), dtype=np.int32)
    far = np.full(n, -1, dtype=np.int32)
    m = 0
    for b in range(block_start.shape[0] - 1):
        lo, hi = block_start[b], block_start[b + 1]
        for x in range(lo, hi):
            for f in range(nf):
                y = succ[x, f]
                if y >= hi:
                    if y - x <= NEAR or not active[y]:
                        ref[x, f] = y
                    else:
                        if far[y] < 0:
                            far[y] = m
                            m += 1
                        ref[x, f] = -(k + 2 + far[y])
                elif y < lo and tcol[y] >= 0:
                    ref[x, f] = -1 - tcol[y]
                else:
                    ref[x, f] = -1 - k
    return ref, far, m


@njit(error_model="numpy")
def far_sweep_kernel(ref, probs, pstride, active, block_start, offsets, lu, piv, near, k, far,
                     out):  # pragma: no cover - jitted
    """``out = P^-1 R E_D v`` with ``near[:k] = v``, ``near[k] = 0`` (see
    :func:`far_table_kernel`): :func:`~.blocks.sweep_kernel` with a zero right-hand
    side and ``back = E_D v``, the same operations in the same order (a term ``p * 0``
    where it skips one, which leaves a sum other than -0 unchanged); fills the far values
    of ``near`` as it goes."""
    nf = ref.shape[1]
    b = block_start.shape[0] - 2
    x = ref.shape[0] - 1
    while x >= 0:
        lo = block_start[b]
        if lo < x:
            for z in range(lo, x + 1):
                acc = 0.0
                if active[z]:
                    row = z * pstride
                    for f in range(nf):  # (a move inside the block reads the 0)
                        r = ref[z, f]
                        acc += probs[row, f] * (out[r] if r >= 0 else near[-1 - r])
                out[z] = acc
            s = x + 1 - lo
            gth_solve_kernel(lu[offsets[b]: offsets[b] + s * s].reshape((s, s)),
                             piv[lo: x + 1], out[lo: x + 1])
        elif active[x]:
            acc = 0.0
            row = x * pstride
            for f in range(nf - 1, -1, -1):  # sweep_kernel's order
                r = ref[x, f]
                acc += probs[row, f] * (out[r] if r >= 0 else near[-1 - r])
            out[x] = acc / piv[x]
        else:
            out[x] = 0.0
        for z in range(lo, x + 1):
            c = far[z]
            if c >= 0:
                near[k + 1 + c] = out[z]
        x = lo - 1
        b -= 1


@njit(error_model="numpy")
def capacitance_apply(op, targets, v, work, w):  # pragma: no cover - jitted
    """``w = v - (P^-1 R E_D v)[D]``: the capacitance operator, one sweep. ``op`` is ``P``
    as the sweeps take it; ``work`` the reads of :func:`far_table_kernel`, ``near``
    (length ``k + 1 + m``) and the swept vector (length ``n``)."""
    _, probs, pstride, active, block_start, offsets, lu, piv = op
    ref, far, near, out = work
    near[: v.shape[0]] = v
    far_sweep_kernel(ref, probs, pstride, active, block_start, offsets, lu, piv, near,
                     v.shape[0], far, out)
    for a in range(targets.shape[0]):
        w[a] = v[a] - out[targets[a]]


@njit(error_model="numpy")
def capacitance_apply_t(op, targets, v, work, w):  # pragma: no cover - jitted
    """``w = v - (R^T P^-T E_D v)[D]``: the transposed operator; ``work`` a vector left
    zero and two for the sweep, each of shape ``(n, 1)``."""
    full, out, back = work
    full[targets, 0] = v
    block_solve_t_kernel(*op, full, out, back)
    full[targets, 0] = 0.0
    for a in range(targets.shape[0]):
        w[a] = v[a] - back[targets[a], 0]


@njit(error_model="numpy")
def _apply(trans, op, targets, v, work, work_t, w):  # pragma: no cover - jitted
    """The capacitance operator or its transpose (``trans``) on ``v`` into ``w``."""
    if trans:
        capacitance_apply_t(op, targets, v, work_t, w)
    else:
        capacitance_apply(op, targets, v, work, w)


@njit(error_model="numpy")
def gmres_kernel(trans, op, targets, work, work_t, rhs, tol2, c_rows, c_cols, c_vals, b,
                 tol_rel, restart, maxiter, y):  # pragma: no cover - jitted
    """Solve the capacitance system (:func:`capacitance_apply` with ``op``, ``targets``
    and ``work``; with ``trans``, the transposed one, :func:`capacitance_apply_t` with
    ``work_t``) for ``rhs`` into ``y`` from ``y = 0``; returns the sweeps taken. The work
    arrays are made once; those of the other direction may be empty. (The operator is
    chosen by a flag, not passed as a function: a kernel taking a function cannot be
    loaded from Numba's cache.)

    Stops when the residual's 2-norm is at most ``tol2`` or, with ``tol_rel > 0``, when
    ``max |(C rho)_i| / b_i <= tol_rel`` (``C`` given by its entries ``c_rows``,
    ``c_cols``, ``c_vals``, rows increasing); after ``maxiter`` sweeps; or once
    ``STALL`` steps pass without halving the residual below ``FLOOR`` (relative to
    ``rhs``).
    """
    k = rhs.shape[0]
    # |(C rho)_i| / b_i <= ||rho||_2 * gamma: look at rho itself below `near`
    gamma = 0.0
    i = 0
    while i < c_rows.shape[0]:
        row = c_rows[i]
        mass = 0.0
        while i < c_rows.shape[0] and c_rows[i] == row:
            mass += c_vals[i]
            i += 1
        gamma = max(gamma, mass / b[row])
    near = tol_rel / gamma * np.sqrt(k) if gamma > 0 else np.inf
    basis = np.empty((restart + 1, k))
    hess = np.zeros((restart + 1, restart))
    cs = np.zeros(restart)
    sn = np.zeros(restart)
    g = np.zeros(restart + 1)
    h = np.empty(restart + 1)
    u = np.empty(restart + 1)
    rho = np.empty(k)
    coef = np.empty(restart)
    w = np.empty(k)
    r = rhs.copy()
    y[:] = 0.0
    bnorm = _norm(r)
    steps = 0
    best = bnorm
    best_steps = 0
    while True:
        beta = _norm(r)
        if beta <= tol2 or steps >= maxiter or (
                tol_rel > 0 and _relative(r, c_rows, c_cols, c_vals, b) <= tol_rel):
            return steps
        for t in range(k):
            basis[0, t] = r[t] / beta
        hess[:] = 0.0
        g[:] = 0.0
        g[0] = beta
        j = 0
        while j < restart:
            _apply(trans, op, targets, basis[j], work, work_t, w)
            steps += 1
            # modified Gram-Schmidt, twice
            h[: j + 1] = 0.0
            for _ in range(2):
                for i in range(j + 1):
                    s = _dot(basis[i], w)
                    h[i] += s
                    for t in range(k):
                        w[t] -= s * basis[i, t]
            hn = _norm(w)
            h[j + 1] = hn
            for i in range(j):  # the earlier Givens rotations
                a, c = h[i], h[i + 1]
                h[i], h[i + 1] = cs[i] * a + sn[i] * c, -sn[i] * a + cs[i] * c
            nrm = np.hypot(h[j], h[j + 1])
            if nrm > 0:
                cs[j], sn[j] = h[j] / nrm, h[j + 1] / nrm
            else:
                cs[j], sn[j] = 1.0, 0.0
            h[j], h[j + 1] = nrm, 0.0
            hess[: j + 2, j] = h[: j + 2]
            g[j], g[j + 1] = cs[j] * g[j], -sn[j] * g[j]
            j += 1
            res = abs(g[j])
            if res < 0.5 * best:
                best, best_steps = res, steps
            elif steps - best_steps >= STALL and best < FLOOR * bnorm:
                maxiter = steps
            if hn == 0.0 or res <= tol2 or steps >= maxiter:
                break
            for t in range(k):
                basis[j, t] = w[t] / hn
            if res <= near:
                _residual_vector(basis, j, cs, sn, g, u, rho)
                if _relative(rho, c_rows, c_cols, c_vals, b) <= tol_rel:
                    break
        for i in range(j - 1, -1, -1):  # the triangular least-squares solve
            acc = g[i]
            for c in range(i + 1, j):
                acc -= hess[i, c] * coef[c]
            coef[i] = acc / hess[i, i]
        for i in range(j):
            for t in range(k):
                y[t] += coef[i] * basis[i, t]
        _apply(trans, op, targets, y, work, work_t, w)
        steps += 1
        for t in range(k):
            r[t] = rhs[t] - w[t]


@njit()
def _residual_vector(basis, j, cs, sn, g, u, rho):  # pragma: no cover - jitted
    """``rho`` after ``j`` steps: ``V_{j+1} G_0^T ... G_{j-1}^T (0, .., 0, g_j)`` (the
    rotations undone on the last entry of ``g``), from ``basis[0 .. j]``."""
    u[: j + 1] = 0.0
    u[j] = g[j]
    for i in range(j - 1, -1, -1):
        a, c = u[i], u[i + 1]
        u[i], u[i + 1] = cs[i] * a - sn[i] * c, sn[i] * a + cs[i] * c
    for t in range(rho.shape[0]):
        acc = 0.0
        for i in range(j + 1):
            acc += u[i] * basis[i, t]
        rho[t] = acc
