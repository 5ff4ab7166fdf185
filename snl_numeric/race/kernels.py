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
def moves_kernel(nodes, probs, n_nodes, cnt, node, prob, move, stay):  # pragma: no cover
    """Per die and square, the throws that move the token: ``cnt[a, x]`` distinct
    nodes ``node[a, x, :cnt]`` with their probabilities, the total ``move[a, x]``,
    and the probability ``stay[a, x]`` of staying put (exactly 1 if every throw does).
    Faces landing on one node are summed with a compensation term (Neumaier), so each
    probability is within a few units of roundoff however many faces it sums; one pass
    over the faces (``n_nodes``: the nodes' count, for the slot of each)."""
    n_act, n, width = nodes.shape
    slot = np.full(n_nodes, -1, dtype=np.int64)
    comp = np.zeros(width)
    for a in range(n_act):
        for x in range(n):
            k = 0
            st = 0.0
            st_comp = 0.0
            for f in range(width):
                pr = probs[a, f]
                if pr == 0.0:
                    continue
                v = nodes[a, x, f]
                if v == x:
                    total = st + pr
                    st_comp += (st - total) + pr if st >= pr else (pr - total) + st
                    st = total
                    continue
                e = slot[v]
                if e < 0:
                    slot[v] = k
                    node[a, x, k] = v
                    prob[a, x, k] = pr
                    comp[k] = 0.0
                    k += 1
                    continue
                total = prob[a, x, e] + pr
                if abs(prob[a, x, e]) >= abs(pr):
                    comp[e] += (prob[a, x, e] - total) + pr
                else:
                    comp[e] += (pr - total) + prob[a, x, e]
                prob[a, x, e] = total
            mv = 0.0
            for e in range(k):
                prob[a, x, e] += comp[e]
                mv += prob[a, x, e]
                slot[node[a, x, e]] = -1
            cnt[a, x] = k
            move[a, x] = mv
            stay[a, x] = 1.0 if k == 0 else st + st_comp


@njit(inline="always")
def _lost_sum(cnt, node, prob, jumps, optional, base, w, a, i, j, goal, n
              ):  # pragma: no cover - jitted
    """``sum_f P_a(f) w[(j, r)]`` over die ``a``'s throws from ``(i, j)`` that move the
    token and miss the goal (resting, along an optional jump's chain, where ``w`` is
    smallest): what the mover's chance to win loses to the opponent's."""
    src, tgt, ptr, rest = jumps
    lost = 0.0
    for e in range(cnt[a, i]):
        v = node[a, i, e]
        if v == goal:
            continue
        if not optional or v < n:
            lost += prob[a, i, e] * w[base[j + v] + j]
        else:
            least = 1.0
            for q in range(ptr[v - n], ptr[v - n + 1]):
                r = rest[q]
                if r == goal:
                    least = 0.0
                    break
                least = min(least, w[base[j + r] + j])
            lost += prob[a, i, e] * least
    return lost


@njit(inline="always")
def _best_value(cnt, node, prob, stay, jumps, optional, base, w, i, j, goal, n
                ):  # pragma: no cover - jitted
    """``max_a sum_f P_a(f) (1 if r is the goal else 1 - w[(j, r)])`` at ``(i, j)``, a
    lost throw resting on ``r = i`` (each die's throws scaled to sum to 1)."""
    best = 0.0
    for a in range(cnt.shape[0]):
        lost = _lost_sum(cnt, node, prob, jumps, optional, base, w, a, i, j, goal, n)
        if stay[a, i] > 0.0:
            lost += stay[a, i] * w[base[i + j] + j]
        best = max(best, 1.0 - lost)
    return best


