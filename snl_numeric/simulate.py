"""Monte Carlo simulation of single-player games.

Games are played on the compiled successor table (``board.compiled.succ``):
one throw is one table look-up, so every rule variant (overshoot, chained
jumps, any dice) costs the same. The kernel is a parallel Numba loop over
blocks of games; inside a block four games run interleaved (independent
dependency chains keep the CPU busy), two fair throws per 64-bit word.
Memory does not grow with the number of games unless ``per_game=True``.

Reproducibility
    The games are split into a fixed number of blocks (:data:`BLOCKS`,
    independent of the thread count). Block ``b`` draws from its own
    xoshiro256** stream, seeded with four 64-bit words from the
    ``numpy.random.SeedSequence`` child with spawn key ``spawn_key + (b,)``
    (the child ``SeedSequence.spawn`` would create, built without mutating
    the parent). Each thread counts into its own row of the histogram and
    the rows are summed afterwards, so the result is bit-identical for a
    given seed whatever ``NUMBA_NUM_THREADS`` or ``numba.set_num_threads``.

Sampling a face
    A face is drawn with Walker's alias table: a column ``i`` uniform over
    the ``k`` faces (Lemire's multiply-shift on 32 random bits, with the
    rejection step that makes it exactly uniform), then, unless every
    column is full (a fair die), a 64-bit uniform compared with the
    column's threshold ``floor(q_i * 2**64)`` (its top 32 bits come from
    the same word; a fresh word breaks the rare tie). Probabilities are
    thus reproduced to within ``2**-64`` of the alias table's ``q_i``.

Statistics
    ``T`` is the number of throws of a game. Games that do not finish are
    *censored*: either they used ``max_throws`` throws, or they landed on a
    square from which the goal cannot be reached at all (*stranded*: they
    would certainly hit the cap, so they stop at once). Censored games are
    counted, never dropped silently, and excluded from the mean, variance,
    histogram, min and max, which then describe ``T`` given that the game
    finished within the cap; a ``RuntimeWarning`` says so. The standard
    error is ``s / sqrt(n)`` with ``s`` the sample standard deviation
    (``ddof=1``) of the ``n`` finished games, and the confidence interval
    is the normal (Wald) interval ``mean +/- z * se`` with
    ``z = Phi^-1((1 + confidence) / 2)``, valid by the central limit theorem
    since ``T`` has finite variance on a board that finishes surely.
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
from scipy.special import ndtri

from ._numba_config import njit, pjit
from ._progress import Progress
from .board import Board
from .shortest import _check_board, _start

__all__ = ["SimulationResult", "simulate", "BLOCKS", "DEFAULT_MAX_THROWS"]

#: Number of blocks the games are split into (fixed: results never depend on threads).
BLOCKS = 256
#: Default cap on the throws of one game.
DEFAULT_MAX_THROWS = 1_000_000
#: Histogram bins kept per thread in the first pass; longer games are re-run.
_HIST_BINS = 1 << 16
#: Larger ``max_throws`` act as this (no game gets near it; keeps step counters in int64).
_MAX_CAP = 1 << 53

_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_R17 = np.uint64(17)
_R7 = np.uint64(7)
_R57 = np.uint64(57)
_R45 = np.uint64(45)
_R19 = np.uint64(19)
_FIVE = np.uint64(5)
_NINE = np.uint64(9)


# -- random numbers ------------------------------------------------------------
@njit(inline="always")
def _xoshiro(s0, s1, s2, s3):  # pragma: no cover - jitted
    """One xoshiro256** step: ``(value, s0, s1, s2, s3)``."""
    x = s1 * _FIVE
    r = ((x << _R7) | (x >> _R57)) * _NINE
    t = s1 << _R17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << _R45) | (s3 >> _R19)
    return r, s0, s1, s2, s3


@njit()
def _reject(m, k, s0, s1, s2, s3):  # pragma: no cover - jitted
    """Lemire's rejection step (rare, not inlined): redraw until unbiased."""
    bound = (_TWO32 - k) % k
    while (m & _MASK32) < bound:
        r, s0, s1, s2, s3 = _xoshiro(s0, s1, s2, s3)
        m = (r >> _U32) * k
    return m, s0, s1, s2, s3


