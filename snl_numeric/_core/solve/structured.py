"""The solver family for the absorbing chain's fundamental system ``(I - Q) x = b``.

``A = I - Q`` is restricted to the squares of the system (``active``); a throw
that leaves them (to the goal, or to a square outside the system) is absorbed.
Write ``A = P - R`` (see :mod:`.blocks`): ``P`` is block upper triangular (the
throws forward, and the short backward moves inside a block), solved by one
sweep; ``R`` holds the backward moves to lower blocks, landing on ``k``
distinct squares ``D``, so ``R = C E_D^T`` has rank ``k``. One method per board:

- ``"triangular"`` (``k = 0``): one sweep of ``P^-1``;
- ``"woodbury"`` (small ``k``, or any ``k`` on a small board): with
  ``W = P^-1 C`` (``k`` sweeps at once), ``A^-1 b = c + W y`` where
  ``c = P^-1 b`` and ``(I - W[D]) y = c[D]``. The ``k x k`` capacitance
  matrix is again an M-matrix whose row sums are known exactly:
  ``(I - W[D]) 1 = h[D]`` with ``h = P^-1 e``, ``e`` the probability of leaving
  the system in one throw, so it is eliminated by GTH too (the transposed system
  the same way);
- ``"gmres"`` (large ``k``): restarted GMRES (:mod:`.krylov`) on the capacitance
  system, each step one sweep, stopped on the certificate's own criterion (and so is
  a refining round's correction). An answer
  it cannot certify is solved again by a second solver over the same system, built
  once when first needed: the Woodbury method when it fits, else ``"splu"`` (SciPy's
  sparse LU). A solver's method never changes; :attr:`Solution.method` names the one
  that gave the answer. GMRES that converges slowly hands over to that solver too: a
  solve may spend at most the second solver's estimated cost in GMRES's work
  (:meth:`Solver.step_budget`); a solver whose solve ran out of it sends every later
  solve to the second solver (boards whose short backward moves make the chain mix
  slowly, where SuperLU fills in little).

Every method but the Krylov ones is cancellation-free: pivots are sums of what
leaves a square, and a non-negative right-hand side gives every entry of the
solution to high relative accuracy however large it is.

Error bounds. ``A^-1 >= 0`` entrywise, so a residual ``r = b - A x^`` bounds
the error ``|x - x^| <= A^-1 |r|``: for ``b > 0`` entrywise this is at most
``max_i |r_i| / b_i`` times ``x`` (a componentwise relative bound); otherwise
normwise, with ``||A^-1||_inf = max(t)``, ``t = A^-1 1`` the expected throws.
Residuals are computed in double-double arithmetic (a first answer away from the
rounding floor: in double precision, each row over differences of nearby values, with
its own rounding bound), and the answer is refined
(kept as a double-double sum while refining) until the bound is below
:data:`TARGET_ERROR` or stops improving. A cancellation-free solve also has an
a priori bound, a few units in the last place per operation along the longest
chain of dependent operations (the chain of blocks linked by forward moves,
plus the capacitance elimination); the smaller bound is reported.

:mod:`.moments` is the Woodbury method as one Numba kernel, for batch analysis
and board design to call per board.
"""

from __future__ import annotations

import threading

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..sizes import (
    FALLBACK_WOODBURY_MAX,
    SMALL_SYSTEM,
    SPLU_MAX,
    SWEEP_MIN,
    WOODBURY_BYTES,
    WOODBURY_MAX,
    natural_order,
)
from ..memory import available_memory
from ..validation import readonly
from .blocks import (
    BLOCK_MAX,
    ROTATE_GAIN,
    a_priori_bound,
    backward_columns_kernel,
    block_factor_kernel,
    block_solve_kernel,
    block_solve_t_kernel,
    capacitance_kernel,
    correction_kernel,
    levels_kernel,
    structure_kernel,
    sweep_kernel,
)
from .certify import DD_EPS, Solution, total_error, upper
from .eft import dd_add_jit
from .greedy import greedy_tables
from .gth import gth_solve_jit
from .krylov import gmres_kernel, landing_kernel, landing_sweep_kernel
from .residual import (
    bound_kernel,
    difference_residual_kernel,
    residual_kernel,
    residual_t_kernel,
    step_variance_kernel,
)

