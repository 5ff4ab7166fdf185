"""Board design: place snakes and ladders for a wanted expected game length.

Given ``snakes`` snakes and ``ladders`` ladders, :func:`design_board`
searches layouts whose expected number of throws ``E = t[start]`` (``t =
(I - Q)^-1 1``, the absorbing chain's fundamental system) is as large, as
small, or as close to a target as possible. Every candidate is evaluated
exactly by the structured kernels of :mod:`snl_numeric._structured`
(successor table, BFS + sure mask, triangular back-substitution with a
Woodbury correction for the snakes): microseconds per 100-square board, so
searches make hundreds of thousands of exact evaluations.

A layout is feasible when

- every jump starts on a square in ``1 .. size - 1`` other than ``start``
  and not in ``forbidden``;
- every destination is a square in ``0 .. size`` not in ``forbidden`` (it
  may be the start square, or the goal for a ladder);
- all ``2 * (snakes + ladders)`` endpoints are distinct squares: no two jumps
  share a start or an end, and no jump ends where another starts (so there
  are never chained jumps, whatever ``chain``);
- snakes go down and ladders go up, each with length ``|dst - src|`` in
  ``min_length .. max_length``;
- the expected length from ``start`` is finite. Layouts from which the goal
  may never be reached (``E = inf``, possible with exact landing, bounces or
  unusual dice) are evaluated and rejected, so they never "win" a ``"max"``
  search.

Two searches, both spending at most ``iterations * chains`` exact evaluations:

- ``method="anneal"``: ``chains`` independent simulated-annealing chains run
  in parallel (``prange``), each for ``iterations`` steps with a geometric
  temperature schedule. A step proposes one move (relocate a jump's start,
  relocate its end, shift the whole jump keeping its length, or swap the
  starts of two jumps, each keeping its kind: this links a snake and a
  ladder), drawn among the feasible ones, and accepts it by the Metropolis
  rule.
- ``method="local"``: iterated exact local search. The whole neighbourhood
  of the current layout (every feasible single move above) is enumerated,
  shuffled and evaluated in parallel batches; the best layout of the first
  batch that improves is taken. When no neighbour improves (an exact local
  optimum) the best layout is kicked by a few random moves and the descent
  goes on.

Randomness: the chains' streams are spawned from one
:class:`numpy.random.SeedSequence` (each chain has its own counter-based
generator inside the kernel), so results depend only on ``rng``, never on
the number of threads or their scheduling.
"""

from __future__ import annotations

import argparse
import json
import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import prange

from ._numba_config import njit, pjit
from ._progress import Progress
from ._structured import OVERSHOOT_CODES, _fill_succ, _moments_kernel, _reach
from .board import OVERSHOOT_RULES, Board
from .dice import Dice, parse_dice

__all__ = ["DesignResult", "design_board", "METHODS"]

#: Search methods of :func:`design_board`.
METHODS = ("anneal", "local")
_MODES = {"max": 0, "min": 1, "target": 2}
_KICK = 3  # random moves applied at a local optimum
_INIT_ATTEMPTS = 200
_PILOT = 64  # random moves evaluated to set the initial temperature


# ---------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------
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
def _mark(size, src, dst, occ):  # pragma: no cover - jitted
    occ[:] = False
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
                    _record(rec, rec_n + count, j, kind, j2, -1)
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
    new_src[:] = src
    new_dst[:] = dst
    j = _randint(state, c, k)
    kind = _randint(state, c, 4)
    no_rec = np.empty((0, 4), dtype=np.int64)
    n = _move_count(kind, j, size, n_snakes, src, dst, occ, allowed_src, allowed_dst,
                    min_len, max_len, -1, new_src, new_dst, no_rec, 0)
    if n == 0:
        return False
    _move_count(kind, j, size, n_snakes, src, dst, occ, allowed_src, allowed_dst, min_len,
                max_len, _randint(state, c, n), new_src, new_dst, no_rec, 0)
    return True


@njit()
def _evaluate(size, src, dst, start, overshoot, chain, faces, probs, jump_to, succ, dist, sure,
              mean, var):  # pragma: no cover - jitted
    """Exact (mean, variance) of the throws from ``start`` for one layout."""
    jump_to[:] = -1
    for j in range(src.shape[0]):
        jump_to[src[j]] = dst[j]
    _fill_succ(size, jump_to, overshoot, chain, faces, succ)
    _reach(succ, dist, sure)
    if not sure[start]:
        return np.inf, np.inf
    _moments_kernel(succ, probs, sure, mean, var)
    return mean[start], var[start]


