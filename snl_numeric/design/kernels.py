"""Numba kernels of the layout search, one per job: exact evaluation of candidate
layouts, random kicks, annealing chains, and the neighbourhood of a layout.

The rules a layout must keep travel as one :class:`Space` tuple and the annealing
chains' state as one :class:`Chains` tuple. Each candidate is evaluated exactly by the
per-board kernel of the solver family (:func:`board_moments_kernel`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._core.numba_config import njit
from .._core.rng import row_below, row_uniform
from .._core.solve import board_moments_kernel
from .._core.table import reach_kernel, succ_table_kernel
from .._core.validation import readonly

#: Objective values closer than this (relative) are ties: they differ by rounding only.
TIE = 1e-12


class Space(NamedTuple):
    """The layouts searched: board rules, where jumps may start and end, their lengths,
    and the die (faces of positive probability; those beyond the goal merged into one)."""

    size: int
    n_snakes: int
    allowed_src: np.ndarray
    allowed_dst: np.ndarray
    min_len: int
    max_len: int
    start: int
    overshoot: int
    chain: bool
    faces: np.ndarray
    probs: np.ndarray


class Chains(NamedTuple):
    """The annealing chains: current layouts (rows of ``src``/``dst``) and costs, the best
    layouts met with their costs, means and variances, and evaluations so far."""

    src: np.ndarray
    dst: np.ndarray
    cost: np.ndarray
    best_src: np.ndarray
    best_dst: np.ndarray
    best_cost: np.ndarray
    best_mean: np.ndarray
    best_var: np.ndarray
    evals: np.ndarray


@njit()
def _ok(space, s, d, snake):  # pragma: no cover - jitted
    """Whether ``s -> d`` is a feasible jump of its kind (occupancy aside)."""
    if s < 1 or s >= space.size or d < 0 or d > space.size:
        return False
    if not space.allowed_src[s] or not space.allowed_dst[d]:
        return False
    length = s - d if snake else d - s
    return space.min_len <= length <= space.max_len


@njit()
def _move_count(space, kind, j, src, dst, pick, new_src, new_dst, rec,
                rec_n):  # pragma: no cover - jitted
    """Count the feasible moves of ``kind`` for jump ``j``; apply the ``pick``-th.

    Kinds: 0 relocate the start, 1 relocate the end, 2 shift the jump, 3 swap
    starts with another jump (of either kind; each keeps its kind). With ``pick >= 0`` the chosen
    move is written into ``new_src``/``new_dst`` (copies of ``src``/``dst``
    on entry). When ``rec`` has rows, every move is also recorded in
    ``rec[rec_n + i] = (j, kind, a, b)``: the new start and end (kinds 0-2)
    or the other jump (kind 3, ``b = -1``).
    """
    size = space.size
    s0 = src[j]
    d0 = dst[j]
    snake = j < space.n_snakes
    record = rec.shape[0] > 0
    count = 0
    if kind == 3:
        for j2 in range(src.shape[0]):
            if j2 == j:
                continue
            if _ok(space, src[j2], d0, snake) and _ok(space, s0, dst[j2], j2 < space.n_snakes):
                if count == pick:
                    new_src[j] = src[j2]
                    new_src[j2] = s0
                if record:
                    rec[rec_n + count, 0] = j
                    rec[rec_n + count, 1] = kind
                    rec[rec_n + count, 2] = j2
                    rec[rec_n + count, 3] = -1
                count += 1
        return count
    occ = np.zeros(size + 1, dtype=np.bool_)  # the squares the other jumps start or end on
    occ[src] = True
    occ[dst] = True
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
        if not occ[s] and not occ[d] and _ok(space, s, d, snake):
            if count == pick:
                new_src[j] = s
                new_dst[j] = d
            if record:
                rec[rec_n + count, 0] = j
                rec[rec_n + count, 1] = kind
                rec[rec_n + count, 2] = s
                rec[rec_n + count, 3] = d
            count += 1
    return count


@njit()
def _propose(space, src, dst, state, c, new_src, new_dst):  # pragma: no cover - jitted
    """One random feasible move into ``new_src``/``new_dst``; False if none drawn."""
    new_src[:] = src
    new_dst[:] = dst
    j = row_below(state, c, src.shape[0])
    kind = row_below(state, c, np.int64(4))  # np.int64: a literal would compile a twin
    no_rec = np.empty((0, 4), dtype=np.int64)
    n = _move_count(space, kind, j, src, dst, np.int64(-1), new_src, new_dst, no_rec, np.int64(0))
    if n == 0:
        return False
    pick = row_below(state, c, n)
    _move_count(space, kind, j, src, dst, pick, new_src, new_dst, no_rec, np.int64(0))
    return True


@njit()
def evaluate_kernel(space, src, dst, first, step, stop, want_var, mean,
                    var):  # pragma: no cover - jitted
    """The exact mean (``want_var``: and variance, else NaN) of the throws from the start
    for candidate layouts ``first, first + step, ...`` below ``stop`` (rows of
    ``src``/``dst``); ``inf`` where the goal is not sure."""
    n = space.size + 1
    succ = np.empty((n, space.faces.shape[0]), dtype=np.int32)
    no_landed = np.empty((0, 0), dtype=np.int32)
    # the other work arrays, for every layout, in one allocation per type (an annealing
    # step evaluates one layout: allocating is a good part of its time): jump table and
    # distances, sure and reported squares, the moments of every square
    iwork = np.empty((2, n), dtype=np.int64)
    jump_to, dist = iwork[0], iwork[1]
    flags = np.zeros((2, n), dtype=np.bool_)
    sure, report = flags[0], flags[1]
    report[space.start] = True
    fwork = np.empty((2, n))
    square_mean, square_var = fwork[0], fwork[1]
    probs = readonly(space.probs)  # typed as a compiled Board's: the kernels compile once
    for i in range(first, stop, step):
        jump_to[:] = -1
        jump_to[src[i]] = dst[i]
        succ_table_kernel(space.size, jump_to, space.overshoot, space.chain, space.faces, succ,
                          no_landed)
        table = readonly(succ)  # (for both)
        reach_kernel(table, space.start, dist, sure)
        if not sure[space.start]:
            mean[i], var[i] = np.inf, np.inf
            continue
        board_moments_kernel(table, probs, sure, report, n, want_var, square_mean, square_var)
        mean[i], var[i] = square_mean[space.start], square_var[space.start]


@njit()
def kick_kernel(space, src, dst, state, c, moves):  # pragma: no cover - jitted
    """Apply ``moves`` random feasible moves to the layout ``src``/``dst`` in place, drawn
    from the xoshiro256** stream in row ``c`` of ``state`` (at most ``50 * moves``
    proposals)."""
    new_src = np.empty_like(src)
    new_dst = np.empty_like(dst)
    done = 0
    for _ in range(50 * moves):
        if done == moves:
            break
        if _propose(space, src, dst, state, c, new_src, new_dst):
            src[:] = new_src
            dst[:] = new_dst
            done += 1


@njit()
def anneal_kernel(space, chains, lo, hi, first, step, mode, target, temps, state, trace,
                  trace_evals):  # pragma: no cover - jitted
    """Advance chains ``lo + first, lo + first + step, ...`` below ``hi`` by ``len(temps)``
    annealing steps at the temperatures ``temps``; chain ``c`` draws from the xoshiro256**
    stream in row ``c`` of ``state``, writes only its own rows of ``chains`` and records
    its best cost and evaluations after each step in row ``c - lo`` of
    ``trace``/``trace_evals``."""
    k = chains.src.shape[1]
    cur_src = np.empty(k, dtype=np.int64)
    cur_dst = np.empty(k, dtype=np.int64)
    # the proposal: one candidate layout for evaluate_kernel, its mean and variance
    cand_src = np.empty((1, k), dtype=np.int64)
    cand_dst = np.empty((1, k), dtype=np.int64)
    new_src, new_dst = cand_src[0], cand_dst[0]
    cand_mean = np.empty(1)
    cand_var = np.empty(1)
    zero, one = np.int64(0), np.int64(1)  # not literals: one compile of evaluate_kernel
    for c in range(lo + first, hi, step):
        cur_src[:] = chains.src[c]
        cur_dst[:] = chains.dst[c]
        cc = chains.cost[c]
        for it in range(temps.shape[0]):
            if _propose(space, cur_src, cur_dst, state, c, new_src, new_dst):
                evaluate_kernel(space, cand_src, cand_dst, zero, one, one, np.bool_(False),
                                cand_mean, cand_var)
                m, v = cand_mean[0], cand_var[0]
                chains.evals[c] += 1
                if m < np.inf:
                    cn = -m if mode == 0 else (m if mode == 1 else abs(m - target))
                    delta = cn - cc
                    # a change within rounding of the objective is a tie: accepted, no draw
                    if delta <= TIE * abs(cc) or \
                            row_uniform(state, c) < math.exp(-delta / temps[it]):
                        cur_src[:] = new_src
                        cur_dst[:] = new_dst
                        cc = cn
                        if cn < chains.best_cost[c]:
                            chains.best_cost[c] = cn
                            chains.best_src[c] = cur_src
                            chains.best_dst[c] = cur_dst
                            chains.best_mean[c] = m
                            chains.best_var[c] = v
            trace[c - lo, it] = chains.best_cost[c]
            trace_evals[c - lo, it] = chains.evals[c]
        chains.src[c] = cur_src
        chains.dst[c] = cur_dst
        chains.cost[c] = cc


@njit()
def neighbours_kernel(space, src, dst, rec):  # pragma: no cover - jitted
    """Record every feasible single move of a layout in ``rec``; return how many."""
    n = np.int64(0)  # not a literal: one compile of _move_count
    for j in range(src.shape[0]):
        for kind in range(4):
            n += _move_count(space, kind, j, src, dst, np.int64(-1), src, dst, rec, n)
    return n
