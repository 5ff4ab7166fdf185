"""The solver family for the absorbing chain's fundamental system ``(I - Q) x = b``.

One family, chosen by size and structure: LAPACK LU of ``I - Q`` restricted
to the system's squares up to :data:`DENSE_MAX` unknowns (``"dense"``), and
above that the structured solver :class:`StructuredSolver`.

Per-board Numba variant (batch analysis, board design): :func:`moments_kernel`
uses the structure of ``A = I - Q``: throws move forward except for snakes (and
bounces), so ``A = U - C E^T`` where ``U = I - Q_forward`` is upper triangular
(self-loops on its diagonal) and the backward moves land on only ``k`` distinct
squares ``B``, giving a rank-``k`` correction. With ``W = U^-1 C`` and
``S = I_k - E^T W`` (Woodbury)::

    A^-1 b = U^-1 b + W S^-1 (U^-1 b)[B]

Each ``U^-1`` is one back-substitution from the goal downwards over the
successor table, so the cost is ``O((k + 2) * size * faces + k**3)``:
microseconds for a 100-square board with ten snakes.

Structured solver for large boards:

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

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .numba_config import njit
from .table import reach_kernel

_getrs = sla.get_lapack_funcs("getrs", (np.empty(1),))

#: Systems up to this many unknowns are factorised densely (LAPACK getrf).
DENSE_MAX = 400


@dataclass(frozen=True, eq=False)
class Fundamental:
    """``I - Q`` restricted to ``states``, factorised.

    ``pos[x]`` is the row of square ``x`` in the restricted system, -1 if ``x``
    is not in it. ``solve(b)`` solves ``(I - Q_SS) x = b``; ``solve_t(b)`` the
    transposed system (``b`` 1-D or 2-D, one column per right-hand side).
    ``method`` names the factorisation: ``"dense"`` (LAPACK LU) or
    ``"structured"`` (``factor`` a :class:`~snl_numeric._large.StructuredSolver`).
    """

    states: np.ndarray
    pos: np.ndarray
    method: str
    factor: object

    def solve(self, b: np.ndarray, trans: bool = False) -> np.ndarray:
        if len(self.states) == 0:
            return np.zeros_like(b)
        if self.method == "dense":
            # one right-hand side at a time: multi-RHS getrs on small systems
            # wakes OpenBLAS threads and is ~100x slower on a busy 2-core box
            lu, piv = self.factor
            cols = b.reshape(len(b), -1)
            out = np.empty(cols.shape)
            for i in range(cols.shape[1]):
                out[:, i], info = _getrs(lu, piv, cols[:, i], trans=1 if trans else 0)
            return out.reshape(b.shape)
        if self.method == "structured":
            cols = b.reshape(len(b), -1)
            out = np.empty(cols.shape)
            full = np.zeros(len(self.pos))
            for i in range(cols.shape[1]):
                full[self.states] = cols[:, i]
                x, _, _ = self.factor.solve(full, trans)
                out[:, i] = x[self.states]
            return out.reshape(b.shape)
        return self.factor.solve(b, trans="T" if trans else "N")

    def solve_t(self, b: np.ndarray) -> np.ndarray:
        return self.solve(b, trans=True)


@njit()
def _dense_system_kernel(succ, probs, states, pos, out):  # pragma: no cover - jitted
    """Write ``I - Q[states][:, states]`` into the zeroed square array ``out``."""
    for i in range(states.shape[0]):
        x = states[i]
        out[i, i] += 1.0
        for f in range(succ.shape[1]):
            j = pos[succ[x, f]]
            if j >= 0:
                out[i, j] -= probs[x, f]


def factorize(succ: np.ndarray, probs: np.ndarray, states: np.ndarray) -> Fundamental:
    """Factorise ``I - Q`` restricted to ``states`` for the successor table
    ``succ`` with per-row probabilities ``probs[x, f]`` (``states`` closed:
    their throws lead only to ``states`` or the goal)."""
    n = succ.shape[0]
    pos = np.full(n, -1, dtype=np.intp)
    pos[states] = np.arange(len(states))
    m = len(states)
    if m == 0:
        return Fundamental(states, pos, "empty", None)
    if m <= DENSE_MAX:
        a = np.zeros((m, m), order="F")
        _dense_system_kernel(succ, probs, states, pos, a)
        return Fundamental(states, pos, "dense",
                            sla.lu_factor(a, overwrite_a=True, check_finite=False))
    active = np.zeros(n, dtype=bool)
    active[states] = True
    return Fundamental(states, pos, "structured", StructuredSolver(succ, probs, active))


# -- the per-board Numba variant (batch, design) ------------------------------
@njit()
def _back_substitute_kernel(succ, probs, sure, rhs, z):  # pragma: no cover - jitted
    """Solve ``U z = rhs`` (columns at once), ``U = I - Q_forward`` on sure squares.

    Above the highest nonzero entry of a column of ``rhs`` that column of
    ``z`` is zero, so row ``x`` only updates the columns up to the last one
    already nonzero at or above ``x``: put the columns that start highest
    first and the sweep skips the zeros.
    """
    n, n_faces = succ.shape
    m = rhs.shape[1]
    goal = n - 1
    if m == 1:  # one right-hand side: keep the running sum in a register
        z[goal, 0] = 0.0
        for x in range(goal - 1, -1, -1):
            if not sure[x]:
                z[x, 0] = 0.0
                continue
            diag = 1.0
            v = rhs[x, 0]
            for f in range(n_faces):
                y = succ[x, f]
                if y == x:
                    diag -= probs[f]
                elif y > x and y != goal:
                    v += probs[f] * z[y, 0]
            z[x, 0] = v / diag
        return
    # last[x]: the highest column whose first nonzero (from the goal down) is row x
    last = np.full(n, -1, dtype=np.int64)
    for j in range(m):
        for x in range(goal - 1, -1, -1):
            if sure[x] and rhs[x, j] != 0.0:
                if j > last[x]:
                    last[x] = j
                break
    active = 0  # columns 0 .. active - 1 may be nonzero from here down
    for j in range(m):
        z[goal, j] = 0.0
    for x in range(goal - 1, -1, -1):
        if last[x] + 1 > active:
            active = last[x] + 1
        for j in range(active, m):
            z[x, j] = 0.0
        if not sure[x]:
            for j in range(active):
                z[x, j] = 0.0
            continue
        diag = 1.0
        for j in range(active):
            z[x, j] = rhs[x, j]
        for f in range(n_faces):
            y = succ[x, f]
            if y == x:
                diag -= probs[f]
            elif y > x and y != goal:
                p = probs[f]
                for j in range(active):
                    z[x, j] += p * z[y, j]
        for j in range(active):
            z[x, j] /= diag


@njit()
def _lu_inplace(a, piv):  # pragma: no cover - jitted
    """LU with partial pivoting of the small square ``a``, in place."""
    k = a.shape[0]
    for c in range(k):
        p = c
        best = abs(a[c, c])
        for r in range(c + 1, k):
            if abs(a[r, c]) > best:
                best = abs(a[r, c])
                p = r
        piv[c] = p
        if p != c:
            for j in range(k):
                a[c, j], a[p, j] = a[p, j], a[c, j]
        for r in range(c + 1, k):
            a[r, c] /= a[c, c]
            for j in range(c + 1, k):
                a[r, j] -= a[r, c] * a[c, j]


@njit()
def _lu_solve_inplace(a, piv, b):  # pragma: no cover - jitted
    k = a.shape[0]
    for c in range(k):
        p = piv[c]
        if p != c:
            b[c], b[p] = b[p], b[c]
    for r in range(k):
        for j in range(r):
            b[r] -= a[r, j] * b[j]
    for r in range(k - 1, -1, -1):
        for j in range(r + 1, k):
            b[r] -= a[r, j] * b[j]
        b[r] /= a[r, r]


@njit()
def moments_kernel(succ, probs, sure, mean, var):  # pragma: no cover - jitted
    """Expected throws and variance from every square (``inf`` where not sure)."""
    n, n_faces = succ.shape
    goal = n - 1
    # backward targets numbered from the highest square that jumps back to them
    # down, so the columns of C that start highest come first
    bidx = np.full(n, -1, dtype=np.int64)
    k = 0
    for x in range(goal - 1, -1, -1):
        if sure[x]:
            for f in range(n_faces):
                y = succ[x, f]
                if y < x and bidx[y] < 0:
                    bidx[y] = k
                    k += 1
    targets = np.empty(k, dtype=np.int64)
    for y in range(n):
        if bidx[y] >= 0:
            targets[bidx[y]] = y
    # column 0: ones, columns 1..k: C (backward probabilities)
    rhs = np.zeros((n, k + 1))
    for x in range(goal):
        if sure[x]:
            rhs[x, 0] = 1.0
            for f in range(n_faces):
                y = succ[x, f]
                if y < x:
                    rhs[x, 1 + bidx[y]] += probs[f]
    z = np.empty((n, k + 1))
    _back_substitute_kernel(succ, probs, sure, rhs, z)
    s = np.empty((k, k))
    for a in range(k):
        for b in range(k):
            s[a, b] = (1.0 if a == b else 0.0) - z[targets[a], 1 + b]
    piv = np.empty(k, dtype=np.int64)
    _lu_inplace(s, piv)
    coef = np.empty(k)
    for a in range(k):
        coef[a] = z[targets[a], 0]
    _lu_solve_inplace(s, piv, coef)
    t = np.empty((n, 1))
    for x in range(n):
        acc = z[x, 0]
        for a in range(k):
            acc += z[x, 1 + a] * coef[a]
        t[x, 0] = acc if sure[x] else 0.0
    t[goal, 0] = 0.0
    u = np.empty((n, 1))
    _back_substitute_kernel(succ, probs, sure, t, u)
    for a in range(k):
        coef[a] = u[targets[a], 0]
    _lu_solve_inplace(s, piv, coef)
    for x in range(n):
        if not sure[x]:
            mean[x] = np.inf
            var[x] = np.inf
            continue
        second = u[x, 0]
        for a in range(k):
            second += z[x, 1 + a] * coef[a]
        tx = t[x, 0]
        mean[x] = tx
        v = 2.0 * second - tx - tx * tx
        var[x] = v if v > 0.0 else 0.0
    return k


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
    moments_kernel(succ, np.asarray(probs, dtype=np.float64), sure, mean, var)
    return dist, mean, var


# -- structured solver for large boards -----------------------------------------
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
def residual_kernel(succ, probs, active, b, x, trans, r):  # pragma: no cover - jitted
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
        rn, xn, bn = residual_kernel(self.succ, self.probs, self.active, b, x, trans, r)
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
