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
two breadth-first passes over the reversed adjacency: squares that can reach
the goal, then squares that can reach a square that cannot.

``I - Q_SS`` is factorised once per board and cached on the compiled board:
LAPACK LU up to ``DENSE_MAX`` unknowns; above, a structured solver that
scales linearly with the board (:mod:`snl_numeric._large`): throws mostly move
forward, so ``I - Q = (I - U) - L`` with ``U`` upper triangular (one back
substitution over the successor table) and ``L`` of rank at most the number
``k`` of distinct backward targets (snakes, bounces). ``k = 0``: the
triangular solve is exact; small ``k``: a Woodbury correction, exact; else
GMRES on the ``k x k`` capacitance system, preconditioned by the triangular
part, refined on the true residual. :func:`solver_report` tells which ran
and the residual it reached. The distribution of the number of throws ``T``
comes from pushing the probability mass through the successor table, one
throw at a time, in a Numba kernel that only visits the band of squares
holding mass, until the mass that can still finish is below ``tail``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._core.solve import Fundamental, factorize, residual_kernel
from ._core.table import push_kernel
from ._core.validation import DEFAULT_MAX_THROWS, DEFAULT_TAIL, check_tail
from .board import Board, check_board, check_start
from .compile import CompiledBoard

__all__ = [
    "SolveReport",
    "solver_report",
    "expected_throws",
    "expected_throws_all",
    "throws_variance",
    "throws_variance_all",
    "length_distribution",
    "finish_probability",
]



def _row_probs(cb: CompiledBoard) -> np.ndarray:
    """The dice's probabilities as a read-only ``(squares, faces)`` view."""
    return np.broadcast_to(cb.probs, cb.succ.shape)


def _factorize(cb: CompiledBoard, states: np.ndarray) -> Fundamental:
    return factorize(cb.succ, _row_probs(cb), states)


@dataclass(frozen=True)
class SolveReport:
    """How the expected-throws system ``(I - Q_SS) t = 1`` of a board was solved.

    Attributes
    ----------
    method : str
        ``"empty"`` (nothing to solve), ``"dense"`` (LAPACK LU, at most
        ``DENSE_MAX`` unknowns), ``"triangular"`` (no backward throw: one back
        substitution), ``"woodbury"`` (few backward targets: back substitution
        plus a low-rank correction) or ``"gmres"`` (GMRES on the capacitance
        system, preconditioned by the triangular part, with refinement) or
        ``"splu"`` (SciPy's sparse LU, when GMRES converged too slowly).
    unknowns : int
        Squares in the system (those reaching the goal with probability 1).
    backward_targets : int
        Distinct squares that some throw moves back to (the rank of ``L``);
        0 for the dense path, which does not look at the structure.
    iterations : int
        GMRES steps (one sweep over the board each); 0 for direct methods.
    residual : float
        Normwise relative backward error of ``t``:
        ``||1 - (I - Q) t||_inf / (||I - Q||_inf ||t||_inf + 1)``.
    """

    method: str
    unknowns: int
    backward_targets: int
    iterations: int
    residual: float

    def to_frame(self) -> Any:
        """The report as a one-row pandas table (its fields as columns).

        Examples
        --------
        >>> from snl_numeric import boards, solver_report
        >>> solver_report(boards.get("seed-30")).to_frame()["method"].item()
        'dense'
        """
        from .display.frames import record_frame

        return record_frame(self)

    def _repr_html_(self) -> str:
        from .display.html import solve_report_html

        return solve_report_html(self)


def sure_states(cb: CompiledBoard) -> np.ndarray:
    """Boolean mask of squares that reach the goal with probability 1."""
    return cb.reach[1]


def fundamental(cb: CompiledBoard) -> Fundamental:
    """``I - Q`` restricted to the sure squares, factorised once per board."""
    return cb.cache.get("fundamental", lambda: _factorize(
        cb, np.flatnonzero(sure_states(cb)[: cb.size])))


def mean_all(cb: CompiledBoard) -> np.ndarray:
    """Expected throws from every square (``inf`` off ``S``), read-only."""
    return _solved(cb)[0]


def _solved(cb: CompiledBoard) -> tuple[np.ndarray, SolveReport]:
    return cb.cache.get("mean", lambda: _solve_mean(cb))