@njit()
def _cost(mode, mean, target):  # pragma: no cover - jitted
    if mode == 0:
        return -mean
    if mode == 1:
        return mean
    return abs(mean - target)


@njit()
def _batch_chunk(size, cand_src, cand_dst, first, n, step, start, overshoot, chain, faces,
                 probs, out_mean, out_var):  # pragma: no cover - jitted
    """Evaluate candidates ``first, first + step, ...`` below ``n`` (one task's share)."""
    jump_to = np.empty(size + 1, dtype=np.int64)
    succ = np.empty((size + 1, faces.shape[0]), dtype=np.int64)
    dist = np.empty(size + 1, dtype=np.int64)
    sure = np.empty(size + 1, dtype=np.bool_)
    mean = np.empty(size + 1)
    var = np.empty(size + 1)
    for i in range(first, n, step):
        m, v = _evaluate(size, cand_src[i], cand_dst[i], start, overshoot, chain, faces, probs,
                         jump_to, succ, dist, sure, mean, var)
        out_mean[i] = m
        out_var[i] = v


@pjit()
def _batch_kernel(size, cand_src, cand_dst, n, start, overshoot, chain, faces, probs,
                  out_mean, out_var):  # pragma: no cover - jitted
    """Evaluate the first ``n`` candidate layouts, in parallel over 64 interleaved shares."""
    n_tasks = min(n, 64)
    for task in prange(n_tasks):
        _batch_chunk(size, cand_src, cand_dst, task, n, n_tasks, start, overshoot, chain, faces,
                     probs, out_mean, out_var)


@njit()
def _anneal_chain(c, size, n_snakes, allowed_src, allowed_dst, min_len, max_len, start,
                  overshoot, chain, faces, probs, mode, target, temps, state, src, dst, cost,
                  best_src, best_dst, best_cost, best_mean, best_var, evals, trace,
                  trace_evals):  # pragma: no cover - jitted
    """Advance annealing chain ``c`` by ``len(temps)`` steps (touches only row ``c``)."""
    k = src.shape[1]
    occ = np.zeros(size + 1, dtype=np.bool_)
    cur_src = src[c].copy()
    cur_dst = dst[c].copy()
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
            m, v = _evaluate(size, new_src, new_dst, start, overshoot, chain, faces, probs,
                             jump_to, succ, dist, sure, mean, var)
            evals[c] += 1
            if m < np.inf:
                cn = _cost(mode, m, target)
                delta = cn - cc
                if delta <= 0.0 or _uniform(state, c) < math.exp(-delta / temps[it]):
                    cur_src[:] = new_src
                    cur_dst[:] = new_dst
                    cc = cn
                    _mark(size, cur_src, cur_dst, occ)
                    if cn < best_cost[c]:
                        best_cost[c] = cn
                        best_src[c] = cur_src
                        best_dst[c] = cur_dst
                        best_mean[c] = m
                        best_var[c] = v
        trace[c, it] = best_cost[c]
        trace_evals[c, it] = evals[c]
    src[c] = cur_src
    dst[c] = cur_dst
    cost[c] = cc


@pjit()
def _anneal_kernel(size, n_snakes, allowed_src, allowed_dst, min_len, max_len, start,
                   overshoot, chain, faces, probs, mode, target, temps, state, src, dst, cost,
                   best_src, best_dst, best_cost, best_mean, best_var, evals, trace,
                   trace_evals):  # pragma: no cover - jitted
    """Advance every annealing chain by ``len(temps)`` steps, one chain per task."""
    for c in prange(src.shape[0]):
        _anneal_chain(c, size, n_snakes, allowed_src, allowed_dst, min_len, max_len, start,
                      overshoot, chain, faces, probs, mode, target, temps, state, src, dst,
                      cost, best_src, best_dst, best_cost, best_mean, best_var, evals, trace,
                      trace_evals)


