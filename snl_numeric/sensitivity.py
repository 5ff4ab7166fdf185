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
forward, one backward, exact up to the distribution's tail tolerance. Summed over all
throws, ``sum_k pi_k[i] lambda_k[j] = (X Q Y)[i, j]`` (plus ``P(T = inf)`` terms) with
``X = sum_k pi_k pi_k^T`` and ``Y = sum_l (Q^l r)(Q^l r)^T``: on small boards two Gram
matrices of blocked dense pushes replace the per-throw sums.

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
from scipy.linalg.blas import dsyrk

from ._core.blas import SERIAL_PRODUCT, matmul
from ._core.memory import check_memory
from ._core.sizes import DENSE_PUSH_MAX
from ._core.solve import UNIT_ROUNDOFF
from ._core.validation import DEFAULT_MAX_THROWS, DEFAULT_TAIL, check_tail
from .board import Board, check_board, check_start
from .chain import expected_throws, fundamental, mean_all, solver_report, throws_variance
from .compile import CompiledBoard
from .players import win_probabilities

__all__ = ["Sensitivity", "sensitivity"]

OF = ("mean", "variance", "win")
#: Throws per dense product of the win chance's derivative (rows ``b .. b + BLOCK`` of
#: ``Pi`` are rows ``b - BLOCK .. b`` times ``Q^BLOCK``).
BLOCK = 64

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
        value, entry = _win_terms(cb, start, tail, int(max_throws))
        error = float(tail)
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
    """``(value, entry(i, j))`` of the first player's win chance (module docstring), over
    the ``m`` squares that can finish, that ``start`` reaches and that a throw can end on.

    Up to :data:`DENSE_PUSH_MAX` such squares, :func:`_win_dense`; above,
    :func:`_win_sparse` and, per block of squares, one product of their masses with the
    ``lambda`` of the squares they move to. Both push the mass as
    :func:`~snl_numeric.win_probabilities` does (until below ``tail``) and take the value
    from it."""
    goal = cb.size
    live = cb.reach[0] > 0
    if start == goal or not live[start]:  # 1 at once, or nobody ever wins
        return float(start == goal), (lambda i, j: np.zeros(len(i)))
    fed = np.zeros(cb.n_states, dtype=bool)  # squares a throw can end on (not jump sources)
    fed[cb.matrix.indices] = True
    fed[start] = True
    keep = np.flatnonzero(live & cb.reachable_from(start) & fed)
    keep = keep[keep != goal]
    m = len(keep)
    place = int(np.searchsorted(keep, start))
    rows_of = np.full(cb.n_states, m)  # each square's place, m (a zero) off ``keep``
    rows_of[keep] = np.arange(m)
    cols_of = np.full(cb.n_states, m + 1)  # and the goal's column m
    cols_of[keep] = np.arange(m)
    cols_of[goal] = m
    dead = ~live  # where none can finish (the goal's reach is 0 too)
    dead[goal] = False
    if m <= DENSE_PUSH_MAX:  # (a small matrix made dense whole: cheaper than slicing)
        rows = (cb.matrix.toarray()[keep] if cb.n_states <= 4 * DENSE_PUSH_MAX
                else cb.matrix[keep].toarray())
        value, prod = _win_dense(rows[:, keep], rows[:, goal], rows[:, dead].sum(axis=1),
                                 place, tail, max_throws)
        return value, lambda i, j: prod[rows_of[i], cols_of[j]]
    sub = cb.matrix[keep]
    value, pi, lam = _win_sparse(sp.csr_array(sub[:, keep]),
                                     np.asarray(sub[:, [goal]].toarray()).ravel(),
                                     np.asarray(sub[:, dead].sum(axis=1)).ravel(), place,
                                     tail, max_throws)

    def entry(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """``sum_k pi_k[i] lambda_k[j]``, summed over chunks of throws (a chunk's rows
        stay in cache while they are gathered)."""
        ri, cj = rows_of[i], cols_of[j]
        out = np.zeros(len(i))
        step = max(1, 2**18 // max(len(i), 1))
        for lo in range(0, len(pi), step):
            out += np.einsum("ke,ke->e", pi[lo: lo + step, ri], lam[lo: lo + step, cj])
        return out

    return value, entry


def _check_tail_reached(remaining: float, tail: float, max_throws: int) -> None:
    if remaining >= tail:  # (win_probabilities' message)
        raise ValueError(
            f"the tail did not fall below {tail:g} within max_throws={max_throws} throws "
            f"(remaining mass {remaining:.3g}); raise max_throws or tail")


def _win_value(pmf: np.ndarray, survival: np.ndarray) -> float:
    """``W = sum_n P(T = n) P(T >= n)``: the first player finishes no later."""
    after = np.empty_like(pmf)
    after[0] = 1.0
    after[1:] = survival[:-1]
    return float((pmf * after).sum())


def _gram(a: np.ndarray) -> np.ndarray:
    """``a^T a`` by ``dsyrk`` (half a product's multiply-adds) over panels of ``a``'s rows,
    each of at most :data:`~snl_numeric._core.blas.SERIAL_PRODUCT` multiply-adds (OpenBLAS
    runs those on the calling thread, as it does products; see
    :mod:`snl_numeric._core.blas`)."""
    m = a.shape[1]
    step = max(1, SERIAL_PRODUCT // max(m * m, 1))
    upper = np.zeros((m, m), order="F")
    for lo in range(0, len(a), step):
        upper = dsyrk(1.0, a[lo: lo + step].T, beta=1.0, c=upper, overwrite_c=1)
    return np.triu(upper) + np.triu(upper, 1).T


def _win_dense(q: np.ndarray, r: np.ndarray, lost: np.ndarray, place: int, tail: float,
               max_throws: int) -> tuple[float, np.ndarray]:
    """``(value, M)``: the win chance and ``M = [X Q Y + never v f^T, X r + never v]``
    (padded with a zero row and column), the entries ``sum_k pi_k[i] lambda_k[j]`` over
    the squares and the goal, from the dense ``Q``.

    The masses ``pi_k`` come in blocks, rows ``b .. 2 b`` being rows ``0 .. b`` times
    ``Q^b`` (``b = 1, 2, 4, ..`` up to :data:`BLOCK` throws, then :data:`BLOCK` at a
    time), until the mass left is below ``tail`` after ``K`` throws; they give the pmf
    ``p_{k+1} = pi_k r`` and the survival (the mass left plus the mass ``lost`` where none
    can finish). With ``c_n = p_n + never`` and ``p_n = pi_k Q^(n-1-k) r``, ``lambda_k = Y
    Q^T pi_k + never f``, where ``X = sum_k pi_k pi_k^T`` and ``Y = sum_l g_l g_l^T``
    (``g_l = Q^l r``, made like ``pi``) solve the Stein equations ``X = Q^T X Q + e_s
    e_s^T`` and ``Y = Q Y Q^T + r r^T``, ``v = sum_k pi_k`` and ``f = sum_l g_l``: products
    of non-negative matrices, so each entry keeps its relative accuracy; the terms left
    out are below the tail."""
    m = len(r)
    pi = np.empty((2 * BLOCK, m))
    pi[0] = 0.0
    pi[0, place] = 1.0
    powers = [q]  # Q^(2^i), up to Q^BLOCK
    b, k_max = 1, 0
    while not k_max:
        step = powers[-1]
        width = 2 ** (len(powers) - 1)  # rows made by one product
        hi = min(b + width, max_throws + 1)
        if hi > len(pi):
            check_memory(16.0 * 2 * hi * m, "the win probability's derivative "
                         f"({2 * hi:,} throws x {m:,} squares, twice)")
            pi = np.concatenate([pi, np.empty((hi, m))])
        pi[b:hi] = matmul(pi[b - width: hi - width], step)
        mass = pi[b:hi].sum(axis=1)
        below = np.flatnonzero(mass < tail)
        if below.size:
            k_max = b + int(below[0])
            left = float(mass[below[0]])
        elif hi == max_throws + 1:
            _check_tail_reached(float(mass[-1]), tail, max_throws)
        b = hi
        if not k_max and width < BLOCK and b == 2 * width:
            powers.append(matmul(step, step))
    pi = pi[:k_max]
    pmf = np.zeros(k_max + 1)
    pmf[1:] = matmul(pi, r)
    gone = np.zeros(k_max + 1)
    np.cumsum(matmul(pi, lost), out=gone[1:])
    on_board = np.empty(k_max + 1)
    on_board[:k_max] = pi.sum(axis=1)
    on_board[k_max] = left
    value = _win_value(pmf, on_board + gone)
    never = float(gone[-1])
    g = np.empty((k_max, m))
    g[0] = r
    b = 1
    while b < k_max:
        width = min(b, BLOCK)
        hi = min(b + width, k_max)
        g[b:hi] = matmul(g[b - width: hi - width], powers[width.bit_length() - 1].T)
        b = hi
    x = _gram(pi)
    out = np.zeros((m + 1, m + 2))
    out[:m, :m] = matmul(x, matmul(q, _gram(g)))
    out[:m, m] = matmul(x, r)
    if never > 0:
        visits = pi.sum(axis=0)
        out[:m, :m] += never * np.outer(visits, g.sum(axis=0))
        out[:m, m] += never * visits
    return value, out


def _win_sparse(q: sp.csr_array, r: np.ndarray, lost: np.ndarray, place: int, tail: float,
                max_throws: int) -> tuple[float, np.ndarray, np.ndarray]:
    """``(value, [Pi, 0], [Lambda, lambda_goal, 0])`` by one sparse product per throw:
    ``pi_{k+1} = Q^T pi_k`` forward until the mass left is below ``tail`` (the pmf and
    survival as in :func:`_win_dense`), ``lambda_k = Q lambda_{k+1} + c_{k+2} r``
    backward."""
    m = len(r)
    forward = sp.csr_array(q.T)
    pi = np.empty((1024, m))
    pi[0] = 0.0
    pi[0, place] = 1.0
    k = 0
    while True:
        nxt = forward @ pi[k]
        left = float(nxt.sum())
        k += 1
        if left < tail:
            break
        if k >= max_throws:
            _check_tail_reached(left, tail, max_throws)
        if k == len(pi):
            check_memory(8.0 * 5 * 2 * k * m, "the win probability's derivative "
                         f"({2 * k:,} throws x {m:,} squares, about five arrays)")
            pi = np.concatenate([pi, np.empty_like(pi)])
        pi[k] = nxt
    k_max = k
    pi = pi[:k_max]
    pmf = np.zeros(k_max + 1)
    pmf[1:] = pi @ r
    gone = np.zeros(k_max + 1)
    np.cumsum(pi @ lost, out=gone[1:])
    on_board = np.empty(k_max + 1)
    on_board[:k_max] = pi.sum(axis=1)
    on_board[k_max] = left
    value = _win_value(pmf, on_board + gone)
    c = pmf + gone[-1]
    lam = np.zeros((k_max, m + 2))  # lambda_k over the squares, the goal, a zero
    lam[:, m] = c[1:]
    for k in range(k_max - 2, -1, -1):
        lam[k, :m] = q @ lam[k + 1, :m]
        lam[k, :m] += c[k + 2] * r
    return value, np.concatenate([pi, np.zeros((k_max, 1))], axis=1), lam


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
