"""Handicap search: length distributions from every square and the fairest assignment.

The length distributions from every square come from one backward push through the chain:
with ``Q`` the moves among the squares before the goal and ``r`` the chance of finishing in
one throw, ``P_x(T = n) = (Q^(n-1) r)[x]`` and ``P_x(T > n) = (Q^n 1)[x]``, pushed
``BLOCK`` throws per matrix product (``Q^B`` applied to the block ``Q^i (r, 1, live)``,
``i < B``) into a (squares x throws) array, never one solve per start square; only the
wanted squares' rows are kept. Every entry is a sum of non-negative terms. Boards past
``BACKWARD_PUSH_DENSE_MAX`` squares (:mod:`._core.sizes`; ``snl_numeric.options(push=...)``
forces either form) go one sparse product per throw over every square: fine for ordinary
boards, slow for very long games on huge ones (the cost is squares x throws to the tail;
timings in ``benchmarks/bench_fairness.py``).

Players choose among option rows (a start square, a number of extra throws, a die), each a
length distribution ``F`` with its survival ``S``. With ``Sp`` the survival one throw earlier,
player ``l`` of ``k`` wins with
``w_l = sum_n F_l(n) prod_{j < l} S_j(n) prod_{j > l} Sp_j(n)`` (:mod:`snl_numeric.players`),
so when two players ``i < j`` vary and the others are fixed, each ``w_l`` over every pair of
their options is one matrix product ``(A_i * c) @ B_j^T`` (for two players ``W_0 = F Sp^T``,
``W_1 = S F^T``). :func:`fairest_assignment` loops over the options of all but the last two players (up
to :data:`LOOP_MAX` combinations and :data:`WORK_MAX` multiply-adds; beyond, a coordinate
search over pairs of players, which may stop at a local optimum) and keeps the assignment
with the smallest largest deviation from ``1/k``. Pair blocks are at most
:data:`PAIR_BYTES`.

A player with ``e`` throws before round 1 (in player order) finishes "in round 0" with
``P(T <= e)`` and in round ``n >= 1`` with ``P(T = n + e)`` (:func:`shifted`): exact.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from functools import partial
from dataclasses import dataclass

import numpy as np

from ._core.blas import matmul
from ._core.memory import check_memory
from ._core.progress import Progress
from ._core.sizes import BACKWARD_PUSH_DENSE_MAX, dense_push
from ._core.validation import DEFAULT_MAX_THROWS, DEFAULT_TAIL, check_tail
from ._core.vectorised import BLOCK
from .board import Board, check_board
from .distribution import pushed_to_tail

__all__ = ["LOOP_MAX", "PAIR_BYTES", "TIE", "WORK_MAX", "Options", "best_pair", "better",
           "fairest_assignment", "lengths_from_every_square", "one_start", "pair_wins",
           "race_wins", "shifted", "stack_rows"]

#: Most combinations of the first ``k - 2`` players' options looped over in an exhaustive
#: search (the last two players are vectorised); beyond it, a coordinate search.
LOOP_MAX = 2_000
#: ... and at most this many multiply-adds in all (assignments x throws); beyond either, a
#: coordinate search.
WORK_MAX = 2_000_000_000
#: Most bytes of one block of pair win chances (player ``i``'s rows are taken in blocks).
PAIR_BYTES = 64 << 20
#: Deviations closer than this count as ties (broken by the smaller handicap).
TIE = 1e-12


# -- length distributions ------------------------------------------------------------------
def lengths_from_every_square(board: Board, *, tail: float = DEFAULT_TAIL,
                              max_throws: int = DEFAULT_MAX_THROWS,
                              rows: np.ndarray | None = None
                              ) -> tuple[np.ndarray, np.ndarray]:
    """The length distribution and survival from many squares, by one backward push.

    Parameters
    ----------
    board : Board
        The board (its capture rule, if any, is ignored: one player alone).
    tail : float, default 1e-12
        The push stops once the mass that can still finish, from every square in ``rows``,
        is below ``tail``.
    max_throws : int, default 10_000_000
        ``ValueError`` if that takes more throws.
    rows : array of int, optional
        The start squares wanted, in order (every square ``0 .. size`` by default). The push
        moves every square's values whatever ``rows`` is; only these are kept.

    Returns
    -------
    pmf, survival : ndarray of float64, shape (len(rows), N)
        ``pmf[i, n] = P(T = n)`` and ``survival[i, n] = P(T > n)`` for a token starting on
        ``rows[i]``, ``n = 0 .. N - 1``, from sums of non-negative terms.

    Examples
    --------
    >>> from snl_numeric import Board, length_distribution
    >>> b = Board(3, dice={1: 0.5, 2: 0.5})
    >>> pmf, surv = lengths_from_every_square(b)
    >>> pmf[0].tolist(), pmf[2].tolist(), surv[0].tolist()
    ([0.0, 0.0, 0.75, 0.25], [0.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.25, 0.0])
    """
    board = check_board(board)
    tail = check_tail(tail, max_throws)
    max_throws = int(max_throws)
    cb = board.compiled
    n = board.size
    rows = np.arange(n + 1) if rows is None else np.asarray(rows, dtype=np.intp)
    on_board = np.minimum(rows, n - 1)  # (goal rows are filled in at the end)
    live_all = cb.reach[0] >= 0
    watched = (rows < n) & live_all[rows]
    succ, probs = cb.succ[:n], np.broadcast_to(cb.probs, cb.succ[:n].shape)
    r = np.where(succ == n, probs, 0.0).sum(axis=1)
    keep = succ < n
    src = np.broadcast_to(np.arange(n)[:, None], succ.shape)
    v = np.stack([r, np.ones(n), live_all[:n].astype(np.float64)], axis=1)  # (r, 1, live)
    if dense_push(n, BACKWARD_PUSH_DENSE_MAX, nbytes=24.0 * n * n):  # B throws a product
        q = np.zeros((n, n))
        np.add.at(q, (src[keep], succ[keep]), probs[keep])
        power, width = q, 1
        while width < BLOCK:
            v = np.concatenate([v, matmul(power, v)], axis=1)
            power = matmul(power, power)
            width *= 2
        advance: Callable[[np.ndarray], np.ndarray] = partial(matmul, power)
    else:  # one sparse product per throw, B throws per block
        import scipy.sparse as sp

        q = sp.csr_matrix((probs[keep], (src[keep], succ[keep])), shape=(n, n))
        width = BLOCK

        def sparse_block(last: np.ndarray) -> np.ndarray:
            cols = [q @ last[:, -3:]]
            for _ in range(width - 1):
                cols.append(q @ cols[-1])
            return np.concatenate(cols, axis=1)

        advance = sparse_block
        v = np.concatenate([v, advance(v)[:, : 3 * (width - 1)]], axis=1)
    blocks, done = [], 0
    while True:
        block = v.reshape(n, width, 3)[on_board]  # block[:, i] = Q^(done + i) (r, 1, live)
        blocks.append(block)
        below = np.flatnonzero(block[watched, :, 2].max(axis=0, initial=0.0) < tail)
        if len(below):
            stop = done + int(below[0])  # the first throw count with the live mass below tail
            break
        done += width
        if done > max_throws:
            raise ValueError(f"the tail did not fall below {tail:g} within "
                             f"max_throws={max_throws} throws; raise max_throws or tail")
        check_memory(40.0 * len(rows) * (done + width),
                     f"distributions of {done + width:,} throws from {len(rows):,} squares")
        v = advance(v)
    qv = np.concatenate(blocks, axis=1)[:, : stop + 1]  # Q^t (r, 1, live), t = 0 .. stop
    pmf = np.zeros((len(rows), stop + 1))
    pmf[:, 1:] = qv[:, :stop, 0]  # P(T = t + 1) = Q^t r
    surv = qv[:, :, 1].copy()  # P(T > t) = Q^t 1
    home = rows == n
    pmf[home] = 0.0
    pmf[home, 0] = 1.0
    surv[home] = 0.0
    return pmf, surv


def race_wins(pmf: np.ndarray, survival: np.ndarray) -> np.ndarray:
    """Each independent player's win chance from their length distributions.

    Parameters
    ----------
    pmf, survival : ndarray, shape (k, N)
        ``pmf[i, n] = P(T_i = n)`` and ``survival[i, n] = P(T_i > n)`` (round 0 means
        finished before anybody's first throw of round 1).

    Returns
    -------
    ndarray of float64, shape (k,)
        ``w_i = sum_n pmf_i(n) prod_{j < i} S_j(n) prod_{j > i} S_j(n - 1)``.

    Examples
    --------
    >>> race_wins(np.array([[0, 0.5, 0.5], [0, 0.5, 0.5]]),
    ...           np.array([[1, 0.5, 0.0], [1, 0.5, 0.0]])).tolist()
    [0.75, 0.25]
    """
    pmf = np.asarray(pmf, dtype=np.float64)
    surv = np.asarray(survival, dtype=np.float64)
    prev = np.concatenate([np.ones((len(surv), 1)), surv[:, :-1]], axis=1)
    out = np.empty(len(pmf))
    for i in range(len(pmf)):
        factor = pmf[i] * np.prod(surv[:i], axis=0) * np.prod(prev[i + 1:], axis=0)
        out[i] = factor.sum()
    return out


def shifted(pmf: np.ndarray, surv: np.ndarray, never: float, extra: int, width: int
            ) -> tuple[np.ndarray, np.ndarray, float]:
    """A player's ``(pmf, survival, never)`` (length ``width``) with ``extra`` throws made
    before round 1: finished in round 0 with ``P(T <= extra)``, in round ``n`` with
    ``P(T = n + extra)``."""
    f = np.zeros(width)
    s = np.full(width, never)
    f[0] = pmf[: extra + 1].sum()
    rest = pmf[extra + 1: extra + width]
    f[1: 1 + len(rest)] = rest
    tail_s = surv[extra: extra + width]
    s[: len(tail_s)] = tail_s
    return f, s, never


# -- the search ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Options:
    """Option rows shared by the players: ``pmf``/``surv`` (m, N), the handicap ``cost`` of
    each row, and per player the rows it may take (its no-handicap row first)."""

    pmf: np.ndarray
    surv: np.ndarray
    cost: np.ndarray
    rows: tuple[np.ndarray, ...]

    @property
    def prev(self) -> np.ndarray:
        """``S(n - 1)``, with ``S(-1) = 1``."""
        return np.concatenate([np.ones((len(self.surv), 1)), self.surv[:, :-1]], axis=1)


def pair_wins(opt: Options, prev: np.ndarray, assign: list[int], i: int, ri: np.ndarray,
              j: int, rj: np.ndarray) -> np.ndarray:
    """``W[l, a, b]``: player ``l``'s win chance when player ``i`` takes row ``ri[a]``,
    player ``j`` (> i) row ``rj[b]``, the others the rows in ``assign``."""
    k = len(opt.rows)
    tables = (opt.pmf, opt.surv, prev)

    def which(l: int, m: int) -> int:  # player m's term in w_l: F, S(n) or S(n - 1)
        return 0 if m == l else 1 if m < l else 2

    # player i's and j's rows, each table taken once
    side_i = {t: tables[t][ri] for t in {which(l, i) for l in range(k)}}
    side_j = {t: tables[t][rj].T for t in {which(l, j) for l in range(k)}}
    out = np.empty((k, len(ri), len(rj)))
    for l in range(k):
        c = np.ones(opt.pmf.shape[1])
        for m in range(k):
            if m not in (i, j):
                c = c * tables[which(l, m)][assign[m]]
        out[l] = matmul(side_i[which(l, i)] * c, side_j[which(l, j)])
    return out


def better(dev: float, cost: float, best: tuple[float, float]) -> bool:
    """Whether ``(dev, cost)`` beats ``best``: a smaller deviation, or a tie (within
    :data:`TIE`) with a smaller handicap."""
    return dev < best[0] - TIE or (dev <= best[0] + TIE and cost < best[1])


def best_pair(opt: Options, prev: np.ndarray, assign: list[int], i: int, j: int
              ) -> tuple[float, float, int, int]:
    """The fairest choice of players ``i`` and ``j``'s rows, the others fixed:
    ``(deviation, cost, row_i, row_j)`` (player ``i``'s rows in blocks of at most
    :data:`PAIR_BYTES`)."""
    k = len(opt.rows)
    rows_i, rows_j = opt.rows[i], opt.rows[j]
    fixed = sum(opt.cost[assign[m]] for m in range(k) if m not in (i, j))
    step = max(1, PAIR_BYTES // (8 * (k + 3) * len(rows_j)))
    found: tuple[float, float, int, int] = (math.inf, math.inf, -1, -1)
    for lo in range(0, len(rows_i), step):
        ri = rows_i[lo: lo + step]
        dev = np.abs(pair_wins(opt, prev, assign, i, ri, j, rows_j) - 1.0 / k).max(axis=0)
        cost = opt.cost[ri][:, None] + opt.cost[rows_j][None, :] + fixed
        flat = np.flatnonzero((dev <= dev.min() + TIE).ravel())
        pick = flat[np.argmin(cost.ravel()[flat])]
        a, b = divmod(int(pick), dev.shape[1])
        if better(float(dev[a, b]), float(cost[a, b]), found[:2]):
            found = (float(dev[a, b]), float(cost[a, b]), int(ri[a]), int(rows_j[b]))
    return found


def fairest_assignment(opt: Options, method: str = "auto", progress: bool | str = False
                       ) -> tuple[list[int], int]:
    """The fairest assignment of rows to players and how many assignments were evaluated:
    exhaustive (two players, ``method="exhaustive"``, or ``"auto"`` when at most
    :data:`LOOP_MAX` combinations of the first ``k - 2`` players and :data:`WORK_MAX`
    multiply-adds), else (``"coordinate"``, or ``"auto"`` beyond them) a coordinate search
    over pairs of players. ``progress`` (as for :class:`~._core.progress.Progress`) shows
    the assignments evaluated: one bar for an exhaustive search, one per round of the
    coordinate search (``k (k - 1) / 2`` pairs, each ``k`` matrix products)."""
    k = len(opt.rows)
    prev = opt.prev
    pair = len(opt.rows[-2]) * len(opt.rows[-1])
    loops = math.prod(len(r) for r in opt.rows[:-2])
    best: tuple[float, float] = (math.inf, math.inf)
    assign = [int(r[0]) for r in opt.rows]
    small = loops <= LOOP_MAX and loops * pair * opt.pmf.shape[1] <= WORK_MAX
    widest = max(len(r) for r in opt.rows)  # a pair block holds >= 1 row of player i
    check_memory(8.0 * (k + 3) * widest + 8.0 * (widest + 1) * opt.pmf.shape[1] * 3,
                 f"a block of {k:,} players' win chances over {widest:,} options")
    # (two players: the one pair is the whole search; a coordinate round would repeat it)
    if k == 2 or method == "exhaustive" or (method == "auto" and small):
        found = list(assign)
        with Progress(loops * pair, "fair_starts (exhaustive)", enabled=progress) as bar:
            for head in itertools.product(*opt.rows[:-2]):
                trial = [*map(int, head), 0, 0]
                dev, cost, a, b = best_pair(opt, prev, trial, k - 2, k - 1)
                if better(dev, cost, best):
                    best, found = (dev, cost), [*trial[:-2], a, b]
                bar.update(pair)
        return found, loops * pair
    evaluated = 0
    sizes = [len(r) for r in opt.rows]  # a round: sum over pairs i < j of sizes[i] * sizes[j]
    per_round = (sum(sizes) ** 2 - sum(n * n for n in sizes)) // 2
    for round_ in range(50):  # coordinate search over pairs of players
        improved = False
        with Progress(per_round, f"fair_starts (coordinate, round {round_ + 1})",
                      enabled=progress) as bar:
            for i, j in itertools.combinations(range(k), 2):
                dev, cost, a, b = best_pair(opt, prev, assign, i, j)
                evaluated += len(opt.rows[i]) * len(opt.rows[j])
                bar.update(len(opt.rows[i]) * len(opt.rows[j]))
                if better(dev, cost, best):
                    improved = improved or dev < best[0] - TIE
                    best = (dev, cost)
                    assign[i], assign[j] = a, b
        if not improved:
            break
    return assign, evaluated


def stack_rows(per_row: list[tuple[np.ndarray, np.ndarray, float]]
           ) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``(pmf, survival, never)`` padded to one length (with zeros, and with the mass
    that never finishes: the tail cut is counted as finished, as :mod:`.players` does)."""
    width = max(len(p) for p, _, _ in per_row)
    check_memory(16.0 * len(per_row) * width, f"{len(per_row):,} distributions of {width:,} throws")
    pmf = np.zeros((len(per_row), width))
    surv = np.empty((len(per_row), width))
    for i, (p, s, never) in enumerate(per_row):
        pmf[i, : len(p)] = p
        surv[i, : len(s)] = s
        surv[i, len(s):] = never
    return pmf, surv


def one_start(board: Board, tail: float, max_throws: int
               ) -> tuple[np.ndarray, np.ndarray, float]:
    """``(pmf, survival, never)`` from the board's start, as :mod:`.players` computes them."""
    result = pushed_to_tail(board.compiled, board.start, tail, max_throws)
    return result.pmf, result.survival, result.never