def _solve_mean(cb: CompiledBoard) -> tuple[np.ndarray, SolveReport]:
    fund = fundamental(cb)
    m = len(fund.states)
    mean = np.full(cb.n_states, np.inf)
    mean[cb.size] = 0.0
    if fund.method == "structured":
        solver = fund.factor
        rhs = np.zeros(cb.n_states)
        rhs[fund.states] = 1.0
        x, iterations, residual = solver.solve(rhs)
        mean[fund.states] = x[fund.states]
        report = SolveReport(solver.method, m, solver.k, iterations, residual)
    else:
        mean[fund.states] = fund.solve(np.ones(m))
        residual = 0.0
        if m:
            active = np.zeros(cb.n_states, dtype=bool)
            active[fund.states] = True
            full = np.where(active, mean, 0.0)
            rn, xn, bn = residual_kernel(cb.succ, _row_probs(cb), active, active * 1.0, full,
                                         False, np.empty(cb.n_states))
            residual = rn / (2.0 * xn + bn)
        report = SolveReport(fund.method, m, 0, 0, residual)
    mean.flags.writeable = False
    return mean, report


def moments(cb: CompiledBoard) -> tuple[np.ndarray, np.ndarray]:
    """Expected throws and variance from every square (``inf`` off ``S``), read-only."""
    return cb.cache.get("moments", lambda: _solve_moments(cb))


def _solve_moments(cb: CompiledBoard) -> tuple[np.ndarray, np.ndarray]:
    fund = fundamental(cb)
    mean = mean_all(cb)
    t_s = mean[fund.states]
    u_s = fund.solve(t_s)
    var = np.full(cb.n_states, np.inf)
    var[fund.states] = np.maximum(2.0 * u_s - t_s - t_s * t_s, 0.0)
    var[cb.size] = 0.0
    var.flags.writeable = False
    return mean, var


def solver_report(board: Board) -> SolveReport:
    """How :func:`expected_throws_all` solved ``(I - Q) t = 1`` for ``board``.

    Solves the system if that has not happened yet (the result is cached).

    Parameters
    ----------
    board : Board

    Returns
    -------
    SolveReport
        The method (``dense``, ``triangular``, ``woodbury``, ``gmres`` or
        ``splu``), unknowns, backward targets, iterations and the relative
        residual reached.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> solver_report(Board(10)).method
    'dense'
    >>> from snl_numeric.boards import random_board
    >>> rep = solver_report(random_board(5000, 0.1, rng=1))
    >>> rep.method, rep.residual < 1e-13
    ('gmres', True)
    """
    return _solved(check_board(board).compiled)[1]


def expected_throws_all(board: Board) -> np.ndarray:
    """Expected number of throws to finish, from every square.

    Parameters
    ----------
    board : Board

    Returns
    -------
    ndarray of float64, shape (size + 1,)
        ``inf`` where the goal is not reached with probability 1; 0 at the goal.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> expected_throws_all(Board(1, dice={1: 1.0})).tolist()
    [1.0, 0.0]
    """
    return mean_all(check_board(board).compiled).copy()


def expected_throws(board: Board, start: int | None = None) -> float:
    """Expected number of throws from ``start`` (default: the board's start).

    Parameters
    ----------
    board : Board
    start : int, optional
        Starting square; the board's own ``start`` by default.

    Returns
    -------
    float
        ``math.inf`` when the goal is not reached with probability 1.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> round(expected_throws(Board(3, dice={1: 0.5, 2: 0.5})), 6)
    2.25
    """
    start = check_start(check_board(board), start)
    return float(mean_all(board.compiled)[start])


def throws_variance_all(board: Board) -> np.ndarray:
    """Variance of the number of throws, from every square.

    Parameters
    ----------
    board : Board

    Returns
    -------
    ndarray of float64, shape (size + 1,)
        ``inf`` where the goal is not reached with probability 1; 0 at the goal.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> throws_variance_all(Board(2, dice={1: 0.5, 2: 0.5})).tolist()
    [0.25, 0.0, 0.0]
    """
    return moments(check_board(board).compiled)[1].copy()


def throws_variance(board: Board, start: int | None = None) -> float:
    """Variance of the number of throws from ``start``.

    Parameters
    ----------
    board : Board
    start : int, optional
        Starting square; the board's own ``start`` by default.

    Returns
    -------
    float
        ``math.inf`` when the goal is not reached with probability 1.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> round(throws_variance(Board(3, dice={1: 0.5, 2: 0.5})), 6)
    0.1875
    """
    start = check_start(check_board(board), start)
    return float(moments(board.compiled)[1][start])


def visit_counts(cb: CompiledBoard, start: int) -> np.ndarray | None:
    """Expected throws made from each square, starting on ``start`` (None off S)."""
    fund = fundamental(cb)
    if start == cb.size:
        return np.zeros(cb.n_states)
    if fund.pos[start] < 0:
        return None
    e = np.zeros(len(fund.states))
    e[fund.pos[start]] = 1.0
    out = np.zeros(cb.n_states)
    out[fund.states] = fund.solve_t(e)
    return out