#: Refine until the certified relative error is below this.
TARGET_ERROR = 1e-11
#: Answers certified only above this raise a RuntimeWarning (in the callers).
WARN_ERROR = 1e-10
#: Refinement rounds at most.
MAX_ROUNDS = 4
#: GMRES relative tolerance of a first solve that the componentwise criterion cannot
#: certify (``b`` not positive, or transposed), and of a correction's there.
GMRES_RTOL = 1e-13
CORRECTION_RTOL = 1e-6
#: GMRES stops when the residual is below this fraction of what the certificate allows
#: (the rest is left to the rounding of the final sweep).
GMRES_MARGIN = 0.5
#: The componentwise certificate takes the residual in double precision
#: (:func:`difference_residual_kernel`, cheaper than double-double), each row
#: whose rounding allowance is above this fraction of the target (relative to ``b``)
#: formed again in double-double: it judges the answer as double-double would, and a
#: correction by it loses at most that fraction.
DOUBLE_SHARE = 1 / 8
#: GMRES steps per solve at most (each one sweep over the board).
MAX_ITERATIONS = 2000
#: SuperLU's factorisation and solve, in units of one table entry's read by a sweep, per
#: entry of the table and of its natural order's envelope (:meth:`Solver.step_budget`).
#: Measured (CPU time) on boards of a +-50 jump on every third square, 60,000 and 200,000
#: squares: 79 and 82.
SPLU_WORK = 80
#: Steps between GMRES restarts at most (fewer when ``KRYLOV_BYTES`` says so). Restarting
#: early stalls on slow-mixing boards (a die that nearly always throws 1).
RESTART_MAX = 1000
#: GMRES keeps ``restart + 1`` vectors of length ``k``: at most this many bytes of them.
KRYLOV_BYTES = 1 << 28
#: Bytes per square of a solver and its certified solves (see :func:`solver_bytes`).
SOLVE_BYTES = 150
#: GMRES steps whose basis vectors :func:`solver_bytes` counts.
GMRES_STEPS = 64
_NO_ROWS = np.zeros(0, dtype=np.int64)  # block_solve_kernel finds the columns' first rows
_EVERY_ROW = np.zeros(0, dtype=np.bool_)  # correction_kernel corrects every row


