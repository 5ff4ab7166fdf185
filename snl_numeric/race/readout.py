r"""Reading the policy off the solved values: a way of playing that attains them.

Choosing, in every position, a die whose one-step value equals the position's value
is not enough: a die that never moves the token (or a loop of snakes) can be worth
exactly as much as the best one *because* the opponent is stranded, and a player who
keeps throwing it never wins. The read-out therefore follows the classical
construction of optimal strategies in simple stochastic games (reachability games):

1. **value-optimal choices**: the dice within ``tie`` of the best one-step value of
   the mover's chance to win, ``A(i, j)``; for an opponent who plays to stop the
   mover (the symmetric game), the opponent's dice within ``tie`` of the best
   chance not to lose, ``B(j, i)``;
2. **the attractor of the goal**: positions are ranked in the order in which they
   are found to reach the goal with positive probability: the mover's position
   ``(i, j)`` as soon as some die of ``A(i, j)`` lands on the goal or on a ranked
   position of the opponent; the opponent's ``(j, i)`` as soon as each of its dice
   in ``B(j, i)`` (a fixed opponent: its die) has some throw that lands on a ranked
   position of the mover;
3. the mover throws a die of ``A(i, j)`` that reaches a position ranked before its
   own (so every play either progresses or the mover's chance is 0); among those
   the one that leaves the opponent the smallest chance to win (the largest chance
   not to lose), then the smallest index. Unranked positions (the mover cannot win
   from there) get the die of ``A`` with the best chance not to lose.

With optional jumps the mover rests, after landing on a jump, on a square of the
jump's chain within ``tie`` of the best, the earliest ranked one (following on ties).
"""

from __future__ import annotations

import numpy as np

from .._core.numba_config import njit
from .tables import Tables


def read_policy(t: Tables, win0: np.ndarray, win1: np.ndarray, keep1: np.ndarray, tie: float,
                opponent: tuple[np.ndarray, np.ndarray] | None = None, *, ends: bool = False
                ) -> tuple[np.ndarray, np.ndarray]:
    """Side 0's die per position (diagonal layout) and its jump decisions ``take[k, j]``.

    ``win0``/``win1``: the two sides' chances to win, ``keep1`` side 1's chance not to
    lose (diagonal layout); ``opponent``: side 1's fixed dice (diagonal layout, int32)
    and jump decisions, or None for an opponent who plays to stop side 0. ``ends``:
    every game ends, whatever the players do; then any value-optimal die attains its
    value and the attractor (steps 2 and 3) is not needed.
    """
    states, n_act = t.n_sq * t.n_sq, t.moves[0].shape[0]
    cand0 = np.empty((states, n_act), dtype=np.bool_)
    policy = np.empty(states, dtype=np.int64)
    candidates_kernel(t.moves, t.jumps, t.optional, t.base, win1, keep1, tie, cand0, policy)
    rank1 = np.full(states, -1, dtype=np.int64)
    if ends:
        return policy, _decide_jumps(t, keep1, rank1, tie)
    if opponent is None:
        fixed1, pol1, take1 = False, np.zeros(1, dtype=np.int32), np.ones((1, 1), np.bool_)
        # side 1's dice within tie of its best chance not to lose, at its states (j, i):
        # the same kernel with side 0's chance to win (its fallback dice are not needed);
        # side 0's own when that is side 1's chance not to lose (one player: the same)
        cand1 = cand0
        if not np.array_equal(win0, keep1):
            cand1 = np.empty((states, n_act), dtype=np.bool_)
            candidates_kernel(t.moves, t.jumps, t.optional, t.base, win0, win0, tie, cand1,
                              np.empty(states, dtype=np.int64))
    else:
        fixed1, cand1 = True, np.ones((1, 1), np.bool_)
        pol1, take1 = opponent
    rank0 = np.full(states, -1, dtype=np.int64)
    counter = np.zeros(1, dtype=np.int64)
    while attract_kernel(t.moves, t.jumps, t.optional, t.base, cand0, keep1, win1, fixed1,
                         pol1, take1, cand1, win0, tie, rank0, rank1, counter, policy):
        pass  # one pass per call: Ctrl-C is honoured between passes
    return policy, _decide_jumps(t, keep1, rank1, tie)


def _decide_jumps(t: Tables, keep1: np.ndarray, rank1: np.ndarray, tie: float) -> np.ndarray:
    take = np.ones((t.n_jumps, t.n_sq), dtype=np.bool_)
    if t.optional and t.n_jumps:
        decide_jumps_kernel(t.jumps[0], t.jumps[1], t.order, t.n_sq + 1, t.base, keep1, rank1,
                            tie, take)
    return take