@njit()
def _neighbours_kernel(size, n_snakes, src, dst, allowed_src, allowed_dst, min_len, max_len,
                       rec):  # pragma: no cover - jitted
    """Record every feasible single move of a layout in ``rec``; return how many."""
    occ = np.zeros(size + 1, dtype=np.bool_)
    _mark(size, src, dst, occ)
    n = 0
    for j in range(src.shape[0]):
        for kind in range(4):
            n += _move_count(kind, j, size, n_snakes, src, dst, occ, allowed_src, allowed_dst,
                             min_len, max_len, -1, src, dst, rec, n)
    return n


@njit()
def _apply_moves(src, dst, rec, take, out_src, out_dst):  # pragma: no cover - jitted
    """Row ``i`` of ``out_*``: the layout after move ``rec[take[i]]``."""
    for i in range(take.shape[0]):
        j, kind, a, b = rec[take[i]]
        out_src[i] = src
        out_dst[i] = dst
        if kind == 3:
            out_src[i, j] = src[a]
            out_src[i, a] = src[j]
        else:
            out_src[i, j] = a
            out_dst[i, j] = b


@njit()
def _kick_kernel(size, n_snakes, src, dst, allowed_src, allowed_dst, min_len, max_len, state,
                 moves):  # pragma: no cover - jitted
    """Apply ``moves`` random feasible moves to ``src``/``dst`` in place."""
    k = src.shape[0]
    occ = np.zeros(size + 1, dtype=np.bool_)
    new_src = np.empty(k, dtype=np.int64)
    new_dst = np.empty(k, dtype=np.int64)
    done = 0
    for _ in range(50 * moves):
        if done == moves:
            break
        _mark(size, src, dst, occ)
        if _propose(size, n_snakes, src, dst, occ, allowed_src, allowed_dst, min_len, max_len,
                    state, 0, new_src, new_dst):
            src[:] = new_src
            dst[:] = new_dst
            done += 1