@njit(inline="always")
def _column(x, k, s0, s1, s2, s3):  # pragma: no cover - jitted
    """Exactly uniform ``0 .. k-1`` from 32 random bits ``x`` (Lemire's method)."""
    m = x * k
    if (m & _MASK32) < k:
        m, s0, s1, s2, s3 = _reject(m, k, s0, s1, s2, s3)
    return np.intp(m >> _U32), s0, s1, s2, s3


@njit(inline="always")
def _face(r, k, alias, thresh, s0, s1, s2, s3):  # pragma: no cover - jitted
    """A face index from the alias table and one 64-bit word ``r``.

    The column comes from the high 32 bits; the low 32 bits are the top of a
    64-bit uniform compared with the column's threshold, extended by a fresh
    word only on a tie (probability 2**-32), so the comparison is exact.
    """
    f, s0, s1, s2, s3 = _column(r >> _U32, k, s0, s1, s2, s3)
    low = r & _MASK32
    top = thresh[f] >> _U32
    if low > top:
        f = alias[f]
    elif low == top:
        f, s0, s1, s2, s3 = _tie(f, alias, thresh, s0, s1, s2, s3)
    return f, s0, s1, s2, s3


@njit()
def _tie(f, alias, thresh, s0, s1, s2, s3):  # pragma: no cover - jitted
    """The low 32 bits of the threshold decide (probability 2**-32, not inlined)."""
    r, s0, s1, s2, s3 = _xoshiro(s0, s1, s2, s3)
    if (r >> _U32) >= (thresh[f] & _MASK32):
        f = alias[f]
    return f, s0, s1, s2, s3


# -- kernels ------------------------------------------------------------------
#: ``n0`` of a parked lane: never limits the steps before the cap.
_PARKED = np.int64(1) << np.int64(62)


@njit()
def _settle(p, t, n, a, gid, g, end, start, goal, k, lo, hist, tid, tally, throws,
            final):  # pragma: no cover - jitted
    """Record a lane's game of ``t`` throws, then start the block's next game or park.

    ``p`` is an offset ``square * k`` into the flat successor table (``goal``
    for the goal, above it when stranded, below it when stopped by the cap);
    ``tally`` holds the block's (longest, censored, stranded, throws).
    Returns the lane's new ``(p, n0, active, game)`` and the next game ``g``.
    """
    if not a:
        return p, _PARKED, a, gid, g
    if p == goal:
        if t > tally[0]:
            tally[0] = t
        j = t - lo
        if 0 <= j < hist.shape[1]:
            hist[tid, j] += 1
    else:
        tally[1] += 1
        if p > goal:
            tally[2] += 1
    tally[3] += t
    if throws is not None:
        throws[gid] = t
        final[gid] = p // k
    if g < end:
        return start, n, True, g, g + 1
    return goal, _PARKED, False, gid, g


@njit(inline="always")
def _fire(p, f, fired, jump_next, used, gid):  # pragma: no cover - jitted
    j = fired[p + f]
    while j >= 0:
        used[gid, j] = True
        j = jump_next[j]


