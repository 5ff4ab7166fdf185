"""Restarted GMRES on the capacitance system of the structured solver (private).

With ``A = P - R`` (:mod:`.blocks`), ``R = C E_D^T`` of rank ``k``, the solve
``x = P^-1 (b + C y)`` is exact when ``y`` solves the ``k x k`` system
``(I - E_D^T P^-1 C) y = (P^-1 b)[D]``; its operator costs one sweep of ``P^-1``.
:func:`gmres_kernel` runs GMRES on it inside one compiled call (the Arnoldi
step, the Givens rotations and the sweeps; its work arrays allocated once),
rather than :func:`scipy.sparse.linalg.gmres`, whose Python loop and threaded
level-1 BLAS calls cost many times the sweeps here (measured 8 s of 12 s on a
10^6-square board on a busy 2-core machine).

Stopping. The residual of ``x`` in the full system is ``b - A x = C rho`` with
``rho`` the capacitance residual, and every row of ``C`` sums to at most the
row's probability of moving: ``|b - A x| <= ||rho||_2`` row by row. GMRES knows
``||rho||_2`` at every step, so it stops on the criterion the certificate uses
(``max |r_i| / b_i``, see :mod:`.structured`): one solve certifies.
"""

from __future__ import annotations

import numpy as np

from ..numba_config import njit
from .blocks import block_solve_t_kernel, sweep_kernel

#: Below ``FLOOR`` (relative), stop after ``STALL`` steps that do not halve the residual:
#: the rounding floor of the sweeps, where refinement takes over.
STALL = 8
FLOOR = 1e-10


@njit()
def _norm(v):  # pragma: no cover - jitted
    s = 0.0
    for t in range(v.shape[0]):
        s += v[t] * v[t]
    return np.sqrt(s)


@njit(error_model="numpy")
def _apply(succ, probs, pstride, active, block_start, offsets, lu, piv, targets, trans, v,
           zero, full, out, back, w):  # pragma: no cover - jitted
    """``w = v - (P^-1 R E_D v)[D]`` (``trans``: ``v - (R^T P^-T E_D v)[D]``); ``full``
    must be zero on entry and is left zero."""
    k = targets.shape[0]
    n = full.shape[0]
    for a in range(k):
        full[targets[a]] = v[a]
    if trans:
        block_solve_t_kernel(succ, probs, pstride, active, block_start, offsets, lu, piv,
                             full.reshape((n, 1)), out.reshape((n, 1)), back.reshape((n, 1)))
        for a in range(k):
            w[a] = v[a] - back[targets[a]]
    else:
        sweep_kernel(succ, probs, pstride, active, block_start, offsets, lu, piv, zero, full,
                     out)
        for a in range(k):
            w[a] = v[a] - out[targets[a]]
    for a in range(k):
        full[targets[a]] = 0.0


@njit(error_model="numpy")
def gmres_kernel(succ, probs, pstride, active, block_start, offsets, lu, piv, targets, trans,
                 rhs, tol, restart, maxiter, y):  # pragma: no cover - jitted
    """Solve the capacitance system for ``rhs`` into ``y`` from ``y = 0``; returns the
    sweeps taken.

    Stops when the residual's 2-norm is at most ``tol``, after ``maxiter`` sweeps, or
    once ``STALL`` steps pass without halving the residual below ``FLOOR`` (relative to
    ``rhs``).
    """
    n = succ.shape[0]
    k = rhs.shape[0]
    basis = np.empty((restart + 1, k))
    hess = np.zeros((restart + 1, restart))
    cs = np.zeros(restart)
    sn = np.zeros(restart)
    g = np.zeros(restart + 1)
    h = np.empty(restart + 1)
    coef = np.empty(restart)
    zero = np.zeros(n)
    full = np.zeros(n)
    out = np.empty(n)
    back = np.empty(n if trans else 0)
    w = np.empty(k)
    r = rhs.copy()
    y[:] = 0.0
    bnorm = _norm(rhs)
    steps = 0
    best = bnorm
    best_steps = 0
    while True:
        beta = _norm(r)
        if beta <= tol or steps >= maxiter:
            return steps
        for t in range(k):
            basis[0, t] = r[t] / beta
        hess[:] = 0.0
        g[:] = 0.0
        g[0] = beta
        j = 0
        while j < restart:
            _apply(succ, probs, pstride, active, block_start, offsets, lu, piv, targets, trans,
                   basis[j], zero, full, out, back, w)
            steps += 1
            # modified Gram-Schmidt, twice
            h[: j + 1] = 0.0
            for _ in range(2):
                for i in range(j + 1):
                    s = 0.0
                    for t in range(k):
                        s += basis[i, t] * w[t]
                    h[i] += s
                    for t in range(k):
                        w[t] -= s * basis[i, t]
            hn = _norm(w)
            h[j + 1] = hn
            for i in range(j):  # the earlier Givens rotations
                a, b = h[i], h[i + 1]
                h[i], h[i + 1] = cs[i] * a + sn[i] * b, -sn[i] * a + cs[i] * b
            rho = np.hypot(h[j], h[j + 1])
            if rho > 0:
                cs[j], sn[j] = h[j] / rho, h[j + 1] / rho
            else:
                cs[j], sn[j] = 1.0, 0.0
            h[j], h[j + 1] = rho, 0.0
            hess[: j + 2, j] = h[: j + 2]
            g[j], g[j + 1] = cs[j] * g[j], -sn[j] * g[j]
            j += 1
            res = abs(g[j])
            if res < 0.5 * best:
                best, best_steps = res, steps
            elif steps - best_steps >= STALL and best < FLOOR * bnorm:
                maxiter = steps
            if hn == 0.0 or res <= tol or steps >= maxiter:
                break
            for t in range(k):
                basis[j, t] = w[t] / hn
        for i in range(j - 1, -1, -1):  # the triangular least-squares solve
            acc = g[i]
            for c in range(i + 1, j):
                acc -= hess[i, c] * coef[c]
            coef[i] = acc / hess[i, i]
        for i in range(j):
            for t in range(k):
                y[t] += coef[i] * basis[i, t]
        _apply(succ, probs, pstride, active, block_start, offsets, lu, piv, targets, trans, y,
               zero, full, out, back, w)
        steps += 1
        for t in range(k):
            r[t] = rhs[t] - w[t]
