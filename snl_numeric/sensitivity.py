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
forward, one backward, exact up to the distribution's tail tolerance. The term of throw
``k`` is at most ``L_k max_{n > k} c_n`` (``L_k`` the mass still live), which falls about
like ``L_k**2``: the sum is cut where the bounds left are below the tail tolerance times
their total, at about half the throws the value needs. On small boards the pushes are
blocked dense products (several throws per product with the powers ``Q^(2^i)``), on
larger ones sparse products one throw at a time; the entries are products of
non-negative matrices, each keeping its relative accuracy.

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
from scipy.linalg.blas import dgemm

from ._core.blas import SERIAL_PRODUCT, matmul
from ._core.memory import check_memory
from ._core.sizes import DENSE_PUSH_MAX
from ._core.solve import UNIT_ROUNDOFF
from ._core.validation import DEFAULT_MAX_THROWS, DEFAULT_TAIL, check_tail
from ._core.vectorised import push
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
    :func:`_win_sparse`. Both push the mass as :func:`~snl_numeric.win_probabilities`
    does (until below ``tail``), take the value from it, and return the masses ``pi_k``
    and the ``lambda_k`` of the first ``k1`` throws (:func:`_win_cut`); each entry is then
    ``sum_{k < k1} pi_k[i] lambda_k[j]`` (:func:`_pair_sums`), computed once per distinct
    pair of squares."""
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
    if m <= DENSE_PUSH_MAX:  # (a small matrix made dense whole: cheaper than slicing)
        pmf, on_board, gone = push(cb.succ, cb.probs, live & cb.reachable_from(start), start,
                                   tail, max_throws)
        _check_tail_reached(float(on_board[-1]), tail, max_throws)
        value, c, k1 = _win_cut(pmf, on_board, gone, tail)
        rows = (cb.matrix.toarray()[keep] if cb.n_states <= 4 * DENSE_PUSH_MAX
                else cb.matrix[keep].toarray())
        pi, lam = _win_dense(rows[:, keep], rows[:, goal], place, c, k1)
    else:
        dead = ~live  # where none can finish (the goal's reach is 0 too)
        dead[goal] = False
        sub = cb.matrix[keep]
        value, pi, lam = _win_sparse(sp.csr_array(sub[:, keep]),
                                     np.asarray(sub[:, [goal]].toarray()).ravel(),
                                     np.asarray(sub[:, dead].sum(axis=1)).ravel(), place,
                                     tail, max_throws)

    def entry(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        ri, cj = rows_of[i], cols_of[j]
        ok = (ri < m) & (cj <= m)
        pairs, where = np.unique(ri[ok] * (m + 1) + cj[ok], return_inverse=True)
        out = np.zeros(len(i))
        out[ok] = _pair_sums(pi, lam, pairs // (m + 1), pairs % (m + 1))[where]
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


def _win_cut(pmf: np.ndarray, on_board: np.ndarray, gone: np.ndarray,
             tail: float) -> tuple[float, np.ndarray, int]:
    """``(value, c, k1)`` from ``P(T = k)``, the live mass ``L_k`` and the mass lost by
    throw ``k`` (``k = 0 .. K``): the win chance, ``c_n = P(T = n) + P(T = inf)`` and the
    throws ``k1`` whose terms are kept.

    The term of throw ``k`` of any entry is ``pi_k[i] lambda_k[j] <= L_k max_{n > k} c_n``
    (``lambda_k[j]`` is a mean of later ``c_n``, its weights the chances of finishing
    exactly then from ``j``). These bounds fall about like ``L_k**2`` (when the goal is
    reached surely), so the derivative needs about half the throws the value does: ``k1``
    is the first throw from which their sum is at most ``tail`` times their sum over all
    throws."""
    value = _win_value(pmf, on_board + gone)
    c = pmf + gone[-1]
    latest = np.maximum.accumulate(c[::-1])[::-1]  # max_{n' >= n} c_n'
    bound = on_board[:-1] * latest[1:]
    rest = np.cumsum(bound[::-1])[::-1]
    k1 = max(1, int(np.count_nonzero(rest > tail * rest[0])))
    return value, c, k1


def _win_dense(q: np.ndarray, r: np.ndarray, place: int, c: np.ndarray,
               k1: int) -> tuple[np.ndarray, np.ndarray]:
    """``(Pi, Lambda)``: the masses ``pi_k`` over the squares (rows) and ``lambda_k`` over
    the squares and the goal, of the throws ``k < k1`` (columns), from the dense ``Q`` and
    ``c`` (:func:`_win_cut`).

    The masses come in blocks, rows ``b .. 2 b`` being rows ``0 .. b`` times ``Q^b``
    (``b = 1, 2, 4, ..`` up to :data:`BLOCK` throws, then :data:`BLOCK` at a time).
    ``lambda_k = Q lambda_{k+1} + c_{k+2} r`` (on the squares) goes back the same way,
    ``lambda_k = Q^w lambda_{k+w} + sum_{u < w} c_{k+2+u} g_u`` (``g_u = Q^u r``): a product
    with ``Q^w`` and one of a Hankel matrix of the ``c`` with ``g_0 .. g_{w-1}``, from
    ``lambda_{k1} = sum_l c_{k1+2+l} g_l``, summed by Horner's rule in ``Q^BLOCK``. Every
    product is of non-negative matrices, so each entry keeps its relative accuracy."""
    m = len(r)
    k_max = len(c) - 1
    check_memory(8.0 * 4 * (k1 + 1) * (m + 1), "the win probability's derivative "
                 f"({k1:,} throws x {m:,} squares, twice)")
    powers = [q]  # Q^(2^i), made when first needed
    backs: dict[int, np.ndarray] = {}  # (Q^w)^T, C-ordered

    def power(width: int) -> np.ndarray:
        while len(powers) < width.bit_length():
            powers.append(matmul(powers[-1], powers[-1]))
        return powers[width.bit_length() - 1]

    def back(width: int) -> np.ndarray:
        if width not in backs:
            backs[width] = np.ascontiguousarray(power(width).T)
        return backs[width]

    pi = np.empty((k1, m))
    pi[0] = 0.0
    pi[0, place] = 1.0
    b = 1
    while b < k1:
        width = min(b, BLOCK)
        hi = min(b + width, k1)
        pi[b:hi] = matmul(pi[b - width: hi - width], power(width))
        b = hi
    late = k_max - k1 - 1  # g_0 .. g_{late-1} make lambda_{k1}
    rows_g = min(BLOCK, max(late, k1))
    g = np.empty((rows_g, m))
    g[0] = r
    b = 1
    while b < rows_g:
        hi = min(2 * b, rows_g)
        g[b:hi] = matmul(g[: hi - b], back(b))
        b = hi
    padded = np.concatenate([c, np.zeros(2 * rows_g + 2)])
    lam = np.empty((k1 + 1, m + 1))
    lam[:, m] = padded[1: k1 + 2]
    lam[k1, :m] = 0.0
    if late > 0:
        blocks = -(-late // rows_g)
        parts = matmul(padded[k1 + 2: k1 + 2 + blocks * rows_g].reshape(blocks, rows_g), g)
        acc = parts[-1]
        for a in range(blocks - 2, -1, -1):
            acc = parts[a] + matmul(power(rows_g), acc)
        lam[k1, :m] = acc
    top, width = k1, 1  # rows top .. k1 are made
    step = padded.strides[0]
    while top > 0:
        lo = max(top - width, 0)
        hankel = np.lib.stride_tricks.as_strided(padded[lo + 2:], (top - lo, width),
                                                 (step, step), writeable=False)
        lam[lo:top, :m] = (matmul(lam[lo + width: top + width, :m], back(width))
                           + matmul(hankel, g[:width]))
        top = lo
        width = min(2 * width, BLOCK)
    return np.ascontiguousarray(pi.T), np.ascontiguousarray(lam[:k1].T)


#: Throws per block of masses pushed one sparse product at a time (their readouts are one
#: dense product per block).
SPARSE_BLOCK = 64
#: The sparse push keeps the masses while the live mass ``L`` has ``L**2 >= KEEP * tail``.
KEEP = 0.01
#: Numbers of each side gathered at a time by :func:`_pair_sums` on larger boards.
PAIR_CHUNK = 2**16


def _win_sparse(q: sp.csr_array, r: np.ndarray, lost: np.ndarray, place: int, tail: float,
                max_throws: int) -> tuple[float, np.ndarray, np.ndarray]:
    """``(value, Pi, Lambda)`` as :func:`_win_dense`, by one sparse product per throw:
    ``pi_{k+1} = Q^T pi_k`` forward until the mass left is below ``tail`` (the readouts of
    :data:`SPARSE_BLOCK` throws by one dense product), then ``lambda_k = [Q r]
    [lambda_{k+1}; c_{k+2}]`` backward, kept for the throws ``k < k1``.

    The masses are kept while the live mass ``L`` has ``L**2 >= KEEP * tail`` (or some has
    been lost): the cut of :func:`_win_cut` usually lies before (the terms fall like
    ``L**2``); when it lies later, the push is repeated from the first mass not kept
    (the same products: the same masses)."""
    m = len(r)
    advance = sp.csr_array(q.T).__matmul__
    readout = np.stack([r, np.asarray(q.sum(axis=1)).ravel(), lost], axis=1)
    v = np.zeros(m)
    v[place] = 1.0
    reads = [np.array([[0.0, 1.0, 0.0]])]  # throw k: P(T = k), live mass, mass lost
    kept: list[np.ndarray] = []
    resume: np.ndarray | None = None  # the first mass not kept
    done, lost_any = 0, False
    scratch = np.empty((SPARSE_BLOCK, m))  # (written over once no block is kept)
    while True:
        buf = np.empty((SPARSE_BLOCK, m)) if resume is None else scratch
        for i in range(SPARSE_BLOCK):
            buf[i] = v
            v = advance(v)
        read = matmul(buf, readout)  # row i: throw done + i + 1
        room = max_throws - done
        below = np.flatnonzero(read[:room, 1] < tail)
        if below.size:
            n = int(below[0]) + 1
            reads.append(read[:n])
            if resume is None:
                kept.append(buf[:n])
            break
        if room <= SPARSE_BLOCK:
            _check_tail_reached(float(read[room - 1, 1]), tail, max_throws)
        reads.append(read)
        done += SPARSE_BLOCK
        lost_any = lost_any or bool(read[:, 2].any())
        if resume is None:
            kept.append(buf)
            if read[-1, 1] ** 2 < KEEP * tail and not lost_any:
                resume = v.copy()
            elif len(kept) & (len(kept) - 1) == 0:  # (asked at 1, 2, 4, .. blocks)
                check_memory(8.0 * 4 * (done + SPARSE_BLOCK) * (m + 1),
                             "the win probability's derivative "
                             f"({2 * done:,} throws x {m:,} squares, twice)")
    table = np.concatenate(reads)
    value, c, k1 = _win_cut(table[:, 0], table[:, 1], np.cumsum(table[:, 2]), tail)
    k_max = len(c) - 1
    pi = np.empty((m, k1))  # pi_k as column k
    k = 0
    for block in kept:
        n = min(len(block), k1 - k)
        pi[:, k: k + n] = block[:n].T
        k += n
    if k < k1:  # (the same products again: the same masses)
        assert resume is not None  # (every mass was kept up to the last block otherwise)
        v = resume
        for k in range(k, k1):
            pi[:, k] = v
            v = advance(v)
    back = sp.csr_array(sp.hstack([q, sp.csr_array(r[:, None])])).__matmul__
    lam = np.empty((m + 1, k1))
    u = np.zeros(m + 1)  # lambda_k, from k = K - 1 down
    u[m] = c[k_max]
    for k in range(k_max - 1, k1 - 1, -1):
        u[:m] = back(u)
        u[m] = c[k]
    for k in range(k1 - 1, -1, -1):
        lam[:, k] = u
        if k:
            u[:m] = back(u)
            u[m] = c[k]
    return value, pi, lam


def _pair_sums(pi: np.ndarray, lam: np.ndarray, ri: np.ndarray, cj: np.ndarray) -> np.ndarray:
    """``out[e] = sum_k pi[ri[e], k] lam[cj[e], k]`` (the throws along the rows). Up to
    :data:`DENSE_PUSH_MAX` squares, every pair at once: ``pi lam^T`` by ``dgemm`` in
    panels of throws of at most :data:`~snl_numeric._core.blas.SERIAL_PRODUCT`
    multiply-adds; above, only the pairs asked for, a chunk of :data:`PAIR_CHUNK` numbers
    of each side gathered at a time.

    Examples
    --------
    >>> pi, lam = np.arange(6.0).reshape(2, 3), np.ones((3, 3))
    >>> _pair_sums(pi, lam, np.array([1, 0]), np.array([2, 2])).tolist()
    [12.0, 3.0]
    """
    m, throws = pi.shape
    if m <= DENSE_PUSH_MAX:
        step = max(1, SERIAL_PRODUCT // (m * len(lam)))
        sums = np.zeros((m, len(lam)), order="F")
        for k in range(0, throws, step):
            sums = dgemm(1.0, pi[:, k: k + step], lam[:, k: k + step], beta=1.0, c=sums,
                         trans_b=1, overwrite_c=1)
        return sums[ri, cj]
    out = np.empty(len(ri))
    step = max(1, PAIR_CHUNK // throws)
    for lo in range(0, len(ri), step):
        out[lo: lo + step] = np.einsum("ij,ij->i", pi.take(ri[lo: lo + step], axis=0),
                                       lam.take(cj[lo: lo + step], axis=0))
    return out


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