@pjit()
def _simulate_kernel(off, alias, thresh, fair, start, goal, max_throws, seeds, bounds, blocks,
                     lo, hist, tallies, fired, jump_next, throws, final, used):  # pragma: no cover
    """Play the games of ``blocks``, four interleaved games (lanes) per block.

    ``off[p + f]`` is the offset ``square * k`` of the square reached from the
    square at offset ``p`` with face index ``f``; offsets beyond ``goal``
    (``size * k``) mark stranded squares. A finished game of ``t`` throws with
    ``lo <= t < lo + hist.shape[1]`` adds one to ``hist[thread, t - lo]``;
    ``tallies[b]`` receives block ``b``'s (longest finished game, censored,
    stranded, throws). With ``throws`` not None (a compile-time switch) every
    game is recorded in ``throws``, ``final`` (square) and ``used`` (jumps
    fired, first ``fired[p + f]`` then ``jump_next`` along a chain).

    The lanes step together; lane ``l``'s game started at step ``n_l``, so it
    has made ``n - n_l`` throws, and no lane can reach ``max_throws`` before
    step ``min(n_l) + max_throws``: the hot loop runs to there without a cap
    test. The lanes consume one stream in a fixed order, so block ``b``'s
    games depend only on ``seeds[b]``.
    """
    k = np.uint64(alias.shape[0])
    ki = alias.shape[0]
    nbins = hist.shape[1]
    for i in numba.prange(blocks.shape[0]):
        b = blocks[i]
        tid = numba.get_thread_id()
        tally = tallies[b]
        s0, s1, s2, s3 = seeds[b, 0], seeds[b, 1], seeds[b, 2], seeds[b, 3]
        g, end = bounds[b], bounds[b + 1]
        n = 0
        longest = 0  # of the finished games counted in the loop (the rest: _settle)
        done = 0  # their throws
        # a parked lane sits on the absorbing goal row
        p0 = p1 = p2 = p3 = goal
        n0 = n1 = n2 = n3 = _PARKED
        a0 = a1 = a2 = a3 = False
        g0 = g1 = g2 = g3 = g
        if g < end:
            p0, n0, a0, g0, g = start, 0, True, g, g + 1
        if g < end:
            p1, n1, a1, g1, g = start, 0, True, g, g + 1
        if g < end:
            p2, n2, a2, g2, g = start, 0, True, g, g + 1
        if g < end:
            p3, n3, a3, g3, g = start, 0, True, g, g + 1
        while a0 or a1 or a2 or a3:
            stop = min(min(n0, n1), min(n2, n3)) + max_throws
            while n < stop:
                if fair:  # two faces per 64-bit word
                    r, s0, s1, s2, s3 = _xoshiro(s0, s1, s2, s3)
                    f0, s0, s1, s2, s3 = _column(r >> _U32, k, s0, s1, s2, s3)
                    f1, s0, s1, s2, s3 = _column(r & _MASK32, k, s0, s1, s2, s3)
                    r, s0, s1, s2, s3 = _xoshiro(s0, s1, s2, s3)
                    f2, s0, s1, s2, s3 = _column(r >> _U32, k, s0, s1, s2, s3)
                    f3, s0, s1, s2, s3 = _column(r & _MASK32, k, s0, s1, s2, s3)
                else:
                    r, s0, s1, s2, s3 = _xoshiro(s0, s1, s2, s3)
                    f0, s0, s1, s2, s3 = _face(r, k, alias, thresh, s0, s1, s2, s3)
                    r, s0, s1, s2, s3 = _xoshiro(s0, s1, s2, s3)
                    f1, s0, s1, s2, s3 = _face(r, k, alias, thresh, s0, s1, s2, s3)
                    r, s0, s1, s2, s3 = _xoshiro(s0, s1, s2, s3)
                    f2, s0, s1, s2, s3 = _face(r, k, alias, thresh, s0, s1, s2, s3)
                    r, s0, s1, s2, s3 = _xoshiro(s0, s1, s2, s3)
                    f3, s0, s1, s2, s3 = _face(r, k, alias, thresh, s0, s1, s2, s3)
                if throws is not None:
                    _fire(p0, f0, fired, jump_next, used, g0)
                    _fire(p1, f1, fired, jump_next, used, g1)
                    _fire(p2, f2, fired, jump_next, used, g2)
                    _fire(p3, f3, fired, jump_next, used, g3)
                p0 = off[p0 + f0]
                p1 = off[p1 + f1]
                p2 = off[p2 + f2]
                p3 = off[p3 + f3]
                n += 1
                if p0 >= goal or p1 >= goal or p2 >= goal or p3 >= goal:
                    if p0 >= goal:
                        if p0 == goal and a0 and g < end and throws is None:  # common case
                            t = n - n0
                            longest = max(longest, t)
                            done += t
                            if 0 <= t - lo < nbins:
                                hist[tid, t - lo] += 1
                            p0, n0, g0, g = start, n, g, g + 1
                        else:
                            p0, n0, a0, g0, g = _settle(
                                p0, n - n0, n, a0, g0, g, end, start, goal, ki, lo, hist, tid,
                                tally, throws, final)
                    if p1 >= goal:
                        if p1 == goal and a1 and g < end and throws is None:  # common case
                            t = n - n1
                            longest = max(longest, t)
                            done += t
                            if 0 <= t - lo < nbins:
                                hist[tid, t - lo] += 1
                            p1, n1, g1, g = start, n, g, g + 1
                        else:
                            p1, n1, a1, g1, g = _settle(
                                p1, n - n1, n, a1, g1, g, end, start, goal, ki, lo, hist, tid,
                                tally, throws, final)
                    if p2 >= goal:
                        if p2 == goal and a2 and g < end and throws is None:  # common case
                            t = n - n2
                            longest = max(longest, t)
                            done += t
                            if 0 <= t - lo < nbins:
                                hist[tid, t - lo] += 1
                            p2, n2, g2, g = start, n, g, g + 1
                        else:
                            p2, n2, a2, g2, g = _settle(
                                p2, n - n2, n, a2, g2, g, end, start, goal, ki, lo, hist, tid,
                                tally, throws, final)
                    if p3 >= goal:
                        if p3 == goal and a3 and g < end and throws is None:  # common case
                            t = n - n3
                            longest = max(longest, t)
                            done += t
                            if 0 <= t - lo < nbins:
                                hist[tid, t - lo] += 1
                            p3, n3, g3, g = start, n, g, g + 1
                        else:
                            p3, n3, a3, g3, g = _settle(
                                p3, n - n3, n, a3, g3, g, end, start, goal, ki, lo, hist, tid,
                                tally, throws, final)
                    if not (a0 or a1 or a2 or a3):
                        break
            # lanes that used all max_throws throws are stopped (censored)
            if a0 and n - n0 >= max_throws:
                p0, n0, a0, g0, g = _settle(
                    p0, n - n0, n, a0, g0, g, end, start, goal, ki, lo, hist, tid, tally,
                    throws, final)
            if a1 and n - n1 >= max_throws:
                p1, n1, a1, g1, g = _settle(
                    p1, n - n1, n, a1, g1, g, end, start, goal, ki, lo, hist, tid, tally,
                    throws, final)
            if a2 and n - n2 >= max_throws:
                p2, n2, a2, g2, g = _settle(
                    p2, n - n2, n, a2, g2, g, end, start, goal, ki, lo, hist, tid, tally,
                    throws, final)
            if a3 and n - n3 >= max_throws:
                p3, n3, a3, g3, g = _settle(
                    p3, n - n3, n, a3, g3, g, end, start, goal, ki, lo, hist, tid, tally,
                    throws, final)
        tally[0] = max(tally[0], longest)
        tally[3] += done


