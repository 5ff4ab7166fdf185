"""Numba kernels of the race: one Gauss-Seidel sweep over the pair states, read-outs.

Pair states ``(p, q)``, ``0 <= p, q < N`` (``N = size``: the goal is never a
state), are stored by anti-diagonal ``s = p + q``: diagonal ``s`` starts at
``off[s]`` and holds ``p = lo(s) .. hi(s)`` in order, ``lo(s) = max(0, s - N + 1)``.
A throw from ``(p, q)`` leads to ``(q, r)``, on diagonal ``s + (r - p)``: sweeping
the diagonals from the last one down makes every forward move read a value already
updated in the same sweep, and along one diagonal the reads walk the higher
diagonals in order (cache friendly).

Each side ``k`` (0: the first player, 1: the second) has a win-type array ``P_k``
(its chance to win when about to throw) and a not-lose-type array ``Q_k`` (one
minus the other side's chance), each holding a bound: the kernel applies the
order-reversing Bellman operator ``P_0 <- T_0(Q_1)``, ``Q_0 <- T_0(P_1)`` (and
the same with the sides swapped) in place, clamped so that a lower bound only
rises and an upper bound only falls. Throws that leave the mover where it was
(a lost throw under the "exact" rule) couple ``(p, q)`` with ``(q, p)``; that
two-state game is solved exactly (``max_a min_b`` over the stationary choices),
a loop in which both sides surely stay put counting as nobody winning.
"""

from __future__ import annotations

import numpy as np

from .._core.numba_config import njit


@njit()
def diag_offsets_kernel(n_sq, off):  # pragma: no cover - jitted
    """``off[s]``: first index of anti-diagonal ``s``; ``off[2 N - 1] = N * N``."""
    off[0] = 0
    for s in range(2 * n_sq - 1):
        lo = max(0, s - n_sq + 1)
        hi = min(s, n_sq - 1)
        off[s + 1] = off[s] + hi - lo + 1


@njit(inline="always")
def _idx(p, q, n_sq, off):  # pragma: no cover - jitted
    s = p + q
    return off[s] + p - max(0, s - n_sq + 1)


@njit()
def to_diag_kernel(table, n_sq, off, out):  # pragma: no cover - jitted
    """Row-major ``table[p, q]`` (``p, q < N``) into the diagonal layout."""
    for p in range(n_sq):
        for q in range(n_sq):
            out[_idx(p, q, n_sq, off)] = table[p, q]


@njit()
def from_diag_kernel(diag, n_sq, off, out):  # pragma: no cover - jitted
    """The diagonal layout back into ``out[p, q]`` (``p, q < N``)."""
    for p in range(n_sq):
        for q in range(n_sq):
            out[p, q] = diag[_idx(p, q, n_sq, off)]


@njit(inline="always")
def _square_value(r, q, z, goal, n_sq, off):  # pragma: no cover - jitted
    """The mover's value after resting on ``r``: 1 at the goal, else ``1 - z[(q, r)]``."""
    if r == goal:
        return 1.0
    return 1.0 - z[_idx(q, r, n_sq, off)]


