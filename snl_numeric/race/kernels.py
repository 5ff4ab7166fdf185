"""Numba kernels of the race: one Gauss-Seidel sweep over the pair states, read-outs.

Pair states ``(p, q)``, ``0 <= p, q < N`` (``N = size``: the goal is never a
state), are stored by anti-diagonal ``s = p + q``, in order of ``p``: state
``(p, q)`` is at ``base[p + q] + p``. A throw from ``(p, q)`` leads to ``(q, r)``,
on diagonal ``s + (r - p)``: sweeping the diagonals from the last one down makes
every forward move read a value already updated in the same sweep, and along one
diagonal the reads walk the higher diagonals in order (cache friendly).

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
def diag_base_kernel(n_sq, base):  # pragma: no cover - jitted
    """``base[s]``: state ``(p, s - p)`` is at ``base[s] + p`` (``2 N - 1`` diagonals)."""
    start = 0
    for s in range(2 * n_sq - 1):
        lo = max(0, s - n_sq + 1)
        base[s] = start - lo
        start += min(s, n_sq - 1) - lo + 1


@njit()
def to_diag_kernel(table, base, out):  # pragma: no cover - jitted
    """Row-major ``table[p, q]`` (``p, q < N``) into the diagonal layout."""
    n_sq = table.shape[0]
    for p in range(n_sq):
        for q in range(n_sq):
            out[base[p + q] + p] = table[p, q]


@njit()
def from_diag_kernel(diag, base, out):  # pragma: no cover - jitted
    """The diagonal layout back into ``out[p, q]`` (``p, q < N``)."""
    n_sq = out.shape[0]
    for p in range(n_sq):
        for q in range(n_sq):
            out[p, q] = diag[base[p + q] + p]


@njit(inline="always")
def _square_value(r, q, z, goal, base):  # pragma: no cover - jitted
    """The mover's value after resting on ``r``: 1 at the goal, else ``1 - z[(q, r)]``."""
    if r == goal:
        return 1.0
    return 1.0 - z[base[q + r] + q]


@njit()
def jump_options_kernel(src, tgt, n, ptr, rest):  # pragma: no cover - jitted
    """Where a player who decides jumps may rest after landing on jump ``k``: the
    square of any jump of the chain it starts (declining there) or its end,
    ``rest[ptr[k]:ptr[k + 1]]``. With an empty ``rest`` only ``ptr`` is filled."""
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
def moves_kernel(nodes, probs, cnt, node, prob, move, stay):  # pragma: no cover - jitted
    """Per die and square, the throws that move the token: ``cnt[a, x]`` distinct
    nodes ``node[a, x, :cnt]`` with their probabilities, the total ``move[a, x]``,
    and the probability ``stay[a, x]`` of staying put (exactly 1 if every throw does)."""
    n_act, n, width = nodes.shape
    for a in range(n_act):
        for x in range(n):
            k = 0
            mv = 0.0
            st = 0.0
            for f in range(width):
                pr = probs[a, f]
                if pr == 0.0:
                    continue
                v = nodes[a, x, f]
                if v == x:
                    st += pr
                    continue
                mv += pr
                found = False
                for e in range(k):
                    if node[a, x, e] == v:
                        prob[a, x, e] += pr
                        found = True
                        break
                if not found:
                    node[a, x, k] = v
                    prob[a, x, k] = pr
                    k += 1
            cnt[a, x] = k
            move[a, x] = mv
            stay[a, x] = 1.0 if k == 0 else st


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
def _side(moves, me, other, zc, zd, fixed, a_fix, free, take, jumps, base, goal, n, optional,
          c, d, stay, full):  # pragma: no cover - jitted
    """One side's candidates at ``(me, other)``: the value of its moving throws against
    ``zc`` and ``zd`` (``c``, ``d``), the chance of staying put and whether it is
    certain. Returns the number of candidates and whether any may stay put."""
    cnt, node, prob, move, stay_p = moves
    src, tgt, ptr, rest = jumps
    k = 1 if fixed else cnt.shape[0]
    stalls = False
    for cand in range(k):
        a = a_fix if fixed else cand
        vc = move[a, me]
        vd = vc
        for e in range(cnt[a, me]):
            v = node[a, me, e]
            pr = prob[a, me, e]
            if v == goal:
                continue
            if not optional or v < n:
                x = base[v + other] + other
                vc -= pr * zc[x]
                vd -= pr * zd[x]
            elif free:  # the best place to rest along the jump's chain
                bc = 2.0
                bd = 2.0
                for q in range(ptr[v - n], ptr[v - n + 1]):
                    r = rest[q]
                    if r == goal:
                        bc = 0.0
                        bd = 0.0
                        break
                    x = base[r + other] + other
                    bc = min(bc, zc[x])
                    bd = min(bd, zd[x])
                vc -= pr * bc
                vd -= pr * bd
            else:  # follow the fixed decisions (written out: a call here slows the loop)
                r = v
                while r >= n:
                    if not take[r - n, other]:
                        r = src[r - n]
                        break
                    r = tgt[r - n]
                if r != goal:
                    x = base[r + other] + other
                    vc -= pr * zc[x]
                    vd -= pr * zd[x]
        c[cand] = vc
        d[cand] = vd
        sa = stay_p[a, me]
        full[cand] = sa == 1.0
        stay[cand] = sa
        stalls = stalls or sa > 0.0
    return k, stalls