# -- result -------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class SimulationResult:
    """Summary of a Monte Carlo run (see the module docstring for the statistics).

    Attributes
    ----------
    board : Board
        The board simulated.
    start : int
        The start square.
    games : int
        Games played.
    finished : int
        Games that reached the goal; the statistics below describe them.
    censored : int
        Games that did not finish: ``games - finished``. They either used
        ``max_throws`` throws or were stranded.
    stranded : int
        Censored games stopped early because they landed on a square from
        which the goal cannot be reached (they could never finish).
    max_throws : int
        The cap on the throws of one game.
    mean, variance, std : float
        Sample mean, variance (``ddof=1``) and standard deviation of the
        number of throws of the finished games (``nan`` when undefined).
    stderr : float
        Standard error of ``mean``: ``std / sqrt(finished)``.
    ci : tuple of float
        Normal confidence interval ``mean +/- z * stderr`` at level ``confidence``.
    confidence : float
        Level of ``ci``.
    min, max : int or None
        Fewest and most throws of a finished game (``None`` if none finished).
    histogram : ndarray of int64
        ``histogram[k]``: finished games that took exactly ``k`` throws.
    total_throws : int
        Every throw made, censored games included.
    entropy : int
        ``SeedSequence`` entropy of the run.
    spawn_key : tuple of int
        ``SeedSequence`` spawn key of the run; block ``b`` uses the child
        with spawn key ``spawn_key + (b,)``. :meth:`seed_sequence` rebuilds it.
    blocks : int
        Number of blocks (streams) the games were split into.
    threads : int
        Threads used (does not affect the numbers).
    elapsed : float
        Wall time of the simulation, seconds.
    throws : ndarray of int64 or None
        Per game (``per_game=True``): throws made.
    final_square : ndarray of intp or None
        Per game: the goal, or where a censored game stopped.
    jump_used : ndarray of bool or None
        Per game, shape ``(games, n_jumps)``: whether each jump fired at
        least once; columns follow ``board.compiled.jump_src``.
    """

    board: Board
    start: int
    games: int
    finished: int
    censored: int
    stranded: int
    max_throws: int
    mean: float
    variance: float
    std: float
    stderr: float
    ci: tuple[float, float]
    confidence: float
    min: int | None
    max: int | None
    histogram: np.ndarray = field(repr=False)
    total_throws: int = 0
    entropy: int = 0
    spawn_key: tuple[int, ...] = ()
    blocks: int = BLOCKS
    threads: int = 1
    elapsed: float = field(default=0.0, repr=False)
    throws: np.ndarray | None = field(default=None, repr=False)
    final_square: np.ndarray | None = field(default=None, repr=False)
    jump_used: np.ndarray | None = field(default=None, repr=False)

    def seed_sequence(self) -> np.random.SeedSequence:
        """The ``SeedSequence`` that reproduces this run when passed as ``rng``."""
        return np.random.SeedSequence(self.entropy, spawn_key=self.spawn_key)

    @property
    def pmf(self) -> np.ndarray:
        """Empirical ``P(T = k)`` over all games (censored ones count in the total)."""
        return self.histogram / self.games if self.games else self.histogram.astype(float)

    @property
    def throws_per_second(self) -> float:
        """Simulated throws per second of wall time."""
        return self.total_throws / self.elapsed if self.elapsed > 0 else math.inf

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (per-game arrays left out)."""

        def num(x: float) -> float | None:
            return x if math.isfinite(x) else None

        return {
            "board": self.board.to_dict(), "start": self.start, "games": self.games,
            "finished": self.finished, "censored": self.censored, "stranded": self.stranded,
            "max_throws": self.max_throws, "mean": num(self.mean),
            "variance": num(self.variance), "std": num(self.std), "stderr": num(self.stderr),
            "ci": [num(self.ci[0]), num(self.ci[1])], "confidence": self.confidence,
            "min": self.min, "max": self.max, "histogram": self.histogram.tolist(),
            "total_throws": self.total_throws, "entropy": str(self.entropy),
            "spawn_key": list(self.spawn_key), "blocks": self.blocks, "threads": self.threads,
            "elapsed": self.elapsed,
        }

    def _repr_html_(self) -> str:
        from ._html import simulation_html

        return simulation_html(self)

    def __str__(self) -> str:
        b = self.board
        title = b.name or f"board of size {b.size}"
        pct = f"{100 * self.confidence:g}%"
        lines = [
            f"{title}: {self.games} simulated games from square {self.start} "
            f"(overshoot {b.overshoot!r}, chain={b.chain}, dice {b.dice!r})",
            f"  mean throws       {self.mean:.4f} +/- {self.stderr:.4f} (standard error)",
            f"  {pct} interval     [{self.ci[0]:.4f}, {self.ci[1]:.4f}]",
            f"  std deviation     {self.std:.4f}   (variance {self.variance:.4f})",
            f"  min / max         {self.min} / {self.max}",
        ]
        if self.censored:
            lines.append(
                f"  CENSORED          {self.censored} games did not finish "
                f"({self.stranded} stranded, {self.censored - self.stranded} at "
                f"max_throws={self.max_throws}); statistics describe the "
                f"{self.finished} finished games only")
        lines.append(f"  seed              entropy={self.entropy} spawn_key={self.spawn_key}")
        rate = self.throws_per_second
        lines.append(f"  {self.total_throws} throws in {self.elapsed:.3f} s "
                     f"({rate / 1e6:.1f} M/s, {self.threads} threads)")
        return "\n".join(lines)


# -- public function ----------------------------------------------------------
def _alias_table(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Walker/Vose alias table: ``(alias, thresh, fair)`` with 64-bit thresholds."""
    k = len(probs)
    scaled = probs * k
    if np.all(scaled == 1.0) or k == 1:
        return np.arange(k, dtype=np.intp), np.full(k, np.iinfo(np.uint64).max, np.uint64), True
    q = scaled.astype(np.float64).copy()
    alias = np.arange(k, dtype=np.intp)
    small = [i for i in range(k) if q[i] < 1.0]
    large = [i for i in range(k) if q[i] >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        alias[s] = g
        q[g] = (q[g] + q[s]) - 1.0
        (small if q[g] < 1.0 else large).append(g)
    for i in small + large:  # rounding leftovers: full columns
        q[i] = 1.0
    top = 2**64 - 1
    thresh = np.array([min(int(math.ldexp(float(x), 64)), top) for x in q], dtype=np.uint64)
    return alias, thresh, False


def _seed_sequence(rng: Any) -> np.random.SeedSequence:
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, (np.random.Generator, np.random.BitGenerator)):
        gen = np.random.default_rng(rng)
        return np.random.SeedSequence(int.from_bytes(gen.bytes(16), "little"))
    if isinstance(rng, bool):
        raise TypeError(f"rng must be None, an integer seed, a SeedSequence or a Generator, "
                        f"got {rng!r}")
    if rng is None or isinstance(rng, numbers.Integral):
        return np.random.SeedSequence(None if rng is None else int(rng))
    raise TypeError(f"rng must be None, an integer seed, a SeedSequence or a Generator, "
                    f"got {type(rng).__name__}")


