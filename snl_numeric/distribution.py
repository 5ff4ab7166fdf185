"""The distribution of the number of throws ``T`` to finish.

The probability mass of the token's position is pushed forward one throw at a time from
the start square: ``P(T = k)`` is the mass reaching the goal at throw ``k``. Mass on a
square from which the goal cannot be reached is set aside (those games never finish), and
the push stops once the mass that can still finish is below ``tail``. Survival
``P(T > k)`` is the mass still on the board plus the mass set aside, both pushed forward
directly as sums of non-negative terms (never one minus the finished mass, which would
turn rounding into games that never end).

On an ordinary board this is NumPy/SciPy, several throws per product
(:func:`snl_numeric._core.vectorised.push`); on a large one, a Numba kernel that visits only
the band of squares holding mass.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ._core.memory import check_memory
from ._core.progress import Progress, check_progress
from ._core.table import push_step_kernel
from ._core.validation import DEFAULT_MAX_THROWS, DEFAULT_TAIL, check_tail
from ._core.vectorised import push
from .board import Board, check_model, check_start
from .chain import fundamental
from .compile import CompiledBoard

if TYPE_CHECKING:
    from .markov import Chain

__all__ = ["Pushed", "length_distribution", "pushed", "pushed_to_tail", "tail_floor"]


@dataclass(frozen=True)
class Pushed:
    """The mass of one token pushed forward from its start.

    Attributes
    ----------
    pmf : ndarray
        ``pmf[k] = P(T = k)`` for ``k = 0 .. K``.
    survival : ndarray
        ``survival[k] = P(T > k)``: the mass still on the board after ``k`` throws plus
        the mass on squares from which the goal cannot be reached.
    remaining : float
        The mass that can still finish after ``K`` throws (below ``tail`` unless
        ``max_throws`` stopped the push).
    never : float
        The mass on squares from which the goal cannot be reached, after ``K`` throws.
    """

    pmf: np.ndarray
    survival: np.ndarray
    remaining: float
    never: float


def tail_floor(cb: CompiledBoard, start: int, throws: int) -> float:
    """A lower bound on ``P(T > throws)`` from the expected throws ``t``: after ``n`` throws
    the expected rest is at most ``max t``, so ``P(T > n) >= (t[start] - n) / max t``
    (``t`` within its certified error); 0 where that says nothing (``t[start] <= throws``,
    or ``t`` not finite or not certified).

    Examples
    --------
    >>> from snl_numeric import Board
    >>> b = Board(30, jumps={29: 1})             # 12.15 throws expected
    >>> round(tail_floor(b.compiled, 0, 10), 3), tail_floor(b.compiled, 0, 30)
    (0.177, 0.0)
    """
    sol = fundamental(cb).throws()
    mean = float(sol.x[start])
    if not (math.isfinite(mean) and mean > throws and sol.error < 1e-3):
        return 0.0
    return max(mean * (1.0 - sol.error) - throws, 0.0) / (
        float(sol.x.max()) * (1.0 + sol.error))


def pushed(cb: CompiledBoard, start: int, tail: float, max_throws: int,
           bar: Progress | None = None, hopeless: Callable[[], bool] | None = None
           ) -> Pushed:
    """Push the mass from ``start`` until the mass that can still finish is below
    ``tail`` or for ``max_throws`` throws, whichever comes first (``bar`` counts them);
    ``hopeless`` is asked once, when the mass falls too slowly to reach the tail in time:
    True stops the push there."""
    if start == cb.size:
        return Pushed(np.array([1.0]), np.array([0.0]), 0.0, 0.0)
    live = cb.live
    if not live[start]:
        return Pushed(np.array([0.0]), np.array([1.0]), 0.0, 1.0)
    if cb.ordinary or cb.probs.ndim == 2:  # (a chain's rows: sparse products at any size)
        pmf, on_board, lost = push(cb.succ, cb.probs, live & cb.reachable_from(start), start,
                                   tail, max_throws, bar, hopeless)
    else:
        pmf, on_board, lost = _push_large(cb, np.array(live), start, tail, max_throws, bar,
                                          hopeless)
    return Pushed(pmf, on_board + lost, float(on_board[-1]), float(lost[-1]))


def pushed_to_tail(cb: CompiledBoard, start: int, tail: float, max_throws: int,
                   bar: Progress | None = None) -> Pushed:
    """:func:`pushed`, with a ``ValueError`` when the mass that can still finish does not
    fall below ``tail`` within ``max_throws`` throws: at once where :func:`tail_floor`
    proves it, once the push looks too slow (a board of astronomical length is not pushed
    ten million throws first)."""
    floor = 0.0

    def hopeless() -> bool:
        nonlocal floor
        floor = tail_floor(cb, start, max_throws)
        return floor >= tail

    result = pushed(cb, start, tail, max_throws, bar, hopeless)
    if floor >= tail:
        raise ValueError(
            f"the tail cannot fall below {tail:g} within max_throws={max_throws} throws (at "
            f"least {floor:.3g} of the mass is left: P(T > n) >= (E[T] - n) / max t); raise "
            "max_throws or tail")
    if result.remaining >= tail:
        raise ValueError(
            f"the tail did not fall below {tail:g} within max_throws={max_throws} throws "
            f"(remaining mass {result.remaining:.3g}); raise max_throws or tail")
    return result


def _push_large(cb: CompiledBoard, live: np.ndarray, start: int, tail: float,
                max_throws: int, bar: Progress | None, hopeless: Callable[[], bool] | None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~snl_numeric._core.vectorised.push` for a large board: one kernel call per
    throw over the band of squares holding mass (Ctrl-C is honoured between throws);
    ``live`` writable, as every caller of the kernel passes it. ``hopeless`` is asked once,
    when the arrays grow and the mass's fall over the last half of the throws would not
    reach the tail in time."""
    mass = np.zeros(cb.n_states)
    mass[start] = 1.0
    nxt = np.zeros(cb.n_states)
    band = np.array([start, start], dtype=np.int64)
    leaving = (~live[cb.succ] & (cb.succ != cb.size)) @ cb.probs  # to where it cannot finish
    leaving[~live] = 0.0
    strands = bool(leaving.any())
    size = 1024
    pmf, on_board, lost = (np.zeros(size) for _ in range(3))
    on_board[0] = 1.0
    k = 0
    while k < max_throws:
        if k + 1 == size:
            rate = (on_board[k] / on_board[k // 2]) ** (1.0 / (k - k // 2))
            wanted = math.log(tail / on_board[k]) / math.log(rate) if 0.0 < rate < 1.0 else 4 * k
            if hopeless is not None and k + wanted > max_throws:
                if hopeless():
                    break
                hopeless = None
            size = min(2 * size, max_throws + 1)
            check_memory(24 * size, f"a distribution of {size:,} throws")
            pmf, on_board, lost = (np.concatenate([a, np.zeros(size - len(a))])
                                   for a in (pmf, on_board, lost))
        lo, hi = band
        step_lost = float(mass[lo: hi + 1] @ leaving[lo: hi + 1]) if strands else 0.0
        k += 1
        pmf[k], on_board[k] = push_step_kernel(cb.succ, cb.probs, mass, nxt, live, cb.size,
                                               band)
        lost[k] = lost[k - 1] + step_lost
        if bar is not None:
            bar.update(1)
        if on_board[k] < tail:
            break
    return pmf[: k + 1].copy(), on_board[: k + 1].copy(), lost[: k + 1].copy()


def length_distribution(
    board: Board | Chain,
    start: int | None = None,
    *,
    tail: float = DEFAULT_TAIL,
    max_throws: int = DEFAULT_MAX_THROWS,
    progress: bool | str = False,
) -> np.ndarray:
    """Distribution of the number of throws to finish.

    Parameters
    ----------
    board : Board or Chain
        For a chain: the distribution of the number of steps to absorption.
    start : int, optional
        Starting square (a chain's state); the board's start by default.
    tail : float, default 1e-12
        The probability of the games longer than the returned pmf, among
        those that can still finish, is below ``tail``.
    max_throws : int, default 10_000_000
        Give up (``ValueError``) if ``tail`` is not reached by then.
    progress : bool or "always", default False
        A progress bar on standard error counting the throws pushed (a widget in
        Jupyter; their number is known only at the end, so the bar has no total): True
        shows it on a terminal or in a notebook only, ``"always"`` in pipes and files
        too. Ctrl-C (``KeyboardInterrupt``) stops the push between two throws (two
        blocks of throws on ordinary boards).

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
    start = check_start(check_model(board), start)
    tail = check_tail(tail, max_throws)
    progress = check_progress(progress)
    cb = board.compiled  # (compiled before the bar starts)
    with Progress(0, "length_distribution", enabled=progress) as bar:
        return pushed_to_tail(cb, start, tail, int(max_throws), bar).pmf