@njit(inline="always")
def _clamp(old, new, rise):  # pragma: no cover - jitted
    if rise:
        return new if new > old else old
    return new if new < old else old


@njit()
def sweep_kernel(moves, jumps, free0, free1, fixed0, pol0, take0, fixed1, pol1, take1,
                 symmetric, base, p0, q0, p1, q1, lower, skip):  # pragma: no cover - jitted
    """One sweep with compulsory jumps (every node a square); see :func:`_sweep`."""
    return _sweep(moves, jumps, free0, free1, fixed0, pol0, take0, fixed1, pol1, take1,
                  symmetric, base, p0, q0, p1, q1, lower, skip, False)


@njit()
def sweep_jumps_kernel(moves, jumps, free0, free1, fixed0, pol0, take0, fixed1, pol1, take1,
                       symmetric, base, p0, q0, p1, q1, lower, skip):  # pragma: no cover
    """One sweep with optional jumps (nodes may be jumps); see :func:`_sweep`."""
    return _sweep(moves, jumps, free0, free1, fixed0, pol0, take0, fixed1, pol1, take1,
                  symmetric, base, p0, q0, p1, q1, lower, skip, True)


@njit(inline="always")
def _sweep(moves, jumps, free0, free1, fixed0, pol0, take0, fixed1, pol1, take1, symmetric,
           base, p0, q0, p1, q1, lower, skip, optional):  # pragma: no cover - jitted
    """One Gauss-Seidel sweep, last diagonal first: ``(largest change, largest |q - p|)``.

    ``moves``: :func:`moves_kernel`'s tables; ``jumps``: ``(src, tgt, ptr, rest)``,
    the jumps and where a deciding player may rest after landing on each
    (:func:`jump_options_kernel`). ``p_k``/``q_k``: win-type and not-lose-type
    bounds of side ``k`` (diagonal layout); ``lower``: ``p`` holds lower bounds
    (rising) and ``q`` upper bounds (falling), else the reverse. With
    ``symmetric`` both sides are one player (``p1 is p0``, ``q1 is q0``) and only
    ``p <= q`` is visited, each state together with its mirror. ``fixed_k``: side
    ``k`` throws ``pol_k[state]`` and follows jump ``j`` iff ``take_k[j,
    opponent's square]``; else it maximises, deciding jumps itself when ``free_k``.
    A state and its mirror whose brackets are both within ``skip`` already are
    left as they are (still valid bounds, and counted in the width).
    """
    cnt = moves[0]
    n_act, n = cnt.shape
    goal = n - 1
    n_sq = goal
    c0 = np.empty(n_act)
    d0 = np.empty(n_act)
    s0 = np.empty(n_act)
    f0 = np.empty(n_act, dtype=np.bool_)
    c1 = np.empty(n_act)
    d1 = np.empty(n_act)
    s1 = np.empty(n_act)
    f1 = np.empty(n_act, dtype=np.bool_)
    change = 0.0
    width_max = 0.0
    for s in range(2 * n_sq - 2, -1, -1):
        lo = max(0, s - n_sq + 1)
        hi = min(s, n_sq - 1)
        if symmetric:
            hi = min(hi, s // 2)
        for i in range(lo, hi + 1):
            j = s - i
            u = base[s] + i  # (i, j), side 0
            w = base[s] + j  # (j, i), side 1
            wu = abs(q0[u] - p0[u])
            ww = abs(q1[w] - p1[w])
            if wu <= skip and ww <= skip:
                width_max = max(width_max, wu, ww)
                continue
            # side 0 against side 1's not-lose (for p0) and win (for q0) bounds, and back
            k0, st0 = _side(moves, i, j, q1, p1, fixed0, pol0[u] if fixed0 else 0, free0,
                            take0, jumps, base, goal, n, optional, c0, d0, s0, f0)
            k1, st1 = _side(moves, j, i, p0, q0, fixed1, pol1[w] if fixed1 else 0, free1,
                            take1, jumps, base, goal, n, optional, c1, d1, s1, f1)
            if st0 or st1:  # system alpha: p0(i, j) with q1(j, i); beta: q0(i, j) with p1(j, i)
                xa, ya = _solve_pair(c0, s0, f0, k0, c1, s1, f1, k1, 0.0)
                xb, yb = _solve_pair(d0, s0, f0, k0, d1, s1, f1, k1, 1.0)
            else:
                xa = c0[0]
                xb = d0[0]
                for a in range(1, k0):
                    xa = max(xa, c0[a])
                    xb = max(xb, d0[a])
                ya = c1[0]
                yb = d1[0]
                for a in range(1, k1):
                    ya = max(ya, c1[a])
                    yb = max(yb, d1[a])
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
def greedy_kernel(nodes, probs, jumps, optional, base, keep, tol, policy, take):  # pragma: no cover
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
                        acc += pr * _square_value(v, j, keep, goal, base)
                    else:
                        b = -1.0
                        for e in range(ptr[v - n], ptr[v - n + 1]):
                            b = max(b, _square_value(rest[e], j, keep, goal, base))
                        acc += pr * b
                qv[a] = acc
                best = max(best, acc)
            for a in range(n_act):
                if qv[a] >= best - tol:
                    policy[base[s] + i] = a
                    break
    if optional:
        for k in range(m):
            for j in range(n_sq):
                decline = _square_value(src[k], j, keep, goal, base)
                t = tgt[k]
                if t < n:
                    follow = _square_value(t, j, keep, goal, base)
                else:
                    follow = -1.0
                    for e in range(ptr[t - n], ptr[t - n + 1]):
                        follow = max(follow, _square_value(rest[e], j, keep, goal, base))
                take[k, j] = follow >= decline - tol


@njit()
def live_kernel(nodes, probs, jumps, optional, pol0, take0, pol1, take1, symmetric, base, live0,
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
            if alive[x]:
                continue
            for a in range(n_act):
                for f in range(width):
                    if probs[a, f] == 0.0:
                        continue
                    v = nodes[a, x, f]
                    if v < n:
                        ok = alive[v]
                    else:
                        ok = False
                        for e in range(ptr[v - n], ptr[v - n + 1]):
                            ok = ok or alive[rest[e]]
                    if ok:
                        alive[x] = True
                        changed = True
