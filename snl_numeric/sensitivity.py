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
chain, ``p_m = P(T = m)``, ``F = P(T < inf)``): ``W = F - F**2 / 2 + sum_m p_m**2 / 2``,
so ``dW = sum_m c_m dp_m`` with ``c_m = p_m + P(T = inf)``, and
``dp_m / dP_ij = sum_{k < m} pi_k[i] h_{m-1-k}[j]`` (``pi_k`` the mass on each square after
``k`` throws, ``h_l[j]`` the chance of finishing exactly ``l`` throws after resting on
``j``); so ``dW / dP_ij = sum_k pi_k[i] lambda_k[j]`` with the backward recursion
``lambda_k = c_{k+1} e_goal + P' lambda_{k+1}`` (``P'``: the goal's row zeroed). The part
of ``P(T = inf)`` is exact, ``P(T = inf) v_i a_j`` (``v`` the expected visits, ``a`` the
chances of finishing: two solves, only where the goal may never be reached). The rest
is exact up to the tail tolerance: every term of the sum has both factors falling with
the mass still live ``L``, so the sum over ``m`` (the value) and over ``k`` (the
derivative) need only the throws until about ``L**2`` is below the tail, about half of
what the distribution itself needs. The mass is pushed forward with the survivals
``s_l = Q^l 1`` of every square until the terms cut (past ``k1`` throws, and the ``c_m``
past the last throw ``N`` pushed) are bounded by the tail tolerance times their total;
then ``lambda`` goes back from throw ``N``. On small boards the pushes are blocked dense
products (several throws per product with the powers ``Q^(2^i)``), on larger ones sparse
products one throw at a time; the entries are products of non-negative matrices, each
keeping its relative accuracy.

**With respect to the dice**: a face's probability ``p_f`` enters ``Q_{x, succ(x, f)}``
on every square, so ``dA / dp_f = sum_x dA / dQ_{x, succ(x, f)}`` (faces treated as
free; the change along a direction ``d`` that keeps the sum 1 is ``gradient @ d``).

**With respect to the jumps**: the exact change of the answer when one jump's source or
destination moves by ``-k .. k`` squares, from a fresh (certified) solve of each moved
board.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.linalg.blas import dgemm

from ._core.blas import SERIAL_PRODUCT, matmul, right_product
from ._core.memory import check_memory
from ._core.progress import Progress, check_progress
from ._core.sizes import DENSE_PUSH_MAX, dense_push
from ._core.solve import UNIT_ROUNDOFF
from ._core.validation import DEFAULT_MAX_THROWS, DEFAULT_TAIL, check_tail, choice, positive_int
from .board import Board, check_board, check_start
from .chain import (expected_throws, finish_system, fundamental, mean_all, solver_report,
                    throws_variance)
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


def sensitivity(board: Board, *, of: str = "mean", wrt: str = "dice",
                start: int | None = None, shift: int = 3, tail: float = DEFAULT_TAIL,
                max_throws: int = DEFAULT_MAX_THROWS, progress: bool | str = False
                ) -> Sensitivity:
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
    progress : bool or "always", default False
        A progress bar on standard error (a widget in Jupyter) for the long runs:
        ``of="win"`` counts the throws pushed forward, then back (their number is known
        only at the end, so the bar has no total); ``wrt="jumps"`` counts the moved boards
        solved. True shows it on a terminal or in a notebook only, ``"always"`` in pipes
        and files too. Ctrl-C (``KeyboardInterrupt``) stops the run between two blocks of
        throws (two boards). The mean's and the variance's derivatives by the dice or the
        transitions take two to four solves: no bar.

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
    of = choice(of, "of", OF)
    wrt = choice(wrt, "wrt", WRT)
    # every option is checked, also those this call does not use (a bad value is an error)
    shift = positive_int(shift, "shift")
    tail = check_tail(tail, max_throws)
    progress = check_progress(progress)
    cb = board.compiled
    if of != "win" and not np.isfinite(mean_all(cb)[start]):  # (before the jumps too: inf
        # less inf would give NaN, the mark of a move the rules forbid)
        raise ValueError(f"the goal may never be reached from square {start}: the "
                         f"{'expected throws' if of == 'mean' else 'variance'} are "
                         "infinite and have no derivative")
    if wrt == "jumps":
        return _jump_moves(board, of, start, shift, tail, max_throws, progress)
    with Progress(0, "sensitivity", enabled=progress if of == "win" else False) as bar:
        return _derivatives(board, cb, of, wrt, start, tail, int(max_throws), bar)


