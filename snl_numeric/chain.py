"""Expected throws, variance and the distribution of game length.

The board is an absorbing Markov chain with transition matrix
``P = [[Q, r], [0, 1]]`` over the squares ``0 .. size`` (the goal last).
From the states that reach the goal with probability 1 (the *sure* states
``S``), the fundamental matrix ``N = (I - Q_SS)^-1`` gives

- expected throws ``t = N 1``;
- variance ``var = (2 N - I) t - t * t``, i.e. ``2 N t - t - t**2``;
- expected visits from the start ``v = e_start^T N`` (throws made from each
  square; they sum to ``t[start]``).

A square outside ``S`` (one from which the token may wander where the goal
cannot be reached) has expectation and variance ``inf``. ``S`` is found by
breadth-first search backwards from the goal (``CompiledBoard.reach``), then, when
some square cannot reach the goal, from the squares that cannot.

``I - Q_SS`` is factorised once per board and cached on the compiled board by the
core's one solver entry (:mod:`snl_numeric._core.solve`). An ordinary board is solved by
LAPACK/SuperLU with nothing compiled; one factorisation serves every right-hand side (the
mean, the variance, visits, every jump-use row at once), and every answer is certified by
its residual (``(I - Q)^-1 >= 0`` and ``||(I - Q)^-1||_inf = max(t)``), computed in
double-double and refined where needed, with a cancellation-free (GTH) elimination where LU
cannot be certified. A large board is solved by the structured solver: throws mostly move
forward, so ``I - Q`` is block upper triangular (one sweep) corrected by a low-rank term
whose rank is the number of distinct squares that snakes and bounces lead back to, every
pivot a sum of probabilities of moving. Every solve states a certified error bound
(:func:`solver_report`); answers certified only above ``1e-10`` (relative) come with a
``RuntimeWarning`` that states the bound.

The distribution of the number of throws is in :mod:`snl_numeric.distribution`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

from ._core.memory import check_memory
from ._core.solve import (CANCELLATION, TARGET_ERROR, UNIT_ROUNDOFF, WARN_ERROR, Solution,
                          SystemSolver, system_solver)
from ._core.warn import warn_user
from .board import Board, check_model, check_start
from .compile import CompiledBoard
from .uneven import is_uneven, uneven_moments

if TYPE_CHECKING:
    from .markov import Chain

    Model = Board | Chain  # what the questions below take
from .exact import check_exact, exact_moments

__all__ = ["SolveReport", "solver_report", "expected_throws", "expected_throws_all",
           "throws_variance", "throws_variance_all", "finish_probability"]



@dataclass(frozen=True)
class SolveReport:
    """How the expected-throws system ``(I - Q_SS) t = 1`` of a board was solved.

    Attributes
    ----------
    method : str
        ``"empty"`` (nothing to solve). An ordinary board: ``"lu"`` (LAPACK's dense LU),
        ``"splu"`` (SciPy's sparse LU) or ``"gth"`` (GTH elimination, where the LU
        answer could not be certified), each refined in double-double as needed. A
        large board: ``"triangular"`` (no backward move leaves a block of squares: one
        sweep), ``"woodbury"`` (one sweep plus a low-rank correction eliminated
        exactly), ``"gmres"`` (GMRES on the correction, each step one sweep, refined) or
        ``"splu"``.
    unknowns : int
        Squares in the system (those reaching the goal with probability 1).
    backward_targets : int
        Distinct squares that backward moves (between blocks, on a large board) lead
        to: the rank of the structured solver's correction.
    iterations : int
        GMRES steps (one sweep over the board each); 0 for direct methods.
    residual : float
        Normwise relative backward error of ``t``:
        ``||1 - (I - Q) t||_inf / (||I - Q||_inf ||t||_inf + 1)``.
    error_estimate : float
        A certified bound on the relative error of every entry of ``t`` (from a
        residual with a bound on its own rounding, in double-double where needed, and
        ``(I - Q)^-1 >= 0``, or from the cancellation-free elimination's a priori
        bound), the rounding of the dice's row sums and of the answer included.
    condition : float
        ``max(t)``, the exact infinity norm of ``(I - Q_SS)^-1``.
    blocks : int
        Diagonal blocks of two or more squares (tied by short backward moves).
    """

    method: str
    unknowns: int
    backward_targets: int
    iterations: int
    residual: float
    error_estimate: float = 0.0
    condition: float = 0.0
    blocks: int = 0

    def to_frame(self) -> Any:
        """The report as a one-row pandas table (its fields as columns).

        Examples
        --------
        >>> from snl_numeric import boards, solver_report
        >>> solver_report(boards.get("seed-30")).to_frame()["method"].item()
        'lu'
        """
        from .display.frames import record_frame

        return record_frame(self)

    def _repr_html_(self) -> str:
        from .display.html import solve_report_html

        return solve_report_html(self)


def sure_states(cb: CompiledBoard) -> np.ndarray:
    """Boolean mask of squares that reach the goal with probability 1."""
    return cb.sure


def fundamental(cb: CompiledBoard) -> SystemSolver:
    """The solver of ``I - Q`` restricted to the sure squares, built once per board."""
    def build() -> SystemSolver:
        system = sure_states(cb).copy()
        system[cb.size] = False
        return system_solver(cb.succ, cb.probs, system)

    return cb.cache.get("solver", build)


def mean_all(cb: CompiledBoard) -> np.ndarray:
    """Expected throws from every square (``inf`` off ``S``), read-only; warns (every
    call, cached or not) when they are not certified."""
    mean, _, notes = _solved(cb)
    _warn(notes)
    return mean


def _solved(cb: CompiledBoard) -> tuple[np.ndarray, Solution, tuple[str, ...]]:
    return cb.cache.get("mean", lambda: _solve_mean(cb))


def _notes(error: float, what: str, values: np.ndarray | None = None) -> tuple[str, ...]:
    """The warnings an answer certified to ``error`` deserves (none when it is good)."""
    if values is not None and np.isinf(error) and np.any(np.isinf(values)):
        return (f"{what} on this board exceed the largest double (about 1.8e308) on some "
                "squares; they are reported as inf",)
    if error > WARN_ERROR:
        return (f"{what} on this board are certified only to a relative error of "
                f"{error:.1g} (the solver could not refine them further in double precision)",)
    return ()


def _warn(notes: tuple[str, ...]) -> None:
    for note in notes:
        warn_user(note)


def _solve_mean(cb: CompiledBoard) -> tuple[np.ndarray, Solution, tuple[str, ...]]:
    solver = fundamental(cb)
    mean = np.full(cb.n_states, np.inf)
    mean[cb.size] = 0.0
    notes: tuple[str, ...] = ()
    if solver.unknowns == 0:
        sol = Solution(np.zeros(cb.n_states), 0, 0.0, 0.0)
    else:
        sol = solver.throws()
        np.copyto(mean, sol.x, where=solver.active)
        notes = _notes(sol.error, "expected throws",
                       sol.x[solver.active] if np.isinf(sol.error) else None)
    mean.flags.writeable = False
    return mean, sol, notes


def _report(cb: CompiledBoard) -> SolveReport:
    """The :class:`SolveReport` of the expected throws returned (their backward error measured
    again, by a solve whose sharper refinement and bound are not the answers')."""
    solver = fundamental(cb)
    if solver.unknowns == 0:
        return SolveReport("empty", 0, 0, 0, 0.0)
    sol = _solved(cb)[1]
    residual = sol.residual
    if not residual == residual:  # not measured (NaN): its first step is the answer
        residual = solver.solve(solver.active.astype(np.float64), measure=True).residual
    return SolveReport(sol.method or solver.method, solver.unknowns, solver.k, sol.iterations,
                       residual, sol.error, float(sol.x.max()), solver.blocks)


def moments(cb: CompiledBoard) -> tuple[np.ndarray, np.ndarray]:
    """Expected throws and variance from every square (``inf`` off ``S``), read-only;
    warns (every call) when they are not certified."""
    mean = mean_all(cb)
    var, notes = cb.cache.get("moments", lambda: _solve_moments(cb))
    _warn(notes)
    return mean, var


def _solve_moments(cb: CompiledBoard) -> tuple[np.ndarray, tuple[str, ...]]:
    """``var = 2 u - t - t**2`` with ``u = N t`` (``t`` and ``u`` solved more tightly, ``t``
    to double-double if need be, when their errors would leave the variances certified
    above ``TARGET``), except on squares where that would cancel
    (``var`` below ``t**2 / CANCELLATION``): there ``var = N w`` with
    ``w[x] = sum_y Q[x, y] (t[y] - t[x] + 1)**2``, the variance of ``t`` after one throw, a
    non-negative right-hand side, from ``t`` refined to double-double (so the differences
    in ``w`` are exact to about ``2**-100``), each such square's error bounded on its own
    (:func:`_step_solve`). A square whose number of throws is fixed (every throw leaves the
    system, or :func:`_fixed`) has variance 0 exactly."""
    solver = fundamental(cb)
    var = np.full(cb.n_states, np.inf)
    var[cb.size] = 0.0
    act = solver.active
    notes: tuple[str, ...] = ()
    if solver.unknowns:
        mean, sol_t, _ = _solved(cb)
        certain = act & _leaves(cb, act)
        thi, tlo, et = np.where(act, mean, 0.0), None, sol_t.error
        u, eu, t = _var_step(solver, thi, tlo, TARGET)
        v, cancel, keep, error, need = _var_formula(act, certain, u, eu, t, et)
        if error > TARGET:  # t's own error, or u's, is too large for the formula here
            if et > need:  # t solved to what the formula needs, in double (a quarter of
                # the time of double-double), and to double-double only if double cannot
                sol_t = solver.solve(act.astype(np.float64), target=need)
                thi, et = np.where(act, sol_t.x, 0.0), sol_t.error
                if et > need:
                    thi, tlo, et = *solver.refined(act.astype(np.float64)), 0.0
            u, eu, t = _var_step(solver, thi, tlo, need)
            v, cancel, keep, error, need = _var_formula(act, certain, u, eu, t, et)
        with np.errstate(over="ignore", invalid="ignore"):
            v = np.where(certain, 0.0, v)
            if cancel.any():
                if tlo is None:
                    thi, tlo = solver.refined(act.astype(np.float64))
                # (a lower estimate of the variance: the formula less its error)
                low = v - (2.0 * np.abs(u) + t + 2.0 * t * t) * (eu + et)
                x, step_error = _step_solve(cb, solver, cancel, certain, low, thi, tlo, t, et)
                v = np.where(cancel, x, v)
                error = max(error, step_error)
        var[act] = np.maximum(v[act], 0.0)
        notes = _notes(_round_up(error), "variances", var[act])
    var.flags.writeable = False
    return var, notes


#: Variances are certified to this (tighter solves of ``t`` and ``u`` when needed).
TARGET = TARGET_ERROR


def _var_step(solver, thi: np.ndarray, tlo: np.ndarray | None, target: float
              ) -> tuple[np.ndarray, float, np.ndarray]:
    """``(u, error of u, t)``: ``u = N t`` for ``t = thi + tlo``, certified to ``target``."""
    sol = solver.solve(thi if tlo is None else thi + tlo, target=target)
    return sol.x, sol.error, thi if tlo is None else thi + tlo


def _var_formula(act: np.ndarray, certain: np.ndarray, u: np.ndarray, eu: float,
                 t: np.ndarray, et: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """``2 u - t - t**2`` where it does not cancel: ``(var, cancel, keep, error, need)``,
    ``error`` its certified relative error from those of ``u`` and ``t``, ``need`` the error
    of ``u`` and ``t`` that would certify it to ``TARGET``."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # t**2 may overflow
        v = 2.0 * u - t - t * t
        # NaN/inf (overflow) are solved by the step variance too
        cancel = act & ~certain & ~(v * CANCELLATION >= t * t)
        keep = act & ~certain & ~cancel
        gain = (2.0 * np.abs(u) + t + 2.0 * t * t)[keep] / v[keep]  # error of v per error
        worst = float(gain.max(initial=0.0))
        error = (0.0 if not keep.any() else  # (and the formula's three roundings)
                 np.inf if not np.isfinite(eu + et) else worst * (eu + et + 3 * UNIT_ROUNDOFF))
    return v, cancel, keep, float(error), TARGET / (2.0 * worst) if worst else TARGET


def _step_solve(cb: CompiledBoard, solver, cancel: np.ndarray, certain: np.ndarray,
                low: np.ndarray, thi: np.ndarray, tlo: np.ndarray, t: np.ndarray, et: float
                ) -> tuple[np.ndarray, float]:
    """``(x, error)``: ``x = N w`` on the ``cancel`` squares and the largest certified
    relative error of ``x`` on any of them (``t`` with relative error ``et``, ``thi + tlo``
    it in double-double, ``low`` an estimate of the variances from below).

    ``w`` is 0 on a square whose every throw ends the game, which makes the certificate of
    ``A x = w`` normwise: relative to the board's largest variance, up to 1e9 times a
    square's own on lopsided dice. So ``A y = w + eta s`` is solved (``s`` the row sums,
    ``A^-1 s = t``): a positive right-hand side, so ``|y - y*| <= eps y`` on every square
    (:mod:`._core.solve.certify`), and ``x = y - eta t`` is within
    ``eps y + eta t (et + u) + u |x|`` of ``x*``: a few ``eps`` where ``eta t <= x``.
    ``eta`` is half the smallest ``x / t`` of the squares, from ``low`` (or ``x >= w / s``,
    the first throw's share), and from the answer once more where that was far off.
    Squares whose number of throws is fixed (:func:`_fixed`) have ``x = 0`` exactly."""
    x = np.zeros(cb.n_states)
    act = solver.active
    idx = np.flatnonzero(cancel)
    tr = t[idx]
    if (np.abs(tr - np.rint(tr)) <= 1e-6 * tr).any():  # (a fixed number of throws?)
        idx = idx[~_fixed(cb, act, cancel | certain, t)[idx]]
        tr = t[idx]
    if not idx.size:
        return x, 0.0
    w = solver.step_variance(thi, tlo)
    b = w / solver.rowsum
    with np.errstate(divide="ignore", invalid="ignore"):
        guess = np.fmax(low[idx], b[idx]) / tr
    eta = 0.5 * float(guess[guess > 0.0].min(initial=np.inf))
    eta = eta if np.isfinite(eta) else 0.0
    # the right-hand side's own rounding (w's sums of squares, / s, + eta): A^-1 of it is
    # at most this times y
    terms = cb.succ.shape[1] + 8
    rounding = terms * UNIT_ROUNDOFF / (1.0 - terms * UNIT_ROUNDOFF)
    best = (x[idx], np.inf)
    for _ in range(2):
        sol = solver.solve(b + eta * act if eta else b, target=TARGET)
        y = sol.x[idx]
        shift = eta * tr
        xr = np.where(np.isfinite(y), y - shift, y)
        # componentwise where the right-hand side is positive, else relative to max(y)
        scale = y if eta or (b[act] > 0.0).all() else np.abs(sol.x[act]).max()
        e = (sol.error * scale * (1.0 + 2.0 * sol.error) + rounding * y
             + shift * (et + UNIT_ROUNDOFF) * (1.0 + 2.0 * et) + UNIT_ROUNDOFF * np.abs(xr))
        with np.errstate(divide="ignore", invalid="ignore"):
            worst = float(np.where(xr > 0.0, e / xr, np.inf).max())
        error = worst / (1.0 - worst) if worst < 1.0 else np.inf  # (NaN: inf)
        if error < best[1] or not best[1] < np.inf:
            best = (xr, error)
        if error <= TARGET:
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = xr / tr
        again = 0.5 * float(ratio[ratio > 0.0].min(initial=np.inf))
        if not (np.isfinite(again) and (again < eta / 4.0 or not eta)):
            break  # (eta fitted the answer: a second solve would not certify it better)
        eta = again
    x[idx] = best[0]
    return x, best[1]


def _fixed(cb: CompiledBoard, act: np.ndarray, cand: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The squares of ``cand`` whose number of throws is fixed (variance 0 exactly): labelled
    ``round(t)``, those whose every move goes to the goal (label 1) or to another of them
    with a label one less. (Any labels with that property prove it: the throws from a square
    are then its label.)"""
    rows = np.flatnonzero(cand)
    level = np.zeros(len(t))
    level[rows] = np.rint(t[rows])
    rows = rows[np.abs(t[rows] - level[rows]) <= 1e-6 * level[rows]]
    fixed = np.zeros(len(t), dtype=np.bool_)
    fixed[rows] = True
    succ = cb.succ[rows]
    moves = np.broadcast_to(cb.probs, cb.succ.shape)[rows] > 0.0
    inside = act[succ]
    down = np.where(inside, level[succ], 0.0) == level[rows, None] - 1.0
    while rows.size:
        ok = np.all(~moves | (down & (fixed[succ] | ~inside)), axis=1)
        if ok.all():
            break
        fixed[rows[~ok]] = False
        rows, succ, moves, inside, down = rows[ok], succ[ok], moves[ok], inside[ok], down[ok]
    return fixed


def _round_up(error: float) -> float:
    """``error`` rounded up to one significant digit (as a warning states it) when it is
    above ``WARN_ERROR`` (and finite)."""
    if not WARN_ERROR < error < np.inf:
        return error
    unit = 10.0 ** np.floor(np.log10(error))
    return float(np.ceil(error / unit) * unit)


def _leaves(cb: CompiledBoard, act: np.ndarray) -> np.ndarray:
    """Squares every throw of which leaves the system (the goal, or where the goal cannot
    be reached): their number of throws is exactly 1."""
    stays = act[cb.succ] & (cb.probs > 0.0)
    return ~stays.any(axis=1)


def solver_report(board: Model) -> SolveReport:
    """How :func:`expected_throws_all` solved ``(I - Q) t = 1`` for ``board``.

    Solves the system if that has not happened yet (the result is cached).

    Parameters
    ----------
    board : Board or Chain
        A chain counts steps to absorption, per state in its own order.

    Returns
    -------
    SolveReport
        The method (see :class:`SolveReport`), unknowns, backward targets, iterations,
        the relative residual reached and a certified bound on the relative error of
        the expected throws.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> solver_report(Board(10)).method
    'lu'
    >>> from snl_numeric.boards import random_board
    >>> rep = solver_report(random_board(5000, 0.1, rng=1))
    >>> rep.method, rep.residual < 1e-13, rep.error_estimate < 1e-11
    ('gmres', True, True)
    """
    if is_uneven(check_model(board)):  # (too uneven for a table: solved from its rows)
        return SolveReport(*uneven_moments(board).report)  # type: ignore[arg-type]
    cb = board.compiled
    return cb.cache.get("report", lambda: _report(cb))


@overload
def expected_throws_all(board: Model, *, exact: Literal[False] = ...) -> np.ndarray: ...
@overload
def expected_throws_all(board: Model, *, exact: Literal[True]) -> tuple[Fraction | float, ...]: ...
@overload
def expected_throws_all(board: Model, *, exact: bool) -> np.ndarray | tuple[Fraction | float, ...]: ...


def expected_throws_all(board: Model, *, exact: bool = False
                        ) -> np.ndarray | tuple[Fraction | float, ...]:
    """Expected number of throws to finish, from every square.

    Parameters
    ----------
    board : Board or Chain
        A chain counts steps to absorption, per state in its own order.
    exact : bool, default False
        Exact fractions instead of doubles (see ``snl_numeric.exact``: dice whose
        probabilities are rational, boards up to its size limit).

    Returns
    -------
    ndarray of float64, shape (size + 1,), or tuple of Fraction with ``exact``
        ``inf`` (``math.inf`` in the tuple) where the goal is not reached with
        probability 1; 0 at the goal.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> expected_throws_all(Board(1, dice={1: 1.0})).tolist()
    [1.0, 0.0]
    >>> expected_throws_all(Board(2, dice="1-2"), exact=True)
    (Fraction(3, 2), Fraction(1, 1), Fraction(0, 1))
    """
    if _exact(board, exact):
        return exact_moments(board.compiled, variance=False)[0]
    if is_uneven(board):
        return uneven_moments(board).mean.copy()  # type: ignore[arg-type]
    cb = board.compiled
    return cb.in_state_order(mean_all(cb))


@overload
def expected_throws(board: Model, start: int | None = None, *, exact: Literal[False] = ...) -> float: ...
@overload
def expected_throws(board: Model, start: int | None = None, *, exact: Literal[True]) -> Fraction | float: ...
@overload
def expected_throws(board: Model, start: int | None = None, *, exact: bool) -> float | Fraction | float: ...


def expected_throws(board: Model, start: int | None = None, *, exact: bool = False
                    ) -> float | Fraction:
    """Expected number of throws from ``start`` (default: the board's start).

    Parameters
    ----------
    board : Board or Chain
        A chain counts steps to absorption, per state in its own order.
    start : int, optional
        Starting square; the board's own ``start`` by default.
    exact : bool, default False
        The exact fraction instead of a double: for dice whose probabilities are
        rational (``"d6"``, ``"2d6"``, the default die, ``fractions.Fraction`` values;
        see ``snl_numeric.exact`` for how a die's doubles are read) and boards up to
        that module's size limit (``ValueError`` beyond, with the reason).

    Returns
    -------
    float, or Fraction with ``exact``
        ``math.inf`` when the goal is not reached with probability 1.

    Examples
    --------
    >>> from snl_numeric import Board, boards
    >>> round(expected_throws(Board(3, dice={1: 0.5, 2: 0.5})), 6)
    2.25
    >>> t = expected_throws(boards.get("milton-bradley"), exact=True)
    >>> t.denominator
    5757472998140039232950575874628786131130999406013041613400
    >>> round(float(t), 6)
    39.225122
    """
    start = check_start(check_model(board), start)
    if _exact(board, exact):
        return exact_moments(board.compiled, variance=False)[0][start]
    return float(mean_all(board.compiled)[start])


@overload
def throws_variance_all(board: Model, *, exact: Literal[False] = ...) -> np.ndarray: ...
@overload
def throws_variance_all(board: Model, *, exact: Literal[True]) -> tuple[Fraction | float, ...]: ...
@overload
def throws_variance_all(board: Model, *, exact: bool) -> np.ndarray | tuple[Fraction | float, ...]: ...


def throws_variance_all(board: Model, *, exact: bool = False
                        ) -> np.ndarray | tuple[Fraction | float, ...]:
    """Variance of the number of throws, from every square.

    Parameters
    ----------
    board : Board or Chain
        A chain counts steps to absorption, per state in its own order.
    exact : bool, default False
        Exact fractions instead of doubles (as :func:`expected_throws_all`).

    Returns
    -------
    ndarray of float64, shape (size + 1,), or tuple of Fraction with ``exact``
        ``inf`` where the goal is not reached with probability 1; 0 at the goal.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> throws_variance_all(Board(2, dice={1: 0.5, 2: 0.5})).tolist()
    [0.25, 0.0, 0.0]
    """
    if _exact(board, exact):
        return exact_moments(board.compiled)[1]  # type: ignore[return-value]
    if is_uneven(board):
        return uneven_moments(board).variance.copy()  # type: ignore[arg-type]
    cb = board.compiled
    return cb.in_state_order(moments(cb)[1])


@overload
def throws_variance(board: Model, start: int | None = None, *, exact: Literal[False] = ...) -> float: ...
@overload
def throws_variance(board: Model, start: int | None = None, *, exact: Literal[True]) -> Fraction | float: ...
@overload
def throws_variance(board: Model, start: int | None = None, *, exact: bool) -> float | Fraction | float: ...


def throws_variance(board: Model, start: int | None = None, *, exact: bool = False
                    ) -> float | Fraction:
    """Variance of the number of throws from ``start``.

    Parameters
    ----------
    board : Board or Chain
        A chain counts steps to absorption, per state in its own order.
    start : int, optional
        Starting square; the board's own ``start`` by default.
    exact : bool, default False
        The exact fraction instead of a double (as :func:`expected_throws`).

    Returns
    -------
    float, or Fraction with ``exact``
        ``math.inf`` when the goal is not reached with probability 1.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> round(throws_variance(Board(3, dice={1: 0.5, 2: 0.5})), 6)
    0.1875
    >>> throws_variance(Board(3, dice={1: 0.5, 2: 0.5}), exact=True)
    Fraction(3, 16)
    """
    start = check_start(check_model(board), start)
    if _exact(board, exact):
        return exact_moments(board.compiled)[1][start]  # type: ignore[index]
    return float(moments(board.compiled)[1][start])


def _exact(board: Model, exact: object) -> bool:
    """Whether ``exact`` answers are asked for (checked), ``board`` checked to be a board or
    a chain; a chain has no exact answers (its rows are doubles, not a die's fractions)."""
    model = check_model(board)
    if not check_exact(exact):
        return False
    if not isinstance(model, Board):
        raise ValueError("exact=True is for boards (rational dice); a Chain's probabilities "
                         "are doubles: leave exact=False")
    return True


def visits_and_jump_use(cb: CompiledBoard, start: int, max_solves: int | None = None
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
    """``(visits, uses, prob)``: the expected throws made from each square starting on
    ``start``, the expected uses of each jump and the probability that it is used at
    least once (None when ``start`` is off S).

    Removing the transitions that fire jump ``j`` changes ``Q`` by a rank-one term (they
    all end on the same square ``d``), so by Sherman-Morrison ``P(j used) = z[start] /
    (1 + z[d])`` with ``z = N a`` and ``a[x]`` the chance that a throw from ``x`` fires
    ``j``; ``z[start]`` is the expected number of uses. The visits are row ``start`` of
    ``N`` and ``z[d]`` needs row ``d``: one transposed solve, a column each, for
    ``start`` and every distinct resting square ``d``. When there are more of those than
    ``max_solves``, the probabilities are skipped (``prob`` None) and only the visits
    solved.
    """
    solver = fundamental(cb)
    n_jumps = len(cb.jump_src)
    if start == cb.size:  # no throw, no jump
        return (np.zeros(cb.n_states), np.zeros(n_jumps),
                None if max_solves is not None and max_solves < 0 else np.zeros(n_jumps))
    if not solver.active[start]:
        return None
    rows, jumps, data = cb.fire_entries
    rests = cb.rests
    seen = np.zeros(cb.n_states, dtype=np.bool_)  # (np.unique, for small integers)
    seen[rests] = True
    seen[cb.size] = False
    targets = np.flatnonzero(seen)
    skip = max_solves is not None and len(targets) > max_solves
    if skip:
        targets = targets[:0]
    check_memory(16 * cb.n_states * (1 + len(targets)),
                 f"expected visits and jump probabilities ({1 + len(targets):,} rows of the "
                 f"fundamental matrix over {cb.n_states:,} squares)")
    e = np.zeros((cb.n_states, 1 + len(targets)))  # rows of N: one solve, a column each
    e[start, 0] = 1.0
    e[targets, np.arange(1, 1 + len(targets))] = 1.0
    sol = solver.solve(e, trans=True)
    _warn(_notes(sol.error, "expected visits" if skip else
                 "expected visits and jump-use probabilities"))
    visits = np.maximum(sol.x[:, 0], 0.0)
    if not solver.structural_zeros:  # LU leaves roundings where no visit can be
        visits[~cb.reachable_from(start)] = 0.0
    uses = np.bincount(jumps, weights=data * visits[rows], minlength=n_jumps)
    if skip:
        return visits, uses, None
    # z[j]: the expected uses of jump j from where it rests, sum_x N[rest, x] a_j[x], off
    # the rest's column (a rest on the goal: none, and the jump is used at most once)
    column = np.zeros(cb.n_states, dtype=np.intp)
    column[targets] = np.arange(1, 1 + len(targets))
    z = np.bincount(jumps, weights=data * np.maximum(sol.x[rows, column[rests][jumps]], 0.0),
                    minlength=n_jumps)
    prob = np.where(rests == cb.size, uses, uses / (1.0 + z))
    return visits, uses, np.clip(prob, 0.0, 1.0)


def finish_system(cb: CompiledBoard) -> tuple[SystemSolver, Solution]:
    """``(solver, h)``: the solver over the squares that can finish, ``h`` their chances."""
    live = cb.reach[0] > 0
    solver = system_solver(cb.succ, cb.probs, live)
    goal = ((cb.succ == cb.size) * cb.probs).sum(axis=1) / solver.rowsum  # rows sum to 1
    return solver, solver.solve(np.where(live, goal, 0.0))


def finish_probability(board: Model, start: int | None = None) -> float:
    """Probability that the goal is ever reached from ``start``.

    Parameters
    ----------
    board : Board or Chain
        A chain counts steps to absorption, per state in its own order.
    start : int, optional
        Starting square; the board's own ``start`` by default.

    Returns
    -------
    float
        1.0 on squares that finish surely; else one solve over those that can.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> finish_probability(Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5}))
    0.5
    """
    start = check_start(check_model(board), start)
    cb = board.compiled
    if sure_states(cb)[start]:
        return 1.0
    if not cb.reach[0][start] > 0:
        return 0.0
    h = finish_system(cb)[1]
    _warn(_notes(h.error, "finish probabilities"))
    return float(np.clip(h.x[start], 0.0, 1.0))
