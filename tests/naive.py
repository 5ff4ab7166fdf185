"""Slow, obvious reference implementations.

Every fast path in :mod:`snl_numeric` is compared with a twin in this file.
Nothing here is optimised; clarity is the point.
"""

from __future__ import annotations


# --- batch ---
def batch_row(size, jumps, start=0, overshoot="win", chain=False, dice=None):
    """Fewest throws, mean, variance and median of one board, the obvious way.

    Plain Python BFS over the moves, dense ``numpy.linalg.solve`` for
    ``(I - Q) t = 1`` and ``(I - Q) u = t`` on the squares that surely
    finish, and the median by pushing the probability mass throw by throw.
    ``dice`` is a mapping face -> probability (fair d6 by default).
    """
    import numpy as np

    dice = dice or {f: 1 / 6 for f in range(1, 7)}
    jumps = dict(jumps)

    def move(x, f):
        if x == size:
            return size
        t = x + f
        if t > size:
            if overshoot == "win":
                t = size
            elif overshoot == "exact":
                return x
            else:
                t = 2 * size - t
        if t in jumps:
            t = jumps[t]
            while chain and t in jumps:
                t = jumps[t]
        return t

    n = size + 1
    moves = {x: [(move(x, f), p) for f, p in dice.items() if p > 0] for x in range(n)}
    # BFS backwards from the goal
    dist = {size: 0}
    frontier = [size]
    while frontier:
        nxt = []
        for x in range(n):
            if x not in dist and any(y in frontier for y, _ in moves[x]):
                dist[x] = dist[frontier[0]] + 1
                nxt.append(x)
        frontier = nxt
    # squares from which some path leads to a dead square are not sure
    dead = {x for x in range(n) if x not in dist}
    changed = True
    while changed:
        changed = False
        for x in range(n):
            if x not in dead and any(y in dead for y, _ in moves[x]):
                dead.add(x)
                changed = True
    sure = [x for x in range(size) if x not in dead]
    pos = {x: i for i, x in enumerate(sure)}
    a = np.eye(len(sure))
    for x in sure:
        for y, p in moves[x]:
            if y in pos:
                a[pos[x], pos[y]] -= p
    mean = var = float("inf")
    if start == size:
        mean = var = 0.0
    elif start in pos:
        t = np.linalg.solve(a, np.ones(len(sure))) if sure else np.zeros(0)
        u = np.linalg.solve(a, t) if sure else np.zeros(0)
        i = pos[start]
        mean = float(t[i])
        var = max(float(2 * u[i] - t[i] - t[i] ** 2), 0.0)
    # median: first k with P(T <= k) >= 1/2
    median = None
    if start == size:
        median = 0
    elif start in dist:
        mass = {start: 1.0}
        cum, k = 0.0, 0
        while median is None and sum(mass.values()) > 1e-13 and k < 100_000:
            k += 1
            new = {}
            for x, m in mass.items():
                for y, p in moves[x]:
                    new[y] = new.get(y, 0.0) + m * p
            cum += new.pop(size, 0.0)
            mass = {x: m for x, m in new.items() if x in dist}
            if cum >= 0.5 - 1e-12:
                median = k
    return {"min_throws": dist.get(start, -1), "expected_throws": mean, "variance": var,
            "median": median}