def _derivatives(board: Board, cb: CompiledBoard, of: str, wrt: str, start: int, tail: float,
                 max_throws: int, bar: Progress) -> Sensitivity:
    """``wrt="dice"`` or ``"transitions"``: every entry from the terms of ``of``."""
    if of == "win":
        value, entry = _win_terms(cb, start, tail, max_throws, bar)
        error = float(tail)
    else:
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


def _win_terms(cb: CompiledBoard, start: int, tail: float, max_throws: int, bar: Progress):
    """``(value, entry(i, j))`` of the first player's win chance (module docstring), over
    the ``m`` squares that can finish, that ``start`` reaches and that a throw can end on.

    The masses ``pi_k`` are pushed forward (:func:`_forward`) until the cut of
    :func:`_win_cut` holds, then the ``lambda_k`` of ``c_n = P(T = n)`` go back from the
    last throw pushed (:func:`_back_dense` up to ``DENSE_PUSH_MAX`` squares, else
    :func:`_back_sparse`, when ``entry`` is called; :func:`._core.sizes.dense_push`); each entry is
    ``sum_{k < k1} pi_k[i] lambda_k[j]`` (once per distinct pair of squares: all at once by
    :func:`_gram` on small boards, a block of throws at a time on larger ones) plus, when
    the goal may never be reached, ``P(T = inf) v_i a_j`` from two solves. ``bar`` counts
    the throws pushed forward, then those pushed back."""
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
    # (forced past its limit, a dense push holds the rows of Q, then Q^(2^i) up to Q^BLOCK
    # and one of them transposed, m x m each)
    if dense_push(m, nbytes=8.0 * m * (cb.n_states + (BLOCK.bit_length() + 1) * m)):
        # (a small matrix made dense whole: cheaper than slicing)
        rows = (cb.matrix.toarray()[keep] if cb.n_states <= 4 * DENSE_PUSH_MAX
                else cb.matrix[keep].toarray())
        r = rows[:, goal].copy()
        stepper: _Dense | _Sparse = _Dense(np.ascontiguousarray(rows[:, keep]), r, place)
    else:
        sub = cb.matrix[keep]
        r = np.asarray(sub[:, [goal]].toarray()).ravel()
        stepper = _Sparse(sp.csr_array(sub[:, keep]), r, place, tail)
    least = float(cb.probs[cb.probs > 0].min())
    pmf, pi, k1 = _forward(stepper, least, tail, max_throws, bar)
    # (c_n = P(T = n) + P(T = inf): the first part by pmf, the second below, exactly)
    total = 1.0  # P(T < inf)
    mat = cb.matrix
    off = rows_of == m
    dead = off.copy()  # where the mass leaves the chain unfinished
    dead[goal] = False
    if np.any(dead[mat.indices] & np.repeat(~off, np.diff(mat.indptr))):
        # the goal may never be reached from ``start``: two solves
        solver, finish = finish_system(cb)
        e = np.zeros((cb.n_states, 1))
        e[start] = 1.0
        visits = np.maximum(solver.solve(e, trans=True).x[:, 0], 0.0)[keep]
        reach = np.append(np.clip(finish.x, 0.0, 1.0)[keep], 1.0)
        total = float(reach[place])
    never = 1.0 - total
    value = total - total * total / 2 + float(np.dot(pmf, pmf)) / 2

    def entry(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        ri, cj = rows_of[i], cols_of[j]
        ok = (ri < m) & (cj <= m)
        pairs, where = np.unique(ri[ok] * (m + 1) + cj[ok], return_inverse=True)
        out = np.zeros(len(i))
        a, b = pairs // (m + 1), pairs % (m + 1)
        if isinstance(stepper, _Dense):
            sums = _gram(pi, _back_dense(stepper, r, pmf, k1, bar))[a, b]
        else:
            sums = _back_sparse(stepper.q, r, pmf, pi, a, b, bar)
        if never > 0.0:  # d P(T < inf) / d P_ij = v_i a_j
            sums += never * visits[a] * reach[b]
        out[ok] = sums[where]
        return out

    return value, entry


#: Throws per block of masses pushed one sparse product at a time (their readouts are one
#: dense product per block).
SPARSE_BLOCK = 64
#: The sparse push keeps the masses while the live mass ``L`` has ``L**2 >= KEEP * tail``.
KEEP = 0.01
#: Numbers of each side gathered at a time by :func:`_block_sums`.
PAIR_CHUNK = 2**16


class _Dense:
    """The forward push of :func:`_forward` for a dense ``Q``, :data:`BLOCK` throws a
    product: ``v Q^i (r, 1)`` for ``i < BLOCK`` (the readouts) by one product with
    ``[R, Q R, .., Q^(BLOCK-1) R]``, then ``v Q^BLOCK``. The masses of the throws kept are
    made at the end (:meth:`masses`), rows ``b .. 2 b`` being rows ``0 .. b`` times
    ``Q^b``."""

    def __init__(self, q: np.ndarray, r: np.ndarray, place: int) -> None:
        self.powers = [q]  # Q^(2^i), made when first needed
        self.backs: dict[int, np.ndarray] = {}  # (Q^w)^T, C-ordered
        self.m, self.place, self.done = len(q), place, 0
        readout = np.stack([r, np.ones(self.m)], axis=1)
        width = 1
        while width < BLOCK:
            readout = np.concatenate([readout, matmul(self.power(width), readout)], axis=1)
            width *= 2
        self.readout = readout
        self.advance = right_product(self.power(BLOCK))
        self.v = np.zeros(self.m)
        self.v[place] = 1.0

    def power(self, width: int) -> np.ndarray:
        while len(self.powers) < width.bit_length():
            self.powers.append(matmul(self.powers[-1], self.powers[-1]))
        return self.powers[width.bit_length() - 1]

    def back(self, width: int) -> np.ndarray:
        if width not in self.backs:
            self.backs[width] = np.ascontiguousarray(self.power(width).T)
        return self.backs[width]

    def block(self) -> np.ndarray:
        """Row ``i``: ``(P(T = done + i + 1), L_{done + i})``."""
        read = matmul(self.v, self.readout).reshape(BLOCK, 2)
        self.v = self.advance(self.v)
        self.done += BLOCK
        return read

    def masses(self, k1: int) -> np.ndarray:
        pi = np.empty((k1, self.m))
        pi[0] = 0.0
        pi[0, self.place] = 1.0
        b = 1
        while b < k1:
            width = min(b, BLOCK)
            hi = min(b + width, k1)
            pi[b:hi] = matmul(pi[b - width: hi - width], self.power(width))
            b = hi
        return pi


class _Sparse:
    """The forward push of :func:`_forward` by one sparse product per throw,
    :data:`SPARSE_BLOCK` throws a block, their readouts by one dense product.

    The masses are kept while the live mass ``L`` has ``L**2 >= KEEP * tail`` (the cut of
    :func:`_win_cut` usually lies before: the terms fall like ``L**2``); when it lies
    later, the push is repeated from the first block not kept (the same products: the
    same masses)."""

    def __init__(self, q: sp.csr_array, r: np.ndarray, place: int, tail: float) -> None:
        self.m = m = q.shape[0]
        self.q, self.tail = q, tail
        self.readout = np.stack([r, np.ones(m)], axis=1)
        self.advance = sp.csr_array(q.T).__matmul__
        self.x = np.zeros(m)
        self.x[place] = 1.0
        self.done = 0
        self.kept: list[np.ndarray] = []
        self.resume: np.ndarray | None = None  # the mass at the first block not kept

    def block(self) -> np.ndarray:
        """As :meth:`_Dense.block`."""
        m = self.m
        rows = np.empty((SPARSE_BLOCK, m))
        x = first = self.x
        for i in range(SPARSE_BLOCK):
            rows[i] = x
            x = self.advance(x)
        self.x = x
        self.done += SPARSE_BLOCK
        read = matmul(rows, self.readout)
        if self.resume is None:
            if read[-1, 1] ** 2 < KEEP * self.tail:
                self.resume = first
            else:
                self.kept.append(rows)
                if len(self.kept) & (len(self.kept) - 1) == 0:  # (asked at 1, 2, 4, ..)
                    check_memory(8.0 * 4 * self.done * (m + 1),
                                 "the win probability's derivative "
                                 f"({2 * self.done:,} throws x {m:,} squares, twice)")
        return read

    def masses(self, k1: int) -> list[np.ndarray]:
        """The masses of the throws ``k < k1``: blocks of rows (throws), in order."""
        slabs, k = [], 0
        for block in self.kept:
            if k >= k1:
                break
            slabs.append(block[: k1 - k])
            k += len(slabs[-1])
        if k < k1:  # (the same products again: the same masses)
            assert self.resume is not None  # (every block was kept otherwise)
            x = self.resume
            for lo in range(k, k1, SPARSE_BLOCK):
                rows = np.empty((min(SPARSE_BLOCK, k1 - lo), self.m))
                for i in range(len(rows)):
                    rows[i] = x
                    x = self.advance(x)
                slabs.append(rows)
        return slabs


def _forward(stepper: _Dense | _Sparse, least: float, tail: float, max_throws: int,
             bar: Progress) -> tuple[np.ndarray, Any, int]:
    """``(pmf, Pi, k1)``: ``P(T = n)`` for ``n = 0 .. N``, pushed a block at a time until
    :func:`_win_cut` holds at ``N`` throws, and the masses of the throws ``k < k1`` (the
    stepper's :meth:`masses`)."""
    pmfs, alives = [np.zeros(1)], []
    while True:
        at = stepper.done
        read = stepper.block()[: max_throws - at]
        bar.update(len(read))
        pmfs.append(read[:, 0])
        alives.append(read[:, 1])
        if read[-1, 1] ** 2 <= tail:  # (needed for the cut: skip the sums until then)
            pmf, alive = np.concatenate(pmfs), np.concatenate(alives)
            k1 = _win_cut(pmf, alive, least, tail)
            if k1:
                return pmf, stepper.masses(k1), k1
        if at + len(read) >= max_throws:
            raise ValueError(
                f"the win chance's derivative did not converge within max_throws={max_throws} "
                f"throws (live mass {read[-1, 1]:.3g}); raise max_throws or tail")


def _win_cut(pmf: np.ndarray, alive: np.ndarray, least: float, tail: float) -> int:
    """The throws ``k1`` whose terms are kept, or 0 when ``N = len(alive)`` throws do not
    suffice yet. ``pmf``: ``P(T = n)``, ``n = 0 .. N``; ``alive``: ``L_k``, ``k < N``;
    ``least``: the smallest positive face probability.

    The term of throw ``k`` of any entry is ``pi_k[i] lambda_k[j] <= L_k max_{n > k} c_n``
    (``lambda_k[j]`` is a mean of later ``c_n``); past ``N``, the ``c_n`` are taken at most
    the last ones and the sum of the terms estimated from the decay of ``L``. ``k1`` is
    the first throw from which the bounds sum to at most ``tail`` times their total.
    ``lambda`` is pushed back from ``lambda_{N-1}`` without the ``c_n``, ``n > N``: each
    ``lambda_k[j]`` short by at most ``c s_{N-1-k}[j]`` (``c`` their largest, ``s_l[j]``
    the chance of still playing ``l`` throws after resting on ``j``), and as
    ``pi_k[i] P_ij s_l[j] <= pi_{k+1} . s_l = L_{k+1+l}``, each entry (and each face's sum)
    short by at most ``c k1 L_N / least``: ``N`` suffices when that is at most ``tail``
    times the total too (and ``L_{N-1}**2``, the value's cut, below ``tail``)."""
    n = len(alive)
    last = alive[-1]
    width = min(n - 1, SPARSE_BLOCK)
    rate = (last / alive[-1 - width]) ** (1.0 / width) if width and last > 0 else 0.0
    if rate >= 1.0:
        return 0
    cap = pmf[-1 - width:].max()  # the c_n, n > N, falling: at most the last ones
    latest = np.maximum.accumulate(np.append(pmf, cap)[::-1])[::-1]  # max_{n' >= n} c_n'
    bound = alive * latest[1: n + 1]
    rest = np.cumsum(bound[::-1])[::-1] + last * cap / (1.0 - rate)
    k1 = max(1, int(np.count_nonzero(rest > tail * rest[0])))
    if k1 >= n:
        return 0
    return k1 if cap * k1 * last <= least * tail * rest[0] else 0


def _back_dense(stepper: _Dense, r: np.ndarray, c: np.ndarray, k1: int, bar: Progress
                ) -> np.ndarray:
    """``Lambda``: ``lambda_k`` over the squares and the goal (rows) of the throws
    ``k < k1`` (columns), from the dense ``Q`` (the stepper's powers) and ``c``.

    On the squares ``lambda_k = sum_l c_{k+2+l} g_l`` (``g_l = Q^l r``, ``c_n = 0`` past
    ``N``): the last ``w`` throws kept by one product of a Hankel matrix of the ``c`` with
    ``g_0, g_1, ..``; then back ``w`` at a time,
    ``lambda_k = Q^w lambda_{k+w} + sum_{u < w} c_{k+2+u} g_u``. Every product is of
    non-negative matrices, so each entry keeps its relative accuracy. ``bar`` counts the
    throws ``k < N`` whose ``lambda_k`` is made or implied."""
    m = len(r)
    width = min(BLOCK, 1 << (k1.bit_length() - 1))  # (a power of two)
    rows_g = len(c) - k1 + width - 1  # g_0 .. : lambda_{k1 - width} needs c up to c_N
    g = np.empty((-(-rows_g // BLOCK) * BLOCK, m))
    g[:BLOCK] = stepper.readout[:, 0::2].T  # g_u = Q^u r, u < BLOCK
    for b in range(BLOCK, len(g), BLOCK):
        g[b: b + BLOCK] = matmul(g[b - BLOCK: b], stepper.back(BLOCK))
    padded = np.concatenate([c, np.zeros(len(g) + 2)])
    step = padded.strides[0]

    def hankel(lo: int, hi: int, cols: int) -> np.ndarray:  # rows k: c_{k+2}, c_{k+3}, ..
        return np.lib.stride_tricks.as_strided(padded[lo + 2:], (hi - lo, cols), (step, step),
                                               writeable=False)

    lam = np.empty((k1, m + 1))
    lam[:, m] = padded[1: k1 + 1]
    top = k1 - width
    lam[top:, :m] = matmul(hankel(top, k1, rows_g), g[:rows_g])
    bar.update(len(c) - 1 - top)
    while top > 0:
        lo = max(top - width, 0)
        lam[lo:top, :m] = (matmul(lam[lo + width: top + width, :m], stepper.back(width))
                           + matmul(hankel(lo, top, width), g[:width]))
        bar.update(top - lo)
        top = lo
    return lam


def _back_sparse(q: sp.csr_array, r: np.ndarray, c: np.ndarray, pi: list[np.ndarray],
                 a: np.ndarray, b: np.ndarray, bar: Progress) -> np.ndarray:
    """``sum_k pi_k[a] lambda_k[b]`` for each pair, ``lambda_k`` as in :func:`_back_dense` by
    one sparse product per throw, ``lambda_k = [Q r] [lambda_{k+1}; c_{k+2}]`` from
    ``lambda_{N-1} = c_N e_goal``; each block of throws summed with its block of masses
    ``pi`` (:func:`_block_sums`) as soon as it is made, so no more than one block of
    ``lambda`` is kept. ``bar`` counts the ``lambda_k`` made, a block at a time."""
    m = len(r)
    back = sp.csr_array(sp.hstack([q, sp.csr_array(r[:, None])])).__matmul__
    k_max = len(c) - 1
    k1 = sum(len(rows) for rows in pi)
    u = np.zeros(m + 1)  # lambda_k, from k = N - 1 down
    u[m] = c[k_max]
    for hi in range(k_max - 1, k1 - 1, -SPARSE_BLOCK):  # (a block at a time: the bar)
        for k in range(hi, max(hi - SPARSE_BLOCK, k1 - 1), -1):
            u[:m] = back(u)
            u[m] = c[k]
        bar.update(hi - max(hi - SPARSE_BLOCK, k1 - 1))
    out = np.zeros(len(a))
    lam = np.empty((SPARSE_BLOCK, m + 1))
    top = k1  # lambda_{top - 1} in u
    for rows in reversed(pi):
        lo = top - len(rows)
        for k in range(top - 1, lo - 1, -1):
            lam[k - lo] = u
            if k:
                u[:m] = back(u)
                u[m] = c[k]
        out += _block_sums(rows, lam[: len(rows)], a, b)
        bar.update(len(rows))
        top = lo
    return out


def _gram(pi: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """``Pi^T Lambda`` (``Pi``, ``Lambda`` with a row per throw): every pair's sum, by
    ``dgemm`` in panels of throws of at most
    :data:`~snl_numeric._core.blas.SERIAL_PRODUCT` multiply-adds.

    Examples
    --------
    >>> _gram(np.arange(6.0).reshape(3, 2), np.ones((3, 2))).tolist()
    [[6.0, 6.0], [9.0, 9.0]]
    """
    m, n = pi.shape[1], lam.shape[1]
    step = max(1, SERIAL_PRODUCT // (m * n))
    sums = np.zeros((m, n), order="F")
    for k in range(0, len(pi), step):  # (C-ordered rows: Fortran columns, no copy)
        sums = dgemm(1.0, pi[k: k + step].T, lam[k: k + step].T, beta=1.0, c=sums,
                     trans_b=1, overwrite_c=1)
    return sums


def _block_sums(pi: np.ndarray, lam: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``out[e] = sum_k pi[k, a[e]] lam[k, b[e]]`` over a block of throws (rows), the pairs
    gathered :data:`PAIR_CHUNK` numbers of each side at a time.

    Examples
    --------
    >>> pi, lam = np.arange(6.0).reshape(3, 2), np.ones((3, 3))
    >>> _block_sums(pi, lam, np.array([1, 0]), np.array([2, 2])).tolist()
    [9.0, 6.0]
    """
    pt, lt = np.ascontiguousarray(pi.T), np.ascontiguousarray(lam.T)
    out = np.empty(len(a))
    step = max(1, PAIR_CHUNK // len(pi))
    for lo in range(0, len(a), step):
        out[lo: lo + step] = np.einsum("ij,ij->i", pt.take(a[lo: lo + step], axis=0),
                                       lt.take(b[lo: lo + step], axis=0))
    return out


def _jump_moves(board: Board, of: str, start: int, shift: int, tail: float,
                max_throws: int, progress: bool | str) -> Sensitivity:
    """Each jump's ends moved by ``-shift .. shift``: fresh solves of the moved boards
    (counted by a bar with ``progress``)."""
    def answer(b: Board) -> float:
        if of == "mean":
            return float(expected_throws(b, start))
        if of == "variance":
            return float(throws_variance(b, start))
        return float(win_probabilities(b, 2, starts=[start, start], tail=tail,
                                       max_throws=max_throws)[0])

    src, dst = board.jump_arrays
    check_memory(8.0 * (2 * shift + 1) * (2 * len(src) + 1),
                 f"sensitivity to jump moves by up to shift={shift:,} squares")
    value = answer(board)
    shifts = np.arange(-shift, shift + 1)
    reach = min(shift, board.size)  # a move by more than the size leaves the board: NaN
    out = np.full((len(src), 2, len(shifts)), np.nan)
    worst = solver_report(board).error_estimate if of == "mean" else np.nan
    jumps = dict(board.jumps)
    moves = len(src) * 2 * 2 * reach  # (the shift 0 of each end is not a move)
    with Progress(moves, "sensitivity (jumps)", enabled=progress) as bar:
        for j, (a, b) in enumerate(zip(src.tolist(), dst.tolist(), strict=True)):
            others = {s: d for s, d in jumps.items() if s != a}
            for end in (0, 1):
                for s in range(-reach, reach + 1):
                    col = s + shift
                    if s == 0:
                        out[j, end, col] = 0.0
                        continue
                    bar.update(1)
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