def jump_use(cb: CompiledBoard, visits: np.ndarray, max_solves: int | None = None
              ) -> tuple[np.ndarray, np.ndarray | None]:
    """Expected uses of each jump and the probability it is used at least once.

    Removing the transitions that fire jump ``j`` changes ``Q`` by a rank-one
    term (they all end on the same square ``d``), so by Sherman-Morrison
    ``P(j used) = z[start] / (1 + z[d])`` with ``z = N a`` and ``a[x]`` the
    chance that a throw from ``x`` fires ``j``; ``z[start]`` is the expected
    number of uses. One transposed solve per distinct resting square ``d``:
    when that is more than ``max_solves``, the probabilities are skipped
    (``None``).
    """
    fire = cb.fire_matrix
    uses = fire.T @ visits
    prob = np.zeros(len(uses))
    rests = np.array([cb.rest_of(j) for j in range(len(uses))], dtype=np.intp)
    need = np.flatnonzero((uses > 0) & (rests != cb.size))
    targets, inverse = np.unique(rests[need], return_inverse=True)
    if max_solves is not None and len(targets) > max_solves:
        return uses, None
    if len(need):
        fund = fundamental(cb)
        rows_n = np.zeros((cb.n_states, len(targets)))  # rows of N, one solve per target
        e = np.zeros(len(fund.states))
        for i, t in enumerate(targets):
            e[fund.pos[t]] = 1.0
            rows_n[fund.states, i] = fund.solve_t(e)
            e[fund.pos[t]] = 0.0
        part = fire[:, need].tocoo()
        z_rest = np.bincount(part.col, weights=part.data * rows_n[part.row, inverse[part.col]],
                             minlength=len(need))
        prob[need] = uses[need] / (1.0 + z_rest)
    done = (uses > 0) & (rests == cb.size)
    prob[done] = uses[done]
    return uses, prob


def length_distribution(
    board: Board,
    start: int | None = None,
    *,
    tail: float = DEFAULT_TAIL,
    max_throws: int = DEFAULT_MAX_THROWS,
) -> np.ndarray:
    """Distribution of the number of throws to finish.

    Parameters
    ----------
    board : Board
    start : int, optional
        Starting square; the board's start by default.
    tail : float, default 1e-12
        The probability of the games longer than the returned pmf, among
        those that can still finish, is below ``tail``.
    max_throws : int, default 10_000_000
        Give up (``ValueError``) if ``tail`` is not reached by then.

    Returns
    -------
    pmf : ndarray of float64
        ``pmf[k] = P(T = k)``. When the goal is not reached with probability 1
        the pmf sums to the probability of finishing.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> length_distribution(Board(3, dice={1: 0.5, 2: 0.5})).tolist()
    [0.0, 0.0, 0.75, 0.25]
    """
    start = check_start(check_board(board), start)
    check_tail(tail, max_throws)
    cb = board.compiled
    if start == cb.size:
        return np.array([1.0])
    live = cb.reach[0] > 0
    if not live[start]:
        return np.array([0.0])
    mass = np.zeros(cb.n_states)
    mass[start] = 1.0
    chunk = 64
    pmf = np.zeros(min(1 + chunk, max_throws + 1))
    k = 1
    band = np.array([start, start], dtype=np.int64)
    while True:
        k = push_kernel(cb.succ, cb.probs, mass, live, cb.size, float(tail), pmf, k, band)
        if k < 0:
            return pmf[: -k].copy()
        if k > max_throws:  # pmf[0 .. max_throws] filled, tail still too heavy
            raise ValueError(
                f"the tail did not fall below {tail} within max_throws={max_throws} throws "
                f"(remaining mass {mass[live].sum():.3g}); raise max_throws or tail"
            )
        chunk = min(chunk * 2, 1 << 20, max_throws + 1 - len(pmf))
        pmf = np.concatenate([pmf, np.zeros(chunk)])


def finish_probability(board: Board, start: int | None = None) -> float:
    """Probability that the goal is ever reached from ``start``.

    Parameters
    ----------
    board : Board
    start : int, optional
        Starting square; the board's own ``start`` by default.

    Returns
    -------
    float
        1.0 on squares that finish surely; otherwise the absorption
        probability, from one sparse solve over the squares that can finish.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> finish_probability(Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5}))
    0.5
    """
    start = check_start(check_board(board), start)
    cb = board.compiled
    if sure_states(cb)[start]:
        return 1.0
    reach = np.flatnonzero(cb.reach[0][: cb.size] >= 0)
    if start not in set(reach.tolist()):
        return 0.0
    fund = _factorize(cb, reach)
    r = cb.matrix[reach][:, [cb.size]].toarray().ravel()
    h = fund.solve(r)
    return float(min(max(h[fund.pos[start]], 0.0), 1.0))
