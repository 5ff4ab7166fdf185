"""Fewest throws: breadth-first frontier propagation towards the goal.

The distance of every square to the goal comes from one BFS from the goal
over the *reversed* moves (on a large board, the moves that are their face's
usual step are reversed in place and only jumps and overshoot tabulated; see
``CompiledBoard.reach``), so ``throw_distances`` costs O(size * faces)
whatever the start. A
fewest-throws play is then read off greedily: from a square at distance
``k`` some face leads to a square at distance ``k - 1``. ``min_throws`` and
``shortest_path`` alone, on an ordinary board whose distances are not known yet, search
forward from the start only (no reversed moves): the goal's depth, and its predecessors,
which are the play whose faces come first (``CompiledBoard.throws_from``, ``play_from``).

A :class:`~snl_numeric.Chain` is answered the same way over its compiled table (steps
instead of throws; every absorbing state at distance 0), in its own state order.
"""

from __future__ import annotations

import numpy as np

from typing import TYPE_CHECKING, overload

from .board import Board, check_model, check_start

if TYPE_CHECKING:
    from .markov import Chain

__all__ = ["min_throws", "shortest_path", "throw_distances"]


def throw_distances(board: Board | Chain) -> np.ndarray:
    """Fewest throws from every square to the goal.

    Parameters
    ----------
    board : Board or Chain

    Returns
    -------
    ndarray of int64, shape (size + 1,)
        ``-1`` where the goal cannot be reached; 0 at the goal. For a chain: the fewest
        steps from each state to an absorbing state, in the chain's order (0 on absorbing
        states).

    Examples
    --------
    >>> from snl_numeric import Board
    >>> throw_distances(Board(8)).tolist()
    [2, 2, 1, 1, 1, 1, 1, 1, 0]
    """
    cb = check_model(board).compiled
    return cb.in_state_order(cb.reach[0])


def min_throws(board: Board | Chain, start: int | None = None) -> int:
    """Fewest throws from ``start`` (default: the board's start) to the goal.

    Parameters
    ----------
    board : Board or Chain
        For a chain: the fewest steps to an absorbing state.
    start : int, optional
        Starting square (a chain's state); the board's own ``start`` by default.

    Returns
    -------
    int
        ``-1`` when the goal cannot be reached.

    Examples
    --------
    >>> from snl_numeric import boards
    >>> min_throws(boards.get("seed-30"))
    3
    """
    start = check_start(check_model(board), start)
    return board.compiled.throws_from(start)


@overload
def shortest_path(board: Board, start: int | None = None) -> list[tuple[int, int, int]] | None: ...
@overload
def shortest_path(board: Chain, start: int | None = None) -> list[tuple[int, float, int]] | None: ...


def shortest_path(board: Board | Chain, start: int | None = None
                  ) -> list[tuple[int, int, int]] | list[tuple[int, float, int]] | None:
    """One fewest-throws play as steps ``(square, face, landing)``.

    ``landing`` is where the token rests after the jump, if any. At each step
    the smallest face that keeps the play shortest is taken. Returns ``None``
    when the goal cannot be reached and ``[]`` when ``start`` is the goal.

    Parameters
    ----------
    board : Board or Chain
        For a chain: steps ``(state, probability, next state)`` (a chain has no faces:
        the step's probability stands in their place), the lowest next state that keeps
        the path shortest taken, ending on an absorbing state.
    start : int, optional
        Starting square (a chain's state); the board's own ``start`` by default.

    Returns
    -------
    list of (int, int, int) or None

    Examples
    --------
    >>> from snl_numeric import boards
    >>> shortest_path(boards.get("seed-30"))
    [(0, 2, 21), (21, 2, 23), (23, 6, 29)]
    """
    model = check_model(board)
    if not isinstance(model, Board):
        return _chain_path(model, start)
    start = check_start(model, start)
    cb = board.compiled
    squares = cb.play_from(start)
    if squares is None:
        return None
    xs, ys = squares[:-1], squares[1:]
    first = (cb.succ[xs] == ys[:, None]).argmax(axis=1)  # the first face of each step
    return list(zip(xs.tolist(), cb.faces[first].tolist(), ys.tolist(), strict=True))


def _chain_path(chain: Chain, start: int | None) -> list[tuple[int, float, int]] | None:
    """:func:`shortest_path` of a chain, over its own matrix and states."""
    check_start(chain, start)
    x = chain.start if start is None else int(start)
    dist = throw_distances(chain)
    if dist[x] < 0:
        return None
    P = chain.P
    steps = []
    while dist[x] > 0:
        cols = P.indices[P.indptr[x]:P.indptr[x + 1]]
        k = int(np.flatnonzero(dist[cols] == dist[x] - 1)[0])
        y = int(cols[k])
        steps.append((x, float(P.data[P.indptr[x] + k]), y))
        x = y
    return steps
