"""The direct solver of ``(I - Q) x = b`` for ordinary boards: LAPACK or SuperLU, certified.

``A = D - G`` over the squares of the system (see :mod:`.certify`) is factorised once, by
LAPACK's dense LU up to :data:`DENSE_MAX` unknowns and by SciPy's SuperLU above, and every
right-hand side (expected throws, variances, visits, jump use: several columns in one
call) reuses the factorisation. Nothing is compiled.

Each answer is certified by its residual: in double precision with a bound on the
residual's own rounding, which certifies the boards people play at once (``t`` up to a few
thousand throws); where that misses the target, the residual is computed in double-double
arithmetic and the answer refined with the same factorisation. An LU factorisation keeps
only normwise accuracy, so on boards whose expected lengths are astronomically large
(1e20 throws and more) refinement cannot converge; those answers are solved again by GTH
elimination (Grassmann, Taksar and Heyman: pivots formed as sums of what leaves a square,
never differences), vectorised, which keeps every entry's relative accuracy however large it
is, and refined likewise. Above :data:`GTH_MAX` unknowns that elimination is the structured
solver's (:mod:`.structured`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cached_property, partial

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.linalg.lapack import dgetrf, dgetrs

from ..blas import columns
from ..sizes import DENSE_MAX, GTH_MAX, natural_order
from ..vectorised import over_faces
from .certify import Rows, Solution, gamma, step_variance, total_error, upper
from .csr import CsrRows, DDRows, csr_rows
from .eft import dd_add
from .gth import gth_factor, gth_solve

__all__ = ["TARGET", "DirectSolver"]

#: Answers are refined until their certified relative error is below this (the residual in
#: double precision already certifies it on boards of up to a few hundred expected throws).
TARGET = 1e-12
#: A componentwise bound above this is sharpened by one more solve before the answer is
#: refined (:meth:`DirectSolver._sharper`): the loosest target callers ask (the variances'),
#: so that no answer certified by the first bound pays for the second.
SHARPEN = 1e-11
#: Refinement rounds at most (each one residual in double-double and one solve).
MAX_ROUNDS = 4
#: Answers certified above this relative error are solved again by GTH elimination.
REFACTOR_ERROR = 1e-11
#: SuperLU's panel of columns and largest relaxed supernode (SciPy's defaults: 20 and 10):
#: one column each factorised ``A`` 5-20% faster on every board family of
#: ``benchmarks/_families.py`` from 300 to 4,000 squares. Never a relaxed supernode wider
#: than the panel: SciPy 1.17 corrupts memory (a crash at exit) when ``relax > panel_size``.
#: Where these meet a pivot exactly 0 and SciPy's defaults do not (a board of 1,000 snakes,
#: 5e155 throws: ``tests/naive.run_board(200)``), the defaults factorise.
SPLU_OPTIONS = {"panel_size": 1, "relax": 1}
#: Held around every dense LAPACK factorisation and solve: OpenBLAS's LAPACK (0.3.31, as
#: the NumPy/SciPy wheels ship it) corrupts memory when several threads call it at once
#: (tests/test_threads.py; ``dgetrs`` on shared factors aborts within a few hundred calls).
LAPACK_LOCK = threading.Lock()


class DirectSolver:
    """``(I - Q) x = b`` over the ``active`` squares, by LU and certified residuals.

    Parameters
    ----------
    succ : ndarray of int, shape (n, faces)
        The successor table.
    probs : ndarray of float64
        The faces' probabilities: shape ``(faces,)``, or ``(n, faces)`` per square.
    active : ndarray of bool, shape (n,)
        The system's squares; a throw that leaves them is absorbed.

    Thread-safe: a solver is shared by every call on one board. Its rows, read by
    :mod:`.update`: ``to``, ``probs``, ``moving``, ``pivot``, ``scale`` (see ``_setup``;
    ``rows_csr`` instead for a chain's CSR rows); :meth:`by_factors` the unrefined solve.

    Examples
    --------
    >>> succ = np.array([[1, 2], [2, 0], [2, 2]])     # square 2 is the goal
    >>> s = DirectSolver(succ, np.array([0.5, 0.5]), np.array([True, True, False]))
    >>> s.method, s.solve(np.array([1.0, 1.0, 0.0])).x.tolist()
    ('lu', [2.0, 2.0, 0.0])
    """

    def __init__(self, succ: np.ndarray, probs: np.ndarray, active: np.ndarray) -> None:
        self.n, self.faces = n, _ = succ.shape
        self.active = active = np.array(active, dtype=np.bool_)
        self.states = states = active.nonzero()[0]
        self.unknowns = m = len(states)
        # (gathers by take: faster than indexing on arrays of this size)
        dest = succ.take(states, axis=0)
        ps = probs if probs.ndim == 1 else probs.take(states, axis=0)
        moving = np.where(dest == states[:, None], 0.0, ps)  # not the faces that stay
        # The squares that no square of the system moves to (jump sources, the start) come
        # first: their columns of A are 0 off the diagonal, so A = [[D_u, A_uf], [0, A_ff]]
        # and only A_ff is factorised (see by_factors).
        self._mu = 0
        if m:
            fed = np.bincount(dest.ravel(), moving.ravel(), n).take(states) > 0.0
            self._mu = mu = m - int(np.count_nonzero(fed))
            if mu:
                order = fed.argsort(kind="stable")
                self.states = states = states.take(order)
                dest, moving = dest.take(order, axis=0), moving.take(order, axis=0)
                if probs.ndim == 2:
                    ps = ps.take(order, axis=0)
        pos = np.full(n, m, dtype=np.intp)  # each square's place in the system, m off it
        pos[states] = np.arange(m)
        if probs.ndim == 1:
            scale = probs.sum()
        else:
            self.rowsum = probs.sum(axis=1)
            scale = self.rowsum[states, None]
        self._setup(pos.take(dest), ps, moving, scale, (succ, probs))
        # (nothing to factorise when nobody moves within the system: LAPACK would refuse the
        # empty matrix, on stderr)
        if self._mu < m <= DENSE_MAX:
            self._factorise(self._dense(self._mu))
        elif self._mu < m:
            self._superlu()

    @classmethod
    def dense(cls, a: np.ndarray, to: np.ndarray, probs: np.ndarray, moving: np.ndarray,
              pivot: np.ndarray, rowsum: np.ndarray, states: np.ndarray,
              table: Callable[[], tuple]) -> DirectSolver:
        """The solver of a system of at most :data:`DENSE_MAX` unknowns given as its dense
        matrix ``a`` (``A`` over ``states``, C order; factorised in place) and its rows:
        ``to[i, f]`` the place in the system each face of ``states[i]`` leads to (``m``
        off it), ``probs`` the faces' probabilities there, ``moving`` those of the faces
        that move and ``pivot`` their sums (``moving.sum(axis=1)``, ``a``'s diagonal),
        ``rowsum`` each square's sum of probabilities (over all ``n`` squares).
        ``table()`` gives the successor table and probabilities (for the structured
        solver of a fallback). For a caller that holds the systems of many policies at once
        (policy iteration), so that a policy's solver is one gather and one factorisation;
        the same solver as ``DirectSolver(*table(), active)`` but for the order of the
        squares (no square is put first) and the rounding of the factors."""
        self = cls.__new__(cls)
        n, m = len(rowsum), len(states)
        self.n, self.faces = n, to.shape[1]
        self.active = np.zeros(n, dtype=np.bool_)
        self.active[states] = True
        self.states, self.unknowns, self._mu = states, m, 0
        self.rowsum = rowsum
        self._setup(to, probs, moving, rowsum[states, None], table, pivot)
        if m:
            self._factorise(a)
        return self

    @classmethod
    def csr(cls, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
            active: np.ndarray) -> DirectSolver:
        """The solver of a chain given by its CSR rows (``n x n``, each row's columns
        distinct) over its ``active`` states: SuperLU on ``A`` built from the rows
        themselves and the certified residuals of :mod:`.csr` (each row's rounding bounded
        by its own length), for chains too uneven for a successor table (a hub state of
        thousands of moves). Answers are those of the rows scaled to sum to 1, as for a
        table; the cancellation-free elimination serves up to :data:`GTH_MAX` unknowns,
        there is no structured fallback above.

        Examples
        --------
        >>> P = sp.csr_array(np.array([[0, 0.5, 0.5], [0.5, 0, 0.5], [0, 0, 1.0]]))
        >>> s = DirectSolver.csr(P.indptr, P.indices, P.data, np.array([True, True, False]))
        >>> s.method, s.throws().x.tolist()
        ('splu', [2.0, 2.0, 0.0])
        """
        self = cls.__new__(cls)
        self.active = active = np.array(active, dtype=np.bool_)
        self.n = n = len(active)
        self.states = states = active.nonzero()[0]
        self.unknowns = len(states)
        rows = csr_rows(np.asarray(indptr), np.asarray(indices), np.asarray(data), states, n)
        self.faces = rows.width
        self.rowsum = np.ones(n)  # (the rows off the system: a chain's sum to 1)
        self.rowsum[states] = rows.rowsum
        self._mu = 0
        self._setup(None, None, None, rows.rowsum[:, None], None,  # type: ignore[arg-type]
                    rows.pivot)  # (no table: the rows are self.rows_csr)
        self.rows_csr = rows
        self.method = "splu"
        if self.unknowns:
            self._splu = spla.splu(rows.sparse())
        return self

    def _setup(self, to: np.ndarray, probs: np.ndarray, moving: np.ndarray, scale,
               table, pivot: np.ndarray | None = None) -> None:
        """The system's rows: each face's place (``to``), probability and probability of
        moving (and their sum, ``pivot``, when known); ``scale`` the row sums of the
        system's squares (a number for one die)."""
        self.rows_csr: CsrRows | None = None  # (the rows as CSR: DirectSolver.csr)
        self.to, self.probs, self.scale, self.moving = to, probs, scale, moving
        self.pivot = over_faces(np.add, moving) if pivot is None else pivot  # (moving's sum)
        self.blocks = 0
        self.structural_zeros = False  # (LU's roundings reach squares no path reaches)
        self._lock = threading.Lock()
        self._rows: dict[bool, Rows] = {}
        self._gth: tuple[np.ndarray, float] | None = None  # GTH's factors, a priori bound
        self._fallback = None
        self._table = table
        self._throws: Solution | None = None
        self._rounding: np.ndarray | None = None
        self.method = "lu" if self.unknowns <= DENSE_MAX else "splu"
        self._descending = False  # (SuperLU's factors: of A_ff^T in descending order)
        self._unfactorised = False  # (SuperLU met a pivot exactly 0 in every order)
        self._piv_u = self.pivot[:self._mu, None]

    def _superlu(self) -> None:
        """SuperLU's factors of ``A_ff`` (the squares from ``mu`` on). Where the backward
        moves fill in little (:func:`.sizes.natural_order`), those of ``A_ff^T`` with the
        squares in descending order (the forward moves below the diagonal fill nothing, a
        move back from ``i`` to ``j`` fills column ``j`` up to ``i``; the table's CSR as it
        stands), unordered and unpivoted: ``A_ff^T`` is column diagonally dominant, where
        partial pivoting would keep the diagonal too. Else COLAMD's order of ``A_ff``. A
        pivot exactly 0 (lengths near the largest double) gives way to COLAMD, then to
        SciPy's options, then to the fallbacks (:meth:`by_factors`; ``naive.run_board(251)``)."""
        lo = self._mu
        tries: list[tuple[bool, dict]] = [(False, SPLU_OPTIONS), (False, {})]
        if natural_order(self._envelope(lo), self.unknowns - lo):
            tries.insert(0, (True, {"permc_spec": "NATURAL", "diag_pivot_thresh": 0.0,
                                    **SPLU_OPTIONS}))
        for descending, options in tries:
            a = self._sparse(lo, descending)
            try:  # (SciPy's splu sums the duplicates)
                self._splu = spla.splu(a if descending else a.tocsc(), **options)
                self._descending = descending
                return
            except RuntimeError:  # (a pivot exactly 0)
                pass
        self._unfactorised = True

    def _envelope(self, lo: int) -> int:
        """The envelope of the backward moves in ``A[lo:, lo:]``: over every square a move
        of the system leads back to, the squares from it up to the highest that moves there
        (where SuperLU fills in when the squares are taken in descending order)."""
        to = self.to[lo:]  # (a face that stays: not below)
        back = np.flatnonzero(to < np.arange(lo, self.unknowns)[:, None])
        top = np.zeros(self.unknowns, dtype=np.intp)
        np.maximum.at(top, to.ravel().take(back), back // to.shape[1] + lo)
        tails = top.nonzero()[0]
        return int(top[tails].sum() - tails.sum())

    def _factorise(self, a_ff: np.ndarray) -> None:
        """LU of ``A_ff`` (C order: ``A_ff^T`` in LAPACK's column-major order), in place."""
        with LAPACK_LOCK:
            self._lu = dgetrf(a_ff.T, overwrite_a=True)[:2]

    @cached_property
    def rowsum(self) -> np.ndarray:
        """The sum of the faces' probabilities on every square (1 for a fair die)."""
        return np.full(self.n, self.scale)

    @property
    def k(self) -> int:
        """Distinct squares of the system that moves back down lead to."""
        if self.rows_csr is not None:
            return self.rows_csr.backward_targets(self.states, self.n)
        dest = np.append(self.states, self.n)[self.to]
        back = (dest < self.states[:, None]) & (self.moving > 0.0)
        return int(len(np.unique(dest[back])))

    def _dense(self, lo: int = 0, at: np.ndarray | None = None) -> np.ndarray:
        """``A[lo:, lo:]`` as a dense array, C order (or ``A``'s rows ``at``, every column:
        :mod:`.update`'s). The moves are summed into rows as wide as the system plus one
        column for the squares off it, and the columns from ``lo`` are kept (no move of
        positive probability leads below it); the diagonal is then set to the pivots."""
        if self.rows_csr is not None:
            return self.rows_csr.dense()
        m, width = self.unknowns, self.unknowns + 1
        rows, k = (slice(lo, None), m - lo) if at is None else (at, len(at))
        idx = self.to[rows] + np.arange(0, k * width, width)[:, None]
        a = np.bincount(idx.ravel(), self.moving[rows].ravel(), k * width)
        a = np.negative(a.reshape(k, width)[:, lo:m])
        diagonal = slice(None, None, k + 1) if at is None else np.arange(k) * m + at
        a.reshape(-1)[diagonal] = self.pivot[rows]
        return a

    def by_factors(self, rhs: np.ndarray, trans: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """``(x, near)`` for ``A x = rhs`` by the factorisation (SuperLU above
        :data:`DENSE_MAX` unknowns), ``near`` the values ``x`` at the squares each move
        leads to (0 off the system; :meth:`_residual` reads them), None for ``A^T``.
        Nobody moves to the first ``mu`` squares, so their columns of ``G`` are 0: they are
        solved last, from the others (their own entries of ``near`` are read only where a
        face has no probability). NaN where SuperLU could not factorise: GTH elimination or,
        above :data:`GTH_MAX` unknowns, the structured solver answers."""
        if self._unfactorised:
            return np.full(rhs.shape, np.nan), None
        if self.rows_csr is not None:  # (SuperLU's solve of several columns goes to BLAS's threads)
            solve = partial(self._splu.solve, trans="T" if trans else "N")
            return columns(solve, np.asfortranarray(rhs)), None
        m, mu = self.unknowns, self._mu
        x = np.zeros((m + 1, rhs.shape[1]))  # (row m: the squares off the system)
        r = rhs[mu:]
        if trans and mu:  # A^T = [[D_u, 0], [-G_uf^T, A_ff^T]]
            x[:mu] = rhs[:mu] / self._piv_u
            r = r + self._scatter(x, mu)[mu:]
        if mu < m and self._descending:  # (the factors of A_ff^T, squares descending)
            solve = partial(self._splu.solve, trans="N" if trans else "T")
            x[mu:m] = columns(solve, np.asfortranarray(r[::-1]))[::-1]
        elif mu < m and self.method == "splu":
            solve = partial(self._splu.solve, trans="T" if trans else "N")
            x[mu:m] = columns(solve, np.asfortranarray(r))
        elif mu < m:
            with LAPACK_LOCK:  # (the factors are A_ff's transposed)
                x[mu:m] = columns(partial(self._getrs, trans=0 if trans else 1), r)
        if trans:
            return x[:m], None
        near = x.take(self.to, axis=0)
        x[:mu] = (rhs[:mu] + (self.moving[:mu, :, None] * near[:mu]).sum(axis=1)) / self._piv_u
        return x[:m], near

    def _getrs(self, column: np.ndarray, trans: int) -> np.ndarray:
        return dgetrs(*self._lu, column, trans=trans)[0]

    def _scatter(self, x: np.ndarray, rows: int) -> np.ndarray:
        """``G[:rows]^T x[:rows]`` read off the successor table: each move of the first
        ``rows`` squares adds its probability times ``x`` at its source to its
        destination (summed by ``np.bincount``)."""
        if self.rows_csr is not None:
            return self.rows_csr.scatter(x)
        m, k = self.unknowns, x.shape[1]
        terms = self.moving[:rows, :, None] * x[:rows, None, :]
        idx = self.to[:rows, :, None] * k + np.arange(k)  # (to = m: off the system)
        return np.bincount(idx.ravel(), terms.ravel(), (m + 1) * k).reshape(m + 1, k)[:m]

    def _sparse(self, lo: int = 0, descending: bool = False) -> sp.csr_matrix | sp.csc_matrix:
        """``A[lo:, lo:]`` as CSR laid out straight from the table: each square's row, one
        entry per face then its pivot, a face that stays or leaves the system an entry 0 on
        the diagonal (no entry dropped: two faces that meet are summed by SciPy when the
        matrix is factorised or converted). With ``descending``, the squares in descending
        order (row and column ``i``: square ``unknowns - 1 - i``) and the same arrays read as
        the CSC of ``A^T``."""
        m, n, faces, to = self.unknowns - lo, self.unknowns, self.faces, self.to[lo:]
        cols, vals = np.empty((m, faces + 1), dtype=np.int32), np.empty((m, faces + 1))
        c, v = (cols[::-1], vals[::-1]) if descending else (cols, vals)  # (written in place)
        c[:, :faces], c[:, faces] = to, np.arange(lo, n)
        np.negative(self.moving[lo:], out=v[:, :faces])
        v[:, faces] = self.pivot[lo:]
        rows, off = (to == n).nonzero()  # (the faces that leave)
        c[rows, off], v[rows, off] = rows + lo, 0.0
        indptr = np.arange(0, m * (faces + 1) + 1, faces + 1, dtype=np.int32)
        if descending:
            np.subtract(n - 1, cols, out=cols)
            return sp.csc_matrix((vals.ravel(), cols.ravel(), indptr), shape=(m, m))
        cols -= lo
        return sp.csr_matrix((vals.ravel(), cols.ravel(), indptr), shape=(m, m))

    def _residual(self, rhs: np.ndarray, x: np.ndarray, trans: bool,
                  near: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(r, bound)``: ``rhs - A x`` (``A^T``) in double precision, and a bound on its
        distance from the exact residual.

        A row of ``A`` is summed as ``sum_f p_f (x_i - x_to)`` over the square's moves
        (``x = 0`` off the system), which needs no pivot: each difference, product and sum
        and ``rhs`` minus the sum rounds once, within ``gamma(2 faces + 6)`` of
        ``|rhs| + sum_f p_f |x_i - x_to|``. The differences are of the values of nearby
        squares, so this bound stays near the rounding of ``rhs`` where the one relative
        to ``|A| |x|`` grows with ``x`` (a board of a few hundred expected throws then
        needed a residual in double-double to be certified). A row of ``A^T`` is the
        pivot times ``x`` minus one product per move into its square: the rounding of the
        pivot (a sum of ``faces`` terms), of its product, of those products and their sum
        and of the two differences, ``gamma(faces + moves in + 4)`` relative to
        ``|rhs| + |A^T| |x|``, row by row. ``near``: ``x`` at the squares the moves lead
        to, when known (:meth:`by_factors`; overwritten here)."""
        if not trans:
            if self.rows_csr is not None:
                return self.rows_csr.residual(rhs, x)
            if near is None:
                xe = np.zeros((self.unknowns + 1, x.shape[1]))
                xe[:-1] = x
                near = xe.take(self.to, axis=0)
            terms = np.subtract(x[:, None, :], near, out=near)  # (in place: near is ours)
            terms *= self.moving[:, :, None]
            r = rhs - over_faces(np.add, terms)
            np.abs(terms, out=terms)
            return r, gamma(2 * self.faces + 6) * (np.abs(rhs) + over_faces(np.add, terms))
        g = self._scatter(x, self.unknowns)
        pivot = self.pivot[:, None]
        px = pivot * x
        r = rhs - (px - g)
        if (x >= 0.0).all():
            size = np.abs(rhs) + px + g
        else:
            ab = np.abs(x)
            size = np.abs(rhs) + pivot * ab + self._scatter(ab, self.unknowns)
        return r, self._rounding_t()[:, None] * size

    def _rounding_t(self) -> np.ndarray:
        """``gamma(faces + moves in + 4)`` for each row of ``A^T``: the relative rounding of
        its residual (built on first use)."""
        with self._lock:
            if self._rounding is None and self.rows_csr is not None:
                self._rounding = self.rows_csr.rounding_t()
            if self._rounding is None:
                to = self.to[(self.to < self.unknowns) & (self.moving > 0.0)]
                terms = self.faces + 4 + np.bincount(to, minlength=self.unknowns)
                self._rounding = gamma(terms)
            return self._rounding

    def _rows_of(self, trans: bool) -> Rows:
        """The rows of ``A`` or of ``A^T``, for residuals in double-double (built on first use)."""
        with self._lock:
            if trans not in self._rows and self.rows_csr is not None:
                self._rows[trans] = DDRows(self.rows_csr, trans)  # type: ignore[assignment]
            if trans not in self._rows:
                m = self.unknowns
                off = (self.to < m) & (self.moving > 0.0)
                src = np.broadcast_to(np.arange(m)[:, None], off.shape)[off]
                dst, prob = self.to[off], self.moving[off]
                if trans:
                    src, dst = dst, src
                self._rows[trans] = Rows(self.moving, src, dst, prob)
            return self._rows[trans]

    # -- solving ----------------------------------------------------------------------------
    def solve(self, b: np.ndarray, trans: bool = False, *, target: float = TARGET,
              measure: bool = False, first: tuple | None = None):
        """Solve ``A x = b`` (``A^T x = b``), ``b`` of shape ``(n,)`` or ``(n, m)`` (zero off
        the system): the answer of the chain with rows scaled to sum to 1, with its
        certified relative error (the largest over the columns; componentwise for a column
        with ``b > 0`` on the system and ``trans=False``, else normwise) and, when
        ``measure``, its normwise backward error (else NaN). ``first``: the factorisation's
        answer and its residual, ``(x, r, bound)``, when already made (:meth:`throws`)."""
        b = np.asarray(b, dtype=np.float64)
        rhs = b[self.states]
        if rhs.ndim == 1:
            rhs = rhs[:, None]
        if self.unknowns == 0 or rhs.shape[1] == 0:
            return Solution(np.zeros(b.shape), 0, 0.0, 0.0, self.method)
        if not trans:
            rhs = rhs * self.scale
        x, lo, error, backward, how = self._certified(rhs, trans, target, measure, first)
        if error > max(target, REFACTOR_ERROR) and self.unknowns > GTH_MAX and (np.all(
                np.isfinite(x)) or self._unfactorised) and self.rows_csr is None:
            sol = self.structured().solve(b, trans, target=target)
            if sol.error < total_error(error, self.faces):
                return Solution(sol.x, sol.iterations, sol.error, sol.residual, "structured")
        if lo is not None or trans:
            with np.errstate(over="ignore", invalid="ignore"):
                if lo is not None:
                    x = x + lo
                if trans:
                    x = x * self.scale
        out = np.zeros((self.n, x.shape[1]))
        out[self.states] = x
        out = out.reshape(b.shape)
        if not np.isfinite(x).all():  # beyond the largest double
            out[~np.isfinite(out)] = np.inf
            return Solution(out, 0, np.inf, np.inf, how)
        return Solution(out, 0, total_error(error, self.faces), backward, how)

    def refined(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``A^-1 b`` as a double-double pair ``(hi, lo)``, refined to about ``2**-100``
        relative where the factorisation allows (for quantities that take differences of
        its entries)."""
        rhs = np.asarray(b, dtype=np.float64)[self.states, None] * self.scale
        x, lo, error, _, _ = self._certified(rhs, False, 2.0**-100)
        if (error > REFACTOR_ERROR and self.unknowns > GTH_MAX and self.rows_csr is None
                and (np.all(np.isfinite(x)) or self._unfactorised)):
            return self.structured().refined(b)
        hi, low = np.zeros(self.n), np.zeros(self.n)
        hi[self.states] = x[:, 0]
        if lo is not None:
            low[self.states] = lo[:, 0]
        return hi, low

    def _certified(self, rhs: np.ndarray, trans: bool, target: float, measure: bool = False,
                   first: tuple | None = None):
        """``(x, lo, error, backward, method)``: solved by LU and refined (``lo`` None when no
        refinement was needed); solved again by GTH elimination where the LU answer cannot
        be certified to ``REFACTOR_ERROR`` (here up to :data:`GTH_MAX` unknowns; above, the
        caller asks the structured solver)."""
        x, lo, error, backward = self._refine(self.by_factors, rhs, trans, target, measure,
                                              first=first)
        # (an LU answer that overflowed too: its pivots' cancellation can make a finite
        # answer, e.g. 2e20 throws, inf, which GTH then gives right)
        if error <= max(target, REFACTOR_ERROR) or self.unknowns > GTH_MAX:
            return x, lo, error, backward, self.method
        # cancellation-free for a right-hand side >= 0: its a priori bound holds
        bound = self._elimination()[1] if (rhs >= 0.0).all() else np.inf
        y, ylo, gerror, gbackward = self._refine(self._gth_solve, rhs, trans, target, measure,
                                                 bound)
        if gerror < error:
            return y, ylo, gerror, gbackward, "gth"
        return x, lo, error, backward, self.method

    def _refine(self, solve, rhs: np.ndarray, trans: bool, target: float, measure: bool,
                a_priori: float = np.inf, first: tuple | None = None):
        """Solve (``solve(rhs, trans)`` gives ``(x, near)`` as :meth:`by_factors` does), then
        refine the columns not yet certified (for ``A``, a round with the residual in double
        first; then in double-double) until the certified error (or ``a_priori``, a bound
        known without a residual) is below ``target`` or stops improving:
        ``(x, lo, error, backward)``, ``lo`` None when no refinement was needed. ``first``:
        the first solve and its residual ``(x, r, bound)`` when already made (finite)."""
        if first is None:
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                x, near = solve(rhs, trans)
            if not np.isfinite(x).all():
                return x, None, np.inf, np.inf
            r, bound = self._residual(rhs, x, trans, near)
        else:
            x, r, bound = first
        backward = np.nan
        if measure:
            scale = 2.0 * np.abs(x).max() + np.abs(rhs).max()
            backward = float(np.abs(r).max() / scale) if scale > 0 else 0.0
        if a_priori <= target:
            return x, None, a_priori, backward
        eps = self._relative(rhs, x, np.abs(r) + bound, trans)
        error = min(a_priori, _error_of(float(eps.max())))
        if error <= target:
            return x, None, error, backward
        # the columns not yet certified are refined, the others keep their answer
        done = eps <= target / (1.0 + target)  # (their error at most target)
        cols = np.flatnonzero(~done)
        out, rhs, x = x, rhs[:, cols], x[:, cols]
        lo = np.zeros_like(x)
        best = (x, lo, min(a_priori, _error_of(float(eps[cols].max()))))
        if not trans:  # first a round in double: A's residual is accurate there (_residual)
            with np.errstate(over="ignore", invalid="ignore"):
                again = x + solve(r[:, cols], trans)[0]
            if np.isfinite(again).all():
                r, bound = self._residual(rhs, again, trans)
                error = min(a_priori, self._error(rhs, again, np.abs(r) + bound, trans))
                if error < best[2]:
                    best = (again, lo, error)
                    x = again
        for round_ in range(MAX_ROUNDS + 1):
            if best[2] <= target:
                break
            with np.errstate(over="ignore", invalid="ignore"):  # (x near the largest double)
                r, bound = self._rows_of(trans).dd_residual(rhs, x, lo)
                error = min(a_priori, self._error(rhs, x + lo, np.abs(r) + bound, trans))
            if error < best[2]:
                best = (x, lo, error)
            elif round_:
                break  # refinement stopped improving
            if error <= target or round_ == MAX_ROUNDS:
                break
            with np.errstate(over="ignore", invalid="ignore"):
                x, lo = dd_add(x, lo, solve(r, trans)[0])
            if not np.isfinite(x).all():
                break
        out[:, cols] = best[0]
        lo = np.zeros_like(out)
        lo[:, cols] = best[1]
        return out, lo, max(_error_of(float(eps[done].max(initial=0.0))), best[2]), backward

    def _error(self, rhs: np.ndarray, x: np.ndarray, err: np.ndarray, trans: bool) -> float:
        """The certified relative error of ``x`` (its worst column) from a bound ``err`` on
        its exact residual."""
        return _error_of(float(self._relative(rhs, x, err, trans).max()))

    def _relative(self, rhs: np.ndarray, x: np.ndarray, err: np.ndarray, trans: bool
                  ) -> np.ndarray:
        """For each column of ``x``, given a bound ``err`` on its exact residual, the
        relative size of the residual that bounds the column's relative error (see
        :mod:`.certify` and :func:`_error_of`)."""
        positive = np.zeros(rhs.shape[1], bool) if trans else (rhs > 0.0).all(axis=0)
        if positive.all():  # componentwise (the expected throws, their second moment)
            return self._sharper(rhs, x, err, (err / rhs).max(axis=0))
        # normwise: in the 1-norm for A^T (its norm is A^-1's inf-norm), else the inf-norm
        eps = np.zeros(rhs.shape[1])
        if positive.any():
            eps[positive] = (err[:, positive] / rhs[:, positive]).max(axis=0)
        others = ~positive
        if not trans:
            x, err = x[:, others], err[:, others]
        norm = np.sum if trans else np.max
        size, enorm = norm(np.abs(x), axis=0), norm(err, axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            eps[others] = np.where(size > 0.0, enorm / size * self.inverse_norm(),
                                   np.where(enorm > 0.0, np.inf, 0.0))
        return eps

    def _sharper(self, rhs: np.ndarray, x: np.ndarray, err: np.ndarray, eps: np.ndarray
                 ) -> np.ndarray:
        """``eps`` (``max(err / rhs)``, ``rhs > 0``), or where it is above :data:`SHARPEN`
        (the answer would be refined) and smaller, ``max(z / x)`` with ``z >= A^-1 err``
        from one more solve: ``A^-1 err <= max(err / rhs) x`` spreads the largest ratio over
        every square, where ``A^-1 err`` weighs each row's by the visits to it (the step
        variances of lopsided dice: a double-precision residual certified 3e-11 that way and
        3e-14 this way). ``z`` is the computed ``A^-1 err`` plus a bound on its own error
        from its residual ``f`` (``A^-1 f <= max(f / s) t``, ``t = A^-1 s`` the expected
        throws); skipped until those are known."""
        if self._throws is None or not eps.max() > SHARPEN:
            return eps
        cols = np.flatnonzero(eps > SHARPEN)
        err, x = err[:, cols], x[:, cols]
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            z, near = self.by_factors(err, False)
            f, bound = self._residual(err, z, False, near)
            f = np.abs(f, out=f)
            f += bound
            slack = (f / self.scale).max(axis=0) * (1.0 + 2.0 * self._throws.error)
            z += slack * self._throws.x[self.states, None]
            ratio = np.where(x > 0.0, z / x, np.inf).max(axis=0)
        eps = eps.copy()
        eps[cols] = np.fmin(eps[cols], ratio)  # (NaN: the first bound)
        return eps

    def inverse_norm(self) -> float:
        """A bound on ``||A^-1||_inf``: ``max(t) / min(s)``, :func:`.certify.upper` of ``t``."""
        return upper(self.tmax(), self.throws().error) / float(self.rowsum[self.states].min())

    def throws(self) -> Solution:
        """The expected throws ``t = A^-1 s`` from every square, solved once (the answer of
        :func:`~snl_numeric.expected_throws_all` and the norm of ``A^-1``)."""
        if self._throws is None:  # (two threads may both solve it: the same answer)
            sol = self._throws_at_once()
            if not isinstance(sol, Solution):  # (refined from that first solve)
                sol = self.solve(self.active.astype(np.float64), first=sol)
            self._throws = sol
        return self._throws

    def _throws_at_once(self) -> Solution | tuple | None:
        """The expected throws from one solve by the factorisation when the residual in
        double precision certifies them: the first step of :meth:`solve`, without its
        bookkeeping of many columns and fallbacks. Else that solve and its residual
        ``(x, r, bound)`` for :meth:`solve` to refine, or None (nothing solved, or beyond
        the largest double)."""
        if self.unknowns == 0:
            return None
        rhs = np.full((self.unknowns, 1), self.scale)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # as _refine
            x, near = self.by_factors(rhs, False)
            r, bound = self._residual(rhs, x, False, near)
            err = np.abs(r)
            err += bound
            err /= rhs
            error = _error_of(float(err.max()))
        if not error <= TARGET:  # (NaN beyond the largest double)
            return (x, r, bound) if np.isfinite(x).all() else None
        out = np.zeros(self.n)
        out[self.states] = x[:, 0]
        return Solution(out, 0, total_error(error, self.faces), np.nan, self.method)

    def tmax(self) -> float:
        """``max(t)`` for ``t = A^-1 s``, the expected throws: ``||(I - Q)^-1||_inf``."""
        return float(self.throws().x.max())

    def step_variance(self, thi: np.ndarray, tlo: np.ndarray) -> np.ndarray:
        """The variance of ``t`` after one throw from each square of the system (see
        :func:`.certify.step_variance`); ``t`` given as a double-double pair."""
        w = np.zeros(self.n)
        hi = np.append(thi[self.states], 0.0)
        lo = np.append(tlo[self.states], 0.0)
        if self.rows_csr is not None:
            w[self.states] = self.rows_csr.step_variance(hi, lo)
            return w
        w[self.states] = step_variance(self.to, np.broadcast_to(self.probs, self.to.shape),
                                       hi, lo)
        return w

    # -- the cancellation-free fallback --------------------------------------------------------
    def _elimination(self) -> tuple[np.ndarray, float]:
        """GTH elimination of ``A`` (:func:`.gth.gth_factor`) with the system's squares in
        reverse order, built once, on first need: the packed factors and the a priori
        relative error of a solve with a right-hand side ``>= 0``, a few units in the last
        place per operation along the longest chain of dependent operations (the structured
        solver's model, :mod:`.structured`, for one block of ``m``). Descending, each
        column's multipliers are the few squares moving to it (as in :meth:`_superlu`)."""
        with self._lock:
            if self._gth is None:
                leave = (self.rows_csr.leave() if self.rows_csr is not None else
                         np.where(self.to == self.unknowns, self.moving, 0.0).sum(axis=1))
                lu = np.ascontiguousarray(self._dense()[::-1, ::-1])
                gth_factor(lu, leave[::-1].copy())
                m = self.unknowns
                self._gth = (lu, float(np.finfo(float).eps / 2) * (6 * m + 2 * self.faces + 16))
            return self._gth

    def _gth_solve(self, rhs: np.ndarray, trans: bool) -> tuple[np.ndarray, None]:
        """``(A^-1 rhs, None)`` (``A^-T rhs``) by GTH's factors, column by column (LAPACK),
        as :meth:`by_factors` answers (the factors' order is the system's reversed)."""
        lu = self._elimination()[0]
        with LAPACK_LOCK:
            x = columns(partial(gth_solve, lu, trans=trans), np.ascontiguousarray(rhs[::-1]))
        return x[::-1], None

    def structured(self):
        """The structured solver of the same system (for answers the LU factorisation
        cannot certify on more than :data:`GTH_MAX` unknowns), built once."""
        from .structured import Solver

        with self._lock:
            if self._fallback is None:
                table = self._table() if callable(self._table) else self._table
                self._fallback = Solver(*table, self.active)
            return self._fallback


def _error_of(eps: float) -> float:
    """The certified relative error of an answer whose residual is ``eps`` relative (as
    :meth:`DirectSolver._relative` measures it): ``eps / (1 - eps)``, ``inf`` from 1 on
    (and for NaN: beyond the largest double)."""
    return eps / (1.0 - eps) if eps < 1.0 else np.inf