# ---------------------------------------------------------------------------
# result
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class DesignResult:
    """The best layout a :func:`design_board` search found.

    Attributes
    ----------
    board : Board
        The best board (its jumps and the rules searched under).
    expected : float
        Its exact expected number of throws from ``board.start``.
    variance : float
        The variance of that number of throws.
    objective : str
        ``"max"``, ``"min"`` or ``"target"``.
    target : float or None
        The target length for ``objective="target"``.
    value : float
        The objective value: ``expected`` for max/min, ``|expected - target|``
        for a target.
    method : str
        ``"anneal"`` or ``"local"``.
    trace : ndarray of float64
        Best objective value found so far after each iteration (annealing: each
        step of the chains; local search: each evaluated batch).
    trace_evaluations : ndarray of int64
        Evaluations spent up to each entry of ``trace``.
    evaluations : int
        Exact evaluations of candidate layouts (including the initial ones).
    iterations, chains : int
        The search budget as given.
    seed_entropy : tuple of int
        Entropy of the :class:`~numpy.random.SeedSequence` the chains were
        spawned from; ``rng=np.random.SeedSequence(seed_entropy)`` repeats
        the run.
    """

    board: Board
    expected: float
    variance: float
    objective: str
    target: float | None
    value: float
    method: str
    trace: np.ndarray = field(repr=False)
    trace_evaluations: np.ndarray = field(repr=False)
    evaluations: int
    iterations: int
    chains: int
    seed_entropy: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (the board in the ``snl_numeric.board`` format)."""
        return {"board": self.board.to_dict(), "expected": self.expected,
                "variance": self.variance, "objective": self.objective, "target": self.target,
                "value": self.value, "method": self.method, "evaluations": self.evaluations,
                "iterations": self.iterations, "chains": self.chains,
                "seed_entropy": list(self.seed_entropy)}

    def _repr_html_(self) -> str:
        from ._html import design_html

        return design_html(self)

    def __str__(self) -> str:
        b = self.board
        goal = (f"target {self.target:g} (off by {self.value:.6g})"
                if self.objective == "target" else self.objective)
        ladders = " ".join(f"{s}->{d}" for s, d in b.ladders.items())
        snakes = " ".join(f"{s}->{d}" for s, d in b.snakes.items())
        return (f"Designed board: size {b.size}, {len(b.ladders)} ladders, {len(b.snakes)} "
                f"snakes ({goal}, {self.method}, {self.evaluations} evaluations)\n"
                f"  ladders: {ladders or '-'}\n"
                f"  snakes:  {snakes or '-'}\n"
                f"  expected throws: {self.expected:.6f} (sd {math.sqrt(self.variance):.4f})")


# ---------------------------------------------------------------------------
# validation and set-up
# ---------------------------------------------------------------------------
def _count(value: Any, name: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be at least {low}, got {value}")
    return int(value)


@dataclass(frozen=True)
class _Problem:
    size: int
    n_snakes: int
    n_ladders: int
    allowed_src: np.ndarray
    allowed_dst: np.ndarray
    min_len: int
    max_len: int
    start: int
    overshoot: int
    chain: bool
    faces: np.ndarray
    probs: np.ndarray
    rules: dict

    @property
    def k(self) -> int:
        return self.n_snakes + self.n_ladders


def _setup(size, snakes, ladders, min_length, max_length, forbidden, overshoot, chain, dice,
           start) -> _Problem:
    size = _count(size, "size", 2)
    n_snakes = _count(snakes, "snakes")
    n_ladders = _count(ladders, "ladders")
    k = n_snakes + n_ladders
    if k == 0:
        raise ValueError("nothing to design: snakes + ladders must be at least 1, got 0")
    probe = Board(size, start=start, overshoot=overshoot, chain=chain, dice=dice)  # validates
    if probe.start == size:
        raise ValueError(f"start must be a square below the goal {size}, got {start}")
    min_len = _count(min_length, "min_length", 1)
    max_len = size if max_length is None else _count(max_length, "max_length", 1)
    if min_len > max_len:
        raise ValueError(f"min_length {min_len} is larger than max_length {max_len}")
    allowed_dst = np.ones(size + 1, dtype=np.bool_)
    if forbidden is None:
        forbidden = ()
    if isinstance(forbidden, (str, bytes)) or not isinstance(forbidden, Iterable):
        raise TypeError(f"forbidden must be an iterable of squares, got {forbidden!r}")
    for sq in forbidden:
        if isinstance(sq, bool) or not isinstance(sq, numbers.Integral):
            raise TypeError(f"forbidden squares must be integers, got {sq!r}")
        if not 0 <= sq <= size:
            raise ValueError(f"forbidden square {sq} is outside the board 0..{size}")
        allowed_dst[int(sq)] = False
    allowed_src = allowed_dst.copy()
    allowed_src[[0, probe.start, size]] = False
    n_src = int(allowed_src.sum())
    if k > n_src:
        raise ValueError(f"cannot place {k} jumps: only {n_src} squares may start a jump "
                         f"(1..{size - 1} without the start square and forbidden squares)")
    n_end = int(allowed_dst.sum())
    if 2 * k > n_end:
        raise ValueError(f"cannot place {k} jumps: they need {2 * k} distinct squares, "
                         f"only {n_end} are not forbidden")
    for count, snake, what in ((n_snakes, True, "snake"), (n_ladders, False, "ladder")):
        if count == 0:
            continue
        starts = sum(1 for s in np.flatnonzero(allowed_src)
                     if _destinations(s, snake, size, allowed_dst, min_len, max_len).size)
        if starts < count:
            raise ValueError(
                f"cannot place {count} {what}s with lengths {min_len}..{max_len}: only "
                f"{starts} squares can start one")
    cb = probe.compiled
    return _Problem(size, n_snakes, n_ladders, allowed_src, allowed_dst, min_len, max_len,
                    probe.start, OVERSHOOT_CODES[probe.overshoot], probe.chain,
                    np.ascontiguousarray(cb.faces, dtype=np.int64),
                    np.ascontiguousarray(cb.probs, dtype=np.float64),
                    {"start": probe.start, "overshoot": probe.overshoot, "chain": probe.chain,
                     "dice": probe.dice})


def _destinations(s, snake, size, allowed, min_len, max_len) -> np.ndarray:
    if snake:
        lo, hi = max(0, s - max_len), s - min_len
    else:
        lo, hi = s + min_len, min(size, s + max_len)
    if hi < lo:
        return np.empty(0, dtype=np.int64)
    cand = np.arange(lo, hi + 1)
    return cand[allowed[lo:hi + 1]]


def _random_layout(p: _Problem, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A uniformly built random feasible layout (greedy, with restarts)."""
    for _ in range(_INIT_ATTEMPTS):
        free = np.ones(p.size + 1, dtype=bool)
        src = np.empty(p.k, dtype=np.int64)
        dst = np.empty(p.k, dtype=np.int64)
        for j in gen.permutation(p.k):
            snake = j < p.n_snakes
            ends = p.allowed_dst & free
            starts = [s for s in np.flatnonzero(p.allowed_src & free)
                      if _destinations(s, snake, p.size, ends, p.min_len, p.max_len).size]
            if not starts:
                break
            s = int(starts[gen.integers(len(starts))])
            ends[s] = False
            dests = _destinations(s, snake, p.size, ends, p.min_len, p.max_len)
            d = int(dests[gen.integers(len(dests))])
            src[j], dst[j] = s, d
            free[s] = free[d] = False
        else:
            return src, dst
    raise ValueError(
        f"no feasible layout of {p.n_snakes} snakes and {p.n_ladders} ladders found in "
        f"{_INIT_ATTEMPTS} random attempts (lengths {p.min_len}..{p.max_len}, "
        f"{int((~p.allowed_dst).sum())} forbidden squares); the constraints look infeasible")


