"""How sensitive is the game? Derivatives of its answers.

The answers differentiated are the expected throws ``E = t[s]`` and the variance
``V = 2 u[s] - t[s] - t[s]**2`` from the start ``s`` (``t = N 1``, ``u = N t``,
``N = (I - Q)^-1``), and the chance ``W`` that the first of two players wins.

**With respect to the transitions** (Caswell 2013, the sensitivity of the moments of an
absorbing chain): with ``v = e_s^T N`` the expected visits (throws made from each square)
and ``w = N^T v`` (row ``s`` of ``N**2``),

.. math::

    \\frac{\\partial E}{\\partial Q_{ij}} = v_i t_j, \\qquad
    \\frac{\\partial V}{\\partial Q_{ij}} = v_i (2 u_j - t_j - 2 t_s t_j) + 2 w_i t_j,

each entry of ``Q`` treated as free (a move into the goal has derivative 0: ``t`` is 0
there). Two solves with the board's factorisation (``t``, ``v``) give the mean's, four
(``t``, ``u``, ``v``, ``w``) the variance's; every solve is certified, so is each entry.

For the win probability ``W = sum_m p_m P(T >= m)`` (both players' ``T`` from the same
chain), ``dW = sum_m c_m dp_m`` with ``c_m = p_m + P(T = inf)``, and
``dp_m / dP_ij = sum_{k < m} pi_k[i] h_{m-1-k}[j]`` (``pi_k`` the mass on each square after
``k`` throws, ``h_l[j]`` the chance of finishing exactly ``l`` throws after resting on
``j``); so ``dW / dP_ij = sum_k pi_k[i] lambda_k[j]`` with the backward recursion
``lambda_k = c_{k+1} e_goal + P' lambda_{k+1}`` (``P'``: the goal's row zeroed): one push
forward, one backward, exact up to the distribution's tail tolerance.

**With respect to the dice**: a face's probability ``p_f`` enters ``Q_{x, succ(x, f)}``
on every square, so ``dA / dp_f = sum_x dA / dQ_{x, succ(x, f)}`` (faces treated as
free; the change along a direction ``d`` that keeps the sum 1 is ``gradient @ d``).

**With respect to the jumps**: the exact change of the answer when one jump's source or
destination moves by ``-k .. k`` squares, from a fresh (certified) solve of each moved
board.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._core.memory import check_memory
from ._core.solve import UNIT_ROUNDOFF
from ._core.validation import DEFAULT_MAX_THROWS, DEFAULT_TAIL, check_tail
from .board import Board, check_board, check_start
from .chain import expected_throws, fundamental, mean_all, solver_report, throws_variance
from .compile import CompiledBoard
from .players import win_probabilities

__all__ = ["Sensitivity", "sensitivity"]

OF = ("mean", "variance", "win")
WRT = ("dice", "transitions", "jumps")


@dataclass(frozen=True, eq=False)
class Sensitivity:
    """Derivatives of one answer of a board (see :func:`sensitivity`).

    Attributes
    ----------
    of : str
        The answer: ``"mean"`` (expected throws), ``"variance"`` or ``"win"`` (the chance
        that the first of two players wins).
    wrt : str
        ``"dice"``, ``"transitions"`` or ``"jumps"``.
    value : float
        The answer itself.
    start : int
        The start square.
    gradient : ndarray or scipy.sparse.csr_array
        ``wrt="dice"``: ``(faces,)``, the partial derivative with respect to each face's
        probability. ``wrt="transitions"``: the derivative with respect to each entry of
        the transition matrix, a sparse array of its shape and state order (that of
        :func:`~snl_numeric.transition_matrix`). ``wrt="jumps"``: ``(jumps, 2, 2 k + 1)``,
        the exact change of the answer when jump ``j``'s source (``[j, 0]``) or
        destination (``[j, 1]``) moves by ``shifts`` squares; NaN where the moved board is
        not allowed (off the board, onto another jump, a cycle under ``chain=True``).
    faces : ndarray or None
        The dice's faces (``wrt="dice"``).
    elasticity : scipy.sparse.csr_array or None
        ``wrt="transitions"``: ``P_ij / value * gradient_ij``, the relative change of the
        answer per relative change of each transition.
    by_square : ndarray or None
        ``wrt="transitions"``: the elasticity summed over the moves out of each square
        (how much the answer hangs on the throws made from it), shape ``(size + 1,)``.
    jumps : ndarray or None
        ``wrt="jumps"``: ``(jumps, 2)`` sources and destinations.
    shifts : ndarray or None
        ``wrt="jumps"``: ``-k .. k``.
    board : Board
        The board differentiated.
    error_estimate : float
        For ``of="mean"`` and ``"variance"`` with ``wrt="dice"`` or ``"transitions"``: a
        certified bound on each entry's error relative to the sum of the magnitudes of its
        terms (for the mean, every term is non-negative: the entry itself). For
        ``of="win"``: the tail tolerance of the distributions (an estimate, not a bound).
        For ``wrt="jumps"``: the largest certified relative error of the moved boards'
        expected throws for ``of="mean"``, NaN otherwise (those answers warn when they
        are not certified to ``1e-10``).
    """

    of: str
    wrt: str
    value: float
    start: int
    gradient: Any = field(repr=False)
    faces: np.ndarray | None = field(repr=False, default=None)
    elasticity: Any = field(repr=False, default=None)
    by_square: np.ndarray | None = field(repr=False, default=None)
    jumps: np.ndarray | None = field(repr=False, default=None)
    shifts: np.ndarray | None = field(repr=False, default=None)
    error_estimate: float = 0.0
    board: Board | None = field(repr=False, default=None)


def _choice(value: Any, name: str, options: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {', '.join(map(repr, options))}, got "
                        f"{type(value).__name__}")
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}, got "
                         f"{value!r}")
    return value


def sensitivity(board: Board, *, of: str = "mean", wrt: str = "dice",
                start: int | None = None, shift: int = 3, tail: float = DEFAULT_TAIL,
                max_throws: int = DEFAULT_MAX_THROWS) -> Sensitivity:
    """Derivatives of the expected throws, the variance or the win chance of a board.

    Parameters
    ----------
    board : Board
    of : {"mean", "variance", "win"}
        The answer: expected throws, their variance, or the chance that the first of two
        players (both on ``start``) wins.
    wrt : {"dice", "transitions", "jumps"}
        With respect to each face's probability, each entry of the transition matrix, or
        moves of each jump's ends by ``-shift .. shift`` squares.
    start : int, optional
        The start square; the board's own by default.
    shift : int, default 3
        How far each jump's ends are moved (``wrt="jumps"``).
    tail, max_throws : float, int
        The distribution's tail tolerance and most throws (``of="win"``; see
        :func:`~snl_numeric.win_probabilities`).

    Returns
    -------
    Sensitivity

    Raises
    ------
    ValueError
        For ``of="mean"`` or ``"variance"`` when the goal may never be reached from
        ``start`` (the answer is infinite).

    Examples
    --------
    The Milton Bradley game shortens by about 25 throws per unit of probability moved
    from the fair die toward a six (the direction ``e_6 - 1/6`` keeps the sum 1):

    >>> import numpy as np
    >>> from snl_numeric import boards, sensitivity
    >>> s = sensitivity(boards.get("milton-bradley"), of="mean", wrt="dice")
    >>> toward_six = np.eye(6)[5] - 1 / 6
    >>> round(float(s.gradient @ toward_six), 2)
    -24.95
    >>> t = sensitivity(boards.get("milton-bradley"), wrt="transitions")
    >>> t.gradient.shape, int(t.by_square.argmax())
    ((101, 101), 0)
    """
    board = check_board(board)
    start = check_start(board, start)
    of = _choice(of, "of", OF)
    wrt = _choice(wrt, "wrt", WRT)
    if wrt == "jumps":
        if isinstance(shift, bool) or not isinstance(shift, numbers.Integral) or shift < 1:
            raise ValueError(f"shift must be a positive integer, got {shift!r}")
        return _jump_moves(board, of, start, int(shift), tail, max_throws)
    cb = board.compiled
    if of == "win":
        tail = check_tail(tail, max_throws)
        value = float(win_probabilities(board, 2, starts=[start, start], tail=tail,
                                        max_throws=max_throws)[0])
        entry, error = _win_terms(cb, start, tail, int(max_throws)), float(tail)
    else:
        if not np.isfinite(mean_all(cb)[start]):
            raise ValueError(f"the goal may never be reached from square {start}: the "
                             f"{'expected throws' if of == 'mean' else 'variance'} are "
                             "infinite and have no derivative")
        value, entry, error = _moment_terms(cb, start, of == "variance")
    if wrt == "transitions":
        mat = cb.matrix
        rows = np.repeat(np.arange(cb.n_states), np.diff(mat.indptr))
        data = entry(rows, mat.indices)
        grad = sp.csr_array((data, mat.indices.copy(), mat.indptr.copy()), shape=mat.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            el = mat.data * data / value
        elastic = sp.csr_array((el, mat.indices.copy(), mat.indptr.copy()), shape=mat.shape)
        by_square = np.bincount(rows, weights=el, minlength=cb.n_states)
        return Sensitivity(of, wrt, value, start, grad, elasticity=elastic,
                           by_square=by_square, error_estimate=error, board=board)
    n, faces = cb.succ.shape
    rows = np.repeat(np.arange(n), faces)
    per = entry(rows, cb.succ.ravel()).reshape(n, faces)
    return Sensitivity(of, wrt, value, start, per.sum(axis=0), faces=cb.faces.copy(),
                       error_estimate=error, board=board)


def _moment_terms(cb: CompiledBoard, start: int, variance: bool):
    """``(value, entry(i, j), error)`` for the mean or the variance (module docstring)."""
    solver = fundamental(cb)
    act = solver.active
    t = np.where(act, mean_all(cb), 0.0)
    e = np.zeros(cb.n_states)
    e[start] = 1.0
    if solver.unknowns == 0 or not act[start]:  # on the goal: nothing moves the answer
        return 0.0, lambda i, j: np.zeros(len(i)), 0.0
    sol_t = solver.throws()
    sol_v = solver.solve(e, trans=True)
    v = np.where(act, np.maximum(sol_v.x, 0.0), 0.0)
    ts = float(t[start])
    if not variance:
        error = sol_t.error + sol_v.error + 2 * UNIT_ROUNDOFF
        return ts, lambda i, j: v[i] * t[j], error
    sol_u = solver.solve(t)
    u = np.where(act, sol_u.x, 0.0)
    sol_w = solver.solve(v, trans=True)
    w = np.where(act, np.maximum(sol_w.x, 0.0), 0.0)
    value = float(2 * u[start] - ts - ts * ts)
    error = sol_t.error * 3 + sol_u.error + sol_v.error + sol_w.error + 8 * UNIT_ROUNDOFF
    return value, lambda i, j: v[i] * (2 * u[j] - t[j] - 2 * ts * t[j]) + 2 * w[i] * t[j], error


def _win_terms(cb: CompiledBoard, start: int, tail: float, max_throws: int):
    """``entry(i, j)`` of the first player's win chance (module docstring): the masses
    ``pi_k`` pushed forward and ``lambda_k`` backward, over the squares that can finish."""
    n = cb.n_states
    goal = cb.size
    if start == goal:
        return lambda i, j: np.zeros(len(i))
    live = cb.reach[0] > 0
    if not live[start]:
        return lambda i, j: np.zeros(len(i))
    mat = cb.matrix
    keep = np.flatnonzero(live)
    back = sp.csr_matrix(mat[keep][:, keep])  # P' over the squares that can finish
    forward = sp.csr_matrix(back.T)  # mass on them, one throw on
    to_goal = np.asarray(mat[keep][:, [goal]].todense()).ravel()
    m = len(keep)
    pi = np.zeros((64, m))  # pi[k]: the mass after k throws (rows grown by doubling)
    pi[0, np.searchsorted(keep, start)] = 1.0
    pmf = [0.0]
    k = 0
    while True:
        pmf.append(float(to_goal @ pi[k]))
        mass = forward @ pi[k]
        k += 1
        if mass.sum() < tail or k >= max_throws:
            break
        if k == len(pi):
            check_memory(32.0 * m * k, "the win probability's derivative "
                         f"({2 * k:,} throws x {m:,} squares, kept twice)")
            pi = np.concatenate([pi, np.zeros_like(pi)])
        pi[k] = mass
    pmf_arr = np.array(pmf)  # pmf[m] = P(T = m), m = 0 .. k
    never = max(0.0, 1.0 - float(pmf_arr.sum()) - float(mass.sum()))
    c = pmf_arr + never
    place = np.full(n, m)  # each square's place in pi, m (a zero) off the live squares
    place[keep] = np.arange(m)
    pi = np.concatenate([pi[:k], np.zeros((k, 1))], axis=1)  # (k, m + 1): the zero last

    def entry(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """``sum_k pi_k[i] lambda_k[j]``, ``lambda_k`` built backward on the way
        (``lambda_k = c_{k+1} e_goal + P' lambda_{k+1}``; 0 where the goal is out of
        reach)."""
        out = np.zeros(len(i))
        rows = place[i]
        lam = np.zeros(n)
        nxt, nxt_goal = np.zeros(m), 0.0
        for step in range(k - 1, -1, -1):
            nxt = back @ nxt + to_goal * nxt_goal
            nxt_goal = float(c[step + 1])
            lam[keep] = nxt
            lam[goal] = nxt_goal
            out += pi[step, rows] * lam[j]
        return out

    return entry


def _jump_moves(board: Board, of: str, start: int, shift: int, tail: float,
                max_throws: int) -> Sensitivity:
    """Each jump's ends moved by ``-shift .. shift``: fresh solves of the moved boards."""
    def answer(b: Board) -> float:
        if of == "mean":
            return float(expected_throws(b, start))
        if of == "variance":
            return float(throws_variance(b, start))
        return float(win_probabilities(b, 2, starts=[start, start], tail=tail,
                                       max_throws=max_throws)[0])

    value = answer(board)
    src, dst = board.jump_arrays
    shifts = np.arange(-shift, shift + 1)
    out = np.full((len(src), 2, len(shifts)), np.nan)
    worst = solver_report(board).error_estimate if of == "mean" else np.nan
    jumps = dict(board.jumps)
    for j, (a, b) in enumerate(zip(src.tolist(), dst.tolist(), strict=True)):
        others = {s: d for s, d in jumps.items() if s != a}
        for end in (0, 1):
            for col, s in enumerate(shifts.tolist()):
                if s == 0:
                    out[j, end, col] = 0.0
                    continue
                na, nb = (a + s, b) if end == 0 else (a, b + s)
                if na in others or not (0 <= na <= board.size and 0 <= nb <= board.size):
                    continue
                try:
                    moved = board.replace(jumps={**others, na: nb})
                except ValueError:
                    continue
                out[j, end, col] = answer(moved) - value
                if of == "mean":
                    worst = max(worst, solver_report(moved).error_estimate)
    pairs = np.stack([src, dst], axis=1)
    return Sensitivity(of, "jumps", value, start, out, jumps=pairs, shifts=shifts,
                       error_estimate=float(worst), board=board)
