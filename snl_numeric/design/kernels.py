"""Numba kernels of the layout search: moves, exact evaluation, annealing chains."""

from __future__ import annotations

import math

import numpy as np

from .._core.numba_config import njit
from .._core.solve import moments_kernel
from .._core.table import reach_kernel, succ_table_kernel

#: Objective values closer than this (relative) are ties: they differ by rounding only.
TIE = 1e-12


@njit()
def _next_u64(state, c):  # pragma: no cover - jitted
    """splitmix64 step of stream ``c``."""
    s = state[c] + np.uint64(0x9E3779B97F4A7C15)
    state[c] = s
    z = (s ^ (s >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit()
def _uniform(state, c):  # pragma: no cover - jitted
    return float(_next_u64(state, c) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit()
def _randint(state, c, n):  # pragma: no cover - jitted
    r = int(_uniform(state, c) * n)
    return r if r < n else n - 1


@njit()
def _ok(s, d, snake, size, allowed_src, allowed_dst, min_len, max_len):  # pragma: no cover
    """Whether ``s -> d`` is a feasible jump of its kind (occupancy aside)."""
    if s < 1 or s >= size or d < 0 or d > size:
        return False
    if not allowed_src[s] or not allowed_dst[d]:
        return False
    length = s - d if snake else d - s
    return min_len <= length <= max_len


@njit()
def _copy(dst, src):  # pragma: no cover - jitted
    """``dst[:] = src`` for 1-d arrays of one length (a loop: no shape checks to compile)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit()
def _mark(size, src, dst, occ):  # pragma: no cover - jitted
    for x in range(occ.shape[0]):
        occ[x] = False
    for j in range(src.shape[0]):
        occ[src[j]] = True
        occ[dst[j]] = True


@njit()
def _move_count(kind, j, size, n_snakes, src, dst, occ, allowed_src, allowed_dst, min_len,
                max_len, pick, new_src, new_dst, rec, rec_n):  # pragma: no cover - jitted
    """Count the feasible moves of ``kind`` for jump ``j``; apply the ``pick``-th.

    Kinds: 0 relocate the start, 1 relocate the end, 2 shift the jump, 3 swap
    starts with another jump (of either kind; each keeps its kind). With ``pick >= 0`` the chosen
    move is written into ``new_src``/``new_dst`` (copies of ``src``/``dst``
    on entry). When ``rec`` has rows, every move is also recorded in
    ``rec[rec_n + i] = (j, kind, a, b)``: the new start and end (kinds 0-2)
    or the other jump (kind 3, ``b = -1``).
    """
    s0 = src[j]
    d0 = dst[j]
    snake = j < n_snakes
    record = rec.shape[0] > 0
    count = 0
    if kind == 3:
        for j2 in range(src.shape[0]):
            if j2 == j:
                continue
            if _ok(src[j2], d0, snake, size, allowed_src, allowed_dst, min_len, max_len) and \
                    _ok(s0, dst[j2], j2 < n_snakes, size, allowed_src, allowed_dst, min_len,
                        max_len):
                if count == pick:
                    new_src[j] = src[j2]
                    new_src[j2] = s0
                if record:
                    _record(rec, rec_n + count, j, kind, j2, np.int64(-1))
                count += 1
        return count
    occ[s0] = False
    occ[d0] = False
    lo = 1 if kind == 0 else (0 if kind == 1 else -size)
    hi = size - 1 if kind == 0 else size
    for x in range(lo, hi + 1):
        if kind == 0:
            s, d = x, d0
        elif kind == 1:
            s, d = s0, x
        else:
            s, d = s0 + x, d0 + x
        if (s == s0 and d == d0) or s == d or s < 1 or s >= size or d < 0 or d > size:
            continue
        if not occ[s] and not occ[d] and \
                _ok(s, d, snake, size, allowed_src, allowed_dst, min_len, max_len):
            if count == pick:
                new_src[j] = s
                new_dst[j] = d
            if record:
                _record(rec, rec_n + count, j, kind, s, d)
            count += 1
    occ[s0] = True
    occ[d0] = True
    return count


@njit()
def _record(rec, i, j, kind, a, b):  # pragma: no cover - jitted
    rec[i, 0] = j
    rec[i, 1] = kind
    rec[i, 2] = a
    rec[i, 3] = b


@njit()
def _propose(size, n_snakes, src, dst, occ, allowed_src, allowed_dst, min_len, max_len,
             state, c, new_src, new_dst):  # pragma: no cover - jitted
    """One random feasible move into ``new_src``/``new_dst``; False if none drawn."""
    k = src.shape[0]
    _copy(new_src, src)
    _copy(new_dst, dst)
    j = _randint(state, c, k)
    kind = _randint(state, c, np.int64(4))  # np.int64: no literal-typed specialisation
    no_rec = np.empty((0, 4), dtype=np.int64)
    n = _move_count(kind, j, size, n_snakes, src, dst, occ, allowed_src, allowed_dst,
                    min_len, max_len, np.int64(-1), new_src, new_dst, no_rec, np.int64(0))
    if n == 0:
        return False
    _move_count(kind, j, size, n_snakes, src, dst, occ, allowed_src, allowed_dst, min_len,
                max_len, _randint(state, c, n), new_src, new_dst, no_rec, np.int64(0))
    return True


@njit(inline="always")
def _layout_moments_kernel(size, src, dst, start, overshoot, chain, faces, probs, jump_to,
                           succ, dist, sure, mean, var, want_var):  # pragma: no cover - jitted
    """Exact mean (and variance if ``want_var``, else NaN) of the throws from ``start``
    for one layout."""
    for x in range(jump_to.shape[0]):
        jump_to[x] = -1
    for j in range(src.shape[0]):
        jump_to[src[j]] = dst[j]
    succ_table_kernel(size, jump_to, overshoot, chain, faces, succ, np.empty((0, 0), np.int64))
    reach_kernel(succ, dist, sure)
    if not sure[start]:
        return np.inf, np.inf
    moments_kernel(succ, probs.reshape((1, probs.shape[0])), 0, sure, mean, var, size + 1,
                   want_var)
    return mean[start], var[start]


@njit()
def _cost(mode, mean, target):  # pragma: no cover - jitted
    if mode == 0:
        return -mean
    if mode == 1:
        return mean
    return abs(mean - target)


@njit(inline="always")
def _anneal_chain(c, row, size, n_snakes, allowed_src, allowed_dst, min_len, max_len, start,
                  overshoot, chain, faces, probs, mode, target, temps, state, src, dst, cost,
                  best_src, best_dst, best_cost, best_mean, best_var, evals, trace,
                  trace_evals, want_var):  # pragma: no cover - jitted
    """Advance annealing chain ``c`` by ``len(temps)`` steps (touches only row ``c``; its
    trace goes to row ``row`` of ``trace``/``trace_evals``)."""
    k = src.shape[1]
    occ = np.empty(size + 1, dtype=np.bool_)  # set by _mark
    cur_src = np.empty(k, dtype=np.int64)
    cur_dst = np.empty(k, dtype=np.int64)
    _copy(cur_src, src[c])
    _copy(cur_dst, dst[c])
    new_src = np.empty(k, dtype=np.int64)
    new_dst = np.empty(k, dtype=np.int64)
    jump_to = np.empty(size + 1, dtype=np.int64)
    succ = np.empty((size + 1, faces.shape[0]), dtype=np.int64)
    dist = np.empty(size + 1, dtype=np.int64)
    sure = np.empty(size + 1, dtype=np.bool_)
    mean = np.empty(size + 1)
    var = np.empty(size + 1)
    _mark(size, cur_src, cur_dst, occ)
    cc = cost[c]
    for it in range(temps.shape[0]):
        if _propose(size, n_snakes, cur_src, cur_dst, occ, allowed_src, allowed_dst,
                    min_len, max_len, state, c, new_src, new_dst):
            m, v = _layout_moments_kernel(size, new_src, new_dst, start, overshoot, chain,
                                          faces, probs, jump_to, succ, dist, sure, mean, var,
                                          want_var)
            evals[c] += 1
            if m < np.inf:
                cn = _cost(mode, m, target)
                delta = cn - cc
                # a change within rounding of the objective is a tie: accepted, no draw
                if delta <= TIE * abs(cc) or _uniform(state, c) < math.exp(-delta / temps[it]):
                    _copy(cur_src, new_src)
                    _copy(cur_dst, new_dst)
                    cc = cn
                    _mark(size, cur_src, cur_dst, occ)
                    if cn < best_cost[c]:
                        best_cost[c] = cn
                        _copy(best_src[c], cur_src)
                        _copy(best_dst[c], cur_dst)
                        best_mean[c] = m
                        best_var[c] = v
        trace[row, it] = best_cost[c]
        trace_evals[row, it] = evals[c]
    _copy(src[c], cur_src)
    _copy(dst[c], cur_dst)
    cost[c] = cc


#: Operations of :func:`search_kernel`.
EVALUATE, KICK, ANNEAL, MOMENTS = 0, 1, 2, 3


@njit()
def search_kernel(op, i0, i1, i2, i3, size, n_snakes, allowed_src, allowed_dst, min_len,
                  max_len, start, overshoot, chain, faces, probs, mode, target, temps, state,
                  src, dst, cost, best_src, best_dst, best_cost, best_mean, best_var, evals,
                  trace, trace_evals):  # pragma: no cover - jitted
    """The operations of a search in one kernel (one compilation for all of them):

    - ``EVALUATE``: the exact mean of candidate layouts ``i0, i0 + i1, ...`` below
      ``i2`` (rows of ``src``/``dst``) into ``best_mean`` (one thread's share of a
      batch); ``MOMENTS``: the same with the variance into ``best_var`` (the winner's,
      with the kernels the search compiled: no second solver to compile);
    - ``KICK``: ``i2`` random feasible moves applied in place to row ``i0`` of
      ``src``/``dst``, drawn from stream ``i1`` of ``state``;
    - ``ANNEAL``: advance chains ``i0 + i2, i0 + i2 + i3, ...`` below ``i1`` by
      ``len(temps)`` steps (one thread's share of the group ``i0 .. i1 - 1``, whose chain
      ``c`` records its trace in row ``c - i0`` of ``trace``/``trace_evals``).
    """
    want_var = op == MOMENTS  # a run-time flag: one specialisation of moments_kernel
    if op == EVALUATE or want_var:
        jump_to = np.empty(size + 1, dtype=np.int64)
        succ = np.empty((size + 1, faces.shape[0]), dtype=np.int64)
        dist = np.empty(size + 1, dtype=np.int64)
        sure = np.empty(size + 1, dtype=np.bool_)
        mean = np.empty(size + 1)
        var = np.empty(size + 1)
        for i in range(i0, i2, i1):
            m, v = _layout_moments_kernel(size, src[i], dst[i], start, overshoot, chain,
                                          faces, probs, jump_to, succ, dist, sure, mean, var,
                                          want_var)
            best_mean[i] = m
            best_var[i] = v
    elif op == KICK:
        _kick(size, n_snakes, src[i0], dst[i0], allowed_src, allowed_dst, min_len, max_len,
              state, i1, i2)
    else:
        for c in range(i0 + i2, i1, i3):
            _anneal_chain(c, c - i0, size, n_snakes, allowed_src, allowed_dst, min_len,
                          max_len, start, overshoot, chain, faces, probs, mode, target, temps,
                          state, src, dst, cost, best_src, best_dst, best_cost, best_mean,
                          best_var, evals, trace, trace_evals, want_var)


@njit()
def neighbours_kernel(size, n_snakes, src, dst, allowed_src, allowed_dst, min_len, max_len,
                       rec):  # pragma: no cover - jitted
    """Record every feasible single move of a layout in ``rec``; return how many."""
    occ = np.empty(size + 1, dtype=np.bool_)  # set by _mark
    _mark(size, src, dst, occ)
    n = 0
    for j in range(src.shape[0]):
        for kind in range(4):
            n += _move_count(kind, j, size, n_snakes, src, dst, occ, allowed_src, allowed_dst,
                             min_len, max_len, np.int64(-1), src, dst, rec, n)
    return n


@njit()
def apply_moves_kernel(src, dst, rec, take, out_src, out_dst):  # pragma: no cover - jitted
    """Row ``i`` of ``out_*``: the layout after move ``rec[take[i]]``."""
    for i in range(take.shape[0]):
        j, kind, a, b = rec[take[i]]
        _copy(out_src[i], src)
        _copy(out_dst[i], dst)
        if kind == 3:
            out_src[i, j] = src[a]
            out_src[i, a] = src[j]
        else:
            out_src[i, j] = a
            out_dst[i, j] = b


@njit(inline="always")
def _kick(size, n_snakes, src, dst, allowed_src, allowed_dst, min_len, max_len, state, c,
          moves):  # pragma: no cover - jitted
    """Apply ``moves`` random feasible moves to ``src``/``dst`` in place (stream ``c``)."""
    k = src.shape[0]
    occ = np.empty(size + 1, dtype=np.bool_)  # set by _mark
    new_src = np.empty(k, dtype=np.int64)
    new_dst = np.empty(k, dtype=np.int64)
    done = 0
    for _ in range(50 * moves):
        if done == moves:
            break
        _mark(size, src, dst, occ)
        if _propose(size, n_snakes, src, dst, occ, allowed_src, allowed_dst, min_len, max_len,
                    state, c, new_src, new_dst):
            _copy(src, new_src)
            _copy(dst, new_dst)
            done += 1