def _batch(p: _Problem, cand_src: np.ndarray, cand_dst: np.ndarray, n: int | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    n = len(cand_src) if n is None else n
    mean = np.empty(n)
    var = np.empty(n)
    if n:
        _batch_kernel(p.size, cand_src, cand_dst, n, p.start, p.overshoot, p.chain, p.faces,
                      p.probs, mean, var)
    return mean, var


def _costs(mode: int, mean: np.ndarray, target: float) -> np.ndarray:
    cost = np.full(mean.shape, np.inf)
    ok = np.isfinite(mean)
    cost[ok] = (-mean[ok], mean[ok], np.abs(mean[ok] - target))[mode]
    return cost


def _finite_starts(p: _Problem, gens: list[np.random.Generator]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """One random feasible layout of finite expectation per generator."""
    n = len(gens)
    src = np.empty((n, p.k), dtype=np.int64)
    dst = np.empty((n, p.k), dtype=np.int64)
    mean = np.full(n, np.inf)
    var = np.full(n, np.inf)
    evals = 0
    for _ in range(_INIT_ATTEMPTS):
        todo = np.flatnonzero(~np.isfinite(mean))
        if not len(todo):
            return src, dst, mean, var, evals
        for c in todo:
            src[c], dst[c] = _random_layout(p, gens[c])
        m, v = _batch(p, src[todo], dst[todo])
        mean[todo], var[todo] = m, v
        evals += len(todo)
    raise ValueError(
        f"every random layout tried ({evals}) has an infinite expected length: the goal "
        f"cannot be reached with certainty under these rules and dice")


# ---------------------------------------------------------------------------
# searches
# ---------------------------------------------------------------------------
def _anneal(p, mode, target, iterations, chains, children, pilot, temperature, bar):
    pairs = [ch.spawn(2) for ch in children]  # (initial layout, kernel stream) per chain
    gens = [np.random.default_rng(init) for init, _ in pairs]
    state = np.array([ks.generate_state(1, np.uint64)[0] for _, ks in pairs], dtype=np.uint64)
    src, dst, mean, var, evals0 = _finite_starts(p, gens)
    cost = _costs(mode, mean, target)
    if temperature is None:  # pilot: typical cost change of one random move
        ks = np.array([pilot.generate_state(1, np.uint64)[0]], dtype=np.uint64)
        n_pilot = max(_PILOT, chains)
        cs = src[np.arange(n_pilot) % chains]
        cd = dst[np.arange(n_pilot) % chains]
        for i in range(n_pilot):
            _kick_kernel(p.size, p.n_snakes, cs[i], cd[i], p.allowed_src, p.allowed_dst,
                         p.min_len, p.max_len, ks, 1)
        m, _ = _batch(p, cs, cd)
        evals0 += n_pilot
        delta = np.abs(_costs(mode, m, target) - cost[np.arange(n_pilot) % chains])
        delta = delta[np.isfinite(delta) & (delta > 0)]
        t0 = float(np.median(delta)) if len(delta) else 1e-3 * max(1.0, float(mean.min()))
        t1 = 1e-3 * t0
    else:
        t0, t1 = (float(t) for t in temperature)
        if not (t0 > 0 and t1 > 0):
            raise ValueError(f"temperatures must be positive, got {temperature!r}")
    temps = t0 * (t1 / t0) ** (np.arange(iterations) / max(iterations - 1, 1))
    best_src, best_dst = src.copy(), dst.copy()
    best_cost, best_mean, best_var = cost.copy(), mean.copy(), var.copy()
    evals = np.zeros(chains, dtype=np.int64)
    trace = np.empty((chains, iterations))
    trace_evals = np.empty((chains, iterations), dtype=np.int64)
    block = max(1, min(iterations, 2000))
    bar.update(evals0)
    for lo in range(0, iterations, block):
        hi = min(lo + block, iterations)
        tr = np.empty((chains, hi - lo))
        te = np.empty((chains, hi - lo), dtype=np.int64)
        _anneal_kernel(p.size, p.n_snakes, p.allowed_src, p.allowed_dst, p.min_len, p.max_len,
                       p.start, p.overshoot, p.chain, p.faces, p.probs, mode, target,
                       temps[lo:hi], state, src, dst, cost, best_src, best_dst, best_cost,
                       best_mean, best_var, evals, tr, te)
        trace[:, lo:hi] = tr
        trace_evals[:, lo:hi] = te
        bar.update((hi - lo) * chains)
    c = int(np.argmin(best_cost))  # first chain on ties: independent of threads
    return (best_src[c], best_dst[c], best_mean[c], best_var[c], trace.min(axis=0),
            trace_evals.sum(axis=0) + evals0, int(evals.sum()) + evals0)


def _local(p, mode, target, iterations, chains, children, batch, bar):
    budget = iterations * chains
    pairs = [ch.spawn(2) for ch in children]  # (initial layout, search stream) per start
    gens = [np.random.default_rng(init) for init, _ in pairs]
    kick_seq, shuffle_seq = pairs[0][1].spawn(2)
    state = kick_seq.generate_state(1, np.uint64)[:1]
    shuffle = np.random.default_rng(shuffle_seq)
    src0, dst0, mean0, var0, evals = _finite_starts(p, gens)
    cost0 = _costs(mode, mean0, target)
    c = int(np.argmin(cost0))
    cur_src, cur_dst, cur_cost = src0[c].copy(), dst0[c].copy(), float(cost0[c])
    best = (cur_src.copy(), cur_dst.copy(), float(mean0[c]), float(var0[c]), cur_cost)
    bar.update(evals)
    rec = np.empty((p.k * (4 * p.size + p.k + 4), 4), dtype=np.int64)
    out_src = np.empty((batch, p.k), dtype=np.int64)
    out_dst = np.empty((batch, p.k), dtype=np.int64)
    trace, trace_evals = [], []
    while evals < budget:
        n = _neighbours_kernel(p.size, p.n_snakes, cur_src, cur_dst, p.allowed_src,
                               p.allowed_dst, p.min_len, p.max_len, rec)
        order = shuffle.permutation(n)
        moved = False
        for lo in range(0, n, batch):
            take = order[lo:min(lo + batch, n, lo + budget - evals)]
            if not len(take):
                break
            cs, cd = out_src[:len(take)], out_dst[:len(take)]
            _apply_moves(cur_src, cur_dst, rec, take, cs, cd)
            m, v = _batch(p, cs, cd)
            evals += len(take)
            bar.update(len(take))
            cost = _costs(mode, m, target)
            i = int(np.argmin(cost))
            improved = cost[i] < cur_cost - 1e-12 * max(1.0, abs(cur_cost))
            if improved:
                cur_src, cur_dst, cur_cost = cs[i].copy(), cd[i].copy(), float(cost[i])
                if cur_cost < best[4]:
                    best = (cur_src.copy(), cur_dst.copy(), float(m[i]), float(v[i]), cur_cost)
            trace.append(best[4])
            trace_evals.append(evals)
            if improved:
                moved = True
                break
        if not moved and evals < budget:  # exact local optimum (or empty neighbourhood)
            cur_src, cur_dst = best[0].copy(), best[1].copy()
            _kick_kernel(p.size, p.n_snakes, cur_src, cur_dst, p.allowed_src, p.allowed_dst,
                         p.min_len, p.max_len, state, _KICK)
            m, v = _batch(p, cur_src[None, :], cur_dst[None, :])
            evals += 1
            bar.update(1)
            cur_cost = float(_costs(mode, m, target)[0])
            if not np.isfinite(cur_cost):
                cur_src, cur_dst, cur_cost = best[0].copy(), best[1].copy(), best[4]
            elif cur_cost < best[4]:
                best = (cur_src.copy(), cur_dst.copy(), float(m[0]), float(v[0]), cur_cost)
            trace.append(best[4])
            trace_evals.append(evals)
    return (best[0], best[1], best[2], best[3], np.array(trace, dtype=float),
            np.array(trace_evals, dtype=np.int64), evals)


def design_board(
    size: int,
    *,
    snakes: int,
    ladders: int,
    objective: str | None = None,
    target: float | None = None,
    method: str = "anneal",
    iterations: int = 20_000,
    chains: int = 8,
    min_length: int = 1,
    max_length: int | None = None,
    forbidden: Iterable[int] = (),
    overshoot: str = "win",
    chain: bool = False,
    dice: Dice | dict[int, float] | None = None,
    start: int = 0,
    temperature: tuple[float, float] | None = None,
    batch: int = 256,
    rng: np.random.Generator | np.random.SeedSequence | int | None = None,
    progress: bool = False,
) -> DesignResult:
    """Search a layout of snakes and ladders with a wanted expected length.

    Parameters
    ----------
    size : int
        The goal square (at least 2).
    snakes, ladders : int
        How many snakes and ladders to place.
    objective : {"max", "min"}, optional
        Make the expected number of throws as large or as small as possible.
    target : float, optional
        Make it as close as possible to ``target`` instead. Give exactly one
        of ``objective`` and ``target``.
    method : {"anneal", "local"}, default "anneal"
        Simulated annealing (parallel chains) or iterated exact local search
        (neighbourhoods evaluated in parallel batches); see the module notes.
    iterations : int, default 20000
        Steps per annealing chain. Both methods spend at most
        ``iterations * chains`` exact evaluations (plus the initial layouts).
    chains : int, default 8
        Independent annealing chains; for ``"local"``, the number of random
        layouts the search starts from the best of.
    min_length, max_length : int, optional
        Bounds on every jump's length ``|dst - src|`` (default ``1 .. size``).
    forbidden : iterable of int
        Squares that must stay empty: no jump starts or ends there.
    overshoot, chain, dice, start
        The rules of the designed board (see :class:`~snl_numeric.Board`).
        Jumps never start on ``start``, square 0 or the goal.
    temperature : (float, float), optional
        Initial and final annealing temperatures (in units of the objective),
        decreasing geometrically. By default the initial one is the median
        change of the objective over 64 random single moves from the
        initial layouts (a pilot, counted in ``evaluations``), the final one
        a thousandth of it.
    batch : int, default 256
        Candidates per parallel batch in the local search.
    rng : Generator, SeedSequence, int or None
        Source of the seed from which each chain's stream is spawned.
    progress : bool, default False
        Show a progress bar on standard error.

    Returns
    -------
    DesignResult
        The best feasible board found with finite expected length, its exact
        expected length and variance, and the search trace.

    Raises
    ------
    ValueError
        Bad arguments or infeasible constraints (too many jumps for the free
        squares, impossible lengths, or only infinite-expectation layouts).

    Notes
    -----
    The feasibility rules (distinct endpoints, no chained jumps, lengths,
    forbidden squares, finite expectation) are listed in the module
    docstring of :mod:`snl_numeric.design`.

    Examples
    --------
    >>> res = design_board(30, snakes=2, ladders=2, objective="max", iterations=300,
    ...                    chains=2, rng=1)
    >>> len(res.board.snakes), len(res.board.ladders)
    (2, 2)
    >>> from snl_numeric import expected_throws
    >>> abs(res.expected - expected_throws(res.board)) < 1e-9
    True
    >>> res.trace.shape
    (300,)
    """
    if (objective is None) == (target is None):
        raise ValueError("give exactly one of objective ('max' or 'min') and target, got "
                         f"objective={objective!r}, target={target!r}")
    if objective is not None and objective not in ("max", "min"):
        raise ValueError(f"objective must be 'max' or 'min', got {objective!r}")
    if target is not None:
        if isinstance(target, bool) or not isinstance(target, numbers.Real):
            raise TypeError(f"target must be a number, got {target!r}")
        if not math.isfinite(target) or target < 0:
            raise ValueError(f"target must be a finite non-negative length, got {target!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    iterations = _count(iterations, "iterations", 1)
    chains = _count(chains, "chains", 1)
    batch = _count(batch, "batch", 1)
    p = _setup(size, snakes, ladders, min_length, max_length, forbidden, overshoot, chain,
               dice, start)
    name = "target" if target is not None else objective
    mode = _MODES[name]
    tgt = float(target) if target is not None else 0.0
    if isinstance(rng, np.random.SeedSequence):
        seq = rng
    else:
        gen = np.random.default_rng(rng)
        seq = np.random.SeedSequence([int(x) for x in gen.integers(0, 2**63, size=2)])
    children = seq.spawn(chains + 1)  # one per chain, one for the temperature pilot
    with Progress(iterations * chains, f"design ({method})", enabled=progress) as bar:
        if method == "anneal":
            out = _anneal(p, mode, tgt, iterations, chains, children[:-1], children[-1],
                         temperature, bar)
        else:
            out = _local(p, mode, tgt, iterations, chains, children[:-1], batch, bar)
    src, dst, mean, var, trace, trace_evals, evals = out
    trace = -trace if mode == 0 else trace
    value = float(mean) if mode < 2 else abs(float(mean) - tgt)
    entropy = seq.entropy
    entropy = tuple(int(e) for e in (entropy if isinstance(entropy, Iterable) else [entropy]))
    board = Board(p.size, zip(src.tolist(), dst.tolist(), strict=True), name=f"design-{name}",
                  **p.rules)
    return DesignResult(board=board, expected=float(mean), variance=float(var), objective=name,
                        target=float(target) if target is not None else None, value=value,
                        method=method, trace=trace, trace_evaluations=trace_evals,
                        evaluations=int(evals), iterations=iterations, chains=chains,
                        seed_entropy=entropy)


# ---------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------
def add_design_parser(sub: Any) -> None:
    """Register ``snl design`` on the ``snl`` subparsers."""
    p = sub.add_parser("design", help="search a board layout with a wanted expected length")
    p.add_argument("--size", type=int, default=100, help="goal square (default 100)")
    p.add_argument("--snakes", type=int, required=True)
    p.add_argument("--ladders", type=int, required=True)
    goal = p.add_mutually_exclusive_group(required=True)
    goal.add_argument("--max", dest="objective", action="store_const", const="max",
                      help="longest expected game")
    goal.add_argument("--min", dest="objective", action="store_const", const="min",
                      help="shortest expected game")
    goal.add_argument("--target", type=float, help="expected length as close to X as possible")
    p.add_argument("--method", choices=METHODS, default="anneal")
    p.add_argument("--iterations", type=int, default=20_000, help="steps per chain")
    p.add_argument("--chains", type=int, default=8)
    p.add_argument("--min-length", type=int, default=1)
    p.add_argument("--max-length", type=int)
    p.add_argument("--forbidden", type=int, nargs="*", default=(), metavar="SQUARE")
    p.add_argument("--overshoot", choices=OVERSHOOT_RULES, default="win")
    p.add_argument("--chain", action="store_true", help="follow chained jumps")
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--dice", dest="dice_spec", metavar="DICE",
                   help="dice: 'd6', '1-3', '2d6' or '1:0.5,2:0.5'")
    p.add_argument("--seed", type=int, help="random seed (reproducible runs)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("-o", "--output", metavar="FILE", help="write the board JSON here")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(func=_run_design)


def _run_design(args: argparse.Namespace) -> int:
    res = design_board(
        args.size, snakes=args.snakes, ladders=args.ladders, objective=args.objective,
        target=args.target, method=args.method, iterations=args.iterations,
        chains=args.chains, min_length=args.min_length, max_length=args.max_length,
        forbidden=args.forbidden, overshoot=args.overshoot, chain=args.chain,
        dice=parse_dice(args.dice_spec) if args.dice_spec else None, start=args.start,
        rng=args.seed, progress=not args.no_progress)
    if args.output:
        res.board.to_json(args.output, indent=2)
    if args.json:
        print(json.dumps(res.to_dict(), indent=2))
    else:
        print(res)
    return 0
