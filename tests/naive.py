"""Slow, obvious reference implementations.

Every fast path in :mod:`snl_numeric` is compared with a twin in this file.
Nothing here is optimised; clarity is the point.
"""

from __future__ import annotations


# --- large ---
import numpy as _np  # noqa: E402
import scipy.sparse as _sp  # noqa: E402
import scipy.sparse.linalg as _spla  # noqa: E402


def large_successor(board, x, face):
    """Where a token on ``x`` rests after throwing ``face``, from the rules."""
    size = board.size
    if x == size:
        return size
    t = x + face
    if t > size:
        if board.overshoot == "win":
            t = size
        elif board.overshoot == "exact":
            return x
        else:
            t = 2 * size - t
    if t in board.jumps:
        t = board.jumps[t]
        while board.chain and t in board.jumps:
            t = board.jumps[t]
    return t


def large_transitions(board):
    """The transition matrix P (CSR) built square by square."""
    rows, cols, vals = [], [], []
    for x in range(board.size + 1):
        for face, p in board.dice.to_dict().items():
            rows.append(x)
            cols.append(large_successor(board, x, face))
            vals.append(p)
    n = board.size + 1
    return _sp.csr_matrix((vals, (rows, cols)), shape=(n, n))


def large_reach(p, targets):
    """Squares with a path (of positive-probability throws) into ``targets``."""
    pred = {}
    coo = p.tocoo()
    for i, j in zip(coo.row.tolist(), coo.col.tolist()):
        pred.setdefault(j, []).append(i)
    seen = set(targets)
    todo = list(targets)
    while todo:
        y = todo.pop()
        for x in pred.get(y, []):
            if x not in seen:
                seen.add(x)
                todo.append(x)
    return seen


def large_moments(board):
    """Expected throws and variance from every square by ``spsolve`` on ``I - Q``.

    Squares that can reach a square from which the goal is unreachable get ``inf``.
    """
    size = board.size
    p = large_transitions(board)
    can_finish = large_reach(p, [size])
    stuck = [x for x in range(size + 1) if x not in can_finish]
    unsure = large_reach(p, stuck) if stuck else set()
    sure = _np.array([x for x in range(size) if x not in unsure], dtype=int)
    mean = _np.full(size + 1, _np.inf)
    var = _np.full(size + 1, _np.inf)
    mean[size] = var[size] = 0.0
    if len(sure):
        a = (_sp.identity(len(sure)) - p[sure][:, sure]).tocsc()
        t = _spla.spsolve(a, _np.ones(len(sure)))
        u = _spla.spsolve(a, t)
        mean[sure] = t
        var[sure] = 2 * u - t - t * t
    return mean, var, sure, p


def large_pmf(board, start, n_throws):
    """``P(T = k)`` for ``k < n_throws`` by repeated sparse products."""
    p = large_transitions(board).T.tocsr()
    mass = _np.zeros(board.size + 1)
    mass[start] = 1.0
    pmf = _np.zeros(n_throws)
    if start == board.size:
        pmf[0] = 1.0
        return pmf
    for k in range(1, n_throws):
        mass = p @ mass
        pmf[k] = mass[board.size]
        mass[board.size] = 0.0
    return pmf


def large_distances(board):
    """Fewest throws to the goal from every square by plain BFS over the rules."""
    p = large_transitions(board)
    coo = p.tocoo()
    pred = {}
    for i, j in zip(coo.row.tolist(), coo.col.tolist()):
        pred.setdefault(j, []).append(i)
    dist = [-1] * (board.size + 1)
    dist[board.size] = 0
    frontier = [board.size]
    while frontier:
        nxt = []
        for y in frontier:
            for x in pred.get(y, []):
                if dist[x] == -1:
                    dist[x] = dist[y] + 1
                    nxt.append(x)
        frontier = nxt
    return _np.array(dist)
