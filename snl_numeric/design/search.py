"""``design_board``: validation, set-up and the two searches."""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

import numpy as np

from .._core.memory import check_memory
from .._core.parallel import default_threads, run_tasks
from .._core.progress import Progress
from .._core.rng import stream_words
from .._core.table import OVERSHOOT_CODES
from .._core.validation import choice, positive_int, seed_sequence
from ..board import Board
from ..dice import DiceLike
from .fair import check_fair, design_fair
from .kernels import (
    TIE,
    Chains,
    Space,
    anneal_kernel,
    evaluate_kernel,
    kick_kernel,
    neighbours_kernel,
)
from .local import local_search
from .result import DesignResult

#: Search methods of :func:`design_board`.
METHODS = ("anneal", "local")
_MODES = {"max": 0, "min": 1, "target": 2}
_INIT_ATTEMPTS = 200
_PILOT = 64  # random moves evaluated to set the initial temperature
#: Chains advanced per kernel call, and evaluations in the first call; later calls aim
#: at ROUND_SECONDS, so progress shows and Ctrl-C stops a search within a round.
_GROUP = 1024
_FIRST_EVALS = 16384
_REFERENCE_WORK = 101 * 6
ROUND_SECONDS = 0.15


def _count(value: Any, name: str, low: int = 0) -> int:
    return positive_int(value, name, low)  # (in the int64 range: numpy adds squares to it)


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
    rules: dict
    space: Space

    @property
    def k(self) -> int:
        return self.n_snakes + self.n_ladders


