"""Baselines as a SciPy user writes them (issue 53): the chain from a board's public
description, built with NumPy fancy indexing and ``scipy.sparse.coo_array``, solved with
``scipy.sparse.linalg.spsolve``; and the same chain as a dense matrix for QuantEcon.

Nothing here reads the library's compiled tables: a baseline sees what a user sees
(``size``, ``jumps``, ``dice``, ``overshoot``, ``chain``, ``start``), or the plain arrays
of a batch.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla


def landing(size: int, src, dst, faces, overshoot: str = "win",
            chain: bool = False) -> np.ndarray:
    """``(size, faces)`` table: where a throw of each face from each square ends."""
    faces = np.asarray(faces)
    pos = np.arange(size)[:, None]
    target = pos + faces[None, :]
    over = target > size
    if overshoot == "win":
        target = np.minimum(target, size)
    elif overshoot == "bounce":
        target = np.where(over, 2 * size - target, target)
    else:  # "exact": the token stays (and takes no jump)
        target = np.where(over, pos, target)
    jump = np.arange(size + 1)
    jump[np.asarray(src, dtype=np.int64)] = np.asarray(dst, dtype=np.int64)
    if chain:  # follow jumps until they rest (pointer doubling; the board has no cycle)
        while not np.array_equal(nxt := jump[jump], jump):
            jump = nxt
    land = jump[target]
    return np.where(over, pos, land) if overshoot == "exact" else land


def system(size: int, src, dst, faces, probs, overshoot: str = "win",
           chain: bool = False) -> tuple[sp.csc_array, np.ndarray]:
    """``I - Q`` (CSC) over the squares ``0 .. size - 1``, and the landing table."""
    land = landing(size, src, dst, faces, overshoot, chain)
    nf = land.shape[1]
    rows = np.repeat(np.arange(size), nf)
    cols = land.ravel()
    vals = np.tile(np.asarray(probs, dtype=np.float64), size)
    keep = cols < size  # the goal's column is not in Q
    diag = np.arange(size)  # I - Q as one COO array: the ones, then -Q (duplicates summed)
    a = sp.coo_array((np.concatenate([np.ones(size), -vals[keep]]),
                      (np.concatenate([diag, rows[keep]]), np.concatenate([diag, cols[keep]]))),
                     shape=(size, size))
    return a.tocsc(), land


def board_system(board) -> tuple[sp.csc_array, np.ndarray]:
    """:func:`system` from a ``Board``'s public fields."""
    src, dst = (list(board.jumps), list(board.jumps.values()))
    return system(board.size, src, dst, board.dice.faces, board.dice.probs,
                  board.overshoot, board.chain)


def sure_squares(land: np.ndarray) -> np.ndarray:
    """Indices of the squares that reach the goal with probability 1 (no move can take
    them where the goal is out of reach), by two breadth-first searches on the reversed
    graph of moves with ``scipy.sparse.csgraph``: the goal's, then the unreachable
    squares' (through one extra node pointing at them)."""
    size, nf = land.shape
    rows = np.repeat(np.arange(size), nf)
    rev = sp.coo_array((np.ones(rows.size), (land.ravel(), rows)),
                       shape=(size + 2, size + 2)).tocsr()
    can = np.zeros(size + 2, dtype=bool)
    can[csgraph.breadth_first_order(rev, size, return_predecessors=False)] = True
    dead = np.flatnonzero(~can[:size])
    if len(dead) == 0:
        return np.arange(size)
    hub = sp.coo_array((np.ones(len(dead)), (np.full(len(dead), size + 1), dead)),
                       shape=(size + 2, size + 2)).tocsr()
    doomed = np.zeros(size + 2, dtype=bool)
    doomed[csgraph.breadth_first_order(rev + hub, size + 1, return_predecessors=False)] = True
    return np.flatnonzero(~doomed[:size])


def scipy_expected(board) -> float:
    """Expected throws from the start: vectorised ``I - Q``, then ``spsolve``."""
    a, _ = board_system(board)
    return float(spla.spsolve(a, np.ones(board.size))[board.start])


def scipy_columns(size: int, src, dst, faces, probs, overshoot: str = "win",
                  chain: bool = False, start: int = 0) -> tuple[int, float, float]:
    """Fewest throws, mean and variance from ``start``: one ``splu`` of ``I - Q`` for
    ``t = N 1`` and ``u = N t`` (variance ``2 u - t - t**2``), a BFS with
    ``scipy.sparse.csgraph.shortest_path`` (unweighted)."""
    a, land = system(size, src, dst, faces, probs, overshoot, chain)
    lu = spla.splu(a)
    t = lu.solve(np.ones(size))
    u = lu.solve(t)
    rows = np.repeat(np.arange(size), land.shape[1])
    adj = sp.coo_array((np.ones(rows.size), (rows, land.ravel())),
                       shape=(size + 1, size + 1)).tocsr()
    d = csgraph.shortest_path(adj, unweighted=True, indices=start)[size]
    return (int(d) if np.isfinite(d) else -1, float(t[start]),
            float(2 * u[start] - t[start] - t[start] ** 2))


def gth_matrix(board) -> np.ndarray:
    """The board's chain as a dense stochastic matrix whose goal leads back to the start
    (irreducible on the squares reached), for QuantEcon's ``gth_solve``:
    ``E[T] = 1 / pi_goal - 1``."""
    n = board.size
    _, land = board_system(board)
    p = np.zeros((n + 1, n + 1))
    np.add.at(p, (np.repeat(np.arange(n), land.shape[1]), land.ravel()),
              np.tile(np.asarray(board.dice.probs, dtype=np.float64), n))
    p[n, board.start] = 1.0
    return p
