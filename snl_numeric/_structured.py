"""Allocation-light Numba kernels for one small board: compile, BFS, moments.

These kernels take only arrays and scalars, so batch analysis and board
design can call them inside ``prange`` loops over many boards.

Moments use the structure of ``A = I - Q``: throws move forward except for
snakes (and bounces), so ``A = U - C E^T`` where ``U = I - Q_forward`` is
upper triangular (self-loops on its diagonal) and the backward moves land on
only ``k`` distinct squares ``B``, giving a rank-``k`` correction. With
``W = U^-1 C`` and ``S = I_k - E^T W`` (Woodbury)::

    A^-1 b = U^-1 b + W S^-1 (U^-1 b)[B]

Each ``U^-1`` is one back-substitution from the goal downwards over the
successor table, so the cost is ``O((k + 2) * size * faces + k**3)``:
microseconds for a 100-square board with ten snakes.
"""

from __future__ import annotations

import numpy as np

from ._numba_config import njit

#: ``overshoot`` codes used by the kernels.
OVERSHOOT_CODES = {"win": 0, "exact": 1, "bounce": 2}


@njit()
def _fill_succ(size, jump_to, overshoot, chain, faces, succ, landed=None):  # pragma: no cover
    """Successor table of a board: ``jump_to[x]`` is -1 or the destination.

    ``overshoot`` is a code of ``OVERSHOOT_CODES``. With ``landed`` given,
    ``landed[x, f]`` receives the jump square the throw lands on (the first
    jump it fires) or -1. Faces larger than the board never overflow: a face
    is compared with the distance to the goal before it is added.
    """
    for x in range(size + 1):
        for f in range(faces.shape[0]):
            if landed is not None:
                landed[x, f] = -1
            if x == size:
                succ[x, f] = size
                continue
            d = faces[f]
            if d > size - x:
                if overshoot == 0:
                    t = size
                elif overshoot == 1:
                    succ[x, f] = x
                    continue
                else:
                    t = size - (d - (size - x))  # Board guarantees d <= size + 1
            else:
                t = x + d
            if jump_to[t] >= 0:
                if landed is not None:
                    landed[x, f] = t
                t = jump_to[t]
                if chain:
                    while jump_to[t] >= 0:
                        t = jump_to[t]
            succ[x, f] = t


@njit()
def _reach(succ, dist, sure):  # pragma: no cover - jitted
    """Fewest throws to the goal (``dist``, -1 if unreachable) and the sure mask.

    ``sure[x]`` is True when the goal is reached from ``x`` with probability 1:
    ``x`` cannot reach a square from which the goal is unreachable.
    """
    n, n_faces = succ.shape
    goal = n - 1
    ptr = np.zeros(n + 1, dtype=np.int64)
    for x in range(goal):
        for f in range(n_faces):
            ptr[succ[x, f] + 1] += 1
    for y in range(n):
        ptr[y + 1] += ptr[y]
    fill = ptr[:-1].copy()
    pred = np.empty(ptr[n], dtype=np.int64)
    for x in range(goal):
        for f in range(n_faces):
            y = succ[x, f]
            pred[fill[y]] = x
            fill[y] += 1
    queue = np.empty(n, dtype=np.int64)
    dist[:] = -1
    dist[goal] = 0
    queue[0] = goal
    head, tail = 0, 1
    while head < tail:
        y = queue[head]
        head += 1
        for i in range(ptr[y], ptr[y + 1]):
            x = pred[i]
            if dist[x] == -1:
                dist[x] = dist[y] + 1
                queue[tail] = x
                tail += 1
    # squares that can reach a stuck square are not sure
    sure[:] = True
    head, tail = 0, 0
    for x in range(goal):
        if dist[x] == -1:
            sure[x] = False
            queue[tail] = x
            tail += 1
    while head < tail:
        y = queue[head]
        head += 1
        for i in range(ptr[y], ptr[y + 1]):
            x = pred[i]
            if sure[x]:
                sure[x] = False
                queue[tail] = x
                tail += 1


@njit()
def _back_substitute(succ, probs, sure, rhs, z):  # pragma: no cover - jitted
    """Solve ``U z = rhs`` (columns at once), ``U = I - Q_forward`` on sure squares.

    Above the highest nonzero entry of a column of ``rhs`` that column of
    ``z`` is zero, so row ``x`` only updates the columns up to the last one
    already nonzero at or above ``x``: put the columns that start highest
    first and the sweep skips the zeros.
    """
    n, n_faces = succ.shape
    m = rhs.shape[1]
    goal = n - 1
    if m == 1:  # one right-hand side: keep the running sum in a register
        z[goal, 0] = 0.0
        for x in range(goal - 1, -1, -1):
            if not sure[x]:
                z[x, 0] = 0.0
                continue
            diag = 1.0
            v = rhs[x, 0]
            for f in range(n_faces):
                y = succ[x, f]
                if y == x:
                    diag -= probs[f]
                elif y > x and y != goal:
                    v += probs[f] * z[y, 0]
            z[x, 0] = v / diag
        return
    # last[x]: the highest column whose first nonzero (from the goal down) is row x
    last = np.full(n, -1, dtype=np.int64)
    for j in range(m):
        for x in range(goal - 1, -1, -1):
            if sure[x] and rhs[x, j] != 0.0:
                if j > last[x]:
                    last[x] = j
                break
    active = 0  # columns 0 .. active - 1 may be nonzero from here down
    for j in range(m):
        z[goal, j] = 0.0
    for x in range(goal - 1, -1, -1):
        if last[x] + 1 > active:
            active = last[x] + 1
        for j in range(active, m):
            z[x, j] = 0.0
        if not sure[x]:
            for j in range(active):
                z[x, j] = 0.0
            continue
        diag = 1.0
        for j in range(active):
            z[x, j] = rhs[x, j]
        for f in range(n_faces):
            y = succ[x, f]
            if y == x:
                diag -= probs[f]
            elif y > x and y != goal:
                p = probs[f]
                for j in range(active):
                    z[x, j] += p * z[y, j]
        for j in range(active):
            z[x, j] /= diag