@njit(inline="always")
def _after(v, other, z, base, goal):  # pragma: no cover - jitted
    """``1 - z[(other, v)]``: the mover's value after resting on ``v`` (1 at the goal)."""
    if v == goal:
        return 1.0
    return 1.0 - z[base[other + v] + other]


@njit(inline="always")
def _best_after(v, other, z, base, goal, n, ptr, rest):  # pragma: no cover - jitted
    """Landing on jump node ``v``: the best ``1 - z`` along its chain's rests."""
    best = -1.0
    for q in range(ptr[v - n], ptr[v - n + 1]):
        best = max(best, _after(rest[q], other, z, base, goal))
    return best


@njit()
def candidates_kernel(moves, jumps, optional, base, win1, keep1, tie, cand, fallback
                      ):  # pragma: no cover - jitted
    """The mover's value-optimal dice ``cand[state, a]`` (side 0 against side 1's
    chance not to lose ``keep1``) and, per state, the die of those with the largest
    chance not to lose (against side 1's chance to win ``win1``), smallest index first.

    Each die's two values (against ``keep1`` and ``win1``) come from one pass over its
    moves, written out here: an inlined helper takes an atomic reference count per array
    argument and call (it took 70% of this kernel's time)."""
    cnt, node, prob, move, stay = moves
    ptr, rest = jumps[2], jumps[3]
    n_act, n = cnt.shape
    goal = n - 1
    n_sq = goal
    val = np.empty(n_act)
    keep = np.empty(n_act)
    for s in range(2 * n_sq - 1):
        lo = max(0, s - n_sq + 1)
        hi = min(s, n_sq - 1)
        for i in range(lo, hi + 1):
            j = s - i
            u = base[s] + i
            best = -1.0
            for a in range(n_act):
                acc_v = acc_k = 0.0
                for e in range(cnt[a, i]):
                    v = node[a, i, e]
                    p = prob[a, i, e]
                    if v == goal:
                        acc_v += p
                        acc_k += p
                    elif not optional or v < n:
                        w = base[j + v] + j
                        acc_v += p * (1.0 - keep1[w])
                        acc_k += p * (1.0 - win1[w])
                    else:
                        acc_v += p * _best_after(v, j, keep1, base, goal, n, ptr, rest)
                        acc_k += p * _best_after(v, j, win1, base, goal, n, ptr, rest)
                st = stay[a, i]
                if st > 0.0:  # staying on i: side 1 to move from (j, i)
                    w = base[s] + j
                    acc_v += st * (1.0 - keep1[w])
                    acc_k += st * (1.0 - win1[w])
                val[a] = acc_v / (move[a, i] + st)
                keep[a] = acc_k / (move[a, i] + st)
                best = max(best, val[a])
            pick = -1
            pick_keep = -1.0
            for a in range(n_act):
                ok = val[a] >= best - tie
                cand[u, a] = ok
                if ok and (pick < 0 or keep[a] > pick_keep + tie):
                    pick = a
                    pick_keep = keep[a]
            fallback[u] = pick


@njit(inline="always")
def _ranked_rest(v, other, z, rank, base, goal, n, ptr, rest, tie, want_all
                 ):  # pragma: no cover - jitted
    """Landing on jump node ``v``: whether some (``want_all``: every) rest within ``tie``
    of the best (by ``1 - z``) is the goal or a ranked position ``(other, r)``."""
    best = -1.0
    for q in range(ptr[v - n], ptr[v - n + 1]):
        best = max(best, _after(rest[q], other, z, base, goal))
    for q in range(ptr[v - n], ptr[v - n + 1]):
        r = rest[q]
        if _after(r, other, z, base, goal) < best - tie:
            continue
        ok = r == goal or rank[base[other + r] + other] >= 0
        if want_all and not ok:
            return False
        if ok and not want_all:
            return True
    return want_all