@njit()
def value_sweep_kernel(cnt, node, prob, stay, jumps, optional, base, w
                       ):  # pragma: no cover - jitted
    """One in-place Gauss-Seidel sweep of ``w = T w`` for the symmetric race, last
    diagonal first: ``w[(i, j)]``, the mover's chance to win, becomes
    :func:`_best_value`, with ``prob`` and ``stay`` each die's moving and lost throws
    (scaled to sum to 1). An estimate: no bounds, no rounding allowance.

    A position and its mirror are updated together, the one a lost throw reads first.
    Where lost throws from both couple them, their two-state game is solved: with ``M``
    the chance to move, ``S = 1 - M`` to stay and ``L`` the :func:`_lost_sum` of a die,
    the mover's chance with die ``a`` against ``b`` is ``(M_a - L_a + S_a L_b) / (M_a +
    S_a M_b)`` (sums of non-negative terms: no cancellation however likely the lost
    throws), and ``x = max_a min_b`` of it (0 if both surely stay: nobody wins).
    Returns the largest change."""
    n_act, n = cnt.shape
    goal = n - 1
    n_sq = goal
    lost_i = np.empty(n_act)
    lost_j = np.empty(n_act)
    change = 0.0
    for s in range(2 * n_sq - 2, -1, -1):
        for i in range(max(0, s - n_sq + 1), s // 2 + 1):
            j = s - i
            stays_i = False
            stays_j = False
            for a in range(n_act):
                stays_i = stays_i or stay[a, i] > 0.0
                stays_j = stays_j or stay[a, j] > 0.0
            if stays_i and not stays_j:  # (i, j) reads (j, i): update that first
                i, j = j, i
            u = base[s] + i
            m = base[s] + j
            if stays_i and stays_j:
                for a in range(n_act):
                    lost_i[a] = _lost_sum(cnt, node, prob, jumps, optional, base, w, a, i, j,
                                          goal, n)
                    lost_j[a] = _lost_sum(cnt, node, prob, jumps, optional, base, w, a, j, i,
                                          goal, n)
                x = 0.0
                for a in range(n_act):
                    move_a = 1.0 - stay[a, i]
                    worst = 1.0
                    for b in range(n_act):
                        den = move_a + stay[a, i] * (1.0 - stay[b, j])
                        xab = 0.0 if den == 0.0 else \
                            (move_a - lost_i[a] + stay[a, i] * lost_j[b]) / den
                        worst = min(worst, xab)
                    x = max(x, worst)
                y = x
                if i != j:
                    y = 0.0
                    for b in range(n_act):
                        y = max(y, 1.0 - lost_j[b] - stay[b, j] * x)
                change = max(change, abs(x - w[u]), abs(y - w[m]))
                w[u] = x
                w[m] = y
                continue
            x = _best_value(cnt, node, prob, stay, jumps, optional, base, w, i, j, goal, n)
            change = max(change, abs(x - w[u]))
            w[u] = x
            if i != j:
                y = _best_value(cnt, node, prob, stay, jumps, optional, base, w, j, i, goal, n)
                change = max(change, abs(y - w[m]))
                w[m] = y
    return change


#: Rounding allowances, in units of the unit roundoff ``u``: a value ``(move - sum pr z) /
#: total`` over ``K`` moving throws is off by at most ``(K + 4) u``; a two-state game
#: (:func:`_solve_pair`) by at most ``(2 K + 11) u``. Every computed bound is moved
#: outwards by these (``K`` = the dice's most faces), so rounding never takes a bound
#: past the exact value; they are small enough not to stop a bracket closing (the
#: allowance adds up over the sweeps to about itself over the chance to finish per sweep).
ROUND_SIMPLE = 4.0
ROUND_PAIR = 16.0
_U = 2.0**-53


@njit(inline="always")
def _per(v, total):  # pragma: no cover - jitted
    """``v / total``, skipping the division for the usual total of exactly 1."""
    return v if total == 1.0 else v / total


@njit(inline="always")
def _outward(v, allow, direction):  # pragma: no cover - jitted
    """``v`` moved outwards by ``allow`` (``direction`` -1: a lower bound, +1: an upper
    bound, 0: an estimate) and kept inside ``[0, 1]``."""
    if direction < 0:
        v -= allow
        return v if v > 0.0 else 0.0
    if direction > 0:
        v += allow
        return v if v < 1.0 else 1.0
    return v


@njit()
def _solve_pair(c, s, m, tot, exact_c, ka, d, sd, t, m_d, tot_d, exact_d, kb, loop_x, rnd1,
                rnd, direction):  # pragma: no cover - jitted
    """The two-state game ``x = max_a (c_a + s_a (1 - y)) / T_a``,
    ``y = max_b (d_b + t_b (1 - x)) / T_b``, each bound moved outwards.

    Side x maximises ``x``, side y maximises ``y`` (zero-sum: ``1 - y`` is x's payoff in
    y's state), so ``x = max_a min_b x_ab`` over stationary choices. ``c_a`` is the value
    of die ``a``'s moving throws, ``s_a`` its chance to stay put, ``T_a = move_a + s_a``
    its total (1 up to rounding: the die is scaled to sum to 1), and ``sd_b`` the sum of
    ``pr * z`` over y's moving throws that miss the goal (so ``d_b = move_b - sd_b``).
    For fixed ``a, b``::

        x_ab = (c_a T_b + s_a sd_b) / (m_a m_b + m_a t_b + s_a m_b)

    with ``m`` the chance to move: every term is a sum of non-negative
    numbers, so rounding errors are not amplified by ``1 / (1 - s_a t_b)`` (the error of
    ``c_a``, at most a few units of ``m_a``, is divided by at least ``m_a T_b``). A loop in
    which both always stay put is worth ``loop_x`` to x (0 for a chance to win: nobody
    wins; 1 for a chance not to lose). ``direction`` (-1, +1, 0) says whether x is a
    lower bound, an upper bound or an estimate (y the opposite), moved outwards by
    ``rnd1`` where it does not depend on the other state, else ``rnd``; ``exact_c[a]``:
    die ``a``'s value is exact (it never stays and every moving throw wins).
    """
    x_stalls = False
    for a in range(ka):
        if s[a] > 0.0:
            x_stalls = True
    y_stalls = False
    for b in range(kb):
        if t[b] > 0.0:
            y_stalls = True
    if not x_stalls:  # x's value does not depend on y
        x = -1.0
        for a in range(ka):
            xa = _outward(_per(c[a], tot[a]), 0.0 if exact_c[a] else rnd1, direction)
            if xa > x:
                x = xa
    elif not y_stalls:
        y = -1.0
        for b in range(kb):
            yb = _outward(_per(d[b], tot_d[b]), 0.0 if exact_d[b] else rnd1, -direction)
            if yb > y:
                y = yb
        x = -1.0
        for a in range(ka):
            if s[a] == 0.0:  # this die does not depend on y
                xa = _outward(_per(c[a], tot[a]), 0.0 if exact_c[a] else rnd1, direction)
            else:
                xa = _outward(_per(c[a] + s[a] * (1.0 - y), tot[a]), rnd, direction)
            if xa > x:
                x = xa
        return x, y
    else:
        x = -1.0
        for a in range(ka):
            if s[a] == 0.0:  # this die does not depend on y
                xa = _outward(_per(c[a], tot[a]), 0.0 if exact_c[a] else rnd1, direction)
                if xa > x:
                    x = xa
                continue
            m_a = m[a]
            worst = 2.0
            for b in range(kb):
                m_b = m_d[b]
                if m_a == 0.0 and m_b == 0.0:
                    xab = loop_x
                else:
                    den = m_a * m_b + m_a * t[b] + s[a] * m_b
                    xab = _outward((c[a] * tot_d[b] + s[a] * sd[b]) / den, rnd, direction)
                if xab < worst:
                    worst = xab
            if worst > x:
                x = worst
    y = -1.0
    for b in range(kb):
        yb = _outward(_per(d[b] + t[b] * (1.0 - x), tot_d[b]),
                      0.0 if exact_d[b] and t[b] == 0.0 else rnd, -direction)
        if yb > y:
            y = yb
    return x, y


@njit(inline="always")
def _side(moves, me, other, zc, zd, fixed, a_fix, free, take, jumps, base, goal, n, optional,
          sides):  # pragma: no cover - jitted
    """One side's candidates at ``(me, other)`` into the rows of ``sides`` (:data:`C` ..):
    the value of its moving throws against ``zc`` and ``zd`` (``c``, ``d``) and the sums
    ``sc``, ``sd`` of ``pr * z`` they subtract from the chance to move, the chances of
    staying put and of moving, the die's total and whether each value is exact. A fixed
    side throws die ``a_fix`` and follows jump ``k`` iff ``take[k, other]``; a free one
    has every die as a candidate and, when ``free``, rests anywhere along an optional
    jump's chain. Returns the number of candidates and whether any may stay put."""
    cnt, node, prob, move, stay_p = moves
    src, tgt, ptr, rest = jumps
    k = 1 if fixed else cnt.shape[0]
    stalls = False
    for cand in range(k):
        a = a_fix if fixed else cand
        vc = 0.0
        vd = 0.0
        for e in range(cnt[a, me]):
            v = node[a, me, e]
            pr = prob[a, me, e]
            if v == goal:
                continue
            if not optional or v < n:
                x = base[v + other] + other
                vc += pr * zc[x]
                vd += pr * zd[x]
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
                vc += pr * bc
                vd += pr * bd
            else:  # follow the fixed decisions (written out: a call here slows the loop)
                r = v
                while r >= n:
                    if not take[r - n, other]:
                        r = src[r - n]
                        break
                    r = tgt[r - n]
                if r != goal:
                    x = base[r + other] + other
                    vc += pr * zc[x]
                    vd += pr * zd[x]
        mv = move[a, me]
        sa = stay_p[a, me]
        sides[C, cand] = mv - vc
        sides[SC, cand] = vc
        sides[D, cand] = mv - vd
        sides[SD, cand] = vd
        sides[STAY, cand] = sa
        sides[MOVE, cand] = mv
        sides[TOTAL, cand] = mv + sa
        sides[EXACT_C, cand] = 1.0 if vc == 0.0 and sa == 0.0 else 0.0
        sides[EXACT_D, cand] = 1.0 if vd == 0.0 and sa == 0.0 else 0.0
        stalls = stalls or sa > 0.0
    return k, stalls


#: Rows of one side's candidates (:func:`_side`), one array (a tuple of arrays passed to the
#: inlined helpers cost an atomic reference count per array and call, most of a bracket
#: sweep's time): the value of each die's moving throws against ``zc`` and ``zd`` and the
#: sums of ``pr * z`` they subtract, its chances of staying put and of moving, its total,
#: and (1.0 or 0.0) whether each value is exact.
C, SC, D, SD, STAY, MOVE, TOTAL, EXACT_C, EXACT_D = range(9)


@njit(inline="always")
def _pair_bounds(side0, k0, st0, a0, n0, side1, k1, st1, a1, n1, rnd1, rnd, da
                 ):  # pragma: no cover - jitted
    """The new bounds of a position ``(i, j)`` of side 0 and its mirror ``(j, i)`` of
    side 1 from their candidates (:func:`_side`): ``(xa, ya, xb, yb)``, system alpha
    (side 0's ``p`` with side 1's ``q``) and beta (side 0's ``q`` with side 1's ``p``).
    Side 0's ``p`` is computed with its dice ``a0 .. n0 - 1`` only, side 1's ``p`` with
    ``a1 .. n1 - 1``; ``da``: -1 if ``p`` holds lower bounds, +1 if upper bounds."""
    if st0 or st1:
        xa, ya = _solve_pair(side0[C, a0:n0], side0[STAY, a0:n0], side0[MOVE, a0:n0],
                             side0[TOTAL, a0:n0], side0[EXACT_C, a0:n0], n0 - a0, side1[C],
                             side1[SC], side1[STAY], side1[MOVE], side1[TOTAL],
                             side1[EXACT_C], k1, 0.0, rnd1, rnd, da)
        xb, yb = _solve_pair(side0[D], side0[STAY], side0[MOVE], side0[TOTAL],
                             side0[EXACT_D], k0, side1[D, a1:n1], side1[SD, a1:n1],
                             side1[STAY, a1:n1], side1[MOVE, a1:n1], side1[TOTAL, a1:n1],
                             side1[EXACT_D, a1:n1], n1 - a1, 1.0, rnd1, rnd, -da)
        return xa, ya, xb, yb
    xa = -1.0
    xb = -1.0
    ya = -1.0
    yb = -1.0
    for a in range(a0, n0):
        xa = max(xa, _outward(_per(side0[C, a], side0[TOTAL, a]),
                              0.0 if side0[EXACT_C, a] else rnd1, da))
    for a in range(k1):
        ya = max(ya, _outward(_per(side1[C, a], side1[TOTAL, a]),
                              0.0 if side1[EXACT_C, a] else rnd1, -da))
    for a in range(k0):
        xb = max(xb, _outward(_per(side0[D, a], side0[TOTAL, a]),
                              0.0 if side0[EXACT_D, a] else rnd1, -da))
    for a in range(a1, n1):
        yb = max(yb, _outward(_per(side1[D, a], side1[TOTAL, a]),
                              0.0 if side1[EXACT_D, a] else rnd1, da))
    return xa, ya, xb, yb


@njit()
def box_sweep_kernel(moves, jumps, optional, base, low, up, sigma):  # pragma: no cover
    """One Gauss-Seidel sweep of the symmetric game's bounds from a box, last diagonal
    first: ``low`` (the chance to win from below) and ``up`` (the chance not to lose from
    above) are replaced by the operator's values, not clamped (``bounds.py`` checks that
    they land inside the box). Both sides maximise; the chance to win at a state is
    computed with the die ``sigma[state]`` only, or with every die where it is -1 (a
    lower bound certified through that policy, see ``bounds.py``); jump decisions stay
    free. A state and its mirror are updated together, as in :func:`bracket_sweep_kernel`.
    """
    cnt = moves[0]
    n_act, n = cnt.shape
    width = moves[1].shape[2]  # the rounding allowances of one value and of a pair
    rnd1, rnd = (width + ROUND_SIMPLE) * _U, (2 * width + ROUND_PAIR) * _U
    goal = n - 1
    n_sq = goal
    side0 = np.empty((9, n_act))  # the candidates of each side (rows C .. EXACT_D)
    side1 = np.empty((9, n_act))
    no_take = np.ones((1, 1), dtype=np.bool_)
    for s in range(2 * n_sq - 2, -1, -1):
        for i in range(max(0, s - n_sq + 1), s // 2 + 1):
            j = s - i
            u = base[s] + i  # (i, j)
            w = base[s] + j  # (j, i)
            k0, st0 = _side(moves, i, j, up, low, False, 0, optional, no_take, jumps, base,
                            goal, n, optional, side0)
            k1, st1 = _side(moves, j, i, low, up, False, 0, optional, no_take, jumps, base,
                            goal, n, optional, side1)
            a0 = 0 if sigma[u] < 0 else sigma[u]
            n0 = k0 if sigma[u] < 0 else a0 + 1
            a1 = 0 if sigma[w] < 0 else sigma[w]
            n1 = k1 if sigma[w] < 0 else a1 + 1
            xa, ya, xb, yb = _pair_bounds(side0, k0, st0, a0, n0, side1, k1, st1, a1, n1,
                                          rnd1, rnd, np.int64(-1))  # not a literal: one compile
            if i == j:  # one state: alpha and beta are the same system
                xb, yb = ya, xa
            low[u] = xa
            up[w] = ya
            up[u] = xb
            low[w] = yb


@njit()
def bracket_sweep_kernel(moves, jumps, optional, base, player0, player1, symmetric, p0, q0,
                         p1, q1, lower, skip):  # pragma: no cover - jitted
    """One Gauss-Seidel sweep of the bounds, last diagonal first, each bound only
    improving (clamped): ``(largest change, largest |q - p|)``.

    ``moves``: :func:`moves_kernel`'s tables; ``jumps``: ``(src, tgt, ptr, rest)``,
    the jumps and where a deciding player may rest after landing on each
    (built in ``tables.py``). ``p_k``/``q_k``: win-type and not-lose-type
    bounds of side ``k`` (diagonal layout); ``lower``: ``p`` holds lower bounds
    (rising) and ``q`` upper bounds (falling), else the reverse. With
    ``symmetric`` both sides are one player (``p1 is p0``, ``q1 is q0``) and only
    ``p <= q`` is visited, each state together with its mirror. ``player_k`` is
    ``(fixed, die, take)``: a fixed side throws ``die[state]`` and follows jump ``j``
    iff ``take[j, opponent's square]``; else it maximises, deciding optional jumps
    itself. A state and its mirror whose brackets are both within ``skip`` already
    are left as they are (still valid bounds, and counted in the width). Every bound
    is moved outwards by a rounding allowance (:func:`_solve_pair`).
    """
    cnt = moves[0]
    n_act, n = cnt.shape
    width = moves[1].shape[2]  # the rounding allowances of one value and of a pair
    rnd1, rnd = (width + ROUND_SIMPLE) * _U, (2 * width + ROUND_PAIR) * _U
    goal = n - 1
    n_sq = goal
    fixed0, pol0, take0 = player0
    fixed1, pol1, take1 = player1
    side0 = np.empty((9, n_act))  # the candidates of each side (rows C .. EXACT_D)
    side1 = np.empty((9, n_act))
    da = -1 if lower else 1  # direction of p0 (and of p1)
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
            k0, st0 = _side(moves, i, j, q1, p1, fixed0, pol0[u] if fixed0 else 0,
                            optional and not fixed0, take0, jumps, base, goal, n, optional,
                            side0)
            k1, st1 = _side(moves, j, i, p0, q0, fixed1, pol1[w] if fixed1 else 0,
                            optional and not fixed1, take1, jumps, base, goal, n, optional,
                            side1)
            xa, ya, xb, yb = _pair_bounds(side0, k0, st0, 0, k0, side1, k1, st1, 0, k1,
                                          rnd1, rnd, da)
            if symmetric and i == j:  # one state: alpha and beta are the same system
                xb, yb = ya, xa
            # clamped: a lower bound only rises, an upper bound only falls
            xa = xa if (xa > p0[u] if lower else xa < p0[u]) else p0[u]
            ya = ya if (ya < q1[w] if lower else ya > q1[w]) else q1[w]
            xb = xb if (xb < q0[u] if lower else xb > q0[u]) else q0[u]
            yb = yb if (yb > p1[w] if lower else yb < p1[w]) else p1[w]
            change = max(change, abs(p0[u] - xa), abs(q1[w] - ya), abs(q0[u] - xb),
                         abs(p1[w] - yb))
            p0[u] = xa
            q1[w] = ya
            q0[u] = xb
            p1[w] = yb
            width_max = max(width_max, abs(q0[u] - p0[u]), abs(q1[w] - p1[w]))
    return change, width_max
