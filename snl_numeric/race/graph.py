"""Graph analysis of the race (who can still win, who can keep a game going) and the
table of the Markov chain both fixed players make, for the linear solver."""

from __future__ import annotations

import numpy as np

from .._core.numba_config import njit
from .._core.vectorised import reach
from .tables import Tables


@njit()
def _fixed_rest(v, q, n, src, tgt, take):  # pragma: no cover - jitted
    """Resting square after landing on node ``v`` for a player following ``take[k, q]``."""
    while v >= n:
        k = v - n
        if not take[k, q]:
            return src[k]
        v = tgt[k]
    return v


@njit()
def live_kernel(nodes, probs, jumps, optional, pol0, take0, pol1, take1, symmetric, base, live0,
                live1):  # pragma: no cover - jitted
    """Pair states from which somebody can still win, both sides following fixed choices.

    One pass: ``live_k[state]`` (at first all False) becomes True where a throw under
    ``pol_k``/``take_k`` reaches the goal or a live state; call until it returns False
    (nothing changed). The other states form closed classes in which nobody ever wins.
    """
    src, tgt, ptr, rest = jumps
    n_act, n, width = nodes.shape
    goal = n - 1
    n_sq = goal
    changed = False
    for s in range(2 * n_sq - 2, -1, -1):
        lo = max(0, s - n_sq + 1)
        hi = min(s, n_sq - 1)
        for i in range(lo, hi + 1):
            j = s - i
            for side in range(1 if symmetric else 2):
                if side == 0:
                    u = base[s] + i
                    me, other, pol, take, live, z = i, j, pol0, take0, live0, live1
                else:
                    u = base[s] + j
                    me, other, pol, take, live, z = j, i, pol1, take1, live1, live0
                if live[u]:
                    continue
                a = pol[u]
                for f in range(width):
                    if probs[a, f] == 0.0:
                        continue
                    r = nodes[a, me, f]
                    if optional and r >= n:
                        r = _fixed_rest(r, other, n, src, tgt, take)
                    if r == goal or z[base[other + r] + other]:
                        live[u] = True
                        changed = True
                        break
    return changed


def alive_squares(t: Tables) -> np.ndarray:
    """``alive[x]``: some play reaches the goal from square ``x`` (any die, any jump
    decision): one breadth-first search from the goal over the squares every throw may
    rest on (:func:`~snl_numeric._core.vectorised.reach`, a table of them per square:
    a throw of probability 0 stays put, an optional jump's node any square of its
    chain)."""
    n = t.n_sq + 1
    src, tgt, ptr, rest = t.jumps
    squares = np.arange(n)
    wide = int(np.diff(ptr).max()) if t.optional and t.n_jumps else 1
    opts = np.repeat(squares[:, None], wide, axis=1)  # where a node lets a token rest
    if wide > 1:  # a jump node: the squares of its chain (the last one repeated)
        at = np.minimum(ptr[:-1, None] + np.arange(wide), ptr[1:, None] - 1)
        opts = np.concatenate([opts, rest[at]])
    thrown = (t.probs > 0.0)[:, None, :, None]  # (dice, 1, faces, 1)
    table = np.where(thrown, opts[t.nodes], squares[:, None, None])  # (dice, n, faces, wide)
    return reach(np.ascontiguousarray(table.transpose(1, 0, 2, 3)).reshape(n, -1))[0] >= 0


def avoid_squares(t: Tables, used: np.ndarray | None = None) -> np.ndarray:
    """``avoid[x]``: one token on square ``x`` can keep away from the goal for ever for sure,
    throwing only the dice ``used[:, x]`` allows (default: every die) and, with optional
    jumps, resting anywhere along a jump's chain. Empty exactly when every game ends."""
    n = t.n_sq + 1
    allowed = np.ones((t.nodes.shape[0], n), dtype=np.bool_) if used is None else used
    out = np.empty(n, dtype=np.bool_)
    avoid_kernel(t.nodes, t.probs, t.jumps, allowed, out)
    return out


@njit()
def avoid_kernel(nodes, probs, jumps, used, out):  # pragma: no cover - jitted
    """:func:`avoid_squares`, the greatest fixed point ``out``: square ``x`` stays while some
    die ``a`` with ``used[a, x]`` keeps every throw off the goal and on such squares (a jump
    node: on one of its resting squares)."""
    src, tgt, ptr, rest = jumps
    n_act, n, width = nodes.shape
    goal = n - 1
    for x in range(n):
        out[x] = x != goal
    changed = True
    while changed:
        changed = False
        for x in range(goal):
            if not out[x]:
                continue
            keep = False
            for a in range(n_act):
                if not used[a, x]:
                    continue
                ok = True
                for f in range(width):
                    if probs[a, f] == 0.0:
                        continue
                    v = nodes[a, x, f]
                    if v < n:
                        ok = v != goal and out[v]
                    else:
                        ok = False
                        for e in range(ptr[v - n], ptr[v - n + 1]):
                            r = rest[e]
                            ok = ok or (r != goal and out[r])
                    if not ok:
                        break
                if ok:
                    keep = True
                    break
            if not keep:
                out[x] = False
                changed = True