def _problem(size, snakes, ladders, min_length, max_length, forbidden, overshoot, chain, dice,
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
    n_faces = len(_effective_die(probe)[0])
    check_memory((size + 1) * (_SQUARE_BYTES + default_threads() * _per_square(n_faces, k)),
                 f"a search on a board of {size + 1:,} squares")
    min_len = _count(min_length, "min_length", 1)
    max_len = size if max_length is None else _count(max_length, "max_length", 1)
    if min_len > max_len:
        raise ValueError(f"min_length {min_len} is larger than max_length {max_len}")
    # no jump is longer than the board: the same lengths, and squares +- lengths fit in int64
    min_len, max_len = min(min_len, size), min(max_len, size)
    allowed_dst = np.ones(size + 1, dtype=np.bool_)
    if forbidden is None:
        forbidden = ()
    if isinstance(forbidden, (str, bytes)) or not isinstance(forbidden, Iterable):
        raise TypeError(f"forbidden must be an iterable of squares, got {forbidden!r}")
    for sq in forbidden:
        if isinstance(sq, bool) or not isinstance(sq, numbers.Integral):
            raise TypeError(f"forbidden squares must be integers, got {sq!r}")
        if not 0 <= int(sq) <= size:
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
    faces, probs = _effective_die(probe)
    space = Space(size, n_snakes, allowed_src, allowed_dst, min_len, max_len, probe.start,
                  OVERSHOOT_CODES[probe.overshoot], probe.chain, faces, probs)
    return _Problem(size, n_snakes, n_ladders, allowed_src, allowed_dst, min_len, max_len,
                    probe.start, {"start": probe.start, "overshoot": probe.overshoot,
                                  "chain": probe.chain, "dice": probe.dice}, space)


def _effective_die(board: Board) -> tuple[np.ndarray, np.ndarray]:
    """The faces of positive probability and their probabilities, ``(1, faces)``; under
    ``"win"`` and ``"exact"`` every face beyond the goal moves a token the same way from
    every square (to the goal, or nowhere), so those are merged into one face ``size + 1``
    (a die of 10^6 faces on a board of 100 squares is evaluated as 101 faces)."""
    faces, probs = board.dice.faces, board.dice.probs
    keep = probs > 0
    faces, probs = faces[keep], probs[keep]
    beyond = faces > board.size
    if board.overshoot != "bounce" and beyond.sum() > 1:
        faces = np.append(faces[~beyond], board.size + 1)
        probs = np.append(probs[~beyond], math.fsum(probs[beyond]))
    return (np.ascontiguousarray(faces, dtype=np.int64),
            np.ascontiguousarray(probs, dtype=np.float64).reshape(1, -1))


#: Bytes of one annealing chain or local-search start besides its arrays: its seed
#: sequences and random generator (Python objects, about 4.3 KB measured).
_CHAIN_BYTES = 4608


#: Bytes per square of the problem: the allowed squares and the candidate starts.
_SQUARE_BYTES = 10


def _per_square(faces: int, jumps: int) -> int:
    """Bytes per square of one thread's evaluation of a candidate: the tables of
    :func:`evaluate_kernel` and the per-board solve, whose Woodbury columns (solved in
    place) are two and one per backward target (at most the jumps and the faces), made of
    its moves down (8 bytes per face)."""
    return 16 * faces + 200 + 8 * (jumps + faces + 2)


def _search_bytes(p: _Problem, method: str, iterations: int, chains: int, batch: int) -> int:
    """Peak bytes of a search: per thread a candidate's evaluation, per chain its objects
    and layouts, the trace, and for the local search the neighbourhood and a batch."""
    n = p.size + 1
    need = n * (_SQUARE_BYTES + default_threads() * _per_square(p.space.faces.shape[0], p.k))
    need += chains * (_CHAIN_BYTES + 48 * p.k + 96) + 16 * iterations
    if method == "local":
        need += 32 * p.k * (4 * p.size + p.k + 4) + batch * (16 * p.k + 16)
    return need


def _destinations(s, snake, size, allowed, min_len, max_len) -> np.ndarray:
    if snake:
        lo, hi = max(0, s - max_len), s - min_len
    else:
        lo, hi = s + min_len, min(size, s + max_len)
    if hi < lo:
        return np.empty(0, dtype=np.int64)
    cand = np.arange(lo, hi + 1)
    return cand[allowed[lo:hi + 1]]


def _feasible_starts(cands: np.ndarray, snake: bool, size: int, ends: np.ndarray,
                     min_len: int, max_len: int) -> np.ndarray:
    """The squares of ``cands`` from which ``_destinations`` is not empty (vectorised)."""
    below = np.concatenate([[0], np.cumsum(ends)])  # below[i]: allowed ends in 0 .. i - 1
    if snake:
        lo, hi = np.maximum(0, cands - max_len), cands - min_len
    else:
        lo, hi = cands + min_len, np.minimum(size, cands + max_len)
    lo_c, hi_c = np.clip(lo, 0, size + 1), np.clip(hi + 1, 0, size + 1)
    return cands[(hi >= lo) & (below[hi_c] > below[lo_c])]


def _random_layout(p: _Problem, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A uniformly built random feasible layout (greedy, with restarts)."""
    for _ in range(_INIT_ATTEMPTS):
        free = np.ones(p.size + 1, dtype=bool)
        src = np.empty(p.k, dtype=np.int64)
        dst = np.empty(p.k, dtype=np.int64)
        for j in gen.permutation(p.k):
            snake = j < p.n_snakes
            ends = p.allowed_dst & free
            starts = _feasible_starts(np.flatnonzero(p.allowed_src & free), snake, p.size, ends,
                                      p.min_len, p.max_len)
            if not len(starts):
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


def _batch(p: _Problem, cand_src: np.ndarray, cand_dst: np.ndarray, n: int | None = None,
           want_var: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Exact mean (and variance if ``want_var``) of the first ``n`` candidate layouts, on the
    worker threads, in rounds of about :data:`ROUND_SECONDS` (Ctrl-C between them)."""
    n = len(cand_src) if n is None else n
    mean = np.empty(n)
    var = np.empty(n)
    cand_src = np.ascontiguousarray(cand_src)
    cand_dst = np.ascontiguousarray(cand_dst)
    lo = 0
    while lo < n:
        hi = min(lo + _round_evals(p), n)
        shares = min(default_threads(), hi - lo)

        def task(t: int, lo: int = lo, hi: int = hi, shares: int = shares) -> None:
            evaluate_kernel(p.space, cand_src, cand_dst, lo + t, shares, hi, want_var, mean,
                            var)

        run_tasks(task, shares)
        lo = hi
    return mean, var


def _round_evals(p: _Problem) -> int:
    """Evaluations per round: :data:`_FIRST_EVALS` on a board of 100 squares and a d6,
    fewer on larger boards and dice (the work of one is about ``squares * faces``)."""
    work = (p.size + 1) * p.space.faces.shape[0]
    return max(1, _FIRST_EVALS * _REFERENCE_WORK // work)


def _compile_kernels(p: _Problem, method: str) -> None:
    """Compile (or load) the kernels ``method`` runs, with calls that do nothing."""
    layouts = np.zeros((1, p.k), dtype=np.int64)
    none = np.empty(0)
    state = np.ones((1, 4), dtype=np.uint64)
    evaluate_kernel(p.space, layouts, layouts, 0, 1, 0, False, none, none)
    kick_kernel(p.space, layouts[0], layouts[0], state, 0, 0)
    if method == "anneal":
        chains = Chains(layouts, layouts, none, layouts, layouts, none, none, none,
                        np.empty(0, dtype=np.int64))
        anneal_kernel(p.space, chains, 0, 0, 0, 1, 0, 0.0, none, state, np.empty((0, 0)),
                      np.empty((0, 0), dtype=np.int64))
    else:
        rec = np.empty((0, 4), dtype=np.int64)
        neighbours_kernel(p.space, layouts[0], layouts[0], rec)


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
def _temperatures(temperature: Any) -> tuple[float, float]:
    """``(initial, final)``: two finite positive numbers, the final at most the initial."""
    pair = () if isinstance(temperature, (str, bytes)) or not isinstance(
        temperature, Iterable) else tuple(temperature)
    if len(pair) != 2 or not all(isinstance(t, numbers.Real) and not isinstance(t, bool)
                                 for t in pair):
        raise TypeError("temperature must be a pair of numbers (initial, final), got "
                        f"{temperature!r}")
    t0, t1 = (float(t) for t in pair)
    if not (0 < t1 <= t0 < math.inf):
        raise ValueError("temperature must be (initial, final) with 0 < final <= initial, "
                         f"both finite, got {temperature!r}")
    return t0, t1


def _anneal(p, mode, target, iterations, chains, children, pilot, temperature, bar):
    pairs = [ch.spawn(2) for ch in children]  # (initial layout, kernel stream) per chain
    gens = [np.random.default_rng(init) for init, _ in pairs]
    state = np.array([stream_words(ks) for _, ks in pairs])  # a xoshiro256** stream each
    src, dst, mean, var, evals0 = _finite_starts(p, gens)
    cost = _costs(mode, mean, target)
    if temperature is None:  # pilot: typical cost change of one random move
        ks = stream_words(pilot)[None, :]
        n_pilot = max(_PILOT, chains)
        cs = src[np.arange(n_pilot) % chains]
        cd = dst[np.arange(n_pilot) % chains]
        for i in range(n_pilot):
            kick_kernel(p.space, cs[i], cd[i], ks, 0, 1)
        m, _ = _batch(p, cs, cd)
        evals0 += n_pilot
        delta = np.abs(_costs(mode, m, target) - cost[np.arange(n_pilot) % chains])
        scale = np.abs(cost[np.arange(n_pilot) % chains])
        delta = delta[np.isfinite(delta) & (delta > TIE * scale)]
        t0 = float(np.median(delta)) if len(delta) else 1e-3 * max(1.0, float(mean.min()))
        t1 = 1e-3 * t0
    else:
        t0, t1 = temperature

    def temps(lo: int, hi: int) -> np.ndarray:  # geometric schedule, one block at a time
        return t0 * (t1 / t0) ** (np.arange(lo, hi) / max(iterations - 1, 1))

    state_of = Chains(src, dst, cost, src.copy(), dst.copy(), cost.copy(), mean.copy(),
                      var.copy(), np.zeros(chains, dtype=np.int64))
    # per iteration: the best cost over all chains, and their evaluations so far
    trace = np.full(iterations, np.inf)
    trace_evals = np.zeros(iterations, dtype=np.int64)
    threads = default_threads()
    # rounds (a group of chains advanced by a block of iterations) of about
    # ROUND_SECONDS: sized by the work of one evaluation at first, then by the clock
    first = _round_evals(p)
    group = min(chains, _GROUP, max(threads, first))
    block = max(1, min(iterations, first // group))
    bar.update(evals0)
    lo = 0
    while lo < iterations:  # blocks of iterations, chain group after chain group
        hi = min(lo + block, iterations)
        block_temps = temps(lo, hi)
        started = time.perf_counter()
        for g_lo in range(0, chains, group):
            g_hi = min(g_lo + group, chains)
            tr = np.empty((g_hi - g_lo, hi - lo))
            te = np.empty((g_hi - g_lo, hi - lo), dtype=np.int64)
            shares = min(threads, g_hi - g_lo)

            def task(t, g_lo=g_lo, g_hi=g_hi, tr=tr, te=te, shares=shares, temps=block_temps):
                anneal_kernel(p.space, state_of, g_lo, g_hi, t, shares, mode, target, temps,
                              state, tr, te)

            run_tasks(task, shares)
            np.minimum(trace[lo:hi], tr.min(axis=0), out=trace[lo:hi])
            trace_evals[lo:hi] += te.sum(axis=0)
            bar.update((hi - lo) * (g_hi - g_lo))
        per_group = (time.perf_counter() - started) * group / chains
        scale = min(max(ROUND_SECONDS / max(per_group, 1e-4), 0.25), 4.0)
        block = max(1, min(iterations, int((hi - lo) * scale)))
        lo = hi
    best = state_of
    c = int(np.argmin(best.best_cost))  # first chain on ties: independent of threads
    return (best.best_src[c], best.best_dst[c], best.best_mean[c], best.best_var[c], trace,
            trace_evals + evals0, int(best.evals.sum()) + evals0)


def _local(p, mode, target, iterations, chains, children, batch, bar):
    pairs = [ch.spawn(2) for ch in children]  # (initial layout, search stream) per start
    gens = [np.random.default_rng(init) for init, _ in pairs]
    kick_seq, shuffle_seq = pairs[0][1].spawn(2)
    src0, dst0, mean0, var0, evals = _finite_starts(p, gens)
    cost0 = _costs(mode, mean0, target)
    c = int(np.argmin(cost0))
    bar.update(evals)

    def evaluate(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m, v = _batch(p, src, dst)
        return _costs(mode, m, target), np.stack([m, v], axis=1)

    src, dst, _, (mean, var), trace, trace_evals, evals = local_search(
        p, src0[c], dst0[c], float(cost0[c]), np.array([mean0[c], var0[c]]), evaluate,
        evals=evals, budget=iterations * chains, batch=batch, floor=1.0,
        shuffle=np.random.default_rng(shuffle_seq), kick_state=stream_words(kick_seq)[None, :],
        bar=bar)
    return src, dst, float(mean), float(var), trace, trace_evals, evals


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
    dice: DiceLike | None = None,
    start: int = 0,
    temperature: tuple[float, float] | None = None,
    batch: int = 256,
    rng: np.random.Generator | np.random.SeedSequence | int | None = None,
    progress: bool | str = False,
    players: int | None = None,
    capture: str | int | None = None,
    safe: Iterable[int] = (),
) -> DesignResult:
    """Search a layout of snakes and ladders with a wanted expected length, or a fair race.

    Parameters
    ----------
    size : int
        The goal square (at least 2).
    snakes, ladders : int
        How many snakes and ladders to place.
    objective : {"max", "min", "fair"}, optional
        Make the expected number of throws as large or as small as possible; or, with
        ``"fair"``, make the first player's edge in a race of ``players`` players
        (:func:`~snl_numeric.first_player_advantage`) as small as possible (in absolute
        value). For players who never meet (no ``capture``) on the same start with the
        same dice the edge of two players is ``0.5 * sum_n P(T = n)^2 > 0``: **no layout
        is fair**, the search can only make it small (long, spread-out games); to remove
        it, give the players a handicap with :func:`~snl_numeric.fair_starts`. See
        :doc:`/user_guide/fairness`.
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
        The rules of the designed board (see :class:`~snl_numeric.Board`; ``dice=None``
        is a fair d6).
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
    progress : bool or "always", default False
        A progress bar on standard error (a widget in Jupyter): True shows it
        on a terminal or in a notebook only, ``"always"`` in pipes and files too.
    players : int, optional
        With ``objective="fair"`` only (and required there): the number of players, at
        least 2. Independent players' candidates are evaluated in batches by a vectorised
        push of their length distributions (module ``snl_numeric.design.fair``), about
        0.4 ms of CPU each on 100 squares (the mean alone: microseconds), so give a budget
        far below the default.
    capture, safe : optional
        With ``objective="fair"`` only: the capture rule the players race under
        (:class:`~snl_numeric.Board`). Each candidate is then evaluated by the exact joint
        chain, one at a time, so this is offered for 2 players on boards whose joint
        states ``(size + 1) ** 2`` are at most
        ``snl_numeric.design.fair.CAPTURE_MAX_STATES`` (2,601: boards up to 50 squares,
        about 20 ms per evaluation); ``ValueError`` otherwise.

    Returns
    -------
    DesignResult
        The best feasible board found with finite expected length, its exact
        expected length and variance, and the search trace. For ``"fair"``, ``value``
        is the board's first player's edge from a fresh
        :func:`~snl_numeric.first_player_advantage` call, ``trace`` the best ``|edge|``
        so far, and the search is the iterated local search whatever ``method``.

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
    >>> abs(res.mean - expected_throws(res.board)) < 1e-9
    True
    >>> res.trace.shape
    (300,)

    The layout of 2 snakes and 2 ladders that gives the first of two players the smallest
    edge, which is never 0 (module ``snl_numeric.design.fair``):

    >>> from snl_numeric import first_player_advantage
    >>> fair = design_board(30, snakes=2, ladders=2, objective="fair", players=2,
    ...                     iterations=100, chains=2, rng=1)
    >>> fair.value == first_player_advantage(fair.board, 2), bool(0 < fair.value < fair.trace[0])
    (True, True)
    """
    if (objective is None) == (target is None):
        raise ValueError("give exactly one of objective ('max', 'min' or 'fair') and target, "
                         f"got objective={objective!r}, target={target!r}")
    if objective is not None:
        objective = choice(objective, "objective", ("max", "min", "fair"))
    players = check_fair(objective, players, capture, safe)
    if target is not None:
        if isinstance(target, bool) or not isinstance(target, numbers.Real):
            raise TypeError(f"target must be a number, got {target!r}")
        if not math.isfinite(target) or target < 0:
            raise ValueError(f"target must be a finite non-negative length, got {target!r}")
    method = choice(method, "method", METHODS)
    if temperature is not None:
        temperature = _temperatures(temperature)
    iterations = _count(iterations, "iterations", 1)
    chains = _count(chains, "chains", 1)
    batch = _count(batch, "batch", 1)
    p = _problem(size, snakes, ladders, min_length, max_length, forbidden, overshoot, chain,
               dice, start)
    check_memory(_search_bytes(p, method, iterations, chains, batch),
                 f"a search of {chains:,} chains x {iterations:,} iterations (method "
                 f"{method!r}, batch {batch:,}) on a board of {size + 1:,} squares")
    name = "target" if objective is None else objective  # exactly one was given
    seq = _seed(rng)
    if name == "fair":
        _compile_kernels(p, "local")
        return design_fair(p, cast(int, players), capture, safe, iterations, chains, batch, seq,
                           _entropy(seq), progress, starts=partial(_finite_starts, p),
                           moments=partial(_batch, p, want_var=True))
    mode = _MODES[name]
    tgt = float(target) if target is not None else 0.0
    children = seq.spawn(chains + 1)  # one per chain, one for the temperature pilot
    _compile_kernels(p, method)  # first: the bar times the search only
    with Progress(iterations * chains, f"design ({method})", enabled=progress) as bar:
        if method == "anneal":
            out = _anneal(p, mode, tgt, iterations, chains, children[:-1], children[-1],
                         temperature, bar)
        else:
            out = _local(p, mode, tgt, iterations, chains, children[:-1], batch, bar)
    src, dst, mean, var, trace, trace_evals, evals = out
    trace = -trace if mode == 0 else trace
    value = float(mean) if mode < 2 else abs(float(mean) - tgt)
    entropy = _entropy(seq)
    board = Board(p.size, zip(src.tolist(), dst.tolist(), strict=True), name=f"design-{name}",
                  **p.rules)
    # the search scores candidates by their mean only; the winner's variance is solved once
    variance = float(_batch(p, src[None, :], dst[None, :], want_var=True)[1][0])
    return DesignResult(board=board, mean=float(mean), variance=variance, objective=name,
                        target=float(target) if target is not None else None, value=value,
                        method=method, trace=trace, trace_evaluations=trace_evals,
                        evaluations=int(evals), iterations=iterations, chains=chains,
                        seed_entropy=entropy)


def _seed(rng: Any) -> np.random.SeedSequence:
    """The seed sequence a search's streams are spawned from."""
    if isinstance(rng, np.random.SeedSequence):
        return rng
    # a seed is checked by the package's one validator (its words, not NumPy's)
    gen = np.random.default_rng(rng if isinstance(rng, (np.random.Generator,
                                                        np.random.BitGenerator))
                                else seed_sequence(rng))
    return np.random.SeedSequence([int(x) for x in gen.integers(0, 2**63, size=2)])


def _entropy(seq: np.random.SeedSequence) -> tuple[int, ...]:
    raw: Any = seq.entropy  # an int or a sequence of ints
    return tuple(int(e) for e in (raw if isinstance(raw, Iterable) else [raw]))

