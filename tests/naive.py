"""Slow, obvious reference implementations.

Every fast path in :mod:`snl_numeric` is compared with a twin in this file.
Nothing here is optimised; clarity is the point.
"""

from __future__ import annotations


# --- policy ---
# Helpers import what they need locally (itertools, numpy as np) to keep this
# section self-contained.


def _policy_dice(d):
    """A die as a plain list of (face, probability)."""
    return [(int(f), float(p)) for f, p in zip(d.faces, d.probs, strict=True)]


def policy_landing(board, x, face):
    """Where a throw of ``face`` from ``x`` lands (before jumps), and whether it landed."""
    n = board.size
    t = x + face
    if t <= n:
        return t, True
    if board.overshoot == "win":
        return n, True
    if board.overshoot == "exact":
        return x, False
    return 2 * n - t, True


def policy_rest(board, square, take):
    """Resting square after landing on ``square``; ``take[s]`` says whether to follow jump s."""
    while square in board.jumps and take.get(square, True):
        square = board.jumps[square]
        if not board.chain:
            break
    return square


def policy_matrix(board, dice_list, die, take):
    """Dense transition matrix of the chain a policy induces (goal absorbing)."""
    import numpy as np
    n = board.size
    P = np.zeros((n + 1, n + 1))
    P[n, n] = 1.0
    for x in range(n):
        for face, p in _policy_dice(dice_list[die[x]]):
            land, landed = policy_landing(board, x, face)
            y = policy_rest(board, land, take) if landed else land
            P[x, y] += p
    return P


def policy_expected(board, dice_list, die, take):
    """Expected throws from every square under a policy (dense solve; inf off the sure set)."""
    import numpy as np
    n = board.size
    P = policy_matrix(board, dice_list, die, take)
    reach = {n}
    changed = True
    while changed:  # squares that can reach the goal
        changed = False
        for x in range(n + 1):
            if x not in reach and any(P[x, y] > 0 for y in reach):
                reach.add(x)
                changed = True
    bad = set(range(n + 1)) - reach
    changed = True
    while changed:  # squares that can reach a square that cannot finish
        changed = False
        for x in range(n + 1):
            if x not in bad and any(P[x, y] > 0 for y in bad):
                bad.add(x)
                changed = True
    sure = [x for x in range(n) if x not in bad]
    out = np.full(n + 1, np.inf)
    out[n] = 0.0
    if sure:
        Q = P[np.ix_(sure, sure)]
        a = np.eye(len(sure)) - Q
        out[sure] = np.linalg.solve(a, np.ones(len(sure)))
    return out


def policy_brute_force(board, dice_list, *, objective="min", optional_jumps=False):
    """Best (min) or worst (max) expected throws from every square, over every
    deterministic stationary policy: one die per square, one decision per jump."""
    import itertools

    import numpy as np
    n = board.size
    srcs = sorted(board.jumps) if optional_jumps else []
    best = None
    for die in itertools.product(range(len(dice_list)), repeat=n):
        for bits in itertools.product([True, False], repeat=len(srcs)):
            take = dict(zip(srcs, bits, strict=True))
            v = policy_expected(board, dice_list, die, take)
            if best is None:
                best = v
            else:
                pick = np.minimum if objective == "min" else np.maximum
                best = pick(best, v)
    return best


def policy_value_iteration(board, dice_list, *, optional_jumps=False, sweeps=100000, tol=1e-13):
    """Seed-style Gauss-Seidel value iteration for the fewest expected throws (finite case)."""
    import numpy as np
    n = board.size
    V = [0.0] * (n + 1)

    def landing_value(square):
        # best resting value after landing on ``square`` (deciding each jump of a chain)
        best = float("inf")
        while True:
            if square not in board.jumps:
                return min(best, V[square])
            if optional_jumps:
                best = min(best, V[square])
            square = board.jumps[square]
            if not board.chain:
                return min(best, V[square])

    for _ in range(sweeps):
        change = 0.0
        for x in range(n - 1, -1, -1):
            q_best = float("inf")
            for d in dice_list:
                q = 1.0
                for face, p in _policy_dice(d):
                    land, landed = policy_landing(board, x, face)
                    q += p * (landing_value(land) if landed else V[x])
                q_best = min(q_best, q)
            change = max(change, abs(q_best - V[x]))
            V[x] = q_best
        if change < tol * max(1.0, max(V)):
            break
    return np.array(V)


def policy_finish_within(board, dice_list, k, *, optional_jumps=False):
    """Best chance to finish within k throws from every square (plain backward induction)."""
    import numpy as np
    n = board.size
    P = [0.0] * n + [1.0]
    for _ in range(k):
        prev = P

        def landing_value(square, prev=prev):
            best = 0.0
            while True:
                if square not in board.jumps:
                    return max(best, prev[square])
                if optional_jumps:
                    best = max(best, prev[square])
                square = board.jumps[square]
                if not board.chain:
                    return max(best, prev[square])

        P = [0.0] * n + [1.0]
        for x in range(n):
            q_best = 0.0
            for d in dice_list:
                q = 0.0
                for face, p in _policy_dice(d):
                    land, landed = policy_landing(board, x, face)
                    q += p * (landing_value(land) if landed else prev[x])
                q_best = max(q_best, q)
            P[x] = q_best
    return np.array(P)


def policy_time_dependent_chance(board, dice_list, policy, take_table, jumps, start):
    """Chance to finish within K throws when following a time-dependent policy
    (``policy[i, x]``, ``take_table[i, j]`` after throw i), by pushing the mass forward."""
    import numpy as np
    n = board.size
    mass = np.zeros(n + 1)
    mass[start] = 1.0
    for i in range(policy.shape[0]):
        take = {s: bool(take_table[i, j]) for j, (s, _) in enumerate(jumps)}
        nxt = np.zeros(n + 1)
        nxt[n] = mass[n]
        for x in range(n):
            if mass[x] == 0:
                continue
            for face, p in _policy_dice(dice_list[policy[i, x]]):
                land, landed = policy_landing(board, x, face)
                y = policy_rest(board, land, take) if landed else land
                nxt[y] += mass[x] * p
        mass = nxt
    return mass[n]


def policy_simulate(board, dice_list, die, take, games, rng, max_throws=100000):
    """Monte Carlo of a stationary policy: (mean throws, standard error)."""
    import numpy as np
    n = board.size
    P = policy_matrix(board, dice_list, die, take)
    cum = np.cumsum(P, axis=1)
    pos = np.full(games, board.start)
    throws = np.zeros(games, dtype=np.int64)
    for _ in range(max_throws):
        live = pos != n
        if not live.any():
            break
        u = rng.random(int(live.sum()))
        rows = cum[pos[live]]
        pos[live] = np.minimum((rows < u[:, None]).sum(axis=1), n)
        throws[live] += 1
    return throws.mean(), throws.std(ddof=1) / np.sqrt(games)
