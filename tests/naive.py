"""Slow, obvious reference implementations.

Every fast path in :mod:`snl_numeric` is compared with a twin in this file.
Nothing here is optimised; clarity is the point.
"""

from __future__ import annotations


# --- players ---
def players_joint_solve(boards, starts=None):
    """Win probabilities of ``k`` players by the joint chain over everyone's square.

    Seed 004's pair recursion generalised: a state is (every player's
    square, whose turn); ``W_p(state)`` is the chance that player ``p`` wins.
    Built with Python loops from each board's compiled successor table (so
    every rule variant is covered) and solved with ``scipy.sparse``. States
    from which nobody can ever reach the goal have value 0. ``n^k`` states:
    small boards only (the pair-state solve for ``k = 2``).
    """
    import itertools

    import numpy as np
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    k = len(boards)
    starts = starts or [None] * k
    starts = [b.start if s is None else s for b, s in zip(boards, starts, strict=True)]
    cbs = [b.compiled for b in boards]
    for i, s in enumerate(starts):
        if s == cbs[i].size:  # first player (in turn order) already home wins at once
            out = np.zeros(k)
            out[i] = 1.0
            return out
    can_finish = []
    for cb in cbs:  # plain backward search: squares with some path to the goal
        ok = [False] * cb.n_states
        ok[cb.size] = True
        changed = True
        while changed:
            changed = False
            for x in range(cb.n_states):
                if not ok[x] and any(ok[int(y)] for y in cb.succ[x]):
                    ok[x] = changed = True
        can_finish.append(ok)
    ranges = [range(cb.size) for cb in cbs]  # squares before the goal
    index = {}
    for pos in itertools.product(*ranges):
        if any(can_finish[i][pos[i]] for i in range(k)):
            for turn in range(k):
                index[(pos, turn)] = len(index)
    rows, cols, vals = [], [], []
    rhs = np.zeros((len(index), k))
    for (pos, turn), r in index.items():
        rows.append(r)
        cols.append(r)
        vals.append(1.0)
        cb = cbs[turn]
        for f in range(len(cb.probs)):
            y = int(cb.succ[pos[turn], f])
            p = float(cb.probs[f])
            if y == cb.size:
                rhs[r, turn] += p
                continue
            new = list(pos)
            new[turn] = y
            c = index.get((tuple(new), (turn + 1) % k))
            if c is not None:  # otherwise nobody can win from there: value 0
                rows.append(r)
                cols.append(c)
                vals.append(-p)
    a = sp.csc_matrix((vals, (rows, cols)), shape=(len(index), len(index)))
    start = index.get((tuple(starts), 0))
    if start is None:
        return np.zeros(k)
    sol = spla.spsolve(a, rhs)
    return np.asarray(sol).reshape(len(index), k)[start].copy()


def players_simulate(boards, starts=None, *, games, rng, max_rounds=100_000):
    """Play ``games`` races turn by turn (vectorised over games).

    Returns ``(winner, rounds)``: the winning player per game (-1 if nobody
    won within ``max_rounds``) and the round it ended in.
    """
    import numpy as np

    k = len(boards)
    starts = starts or [None] * k
    starts = [b.start if s is None else s for b, s in zip(boards, starts, strict=True)]
    cbs = [b.compiled for b in boards]
    pos = np.array([[s] * games for s in starts], dtype=np.int64)  # (k, games)
    winner = np.full(games, -1, dtype=np.int64)
    rounds = np.zeros(games, dtype=np.int64)
    for i in range(k):  # already home before anyone throws
        home = (winner < 0) & (pos[i] == cbs[i].size)
        winner[home] = i
    live = np.flatnonzero(winner < 0)
    for n in range(1, max_rounds + 1):
        if len(live) == 0:
            break
        for i, cb in enumerate(cbs):
            faces = rng.choice(len(cb.probs), size=len(live), p=cb.probs)
            pos[i, live] = cb.succ[pos[i, live], faces]
            done = pos[i, live] == cb.size
            winner[live[done]] = i
            rounds[live[done]] = n
            live = live[~done]
    return winner, rounds
