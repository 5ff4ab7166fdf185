"""Fewest throws: breadth-first frontier propagation towards the goal.

The distance of every square to the goal comes from one BFS from the goal
over the *reversed* moves (on a large board, the moves that are their face's
usual step are reversed in place and only jumps and overshoot tabulated; see
``CompiledBoard.reach``), so ``throw_distances`` costs O(size * faces)
whatever the start. A
fewest-throws play is then read off greedily: from a square at distance
``k`` some face leads to a square at distance ``k - 1``.
"""

from __future__ import annotations

import numpy as np

from .board import Board, check_board, check_start

__all__ = ["min_throws", "shortest_path", "throw_distances"]


def throw_distances(board: Board) -> np.ndarray:
    """Fewest throws from every square to the goal.

    Parameters
    ----------
    board : Board

    Returns
    -------
    ndarray of int64, shape (size + 1,)
        ``-1`` where the goal cannot be reached; 0 at the goal.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> throw_distances(Board(8)).tolist()
    [2, 2, 1, 1, 1, 1, 1, 1, 0]
    """
    return check_board(board).compiled.reach[0].copy()


def min_throws(board: Board, start: int | None = None) -> int:
    """Fewest throws from ``start`` (default: the board's start) to the goal.

    Parameters
    ----------
    board : Board
    start : int, optional
        Starting square; the board's own ``start`` by default.

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
    start = check_start(check_board(board), start)
    return int(board.compiled.reach[0][start])


def shortest_path(board: Board, start: int | None = None) -> list[tuple[int, int, int]] | None:
    """One fewest-throws play as steps ``(square, face, landing)``.

    ``landing`` is where the token rests after the jump, if any. At each step
    the smallest face that keeps the play shortest is taken. Returns ``None``
    when the goal cannot be reached and ``[]`` when ``start`` is the goal.

    Parameters
    ----------
    board : Board
    start : int, optional
        Starting square; the board's own ``start`` by default.

    Returns
    -------
    list of (int, int, int) or None

    Examples
    --------
    >>> from snl_numeric import boards
    >>> shortest_path(boards.get("seed-30"))
    [(0, 2, 21), (21, 2, 23), (23, 6, 29)]
    """
    start = check_start(check_board(board), start)
    cb = board.compiled
    dist = cb.reach[0]
    if dist[start] < 0:
        return None
    steps = []
    x = start
    while x != cb.size:
        nxt = cb.succ[x]
        f = int(np.flatnonzero(dist[nxt] == dist[x] - 1)[0])
        steps.append((x, int(cb.faces[f]), int(nxt[f])))
        x = int(nxt[f])
    return steps
