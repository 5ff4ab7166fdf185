"""Fewest throws: breadth-first frontier propagation towards the goal.

The distance of every square to the goal comes from one multi-source BFS
over the *reversed* adjacency (the CSC form of the transition matrix), so
``throw_distances`` costs O(size * faces) whatever the start. A
fewest-throws play is then read off greedily: from a square at distance
``k`` some face leads to a square at distance ``k - 1``.
"""

from __future__ import annotations

import numpy as np

from ._numba_config import njit
from .board import Board

__all__ = ["min_throws", "shortest_path", "throw_distances"]


@njit()
def _bfs_kernel(indptr, indices, sources, dist):  # pragma: no cover - jitted
    """Multi-source BFS on CSR ``(indptr, indices)``; ``dist`` must be -1."""
    queue = np.empty(dist.shape[0], dtype=np.int64)
    head = 0
    tail = 0
    for s in sources:
        if dist[s] == -1:
            dist[s] = 0
            queue[tail] = s
            tail += 1
    while head < tail:
        v = queue[head]
        head += 1
        nd = dist[v] + 1
        for k in range(indptr[v], indptr[v + 1]):
            u = indices[k]
            if dist[u] == -1:
                dist[u] = nd
                queue[tail] = u
                tail += 1


def _bfs(adjacency, sources) -> np.ndarray:
    """Hop distances from ``sources`` along ``adjacency`` (CSR or CSC), -1 if none."""
    dist = np.full(adjacency.shape[0], -1, dtype=np.int64)
    _bfs_kernel(adjacency.indptr, adjacency.indices, np.asarray(sources, dtype=np.int64), dist)
    return dist


def _start(board: Board, start: int | None) -> int:
    if start is None:
        return board.start
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)):
        raise TypeError(f"start must be an integer square, got {start!r}")
    if not 0 <= start <= board.size:
        raise ValueError(f"start must be a square in 0..{board.size}, got {start}")
    return int(start)


def _check_board(board: Board) -> Board:
    if not isinstance(board, Board):
        raise TypeError(f"expected a Board, got {type(board).__name__}")
    return board


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
    cb = _check_board(board).compiled
    cached = cb.__dict__.get("_distances")
    if cached is None:
        cached = _bfs(cb.reverse, [cb.size])
        cached.flags.writeable = False
        cb.__dict__["_distances"] = cached
    return cached.copy()


def min_throws(board: Board, start: int | None = None) -> int:
    """Fewest throws from ``start`` (default: the board's start) to the goal.

    Returns ``-1`` when the goal cannot be reached.

    Examples
    --------
    >>> from snl_numeric import boards
    >>> min_throws(boards.get("seed-30"))
    3
    """
    start = _start(_check_board(board), start)
    throw_distances(board)
    return int(board.compiled.__dict__["_distances"][start])


def shortest_path(board: Board, start: int | None = None) -> list[tuple[int, int, int]] | None:
    """One fewest-throws play as steps ``(square, face, landing)``.

    ``landing`` is where the token rests after the jump, if any. At each step
    the smallest face that keeps the play shortest is taken. Returns ``None``
    when the goal cannot be reached and ``[]`` when ``start`` is the goal.

    Examples
    --------
    >>> from snl_numeric import boards
    >>> shortest_path(boards.get("seed-30"))
    [(0, 2, 21), (21, 2, 23), (23, 6, 29)]
    """
    start = _start(_check_board(board), start)
    throw_distances(board)
    cb = board.compiled
    dist = cb.__dict__["_distances"]
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
