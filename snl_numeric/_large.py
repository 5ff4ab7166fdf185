"""Structured solver for ``(I - Q) x = b`` on large boards (private).

Order the squares as they are numbered. Most throws move forward, so split
``Q = U + L`` with ``U`` the throws that end on the same or a higher square
(upper triangular; the diagonal holds the "exact" rule's lost throws) and
``L`` the throws that end lower (snakes, bounces). ``L`` has non-zero
columns only at the ``k`` distinct *backward targets* ``D``, so
``L = L[:, D] E_D^T`` has rank at most ``k`` and

    I - Q = (I - U) (I - K),    K = (I - U)^-1 L = W E_D^T,

where ``(I - U)^-1`` is one back substitution over the successor table
(from the goal downwards). Per board one of three solvers is chosen:

- ``"triangular"`` when ``k == 0``: one back substitution, exact;
- ``"woodbury"`` when ``k`` is small: ``W = K[:, D]`` is built once
  (``k`` back substitutions) and ``(I - K)^-1 c = c + W (I - W[D])^-1 c[D]``
  (Sherman-Morrison-Woodbury), exact;
- ``"gmres"`` otherwise: restarted GMRES on the ``k x k`` capacitance
  system ``(I - W[D]) y[D] = c[D]``, ``c = (I - U)^-1 b`` (the triangularly
  preconditioned ``I - K`` is a rank-``k`` perturbation of the identity, so
  GMRES needs at most ``k + 1`` steps and usually far fewer), each step one
  sweep, followed by iterative refinement on the true residual. The
  transposed system is preconditioned on the right, ``(I - Q)^T (I - U)^-T``.
  Boards whose capacitance system converges slowly (many short snakes in a
  long row: GMRES needs steps in proportion to the board) fall back to
  SciPy's sparse LU, ``"splu"``, whose fill stays small on such local boards.

Every solve reports the normwise relative backward error it reached,
``||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf)`` with ``A = I - Q``.
All vectors here live on the full state space ``0 .. size``; squares that are
not ``active`` (outside the system, and the goal) hold 0. Rows of active
squares only lead to active squares or the goal (the system is closed).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ._numba_config import njit

#: Woodbury is used when the number of distinct backward targets is at most this...
WOODBURY_MAX = 64
#: ...and ``W`` (``n x k`` float64) fits in this many bytes.
WOODBURY_BYTES = 1 << 28
#: Stop refining once the backward error is below this.
TARGET_ERROR = 1e-15
#: GMRES relative tolerance on the preconditioned residual, per refinement round.
GMRES_RTOL = 1e-13
#: Below ``FLOOR`` (relative), GMRES gives up (and refinement takes over) after
#: ``STALL`` steps without halving the residual: the rounding floor of the sweeps.
STALL = 8
FLOOR = 1e-10
#: If the backward error is still above this, fall back to SciPy's sparse LU.
FALLBACK_ERROR = 1e-12
#: At most this many refinement rounds.
MAX_ROUNDS = 4
#: GMRES steps per solve (each one sweep over the board).
MAX_ITERATIONS = 300
#: GMRES keeps ``restart + 1`` vectors; at most this many bytes of them.
KRYLOV_BYTES = 1 << 30


@njit()
def _structure_kernel(succ, probs, active, diag, target):  # pragma: no cover - jitted
    """``diag = 1 - Q[x, x]`` and ``target[y]`` = True for every backward target.

    Returns the number of backward targets.
    """
    n, nf = succ.shape
    k = 0
    for x in range(n):
        d = 1.0
        if active[x]:
            for f in range(nf):
                z = succ[x, f]
                if z == x:
                    d -= probs[x, f]
                elif z < x and active[z] and not target[z] and probs[x, f] > 0.0:
                    target[z] = True
                    k += 1
        diag[x] = d
    return k


@njit()
def _upper_kernel(succ, probs, active, diag, b, y, out):  # pragma: no cover - jitted
    """``out = (I - U)^-1 (b + L y)`` by back substitution from the goal down."""
    n, nf = succ.shape
    for x in range(n - 1, -1, -1):
        if not active[x]:
            out[x] = 0.0
            continue
        s = b[x]
        for f in range(nf):
            z = succ[x, f]
            if z > x:
                s += probs[x, f] * out[z]
            elif z < x:
                s += probs[x, f] * y[z]
        out[x] = s / diag[x]


@njit()
def _lower_kernel(succ, probs, active, diag, b, w, back):  # pragma: no cover - jitted
    """``w = (I - U)^-T b`` by forward substitution, and ``back = L^T w``."""
    n, nf = succ.shape
    acc = b.copy()
    back[:] = 0.0
    for x in range(n):
        if not active[x]:
            w[x] = 0.0
            continue
        v = acc[x] / diag[x]
        w[x] = v
        if v == 0.0:
            continue
        for f in range(nf):
            z = succ[x, f]
            if z > x:
                acc[z] += probs[x, f] * v
            elif z < x:
                back[z] += probs[x, f] * v


@njit()
def _residual_kernel(succ, probs, active, b, x, trans, r):  # pragma: no cover - jitted
    """``r = b - (I - Q) x`` (or ``b - (I - Q)^T x``) on active squares.

    Returns ``(||r||_inf, ||x||_inf, ||b||_inf)``.
    """
    n, nf = succ.shape
    for i in range(n):
        r[i] = b[i] - x[i] if active[i] else 0.0
    for i in range(n):
        if not active[i]:
            continue
        for f in range(nf):
            z = succ[i, f]
            if active[z]:
                if trans:
                    r[z] += probs[i, f] * x[i]
                else:
                    r[i] += probs[i, f] * x[z]
    rn = 0.0
    xn = 0.0
    bn = 0.0
    for i in range(n):
        if active[i]:
            rn = max(rn, abs(r[i]))
            xn = max(xn, abs(x[i]))
            bn = max(bn, abs(b[i]))
    return rn, xn, bn


@njit()
def _orthogonalize_kernel(basis, j, w, h):  # pragma: no cover - jitted
    """Modified Gram-Schmidt of ``w`` against ``basis[0..j]`` (twice); returns ``||w||``.

    ``h[i]`` receives the coefficient on ``basis[i]``.
    """
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


def _gmres(matvec, rhs: np.ndarray, *, rtol: float, restart: int, maxiter: int
           ) -> np.ndarray:
    """Restarted GMRES from 0 with Givens rotations; stops when ``||r|| <= rtol ||rhs||``,
    after ``maxiter`` steps, or once ``STALL`` steps pass without halving ``||r||``.

    Like ``scipy.sparse.linalg.gmres`` but with the Arnoldi step in a serial Numba
    kernel: SciPy's pure-Python loop and threaded BLAS level-1 calls cost several
    times the matrix-vector products here on a busy machine.
    """
    k = len(rhs)
    x = np.zeros(k)
    bnorm = float(np.sqrt(rhs @ rhs))
    its = 0
    best, best_its = bnorm, 0
    r = rhs.copy()
    while True:
        beta = float(np.sqrt(r @ r))
        if beta <= rtol * bnorm or its >= maxiter:
            return x
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
            its += 1
            hn = _orthogonalize_kernel(basis, j, w, h)
            col = np.append(h[: j + 1], hn)
            for i in range(j):  # previous rotations
                a, b = col[i], col[i + 1]
                col[i], col[i + 1] = cs[i] * a + sn[i] * b, -sn[i] * a + cs[i] * b
            rho = float(np.hypot(col[j], col[j + 1]))
            cs[j], sn[j] = (col[j] / rho, col[j + 1] / rho) if rho > 0 else (1.0, 0.0)
            col[j], col[j + 1] = rho, 0.0
            hess[: j + 2, j] = col
            g[j], g[j + 1] = cs[j] * g[j], -sn[j] * g[j]
            j += 1
            res = abs(g[j])
            if _DEBUG:
                print(its, res / bnorm)
            if res < 0.5 * best:
                best, best_its = res, its
            elif its - best_its >= STALL and best < FLOOR * bnorm:  # rounding floor: refine
                maxiter = its
            if hn == 0.0 or res <= rtol * bnorm or its >= maxiter:
                break
            basis[j] = w / hn
        y = sla.solve_triangular(hess[:j, :j], g[:j], check_finite=False)
        for i in range(j):
            x += y[i] * basis[i]
        r = rhs - matvec(x)


_DEBUG = False


class StructuredSolver:
    """``(I - Q) x = b`` over the ``active`` squares, chosen by structure.

    ``Q`` is given by the successor table ``succ`` and the per-row
    probabilities ``probs[x, f]`` (a board passes its dice broadcast to every
    row; a policy passes each square's chosen die).

    ``solve(b, trans)`` takes and returns full-length vectors (zeros off
    ``active``) and returns ``(x, iterations, backward_error)``.
    """

    def __init__(self, succ: np.ndarray, probs: np.ndarray, active: np.ndarray) -> None:
        n = succ.shape[0]
        self.succ, self.probs, self.active = succ, probs, active
        self.n = n
        self.diag = np.empty(n)
        is_target = np.zeros(n, dtype=bool)
        k = _structure_kernel(succ, probs, active, self.diag, is_target)
        self.targets = np.flatnonzero(is_target)
        self.k = int(k)
        self.work = np.zeros(n)
        if k == 0:
            self.method = "triangular"
        elif k <= WOODBURY_MAX and 8 * n * k <= WOODBURY_BYTES:
            self.method = "woodbury"
            self._build_woodbury()
        else:
            self.method = "gmres"
            self.restart = int(min(100, max(5, KRYLOV_BYTES // (8 * k) - 1)))

    # -- the two triangular sweeps -------------------------------------------
    def _upper(self, b: np.ndarray, y: np.ndarray) -> np.ndarray:
        out = np.empty(self.n)
        _upper_kernel(self.succ, self.probs, self.active, self.diag, b, y, out)
        return out

    def _lower(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w = np.empty(self.n)
        back = np.empty(self.n)
        _lower_kernel(self.succ, self.probs, self.active, self.diag, b, w, back)
        return w, back

    def _build_woodbury(self) -> None:
        d = self.targets
        w = np.empty((self.n, len(d)))
        e = np.zeros(self.n)
        for j, t in enumerate(d):
            e[t] = 1.0
            w[:, j] = self._upper(self.work, e)  # K e_t
            e[t] = 0.0
        self.w = w
        self.small = sla.lu_factor(np.eye(len(d)) - w[d], check_finite=False)

    # -- solves -----------------------------------------------------------------
    def _apply_inverse(self, b: np.ndarray, trans: bool) -> tuple[np.ndarray, int]:
        """One pass of the chosen method (exact for triangular/woodbury/splu)."""
        if self.method == "splu":
            x = np.zeros(self.n)
            x[self.states] = self.lu.solve(b[self.states], trans="T" if trans else "N")
            return x, 0
        if self.method == "triangular":
            if trans:
                return self._lower(b)[0], 0
            return self._upper(b, self.work), 0
        if self.method == "woodbury":
            d = self.targets
            if trans:
                z = b.copy()
                z[d] += sla.lu_solve(self.small, self.w.T @ b, trans=1, check_finite=False)
                return self._lower(z)[0], 0
            c = self._upper(b, self.work)
            return c + self.w @ sla.lu_solve(self.small, c[d], check_finite=False), 0
        return self._gmres(b, trans)

    def _gmres(self, b: np.ndarray, trans: bool) -> tuple[np.ndarray, int]:
        """GMRES on the ``k x k`` capacitance system, one sweep per step.

        Normal: ``y = c + K y`` with ``c = (I - U)^-1 b`` and ``K y = W y[D]``,
        so ``(I - W[D]) y[D] = c[D]``. Transposed: ``z = b + E_D u`` with
        ``(I - W[D]^T) u = W^T b``, then ``x = (I - U)^-T z``.
        """
        d, n, k = self.targets, self.n, self.k
        count = [0]
        e = np.zeros(n)

        def apply_k(v):  # (K E_D v)[D] or (W^T E_D v)
            count[0] += 1
            e[d] = v
            out = self._lower(e)[1][d] if trans else self._upper(self.work, e)[d]
            e[d] = 0.0
            return v - out

        if trans:
            rhs = self._lower(b)[1][d]
        else:
            c = self._upper(b, self.work)
            rhs = c[d]
        if rhs.any():
            v = _gmres(apply_k, rhs, rtol=GMRES_RTOL, restart=self.restart,
                       maxiter=MAX_ITERATIONS)
        else:
            v = np.zeros(k)
        if trans:
            z = b.copy()
            z[d] += v
            return self._lower(z)[0], count[0]
        e[d] = v
        return self._upper(b, e), count[0]

    def residual(self, b: np.ndarray, x: np.ndarray, trans: bool) -> tuple[np.ndarray, float]:
        """True residual and the normwise relative backward error of ``x``."""
        r = np.empty(self.n)
        rn, xn, bn = _residual_kernel(self.succ, self.probs, self.active, b, x, trans, r)
        denom = 2.0 * xn + bn  # ||I - Q||_inf <= 2
        return r, (rn / denom if denom > 0 else 0.0)

    def _splu(self) -> None:
        """Switch to SciPy's sparse LU of the active system (GMRES did not converge)."""
        states = np.flatnonzero(self.active)
        pos = np.full(self.n, -1, dtype=np.int64)
        pos[states] = np.arange(len(states))
        nf = self.succ.shape[1]
        rows = np.repeat(pos[states], nf)
        cols = pos[self.succ[states].ravel()]
        vals = self.probs[states].ravel()
        keep = cols >= 0
        m = len(states)
        q = sp.csc_matrix((vals[keep], (rows[keep], cols[keep])), shape=(m, m))
        self.lu = spla.splu((sp.identity(m, format="csc") - q).tocsc())
        self.states = states
        self.method = "splu"

    def solve(self, b: np.ndarray, trans: bool = False) -> tuple[np.ndarray, int, float]:
        """Solve, refine on the true residual while it helps; see the class doc.

        Falls back to a sparse LU (for good) if GMRES leaves the backward error
        above ``FALLBACK_ERROR``.
        """
        b = np.where(self.active, b, 0.0)
        x, iters, err = self._solve(b, trans)
        if err > FALLBACK_ERROR and self.method == "gmres":
            self._splu()
            x, more, err = self._solve(b, trans)
            iters += more
        return x, iters, err

    def _solve(self, b: np.ndarray, trans: bool) -> tuple[np.ndarray, int, float]:
        x, iters = self._apply_inverse(b, trans)
        r, err = self.residual(b, x, trans)
        for _ in range(MAX_ROUNDS):
            if err <= TARGET_ERROR or err > 1e4 * FALLBACK_ERROR:  # done, or GMRES stalled
                break
            dx, more = self._apply_inverse(r, trans)
            iters += more
            x_new = x + dx
            r_new, err_new = self.residual(b, x_new, trans)
            if not err_new < err:
                break
            x, r, err = x_new, r_new, err_new
        return x, iters, err