@njit()
def jump_options_kernel(src, tgt, n, ptr, rest):  # pragma: no cover - jitted
    """Where a player who decides jumps may rest after landing on jump ``k``: on the
    square of any jump of the chain it starts (declining there) or at its end;
    ``rest[ptr[k]:ptr[k + 1]]`` (call with ``rest`` None-sized to count: see caller)."""
    m = src.shape[0]
    pos = 0
    for k in range(m):
        ptr[k] = pos
        v = n + k
        while v >= n:
            if rest.shape[0] > 0:
                rest[pos] = src[v - n]
            pos += 1
            v = tgt[v - n]
        if rest.shape[0] > 0:
            rest[pos] = v
        pos += 1
    ptr[m] = pos


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
def _solve_pair(c, s, fc, ka, d, t, fd, kb, loop_x):  # pragma: no cover - jitted
    """The two-state game ``x = max_a c_a + s_a (1 - y)``, ``y = max_b d_b + t_b (1 - x)``.

    Side x maximises ``x``, side y maximises ``y`` (zero-sum: ``1 - y`` is x's
    payoff in y's state), so ``x = max_a min_b x_ab`` over stationary choices;
    a loop where both always stay put is worth ``loop_x`` to x (0 for a chance
    to win: nobody wins; 1 for a chance not to lose).
    """
    x_stalls = False
    for a in range(ka):
        if s[a] > 0.0:
            x_stalls = True
    y_stalls = False
    for b in range(kb):
        if t[b] > 0.0:
            y_stalls = True
    if not x_stalls or not y_stalls:
        if not x_stalls:
            x = c[0]
            for a in range(1, ka):
                if c[a] > x:
                    x = c[a]
            y = -1.0
            for b in range(kb):
                yb = d[b] + t[b] * (1.0 - x)
                if yb > y:
                    y = yb
        else:
            y = d[0]
            for b in range(1, kb):
                if d[b] > y:
                    y = d[b]
            x = -1.0
            for a in range(ka):
                xa = c[a] + s[a] * (1.0 - y)
                if xa > x:
                    x = xa
        return x, y
    x = -1.0
    for a in range(ka):
        worst = 2.0
        for b in range(kb):
            if fc[a] and fd[b]:
                xab = loop_x
            else:
                e = (1.0 - t[b]) - d[b]
                if e < 0.0:
                    e = 0.0
                xab = (c[a] + s[a] * e) / (1.0 - s[a] * t[b])
            if xab < worst:
                worst = xab
        if worst > x:
            x = worst
    y = -1.0
    for b in range(kb):
        yb = d[b] + t[b] * (1.0 - x)
        if yb > y:
            y = yb
    return x, y


@njit(inline="always")
def _clamp(old, new, rise):  # pragma: no cover - jitted
    if rise:
        return new if new > old else old
    return new if new < old else old


@njit()
def sweep_kernel(nodes, probs, jumps, free0, free1, fixed0, pol0, take0, fixed1, pol1,
                 take1, symmetric, off, p0, q0, p1, q1, lower):  # pragma: no cover
    """One sweep with compulsory jumps (``nodes`` are resting squares); see :func:`_sweep`."""
    return _sweep(nodes, probs, jumps, free0, free1, fixed0, pol0, take0, fixed1, pol1,
                  take1, symmetric, off, p0, q0, p1, q1, lower, False)


@njit()
def sweep_jumps_kernel(nodes, probs, jumps, free0, free1, fixed0, pol0, take0, fixed1, pol1,
                       take1, symmetric, off, p0, q0, p1, q1, lower):  # pragma: no cover
    """One sweep with optional jumps (``nodes`` may be jump nodes); see :func:`_sweep`."""
    return _sweep(nodes, probs, jumps, free0, free1, fixed0, pol0, take0, fixed1, pol1,
                  take1, symmetric, off, p0, q0, p1, q1, lower, True)