def _block_seeds(ss: np.random.SeedSequence, bounds: np.ndarray) -> np.ndarray:
    """Four xoshiro256** words per non-empty block, from child ``spawn_key + (b,)``."""
    seeds = np.zeros((BLOCKS, 4), dtype=np.uint64)
    for b in np.flatnonzero(np.diff(bounds)).tolist():
        child = np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, b),
                                       pool_size=ss.pool_size)
        words = child.generate_state(4, np.uint64)
        if not words.any():  # xoshiro's one forbidden state
            words[0] = 1
        seeds[b] = words
    return seeds


def _positive(value: Any, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be at least {low}, got {value}")
    return int(value)


def simulate(
    board: Board,
    games: int,
    *,
    rng: np.random.SeedSequence | np.random.Generator | int | None = None,
    max_throws: int = DEFAULT_MAX_THROWS,
    start: int | None = None,
    threads: int | None = None,
    per_game: bool = False,
    progress: bool = False,
    confidence: float = 0.95,
) -> SimulationResult:
    """Play ``games`` independent games and summarise the number of throws.

    Parameters
    ----------
    board : Board
    games : int
        Number of games (``>= 1``).
    rng : SeedSequence, Generator, int or None
        Seed material. An integer ``s`` means ``SeedSequence(s)``; a
        ``Generator`` contributes 128 bits of fresh entropy (so two calls
        with one generator differ); ``None`` draws entropy from the OS.
        The result records what reproduces it (:meth:`SimulationResult.seed_sequence`).
    max_throws : int, default 1_000_000
        A game still running after this many throws is stopped and counted
        as censored (values above ``2**53`` act as ``2**53``).
    start : int, optional
        Start square (default: the board's).
    threads : int, optional
        Numba threads to use (default ``numba.get_num_threads()``); never
        changes the result.
    per_game : bool, default False
        Also return the throws, final square and jumps used of every game
        (O(games * jumps) memory; otherwise memory does not grow with ``games``).
    progress : bool, default False
        Show a progress bar on standard error.
    confidence : float, default 0.95
        Level of the confidence interval.

    Returns
    -------
    SimulationResult

    Warns
    -----
    RuntimeWarning
        When some games were censored: the statistics then describe the
        finished games only.

    Examples
    --------
    >>> from snl_numeric import boards, expected_throws
    >>> board = boards.get("milton-bradley")
    >>> r = simulate(board, 100_000, rng=42)
    >>> abs(r.mean - expected_throws(board)) < 5 * r.stderr
    True
    >>> r.censored, r.histogram[:7].tolist()
    (0, [0, 0, 0, 0, 0, 0, 0])
    >>> simulate(board, 100_000, rng=r.seed_sequence()).mean == r.mean
    True
    """
    board = _check_board(board)
    games = _positive(games, "games", 1)
    max_throws = _positive(max_throws, "max_throws", 1)
    start = _start(board, start)
    if not isinstance(confidence, numbers.Real) or not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    n_max = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        threads = numba.get_num_threads()
    threads = _positive(threads, "threads", 1)
    if threads > n_max:
        raise ValueError(f"threads must be at most NUMBA_NUM_THREADS={n_max}, got {threads}")
    ss = _seed_sequence(rng)

    cb = board.compiled
    alias, thresh, fair = _alias_table(cb.probs)
    bounds = (np.arange(BLOCKS + 1, dtype=np.int64) * games) // BLOCKS
    seeds = _block_seeds(ss, bounds)
    per_call = BLOCKS if not progress else max(4 * threads, 16)
    chunks = [np.arange(i, min(i + per_call, BLOCKS), dtype=np.int64)
              for i in range(0, BLOCKS, per_call)]
    run = _Run(cb, cb.reach[0] < 0, alias, thresh, fair, start,
               min(max_throws, _MAX_CAP), seeds, bounds, n_max)

    old_threads = numba.get_num_threads()
    t0 = time.perf_counter()
    try:
        numba.set_num_threads(threads)
        with Progress(games, "simulate", enabled=progress) as bar:
            hist, counts, extra = run.play(chunks, per_game, bar)
    finally:
        numba.set_num_threads(old_threads)
    elapsed = time.perf_counter() - t0
    censored, stranded, total = counts

    finished = games - censored
    if censored:
        warnings.warn(
            f"{censored} of {games} games did not finish ({stranded} stranded on squares that "
            f"cannot reach the goal, {censored - stranded} stopped at max_throws={max_throws}); "
            "the statistics describe the finished games only", RuntimeWarning, stacklevel=2)
    mean, var, lo_hi = _moments(hist)
    std = math.sqrt(var)
    stderr = std / math.sqrt(finished) if finished else math.nan
    z = float(ndtri(0.5 + confidence / 2.0))
    throws, final, used = extra
    return SimulationResult(
        board=board, start=start, games=games, finished=finished, censored=censored,
        stranded=stranded, max_throws=max_throws, mean=mean, variance=var, std=std,
        stderr=stderr, ci=(mean - z * stderr, mean + z * stderr), confidence=float(confidence),
        min=lo_hi[0], max=lo_hi[1], histogram=hist, total_throws=total,
        entropy=int(ss.entropy), spawn_key=tuple(int(x) for x in ss.spawn_key), blocks=BLOCKS,
        threads=threads, elapsed=elapsed, throws=throws, final_square=final, jump_used=used)


class _Run:
    """The kernel's inputs for one simulation, and the passes over the blocks."""

    def __init__(self, cb, dead, alias, thresh, fair, start, max_throws, seeds, bounds, rows):
        k = cb.succ.shape[1]
        size = cb.size
        # flat table of offsets square * k; a move onto a dead square (one that
        # cannot reach the goal) lands beyond the goal row: stranded
        dest = np.where(dead[cb.succ], cb.succ + size + 1, cb.succ)
        self.off = np.ascontiguousarray((dest * k).ravel(), dtype=np.intp)
        self.k, self.size, self.goal = k, size, size * k
        self.start_sq = start
        self.start = (start + (size + 1 if dead[start] else 0)) * k
        self.alias, self.thresh, self.fair = alias, thresh, fair
        self.max_throws, self.seeds, self.bounds, self.rows = max_throws, seeds, bounds, rows
        self.games = int(bounds[-1])
        self.cb = cb

    def _kernel(self, blocks, lo, hist, tallies, fired=None, jump_next=None, throws=None,
                final=None, used=None):
        _simulate_kernel(self.off, self.alias, self.thresh, self.fair, self.start, self.goal,
                         self.max_throws, self.seeds, self.bounds, blocks, lo, hist, tallies,
                         fired, jump_next, throws, final, used)

    def play(self, chunks, per_game, bar):
        """``(histogram, (censored, stranded, throws), (throws, final, used))``."""
        games, size = self.games, self.size
        if self.start >= self.goal:  # starts on the goal (0 throws) or stranded
            done = self.start == self.goal
            hist = np.array([games] if done else [], dtype=np.int64)
            extra = (np.zeros(games, dtype=np.int64), np.full(games, self.start_sq, np.intp),
                     np.zeros((games, len(self.cb.jump_src)), dtype=np.bool_))
            bar.update(games)
            return (hist, (0 if done else games, 0 if done else games, 0),
                    extra if per_game else (None, None, None))
        nbins = min(self.max_throws, _HIST_BINS) + 1
        hist = np.zeros((self.rows, nbins), dtype=np.int64)
        tallies = np.zeros((BLOCKS, 4), dtype=np.int64)
        extra = (None, None, None)
        if per_game:
            cb = self.cb
            n_jumps = len(cb.jump_src)
            jump_next = (cb.jump_index[cb.jump_dst].astype(np.int64) if cb.chained
                         else np.full(n_jumps, -1, dtype=np.int64))
            fired = np.ascontiguousarray(cb.fired, dtype=np.int64).ravel()
            extra = (np.zeros(games, dtype=np.int64), np.zeros(games, dtype=np.intp),
                     np.zeros((games, n_jumps), dtype=np.bool_))
        for blocks in chunks:
            if per_game:
                self._kernel(blocks, 0, hist, tallies, fired, jump_next, *extra)
            else:
                self._kernel(blocks, 0, hist, tallies)
            bar.update(int(self.bounds[blocks[-1] + 1] - self.bounds[blocks[0]]))
        merged = hist.sum(axis=0)
        over = np.flatnonzero(tallies[:, 0] >= nbins)
        if len(over):  # rare very long games: replay those blocks (same streams) for the tail
            tail = np.zeros((self.rows, int(tallies[:, 0].max()) - nbins + 1), dtype=np.int64)
            self._kernel(over.astype(np.int64), nbins, tail, np.zeros_like(tallies))
            merged = np.concatenate([merged, tail.sum(axis=0)])
        last = np.flatnonzero(merged)
        merged = merged[: last[-1] + 1] if len(last) else merged[:0]
        if per_game:
            final = extra[1]
            final[final > size] -= size + 1
        _, censored, stranded, total = (int(x) for x in tallies.sum(axis=0))
        return merged, (censored, stranded, total), extra


def _moments(hist: np.ndarray) -> tuple[float, float, tuple[int | None, int | None]]:
    """Mean, sample variance (ddof=1) and (min, max) from an exact histogram."""
    n = int(hist.sum())
    if n == 0:
        return math.nan, math.nan, (None, None)
    k = np.arange(len(hist), dtype=np.float64)
    mean = float(k @ hist) / n
    var = float(((k - mean) ** 2) @ hist) / (n - 1) if n > 1 else math.nan
    nz = np.flatnonzero(hist)
    return mean, var, (int(nz[0]), int(nz[-1]))


# -- command line -------------------------------------------------------------
def add_simulate_parser(sub: Any) -> None:
    """Register ``snl simulate BOARD --games N ...`` on the ``snl`` subparsers."""
    from .cli import add_board_arguments

    p = sub.add_parser("simulate", help="Monte Carlo simulation of the number of throws")
    add_board_arguments(p)
    p.add_argument("--games", type=int, required=True, metavar="N", help="games to play")
    p.add_argument("--seed", type=int, metavar="S",
                   help="integer seed (default: fresh entropy, printed for reproduction)")
    p.add_argument("--max-throws", type=int, default=DEFAULT_MAX_THROWS, metavar="M",
                   help=f"stop a game after M throws (default {DEFAULT_MAX_THROWS})")
    p.add_argument("--threads", type=int, metavar="T", help="Numba threads (default: all)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar")
    p.set_defaults(func=_run_simulate)


def _run_simulate(args: Any) -> int:
    import json

    from .cli import board_from_args

    board = board_from_args(args)
    with warnings.catch_warnings():  # censoring is reported in the output itself
        warnings.simplefilter("ignore", RuntimeWarning)
        result = simulate(board, args.games, rng=args.seed, max_throws=args.max_throws,
                          threads=args.threads, progress=args.progress,
                          confidence=args.confidence)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(result)
    return 0