@njit()
def _lu_inplace(a, piv):  # pragma: no cover - jitted
    """LU with partial pivoting of the small square ``a``, in place."""
    k = a.shape[0]
    for c in range(k):
        p = c
        best = abs(a[c, c])
        for r in range(c + 1, k):
            if abs(a[r, c]) > best:
                best = abs(a[r, c])
                p = r
        piv[c] = p
        if p != c:
            for j in range(k):
                a[c, j], a[p, j] = a[p, j], a[c, j]
        for r in range(c + 1, k):
            a[r, c] /= a[c, c]
            for j in range(c + 1, k):
                a[r, j] -= a[r, c] * a[c, j]


@njit()
def _lu_solve_inplace(a, piv, b):  # pragma: no cover - jitted
    k = a.shape[0]
    for c in range(k):
        p = piv[c]
        if p != c:
            b[c], b[p] = b[p], b[c]
    for r in range(k):
        for j in range(r):
            b[r] -= a[r, j] * b[j]
    for r in range(k - 1, -1, -1):
        for j in range(r + 1, k):
            b[r] -= a[r, j] * b[j]
        b[r] /= a[r, r]


@njit()
def _moments_kernel(succ, probs, sure, mean, var):  # pragma: no cover - jitted
    """Expected throws and variance from every square (``inf`` where not sure)."""
    n, n_faces = succ.shape
    goal = n - 1
    # backward targets numbered from the highest square that jumps back to them
    # down, so the columns of C that start highest come first
    bidx = np.full(n, -1, dtype=np.int64)
    k = 0
    for x in range(goal - 1, -1, -1):
        if sure[x]:
            for f in range(n_faces):
                y = succ[x, f]
                if y < x and bidx[y] < 0:
                    bidx[y] = k
                    k += 1
    targets = np.empty(k, dtype=np.int64)
    for y in range(n):
        if bidx[y] >= 0:
            targets[bidx[y]] = y
    # column 0: ones, columns 1..k: C (backward probabilities)
    rhs = np.zeros((n, k + 1))
    for x in range(goal):
        if sure[x]:
            rhs[x, 0] = 1.0
            for f in range(n_faces):
                y = succ[x, f]
                if y < x:
                    rhs[x, 1 + bidx[y]] += probs[f]
    z = np.empty((n, k + 1))
    _back_substitute(succ, probs, sure, rhs, z)
    s = np.empty((k, k))
    for a in range(k):
        for b in range(k):
            s[a, b] = (1.0 if a == b else 0.0) - z[targets[a], 1 + b]
    piv = np.empty(k, dtype=np.int64)
    _lu_inplace(s, piv)
    coef = np.empty(k)
    for a in range(k):
        coef[a] = z[targets[a], 0]
    _lu_solve_inplace(s, piv, coef)
    t = np.empty((n, 1))
    for x in range(n):
        acc = z[x, 0]
        for a in range(k):
            acc += z[x, 1 + a] * coef[a]
        t[x, 0] = acc if sure[x] else 0.0
    t[goal, 0] = 0.0
    u = np.empty((n, 1))
    _back_substitute(succ, probs, sure, t, u)
    for a in range(k):
        coef[a] = u[targets[a], 0]
    _lu_solve_inplace(s, piv, coef)
    for x in range(n):
        if not sure[x]:
            mean[x] = np.inf
            var[x] = np.inf
            continue
        second = u[x, 0]
        for a in range(k):
            second += z[x, 1 + a] * coef[a]
        tx = t[x, 0]
        mean[x] = tx
        v = 2.0 * second - tx - tx * tx
        var[x] = v if v > 0.0 else 0.0
    return k


def structured_moments(succ: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                      np.ndarray]:
    """Distances, means and variances from a successor table (for one board).

    Examples
    --------
    >>> from snl_numeric import boards
    >>> cb = boards.get("milton-bradley").compiled
    >>> dist, mean, var = structured_moments(cb.succ, cb.probs)
    >>> int(dist[0]), round(float(mean[0]), 6)
    (7, 39.225122)
    """
    succ = np.ascontiguousarray(succ, dtype=np.int64)
    n = succ.shape[0]
    dist = np.empty(n, dtype=np.int64)
    sure = np.empty(n, dtype=np.bool_)
    _reach(succ, dist, sure)
    mean = np.empty(n)
    var = np.empty(n)
    _moments_kernel(succ, np.asarray(probs, dtype=np.float64), sure, mean, var)
    return dist, mean, var