@njit(inline="always")
def _sweep(nodes, probs, jumps, free0, free1, fixed0, pol0, take0, fixed1, pol1,
           take1, symmetric, off, p0, q0, p1, q1, lower, optional):  # pragma: no cover
    """One Gauss-Seidel sweep, last diagonal first: ``(largest change, largest |q - p|)``.

    ``p_k``/``q_k``: win-type and not-lose-type bounds of side ``k`` (diagonal
    layout); ``lower``: ``p`` holds lower bounds (rising) and ``q`` upper bounds
    (falling), else the reverse. With ``symmetric`` both sides are one player
    (``p1 is p0``, ``q1 is q0``) and only ``p <= q`` is visited, each state
    together with its mirror. ``fixed_k``: side ``k`` throws ``pol_k[state]``
    and follows jump ``j`` iff ``take_k[j, opponent's square]``; else it
    maximises, deciding jumps itself when ``free_k``. ``jumps`` is
    ``(src, tgt, ptr, rest)``: the jumps and, per jump, where a deciding player
    may rest (:func:`jump_options_kernel`).
    """
    src, tgt, ptr, rest = jumps
    n_act, n, width = nodes.shape
    goal = n - 1
    n_sq = goal
    # per side: value of the non-stalling faces against the other side's not-lose (c)
    # and win (d) bounds, probability of staying put, whether every face stays put
    c = np.empty((2, n_act))
    d = np.empty((2, n_act))
    stay = np.empty((2, n_act))
    full = np.empty((2, n_act), dtype=np.bool_)
    count = np.empty(2, dtype=np.int64)
    change = 0.0
    width_max = 0.0
    for s in range(2 * n_sq - 2, -1, -1):
        lo = max(0, s - n_sq + 1)
        hi = min(s, n_sq - 1)
        if symmetric:
            hi = min(hi, s // 2)
        for i in range(lo, hi + 1):
            j = s - i
            u = off[s] + i - lo  # (i, j), side 0
            w = off[s] + j - lo  # (j, i), side 1
            stalls = False
            for side in range(2):
                if side == 0:
                    me, other, fixed, free, take = i, j, fixed0, free0, take0
                    zc, zd = q1, p1
                    a_fix = pol0[u] if fixed0 else 0
                else:
                    me, other, fixed, free, take = j, i, fixed1, free1, take1
                    zc, zd = p0, q0
                    a_fix = pol1[w] if fixed1 else 0
                k = 1 if fixed else n_act
                count[side] = k
                for cand in range(k):
                    a = a_fix if fixed else cand
                    sa = 0.0
                    vc = 0.0
                    vd = 0.0
                    every = True
                    for f in range(width):
                        pr = probs[a, f]
                        if pr == 0.0:
                            continue
                        v = nodes[a, me, f]
                        if v == me:
                            sa += pr
                            continue
                        every = False
                        if v == goal:
                            vc += pr
                            vd += pr
                        elif not optional or v < n:
                            t = v + other
                            x = off[t] + other - max(0, t - n_sq + 1)
                            vc += pr * (1.0 - zc[x])
                            vd += pr * (1.0 - zd[x])
                        elif free:  # the best place to rest along the jump's chain
                            bc = -1.0
                            bd = -1.0
                            for e in range(ptr[v - n], ptr[v - n + 1]):
                                r = rest[e]
                                if r == goal:
                                    bc = 1.0
                                    bd = 1.0
                                    break
                                t = r + other
                                x = off[t] + other - max(0, t - n_sq + 1)
                                bc = max(bc, 1.0 - zc[x])
                                bd = max(bd, 1.0 - zd[x])
                            vc += pr * bc
                            vd += pr * bd
                        else:
                            r = _fixed_rest(v, other, n, src, tgt, take)
                            if r == goal:
                                vc += pr
                                vd += pr
                            else:
                                t = r + other
                                x = off[t] + other - max(0, t - n_sq + 1)
                                vc += pr * (1.0 - zc[x])
                                vd += pr * (1.0 - zd[x])
                    c[side, cand] = vc
                    d[side, cand] = vd
                    full[side, cand] = every
                    stay[side, cand] = 1.0 if every else sa
                    if sa > 0.0:
                        stalls = True
            if stalls:  # system alpha: p0(i, j) with q1(j, i); beta: q0(i, j) with p1(j, i)
                xa, ya = _solve_pair(c[0], stay[0], full[0], count[0], c[1], stay[1], full[1],
                                     count[1], 0.0)
                xb, yb = _solve_pair(d[0], stay[0], full[0], count[0], d[1], stay[1], full[1],
                                     count[1], 1.0)
            else:
                xa = c[0, 0]
                xb = d[0, 0]
                for a in range(1, count[0]):
                    xa = max(xa, c[0, a])
                    xb = max(xb, d[0, a])
                ya = c[1, 0]
                yb = d[1, 0]
                for a in range(1, count[1]):
                    ya = max(ya, c[1, a])
                    yb = max(yb, d[1, a])
            if symmetric and i == j:  # one state: alpha and beta are the same system
                xb, yb = ya, xa
            old = p0[u]
            p0[u] = _clamp(old, xa, lower)
            change = max(change, abs(p0[u] - old))
            old = q1[w]
            q1[w] = _clamp(old, ya, not lower)
            change = max(change, abs(q1[w] - old))
            old = q0[u]
            q0[u] = _clamp(old, xb, not lower)
            change = max(change, abs(q0[u] - old))
            old = p1[w]
            p1[w] = _clamp(old, yb, lower)
            change = max(change, abs(p1[w] - old))
            width_max = max(width_max, abs(q0[u] - p0[u]), abs(q1[w] - p1[w]))
    return change, width_max


@njit()
def greedy_kernel(nodes, probs, jumps, optional, off, keep, tol, policy, take):  # pragma: no cover
    """Side 0's best die per state against the other side's chances not to lose.

    ``policy[state]`` (diagonal layout) gets the smallest die index within
    ``tol`` of the best; with ``optional`` jumps, ``take[k, j]`` whether
    following jump ``k`` is within ``tol`` of declining it, the opponent being on
    ``j``. ``keep``: side 1's chance not to lose, diagonal layout.
    """
    src, tgt, ptr, rest = jumps
    n_act, n, width = nodes.shape
    goal = n - 1
    n_sq = goal
    m = src.shape[0]
    qv = np.empty(n_act)
    for s in range(2 * n_sq - 1):
        lo = max(0, s - n_sq + 1)
        hi = min(s, n_sq - 1)
        for i in range(lo, hi + 1):
            j = s - i
            best = -1.0
            for a in range(n_act):
                acc = 0.0
                for f in range(width):
                    pr = probs[a, f]
                    if pr == 0.0:
                        continue
                    v = nodes[a, i, f]
                    if v < n:
                        acc += pr * _square_value(v, j, keep, goal, n_sq, off)
                    else:
                        b = -1.0
                        for e in range(ptr[v - n], ptr[v - n + 1]):
                            b = max(b, _square_value(rest[e], j, keep, goal, n_sq, off))
                        acc += pr * b
                qv[a] = acc
                best = max(best, acc)
            for a in range(n_act):
                if qv[a] >= best - tol:
                    policy[off[s] + i - lo] = a
                    break
    if optional:
        for k in range(m):
            for j in range(n_sq):
                decline = _square_value(src[k], j, keep, goal, n_sq, off)
                t = tgt[k]
                if t < n:
                    follow = _square_value(t, j, keep, goal, n_sq, off)
                else:
                    follow = -1.0
                    for e in range(ptr[t - n], ptr[t - n + 1]):
                        follow = max(follow, _square_value(rest[e], j, keep, goal, n_sq, off))
                take[k, j] = follow >= decline - tol


@njit()
def live_kernel(nodes, probs, jumps, optional, pol0, take0, pol1, take1, symmetric, off, live0,
                live1):  # pragma: no cover - jitted
    """Pair states from which somebody can still win, both sides following fixed choices.

    ``live_k[state]`` (in: all False) becomes True where a chain of throws under
    ``pol_k``/``take_k`` reaches the goal; repeated sweeps until nothing changes.
    The other states form closed classes in which nobody ever wins.
    """
    src, tgt, ptr, rest = jumps
    n_act, n, width = nodes.shape
    goal = n - 1
    n_sq = goal
    changed = True
    while changed:
        changed = False
        for s in range(2 * n_sq - 2, -1, -1):
            lo = max(0, s - n_sq + 1)
            hi = min(s, n_sq - 1)
            for i in range(lo, hi + 1):
                j = s - i
                for side in range(1 if symmetric else 2):
                    if side == 0:
                        u = off[s] + i - lo
                        me, other, pol, take, live, z = i, j, pol0, take0, live0, live1
                    else:
                        u = off[s] + j - lo
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
                        if r == goal or z[_idx(other, r, n_sq, off)]:
                            live[u] = True
                            changed = True
                            break


@njit()
def alive_kernel(nodes, probs, jumps, optional, alive):  # pragma: no cover - jitted
    """``alive[x]``: some play reaches the goal from square ``x`` (any die, any jump decision)."""
    src, tgt, ptr, rest = jumps
    n_act, n, width = nodes.shape
    goal = n - 1
    alive[:] = False
    alive[goal] = True
    changed = True
    while changed:
        changed = False
        for x in range(goal - 1, -1, -1):
            for a in range(n_act):
                for f in range(width):
                    if alive[x] or probs[a, f] == 0.0:
                        continue
                    v = nodes[a, x, f]
                    if v < n:
                        alive[x] = alive[v]
                    else:
                        for e in range(ptr[v - n], ptr[v - n + 1]):
                            if alive[rest[e]]:
                                alive[x] = True
                    changed = changed or alive[x]
