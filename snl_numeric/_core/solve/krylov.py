"""Restarted GMRES for the solver family's capacitance systems (private).

Hand-written rather than :func:`scipy.sparse.linalg.gmres`, which on these
systems (tens of thousands of unknowns, one cheap sweep per step) spends many
times the sweeps' cost in its Python loop and in threaded BLAS level-1 calls
(measured 8 s of 12 s on a 10^6-square board on a busy 2-core machine); the
Arnoldi step here is one serial Numba kernel.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.linalg as sla

from ..numba_config import njit

#: Below ``FLOOR`` (relative), stop after ``STALL`` steps that do not halve the residual:
#: the rounding floor of the sweeps, where refinement takes over.
STALL = 8
FLOOR = 1e-10


@njit()
def arnoldi_kernel(basis, j, w, h):  # pragma: no cover - jitted
    """Orthogonalise ``w`` against ``basis[0 .. j]`` (modified Gram-Schmidt, twice) and
    return its norm; ``h[i]`` receives the coefficient on ``basis[i]``."""
    n = w.shape[0]
    for i in range(j + 1):
        h[i] = 0.0
    for _ in range(2):
        for i in range(j + 1):
            s = 0.0
            for t in range(n):
                s += basis[i, t] * w[t]
            h[i] += s
            for t in range(n):
                w[t] -= s * basis[i, t]
    s = 0.0
    for t in range(n):
        s += w[t] * w[t]
    return np.sqrt(s)


def gmres(matvec: Callable[[np.ndarray], np.ndarray], rhs: np.ndarray, *, rtol: float,
          restart: int, maxiter: int) -> tuple[np.ndarray, int]:
    """Solve ``A x = rhs`` from ``x = 0``: returns ``(x, steps)``.

    Stops when ``||rhs - A x|| <= rtol ||rhs||`` (2-norms), after ``maxiter`` steps, or
    once ``STALL`` steps pass without halving the residual below ``FLOOR``.

    Examples
    --------
    >>> a = np.array([[2.0, 1.0], [0.0, 3.0]])
    >>> x, steps = gmres(lambda v: a @ v, np.array([3.0, 3.0]), rtol=1e-12, restart=5,
    ...                  maxiter=10)
    >>> np.round(x, 12).tolist(), steps
    ([1.0, 1.0], 2)
    """
    k = len(rhs)
    x = np.zeros(k)
    bnorm = float(np.sqrt(rhs @ rhs))
    steps = 0
    best, best_steps = bnorm, 0
    r = rhs.copy()
    while True:
        beta = float(np.sqrt(r @ r))
        if beta <= rtol * bnorm or steps >= maxiter:
            return x, steps
        basis = np.empty((restart + 1, k))
        basis[0] = r / beta
        hess = np.zeros((restart + 1, restart))
        cs, sn = np.zeros(restart), np.zeros(restart)
        g = np.zeros(restart + 1)
        g[0] = beta
        h = np.empty(restart + 1)
        j = 0
        while j < restart:
            w = matvec(basis[j])
            steps += 1
            hn = arnoldi_kernel(basis, j, w, h)
            col = np.append(h[: j + 1], hn)
            for i in range(j):  # the earlier Givens rotations
                a, b = col[i], col[i + 1]
                col[i], col[i + 1] = cs[i] * a + sn[i] * b, -sn[i] * a + cs[i] * b
            rho = float(np.hypot(col[j], col[j + 1]))
            cs[j], sn[j] = (col[j] / rho, col[j + 1] / rho) if rho > 0 else (1.0, 0.0)
            col[j], col[j + 1] = rho, 0.0
            hess[: j + 2, j] = col
            g[j], g[j + 1] = cs[j] * g[j], -sn[j] * g[j]
            j += 1
            res = abs(g[j])
            if res < 0.5 * best:
                best, best_steps = res, steps
            elif steps - best_steps >= STALL and best < FLOOR * bnorm:
                maxiter = steps
            if hn == 0.0 or res <= rtol * bnorm or steps >= maxiter:
                break
            basis[j] = w / hn
        y = sla.solve_triangular(hess[:j, :j], g[:j], check_finite=False)
        for i in range(j):
            x += y[i] * basis[i]
        r = rhs - matvec(x)
        steps += 1