@njit()
def attract_kernel(moves, jumps, optional, base, cand0, keep1, win1, fixed1, pol1, take1,
                   cand1, win0, tie, rank0, rank1, counter, policy):  # pragma: no cover
    """One pass of the attractor (see the module notes), last diagonal first.

    ``rank0``/``rank1`` (-1: not yet ranked) rank side 0's positions ``(i, j)`` and
    side 1's ``(j, i)``; ``counter[0]`` is the next rank. A newly ranked position of
    side 0 gets its die in ``policy``. Side 1 is fixed (``pol1``, ``take1``) or plays
    any of ``cand1`` (then it rests anywhere within ``tie`` of its best along a jump
    chain, judged by ``1 - win0``). Returns the number of positions ranked.
    """
    cnt, node, prob, move, stay = moves
    src, tgt, ptr, rest = jumps
    n_act, n = cnt.shape
    goal = n - 1
    n_sq = goal
    found = 0
    for s in range(2 * n_sq - 2, -1, -1):
        lo = max(0, s - n_sq + 1)
        hi = min(s, n_sq - 1)
        for i in range(lo, hi + 1):
            j = s - i
            # side 1 on j to move, side 0 on i: (j, i) at base[s] + j
            w = base[s] + j
            if rank1[w] < 0:
                every = True
                for b in range(n_act):
                    if fixed1:
                        if b != pol1[w]:
                            continue
                    elif not cand1[w, b]:
                        continue
                    some = stay[b, j] > 0.0 and rank0[base[s] + i] >= 0
                    for e in range(cnt[b, j]):
                        if some:
                            break
                        v = node[b, j, e]
                        if v == goal:
                            continue
                        if v < n:
                            some = rank0[base[i + v] + i] >= 0
                        elif fixed1:
                            r = v
                            while r >= n:
                                if not take1[r - n, i]:
                                    r = src[r - n]
                                    break
                                r = tgt[r - n]
                            some = r != goal and rank0[base[i + r] + i] >= 0
                        else:
                            some = _ranked_rest(v, i, win0, rank0, base, goal, n, ptr, rest,
                                                tie, True)
                    if not some:
                        every = False
                        break
                if every:
                    rank1[w] = counter[0]
                    counter[0] += 1
                    found += 1
            # side 0 on i to move, side 1 on j: (i, j) at base[s] + i
            u = base[s] + i
            if rank0[u] >= 0:
                continue
            pick = -1
            pick_keep = -1.0
            for a in range(n_act):
                if not cand0[u, a]:
                    continue
                some = stay[a, i] > 0.0 and rank1[base[s] + j] >= 0
                for e in range(cnt[a, i]):
                    if some:
                        break
                    v = node[a, i, e]
                    if v == goal:
                        some = True
                    elif v < n:
                        some = rank1[base[j + v] + j] >= 0
                    else:
                        some = _ranked_rest(v, j, keep1, rank1, base, goal, n, ptr, rest, tie,
                                            False)
                if some:  # the die's value against win1 (the best rest along a jump chain)
                    k = 0.0
                    for e in range(cnt[a, i]):
                        v = node[a, i, e]
                        if not optional or v < n:
                            k += prob[a, i, e] * _after(v, j, win1, base, goal)
                        else:
                            k += prob[a, i, e] * _best_after(v, j, win1, base, goal, n, ptr,
                                                             rest)
                    if stay[a, i] > 0.0:
                        k += stay[a, i] * _after(i, j, win1, base, goal)
                    k /= move[a, i] + stay[a, i]
                    if pick < 0 or k > pick_keep + tie:
                        pick = a
                        pick_keep = k
            if pick >= 0:
                rank0[u] = counter[0]
                counter[0] += 1
                found += 1
                policy[u] = pick
    return found


@njit()
def decide_jumps_kernel(src, tgt, order, n, base, keep1, rank1, tie, take
                        ):  # pragma: no cover - jitted
    """``take[k, j]``: follow jump ``k`` when the opponent is on ``j`` unless declining is
    better by more than ``tie``; between choices within ``tie``, the one resting on the
    earlier ranked position (unranked last), following on ties. Chained jumps are
    decided first (``order``), so a follow lands on the decision already made there."""
    goal = n - 1
    n_sq = goal
    m = src.shape[0]
    val = np.empty(m)
    rk = np.empty(m, dtype=np.int64)
    big = np.iinfo(np.int64).max
    for j in range(n_sq):
        for q in range(m):
            k = order[q]
            t = tgt[k]
            if t >= n:
                fv = val[t - n]
                fr = rk[t - n]
            elif t == goal:
                fv = 1.0
                fr = -1
            else:
                fv = 1.0 - keep1[base[j + t] + j]
                fr = rank1[base[j + t] + j]
                fr = big if fr < 0 else fr
            d = src[k]
            dv = 1.0 - keep1[base[j + d] + j]
            dr = rank1[base[j + d] + j]
            dr = big if dr < 0 else dr
            follow = fv >= dv - tie and (fv > dv + tie or fr <= dr)
            take[k, j] = follow
            val[k] = fv if follow else dv
            rk[k] = fr if follow else dr