@njit()
def trap_kernel(moves, jumps, optional, base, pol_a, take_a, fixed_b, pol_b, take_b, in_a,
                in_b):  # pragma: no cover - jitted
    """One pass of: the positions where the other side can keep a game going for ever
    against side A's policy (the end components of the game with A's choices fixed).

    A throws ``pol_a[state]`` (following ``take_a[k, other]`` along jumps when they are
    optional); B throws ``pol_b`` (``fixed_b``) or any die, resting anywhere along a jump
    chain. ``in_a`` (A to move, at ``(i, j)``) and ``in_b`` (B to move, at ``(j, i)``),
    all True at first, shrink to a greatest fixed point: A's position stays while every
    throw of its die misses the goal and lands on a position in ``in_b``, B's while
    some die does so into ``in_a``. Both staying put for sure is a loop the sweeps
    solve exactly (nobody wins it), so it does not count as keeping the game going.
    Returns whether anything changed; call until it does not.
    """
    cnt, node, prob, move, stay = moves
    src, tgt, ptr, rest = jumps
    n_act, n = cnt.shape
    goal = n - 1
    n_sq = goal
    changed = False
    for s in range(2 * n_sq - 2, -1, -1):
        lo = max(0, s - n_sq + 1)
        hi = min(s, n_sq - 1)
        for i in range(lo, hi + 1):
            j = s - i
            u = base[s] + i  # A on i to throw
            w = base[s] + j  # B on j to throw, A on i
            a_stuck = cnt[pol_a[u], i] == 0
            if in_a[u]:
                a = pol_a[u]
                ok = stay[a, i] == 0.0 or in_b[w]
                for e in range(cnt[a, i]):
                    if not ok:
                        break
                    r = node[a, i, e]
                    if optional and r >= n:
                        r = _fixed_rest(r, j, n, src, tgt, take_a)
                    ok = r != goal and in_b[base[j + r] + j]
                if not ok:
                    in_a[u] = False
                    changed = True
            if in_b[w]:
                keep = False
                for b in range(n_act):
                    if fixed_b and b != pol_b[w]:
                        continue
                    if cnt[b, j] == 0:  # B stays put for sure
                        ok = not a_stuck and in_a[u]
                    else:
                        ok = stay[b, j] == 0.0 or in_a[u]
                    for e in range(cnt[b, j]):
                        if not ok:
                            break
                        v = node[b, j, e]
                        if not optional or v < n:
                            ok = v != goal and in_a[base[i + v] + i]
                        elif fixed_b:
                            r = _fixed_rest(v, i, n, src, tgt, take_b)
                            ok = r != goal and in_a[base[i + r] + i]
                        else:
                            ok = False
                            for q in range(ptr[v - n], ptr[v - n + 1]):
                                r = rest[q]
                                ok = ok or (r != goal and in_a[base[i + r] + i])
                    if ok:
                        keep = True
                        break
                if not keep:
                    in_b[w] = False
                    changed = True
    return changed


@njit()
def chain_table_kernel(nodes, probs, jumps, optional, pol0, take0, pol1, take1, base, cbase,
                       live0, live1, succ, prob, b0, b1, active):  # pragma: no cover - jitted
    """The chain of pair states with the mover's side, both sides fixed, for the solver.

    State ``(me, other, k)`` (side ``k`` on ``me`` to throw) is at ``cbase[me + other] +
    4 * (min(me, other) - lo) + 2 * (me > other) + k``: a throw forward moves to a later
    diagonal, a lost throw to the same group of four. ``succ``/``prob``: the resting
    state of each face (the goal: index ``N``, out of the system); ``b_k``: the chance
    that side ``k`` wins with this throw; ``active``: the states from which somebody can
    still win (the others form closed classes where nobody does).
    """
    src, tgt, ptr, rest = jumps
    n_act, n, width = nodes.shape
    goal = n - 1
    n_sq = goal
    big = succ.shape[0] - 1
    for s in range(2 * n_sq - 1):
        lo = max(0, s - n_sq + 1)
        hi = min(s, n_sq - 1)
        for me in range(lo, hi + 1):
            other = s - me
            for k in range(2):
                idx = cbase[s] + 4 * (min(me, other) - lo) + 2 * (me > other) + k
                u = base[s] + me
                pol = pol0 if k == 0 else pol1
                take = take0 if k == 0 else take1
                live = live0[u] if k == 0 else live1[u]
                active[idx] = live
                a = pol[u]
                for f in range(width):
                    pr = probs[a, f]
                    succ[idx, f] = big
                    prob[idx, f] = 0.0
                    if pr == 0.0 or not live:
                        continue
                    r = nodes[a, me, f]
                    if optional and r >= n:
                        r = _fixed_rest(r, other, n, src, tgt, take)
                    prob[idx, f] = pr
                    if r == goal:
                        if k == 0:
                            b0[idx] += pr
                        else:
                            b1[idx] += pr
                        continue
                    t = other + r
                    lo2 = max(0, t - n_sq + 1)
                    succ[idx, f] = cbase[t] + 4 * (min(other, r) - lo2) + 2 * (other > r) + 1 - k