class Solver:
    """``(I - Q) x = b`` over the ``active`` squares; see the module docstring.

    Parameters
    ----------
    succ : ndarray of int, shape (n, faces)
        The successor table.
    probs : ndarray of float
        The faces' probabilities: shape ``(faces,)`` for one die everywhere, or
        ``(n, faces)`` per square.
    active : ndarray of bool, shape (n,)
        The system's squares. Their throws must stay in the system or leave it
        for good (the goal, a square that is not active).
    method : {"woodbury", "splu"}, optional
        Force a method (the second solver of a GMRES one); by default chosen by the
        structure, once.

    Thread-safe: a solver is shared by every call on one board.

    Examples
    --------
    >>> import numpy as np
    >>> succ = np.array([[1, 2], [2, 0], [2, 2]])     # square 2 is the goal
    >>> s = Solver(succ, np.array([0.5, 0.5]), np.array([True, True, False]))
    >>> s.method, s.solve(np.array([1.0, 1.0, 0.0])).x.tolist()
    ('triangular', [2.0, 2.0, 0.0])
    """

    def __init__(self, succ: np.ndarray, probs: np.ndarray, active: np.ndarray, *,
                 rotate: bool = True, method: str | None = None) -> None:
        # read-only inputs (as Board holds them); the table in int32, as a large board's
        # is: every caller (boards, policies, races) shares one compiled set of kernels
        succ = np.asarray(succ)
        if succ.shape[0] >= 2**31:
            raise ValueError(f"a system of {succ.shape[0]:,} squares: at most 2**31 - 1")
        self.succ = readonly(np.ascontiguousarray(succ, dtype=np.int32))
        probs = np.asarray(probs, dtype=np.float64)
        self.pstride = 0 if probs.ndim == 1 else 1
        self.probs = readonly(np.ascontiguousarray(probs.reshape(1, -1) if probs.ndim == 1
                                                   else probs))
        self.active = np.ascontiguousarray(active, dtype=np.bool_)
        n, nf = self.succ.shape
        self.n = n
        self.unknowns = int(self.active.sum())
        self.structural_zeros = True  # (sweeps add terms only along the moves)
        # A die's probabilities sum to 1 within 1e-12, not exactly: the chain is the one
        # with every row scaled to sum to 1. Pivots are sums of the probabilities of
        # moving, so A here is diag(rowsum) times that chain's I - Q: right-hand sides
        # are scaled by rowsum (answers of transposed systems likewise).
        rowsum = self.probs[:, 0].copy()  # summed face by face, as the pivots are
        for f in range(1, nf):
            rowsum += self.probs[:, f]
        self.rowsum = rowsum  # shape (n,), or (1,) for one die
        self._lock = threading.Lock()
        self._throws: Solution | None = None
        self._second: Solver | None = None
        self._deflation: tuple[np.ndarray, np.ndarray] | None = None  # GMRES's (U, C U)
        self._slow = False  # a solve ran out of its step budget: the second solver answers
        self._order(self.succ, self.probs, self.active,
                    rotate and method is None and n > SMALL_SYSTEM, method)

    def _structure(self, succ: np.ndarray, probs: np.ndarray, active: np.ndarray,
                   rotations: bool = False) -> tuple[int, int, tuple, np.ndarray, np.ndarray,
                                                     np.ndarray]:
        block_start = np.empty(self.n + 1, dtype=np.int32)
        tcol = np.empty(self.n, dtype=np.int64)
        cost = np.empty(self.n + 1 if rotations else 0, dtype=np.int64)
        nb, k, *entries = structure_kernel(succ, probs, self.pstride, active, BLOCK_MAX,
                                           block_start, tcol, cost)
        return int(nb), int(k), tuple(entries), block_start[: nb + 1], tcol, cost

    def _order(self, succ, probs, active, rotate, method) -> None:
        """Take the squares in their own order or, when that leaves far fewer moves going
        backward, rotated (``c .. n-1`` first): a region near the goal whose snakes fall
        far back is then solved first, and only the moves into it go backward (``cost``,
        from the structure pass, counts them for each ``c``)."""
        n, nf = succ.shape
        nb, k, entries, block_start, tcol, cost = self._structure(succ, probs, active, rotate)
        self.cut = 0
        if rotate and k > WOODBURY_MAX:
            c = int(np.argmin(cost[1:n])) + 1
            if ROTATE_GAIN * cost[c] < cost[0]:
                self.cut = c
                new = np.concatenate([np.arange(n - c, n), np.arange(0, n - c)])
                self._new = new  # new[x]: the place of square x in the rotated order
                succ = readonly(np.ascontiguousarray(new[succ][np.argsort(new)],
                                                     dtype=succ.dtype))
                if self.pstride:
                    probs = readonly(np.ascontiguousarray(probs[np.argsort(new)]))
                active = active[np.argsort(new)]
                nb, k, entries, block_start, tcol, _ = self._structure(succ, probs, active)
        del cost
        self._succ, self._probs, self._active = succ, probs, active
        self.block_start = block_start.copy()
        self.offsets = np.empty(nb, dtype=np.int64)
        self.piv = np.empty(n)
        self.lu, blocks = block_factor_kernel(succ, probs, self.pstride, active,
                                              self.block_start, self.offsets, self.piv)
        self.k = k
        self.blocks = int(blocks)
        self.targets = np.empty(k, dtype=np.int64)
        self.targets[tcol[tcol >= 0]] = np.flatnonzero(tcol >= 0)
        if method is None:
            method = ("triangular" if k == 0 else "woodbury" if (
                k <= WOODBURY_MAX or n <= SMALL_SYSTEM) and 8 * n * k <= WOODBURY_BYTES
                else "gmres")
        self.method = method
        # the a priori bound of the cancellation-free methods (the others' is the residual's)
        self.a_priori = (a_priori_bound(levels_kernel(succ, probs, self.pstride, active,
                                                      self.block_start), nf, k, BLOCK_MAX)
                         if method in ("triangular", "woodbury") else np.inf)
        if method == "woodbury":
            self._woodbury(tcol)
        elif method == "splu":
            self._splu()
        elif method == "gmres":
            self.restart = int(min(RESTART_MAX, max(5, KRYLOV_BYTES // (8 * max(k, 1)) - 1)))
            self.c_entries = entries  # R = C E_D^T as C's entries
            self.landing = landing_kernel(succ, probs, self.pstride, active, self.block_start,
                                          self.piv, tcol, k)
            self.pre = greedy_tables(succ, probs, self.pstride, active, self.block_start,
                                     self.targets)
            self._budget: int | None = None  # (step_budget's, computed when first needed)
            self._envelope: int | None = None  # (of the backward moves, when first needed)

    def _inside(self, v: np.ndarray) -> np.ndarray:
        """A vector in the solving order."""
        if not self.cut:
            return v
        out = np.empty_like(v)
        out[self._new] = v
        return out

    def _outside(self, v: np.ndarray) -> np.ndarray:
        """A vector back in the squares' order."""
        return v[self._new] if self.cut else v

    # -- the sweeps ------------------------------------------------------------------------
    def _sweep(self, rhs: np.ndarray) -> np.ndarray:
        """``P^-1 rhs``: one column or several (GMRES sweeps with :mod:`.krylov`'s kernel).

        Below :data:`~snl_numeric._core.sizes.SWEEP_MIN` squares a column goes through the
        many-column kernel, so that a small board compiles one forward kernel, not two (the
        same arithmetic, except that rows above the column's first non-zero are set to 0,
        not computed)."""
        out = np.empty(rhs.shape)
        if rhs.ndim == 1 and self.n >= SWEEP_MIN:
            sweep_kernel(self._succ, self._probs, self.pstride, self._active, self.block_start,
                         self.offsets, self.lu, self.piv, rhs, out)
        else:
            cols = np.ascontiguousarray(rhs.reshape(self.n, -1))
            block_solve_kernel(self._succ, self._probs, self.pstride, self._active,
                               self.block_start, self.offsets, self.lu, self.piv, cols,
                               _NO_ROWS, out.reshape(cols.shape))
        return out

    def _sweep_t(self, rhs: np.ndarray, with_back: bool = False
                 ) -> tuple[np.ndarray, np.ndarray]:
        """``P^-T rhs`` and ``R^T`` of it (if asked; else an empty array)."""
        cols = np.ascontiguousarray(rhs.reshape(self.n, -1))
        out = np.empty(cols.shape)
        back = np.empty(cols.shape if with_back else (self.n, 0))
        block_solve_t_kernel(self._succ, self._probs, self.pstride, self._active,
                             self.block_start, self.offsets, self.lu, self.piv, cols, out, back)
        return out.reshape(rhs.shape), (back.reshape(rhs.shape) if with_back else back)

    def _woodbury(self, tcol: np.ndarray) -> None:
        """``z = P^-1 [e | C]`` (``k + 1`` sweeps at once) and the capacitance factors
        (``tcol``: each target's column, -1 elsewhere)."""
        rhs = np.zeros((self.n, self.k + 1))
        backward_columns_kernel(self._succ, self._probs, self.pstride, self._active,
                                self.block_start, tcol, 1, rhs)
        self.z = self._sweep(rhs)
        self.cap = np.empty((self.k, self.k))
        self.cap_piv = np.empty(self.k)
        capacitance_kernel(self.z, 1, self.targets, self.cap, self.cap_piv)

    # -- one solve, by the board's method ---------------------------------------------------
    def _once(self, b: np.ndarray, trans: bool, tol: float, scale: np.ndarray | None = None,
              limit: int = MAX_ITERATIONS) -> tuple[np.ndarray, int]:
        """One solve (GMRES to the residual ``tol``, measured against ``scale``, by
        default ``b``, in at most ``limit`` steps: see :meth:`_gmres`)."""
        with np.errstate(over="ignore", invalid="ignore"):  # beyond the largest double: inf
            x, steps = self._solve_inside(self._inside(b), trans, tol, scale, limit)
        return self._outside(x), steps

    def _solve_inside(self, b: np.ndarray, trans: bool, tol: float,
                      scale: np.ndarray | None = None, limit: int = MAX_ITERATIONS
                      ) -> tuple[np.ndarray, int]:
        if self.method == "triangular":
            return (self._sweep_t(b)[0] if trans else self._sweep(b)), 0
        if self.method == "woodbury":
            if trans:
                d = self.targets
                g, back = self._sweep_t(b, True)
                v = back[d].copy()
                gth_solve_jit(self.cap, self.cap_piv, v, True)
                rhs = b.copy()
                rhs[d] += v
                return self._sweep_t(rhs)[0], 0
            x = self._sweep(b)
            correction_kernel(self.z, 1, self.targets, self.cap, self.cap_piv, x, _EVERY_ROW)
            return x, 0
        if self.method == "splu":
            x = np.zeros(self.n)
            x[self.states] = self.lu_sparse.solve(b[self.states], trans="T" if trans else "N")
            return x, 0
        return self._gmres(b, trans, tol, b if scale is None else self._inside(scale), limit)

    def _gmres(self, b: np.ndarray, trans: bool, tol: float, scale: np.ndarray,
               limit: int = MAX_ITERATIONS) -> tuple[np.ndarray, int]:
        """GMRES on the ``k x k`` capacitance system, one sweep per step, until the residual
        ``r = b - A x`` has ``max |r_i| / scale_i <= tol`` (negative: until the capacitance
        residual's 2-norm is at most ``-tol`` relative to its right-hand side's).

        The answer ``x = P^-1 b + P^-1 R E_D y`` takes no sweep of its own (forward): the
        first sweep's ``P^-1 b`` is kept, and GMRES's last step swept its final ``y``."""
        d = self.targets
        op = (self._succ, self._probs, self.pstride, self._active, self.block_start,
              self.offsets, self.lu, self.piv)
        n = self.n
        size, size_t = (0, n) if trans else (n, 0)  # work of one direction only
        near = int(self.landing[2].max()) + 1 if size else 0  # v, a zero, copies of jumps' ends
        work = (self.landing, np.zeros(near), np.empty(size))
        if trans:
            rhs = self._sweep_t(b, True)[1][d]
        else:  # P^-1 b, by the sweep GMRES's steps take
            c = np.empty(n)
            landing_sweep_kernel(self.landing, *op[1:], b, work[1], c)
            rhs = c[d]
        tol2, tol_rel = (-tol * float(np.sqrt(rhs @ rhs)), 0.0) if tol < 0 else (0.0, tol)
        y = np.zeros(self.k)
        steps = 0
        if np.any(rhs):
            work_t = (np.zeros((size_t, 1)), np.empty((size_t, 1)), np.empty((size_t, 1)))
            if trans:  # not deflated: the slow vector of A^T is not 1
                deflation, make = (np.zeros((0, self.k)), np.zeros((0, self.k))), False
            elif self._deflation is None:  # made by this solve, one sweep (see .krylov)
                deflation, make = (np.empty((1, self.k)), np.empty((1, self.k))), True
            else:
                deflation, make = self._deflation, False
            steps = int(gmres_kernel(bool(trans), op, d, work, work_t, rhs, tol2, *self.c_entries,
                                     scale, tol_rel, self.restart, limit, *deflation,
                                     make, self.pre, y))
            if make and steps:
                self._deflation = deflation
            if not trans and steps:  # work[2]: the sweep of GMRES's last step, P^-1 R E_D y
                c += work[2]
            del work_t
        del work  # before the last sweep's vectors
        if not trans:
            return c, steps
        full = np.zeros(self.n)
        full[d] = y
        return self._sweep_t(b + full)[0], steps

    def _second_kind(self) -> str | None:
        """The method of the second solver (None: there is none). SuperLU above
        :data:`~snl_numeric._core.sizes.SPLU_MAX` squares only where the envelope of the
        backward moves, once computed (:meth:`step_budget`), says it fills in little
        (:func:`~snl_numeric._core.sizes.natural_order`) and its factors fit in memory."""
        if 8 * self.n * self.k <= WOODBURY_BYTES and self.k <= FALLBACK_WOODBURY_MAX:
            return "woodbury"
        if self.n <= SPLU_MAX:
            return "splu"
        env = self._envelope
        if env is None or not natural_order(env, self.unknowns):
            return None
        memory = available_memory()
        return "splu" if memory is None or 16.0 * (env + self.succ.size) <= memory else None

    def _steps_costing(self, work: float) -> int:
        """GMRES steps whose work is at most ``work`` table entries read: each step one
        sweep (``n`` times ``faces`` entries) and its orthogonalisation against the basis
        so far (``2 k`` per vector, the basis restarting every ``restart`` steps); -1
        where :data:`MAX_ITERATIONS` steps cost less."""
        steps = np.arange(MAX_ITERATIONS)
        cost = np.cumsum(self.succ.size + 2.0 * self.k * (steps % self.restart + 1))
        return int(np.searchsorted(cost, work, side="right")) if work < cost[-1] else -1

    def _limit(self, steps: int) -> int:
        """The GMRES steps a solve that took ``steps`` may take next (0: hand over to the
        second solver; :meth:`step_budget`). Below SuperLU's least cost (the table's
        entries alone) the envelope is not computed: random boards converge first."""
        if self.method != "gmres":
            return MAX_ITERATIONS
        if self._second_kind() != "woodbury" and self._budget is None:
            floor = self._steps_costing(SPLU_WORK * float(self.succ.size))
            if steps < floor:
                return floor - steps
        budget = self.step_budget()
        return MAX_ITERATIONS if budget < 0 else max(budget - steps, 0)

    def step_budget(self) -> int:
        """The GMRES steps one solve may take (first answer and refining rounds together)
        before the second solver answers instead: as many as cost the second solver's
        estimated work (:meth:`_steps_costing`; -1: more than :data:`MAX_ITERATIONS`, or
        no second solver, and GMRES keeps its own limit of that many per solve and
        refining round). The Woodbury method costs ``k + 1`` sweeps and ``k**3 / 3``;
        SuperLU :data:`SPLU_WORK` per entry of the table and of the envelope of its
        backward moves in the squares' order (the squares from each square moved back to
        up to the highest moving there: where an LU in that order fills in)."""
        if self._budget is None:
            sweep = float(self.succ.size)
            if self._second_kind() == "woodbury":
                work = (self.k + 1) * sweep + self.k**3 / 3
            else:
                rows, faces = np.nonzero(self.succ < np.arange(self.n)[:, None])
                dest = self.succ[rows, faces]
                keep = (self.active[rows] & self.active[dest]
                        & (self.probs[rows * self.pstride, faces] > 0))
                top = np.full(self.n, -1, dtype=np.int64)
                np.maximum.at(top, dest[keep], rows[keep])
                tails = np.flatnonzero(top >= 0)
                self._envelope = int(top[tails].sum() - tails.sum())
                work = SPLU_WORK * (self._envelope + sweep)
            self._budget = self._steps_costing(work) if self._second_kind() else -1
        return self._budget

    def _second_solver(self) -> Solver | None:
        """The solver for answers GMRES cannot certify or takes too long to (see
        :meth:`step_budget`), built once: the cancellation-free Woodbury method when ``W``
        fits in memory (its capacitance factorisation costs ``k**3 / 3``), else SciPy's
        sparse LU of the same matrix (:meth:`_second_kind`: None where it may not fit)."""
        with self._lock:
            if self._second is None:
                kind = self._second_kind()
                if kind is not None:
                    self._second = Solver(self.succ, self._given_probs(), self.active,
                                          method=kind)
            return self._second

    @property
    def second(self) -> Solver | None:
        """The second solver, once GMRES has needed it (else None)."""
        return self._second

    def _given_probs(self) -> np.ndarray:
        return self.probs[0] if self.pstride == 0 else self.probs

    def _splu(self) -> None:
        """SciPy's sparse LU of ``A`` (in the solving order): the pivot of square ``x`` is
        the sum of its moving probabilities, as in the sweeps and the residual."""
        states = np.flatnonzero(self._active)
        pos = np.full(self.n, -1, dtype=np.int64)
        pos[states] = np.arange(len(states))
        nf = self._succ.shape[1]
        probs = np.broadcast_to(self._probs, (self.n, nf)) if self.pstride == 0 else self._probs
        rows = np.repeat(pos[states], nf)
        dest = self._succ[states].ravel()
        vals = probs[states].ravel()
        moving = (dest != np.repeat(states, nf)) & (vals > 0.0)
        m = len(states)
        pivot = np.bincount(rows[moving], weights=vals[moving], minlength=m)
        cols = pos[dest]
        off = moving & (cols >= 0)
        q = sp.csc_matrix((vals[off], (rows[off], cols[off])), shape=(m, m))
        self.lu_sparse = spla.splu((sp.diags(pivot, format="csc") - q).tocsc())
        self.states = states

    # -- the public solve: refined and certified --------------------------------------------
    def solve(self, b: np.ndarray, trans: bool = False, *, target: float = TARGET_ERROR,
              measure: bool = False) -> Solution:
        """Solve ``A x = b`` (``A^T x = b``) with ``b`` of shape ``(n,)`` or ``(n, m)`` (zero
        off the system; ``m`` columns are solved one by one).

        Returns the answer with its certified relative error (refined until it is below
        ``target`` or stops improving; the largest over the columns): componentwise when
        ``b > 0`` on the system (``trans=False``), else normwise. The normwise backward error
        is measured when the answer needs it to be certified, or when ``measure`` asks for it
        (else NaN).
        """
        b = np.asarray(b, dtype=np.float64)
        if b.ndim == 2:
            sols = [self.solve(col, trans, target=target, measure=measure) for col in b.T]
            x = np.stack([s.x for s in sols], axis=1) if sols else np.zeros(b.shape)
            return Solution(x, sum(s.iterations for s in sols),
                            max((s.error for s in sols), default=0.0),
                            max((s.residual for s in sols), default=0.0), self.method)
        if self.unknowns == 0:
            return Solution(np.zeros(self.n), 0, 0.0, 0.0, self.method)
        if self._slow:
            second = self._second_solver()
            assert second is not None  # (slow only with a second solver)
            return second.solve(b, trans, target=target, measure=measure)
        given = b  # for a second solver (one vector of n less than keeping b0 as well)
        b = np.where(self.active, given, 0.0)
        if not trans:
            b *= self.rowsum
        x, lo, steps, error, backward = self._refine(b, trans, target, measure=measure)
        del b
        if trans:
            x, lo = x * self.rowsum, lo * self.rowsum
        x += lo
        del lo
        if not np.all(np.isfinite(x), where=self.active):  # beyond the largest double
            x[self.active & ~np.isfinite(x)] = np.inf
            return Solution(x, steps, np.inf, np.inf, self.method)
        if self.method == "gmres" and (error > WARN_ERROR or self._slow):
            second = self._second_solver()
            if second is not None:
                sol = second.solve(given, trans, target=target, measure=measure)
                return Solution(sol.x, steps + sol.iterations, sol.error, sol.residual,
                                sol.method)
        if self.method in ("triangular", "woodbury"):
            error = min(error, self.a_priori)
        # the bound is for the double-double answer of the scaled system: the row sums and
        # b * s are rounded, and so is the double returned
        return Solution(x, steps, total_error(error, self.succ.shape[1]), float(backward),
                        self.method)

    def refined(self, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``A^-1 b`` as a double-double pair ``(hi, lo)``, refined to about ``2**-100``
        relative (for quantities that take differences of its entries)."""
        if not self._slow:
            scaled = np.where(self.active, np.asarray(b, dtype=np.float64), 0.0) * self.rowsum
            x, lo, _, _, _ = self._refine(scaled, False, 2.0**-100, trust_a_priori=False)
            if not self._slow:
                return x, lo
        second = self._second_solver()
        assert second is not None
        return second.refined(b)

    def _refine(self, b: np.ndarray, trans: bool, target: float, trust_a_priori: bool = True,
                measure: bool = False) -> tuple[np.ndarray, np.ndarray, int, float, float]:
        """Solve, then refine while the certified error is above ``target``; ``measure``:
        compute the residual even when the a priori bound already certifies the answer.

        GMRES stops on the certificate's criterion when it is componentwise (``b > 0``,
        not transposed): ``max |r_i| / b_i`` below the target, less a margin for the
        rounding of the last sweep (see :mod:`.krylov`), certifies the first answer. Where
        the sweeps' roundings alone leave more (``u max(t)`` near the target: a residual of
        a few units in the last place of ``x``), a refining round corrects by the
        residual and its GMRES stops on the same criterion measured against ``b`` (fewer
        sweeps than a loose solve bounding ``A^-1 |r|``). The residuals are formed as
        :meth:`_certify` says."""
        positive = bool(np.min(b, where=self.active, initial=np.inf) > 0)
        tol = (GMRES_MARGIN * target if not trans and target >= 1e-14 and positive
               else -GMRES_RTOL)
        x, steps = self._once(b, trans, tol, limit=self._limit(0))
        lo = np.zeros(self.n)
        if not np.all(np.isfinite(x), where=self.active):  # beyond the largest double
            return x, lo, steps, np.inf, np.inf
        direct = self.method in ("triangular", "woodbury")
        if trust_a_priori and direct and self.a_priori <= target and not measure:
            return x, lo, steps, self.a_priori, np.nan
        error, backward, r = self._certify(b, x, lo, trans, target, tol > 0)
        for _ in range(MAX_ROUNDS):
            if error <= target or (trust_a_priori and direct and self.a_priori <= target):
                break
            limit = self._limit(steps)
            if not limit:  # GMRES has cost what the second solver would
                self._slow = True
                break
            dx, more = self._once(r, trans, tol if tol > 0 else -CORRECTION_RTOL, scale=b,
                                  limit=limit)
            del r  # (n-long vectors: at 10^7 squares each is 80 MB)
            steps += more
            new_x, new_lo = dx, np.empty(self.n)
            dd_add_jit(x, lo, new_x, new_lo)
            del dx
            new_error, new_backward, r = self._certify(b, new_x, new_lo, trans, target, tol > 0)
            if not new_error < error:
                break
            x, lo, error, backward = new_x, new_lo, new_error, new_backward
        if self.method == "gmres" and error > target and not self._limit(steps):
            self._slow = True
        return x, lo, steps, error, backward

    def _certify(self, b: np.ndarray, x: np.ndarray, lo: np.ndarray, trans: bool,
                 target: float, componentwise: bool) -> tuple[float, float, np.ndarray]:
        """:meth:`_bound` of ``x + lo`` for a refinement to ``target``: the componentwise
        bound from the residual in double precision, its rows that would leave more than
        :data:`DOUBLE_SHARE` of the target formed in double-double (on random boards, the
        rows of long ladders); the whole residual again in double-double where the bound is
        within twice that allowance above the target (double-double might certify the
        answer)."""
        if componentwise:
            error, backward, r, slack = self._bound(b, x, lo, trans, DOUBLE_SHARE * target)
            if not target < error <= target + 2 * slack:
                return error, backward, r
        return self._bound(b, x, lo, trans)[:3]

    def _bound(self, b: np.ndarray, x: np.ndarray, lo: np.ndarray, trans: bool,
               limit: float = 0.0) -> tuple[float, float, np.ndarray, float]:
        """Certified relative error of ``x + lo``, its normwise backward error, its
        residual ``b - A (x + lo)`` and its rounding allowance's largest ratio to ``b``.
        The residual is formed in double-double (:func:`residual_kernel`,
        :func:`residual_t_kernel`) or, with
        ``limit > 0`` (not transposed), in double precision where that leaves at most
        ``limit b_i`` (:func:`difference_residual_kernel`); the bound adds what rounding
        is left (:func:`bound_kernel`)."""
        r = np.empty(self.n)
        size = np.empty(self.n)
        if limit > 0:  # size: the rounding allowance itself
            difference_residual_kernel(self.succ, self.probs, self.pstride, self.active, b, x,
                                       lo, limit, r, size)
            factor = 1.0
        else:
            residual = residual_t_kernel if trans else residual_kernel
            residual(self.succ, self.probs, self.pstride, self.active, b, x, lo, r, size)
            factor = (self.succ.shape[1] * 2 + 6) * DD_EPS
        top, xmax, bmax, bmin, ratio, esum, xsum, slack = bound_kernel(
            r, size, factor, x, lo, b, self.active)
        del size
        scale = 2.0 * xmax + bmax
        backward = float(top / scale) if scale > 0 else 0.0
        if not trans and bmin > 0:
            eps = float(ratio)
        else:
            enorm, xnorm = (esum, xsum) if trans else (top, xmax)
            norm = upper(self.tmax(), self.throws().error)  # (inf: t not certified)
            eps = float(norm * enorm / xnorm) if xnorm > 0 else (0.0 if not top else np.inf)
        return (eps / (1.0 - eps) if eps < 1.0 else np.inf), backward, r, float(slack)

    def step_variance(self, thi: np.ndarray, tlo: np.ndarray) -> np.ndarray:
        """The variance of ``t`` after one throw from each square of the system
        (:func:`step_variance_kernel`); ``t`` given as a double-double pair."""
        w = np.empty(self.n)
        step_variance_kernel(self.succ, self.probs, self.pstride, self.active, thi, tlo, w)
        return w

    def throws(self) -> Solution:
        """The expected throws ``t = A^-1 1`` from every square, solved once."""
        if self._throws is None:  # (two threads may both solve it: the same answer)
            self._throws = self.solve(self.active.astype(np.float64))
        return self._throws

    def tmax(self) -> float:
        """``max(t)`` for ``t = A^-1 1``: the exact infinity norm of ``A^-1``."""
        return float(self.throws().x.max())


def solver_bytes(n: int, faces: int, k: int) -> int:
    """Peak bytes of a :class:`Solver` of ``n`` squares, ``faces`` faces and ``k`` backward
    targets, with the certified solves of the moments (the successor table aside): per
    square its structure, factors and solve vectors (and, when GMRES is used, a rotated
    copy of the table and the landing tables of its sweeps, with a table of reads
    per move where the landing pattern does not fit); the Woodbury arrays ``W``
    (``n x (k + 1)``, twice while they are formed) or, for GMRES, ``C``'s entries, work
    vectors and the basis vectors of
    :data:`GMRES_STEPS` steps (a basis of up to ``restart + 1`` vectors is reserved, and
    only the vectors used take memory: about 40 on random boards of 10^4-10^7 squares;
    a slow-mixing board may use up to :data:`KRYLOV_BYTES` more)."""
    need = n * SOLVE_BYTES
    if (k <= WOODBURY_MAX or n <= SMALL_SYSTEM) and 8 * n * k <= WOODBURY_BYTES:
        need += 16 * n * (k + 1) + 8 * k * k
    elif k:
        restart = min(RESTART_MAX, max(5, KRYLOV_BYTES // (8 * k) - 1))
        need += 8 * n * faces + 8 * min(restart + 1, GMRES_STEPS) * k + 24 * faces * k + 44 * n
    return need

