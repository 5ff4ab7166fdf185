"""``simulate``: validate, seed, run the kernel, summarise."""

from __future__ import annotations

import math
import numbers
import time
import warnings
from typing import TYPE_CHECKING

import numpy as np

from .._core.memory import check_memory
from .._core.parallel import default_threads, max_threads
from .._core.progress import Progress
from .._core.rng import alias_table, stream_words
from .._core.validation import DEFAULT_MAX_THROWS, flag, positive_int, seed_sequence
from ..board import Board, check_model, check_start
from .kernel import HIST_BINS, Run, alias_rows
from .result import BLOCKS, SimulationResult, hist_moments

if TYPE_CHECKING:
    from ..markov import Chain

#: Larger ``max_throws`` act as this (no game gets near it; keeps step counters in int64).
_MAX_CAP = 1 << 53


def simulate(
    board: Board | Chain,
    games: int,
    *,
    rng: np.random.SeedSequence | np.random.Generator | int | None = None,
    max_throws: int = DEFAULT_MAX_THROWS,
    start: int | None = None,
    threads: int | None = None,
    per_game: bool = False,
    progress: bool | str = False,
    confidence: float = 0.95,
) -> SimulationResult:
    """Play ``games`` independent games and summarise the number of throws.

    Parameters
    ----------
    board : Board or Chain
        A :class:`~snl_numeric.Chain` is walked step by step until it is absorbed (its
        "throws" are steps), each step drawn from its row by the row's own alias table;
        a game that falls where no absorbing state can be reached is stranded.
    games : int
        Number of games (``>= 1``).
    rng : SeedSequence, Generator, int or None
        Seed material. An integer ``s`` means ``SeedSequence(s)``; a
        ``Generator`` contributes 128 bits of fresh entropy (so two calls
        with one generator differ); ``None`` draws entropy from the OS.
        The result records what reproduces it (:meth:`SimulationResult.seed_sequence`).
    max_throws : int, default 10_000_000
        A game still running after this many throws is stopped and counted
        as censored (values above ``2**53`` act as ``2**53``).
    start : int, optional
        Start square (default: the board's; a chain's state).
    threads : int, optional
        Threads to use (default ``numba.get_num_threads()``, at most
        ``NUMBA_NUM_THREADS``); never changes the result.
    per_game : bool, default False
        Also return the throws, final square and jumps used of every game
        (O(games * jumps) memory; otherwise memory does not grow with ``games``). A
        chain's final square is a state; a game absorbed in a chain of several
        absorbing states has final square ``-1`` (which one is not recorded).
    progress : bool or "always", default False
        A progress bar on standard error (a widget in Jupyter): True shows it
        on a terminal or in a notebook only, ``"always"`` in pipes and files too.
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

    A chain (gambler's ruin on 0..4 from 2 with a fair coin: 4 steps on average):

    >>> import numpy as np
    >>> from snl_numeric import Chain
    >>> P = np.zeros((5, 5))
    >>> P[0, 0] = P[4, 4] = 1.0
    >>> for i in range(1, 4):
    ...     P[i, i - 1] = P[i, i + 1] = 0.5
    >>> r = simulate(Chain(P, start=2), 100_000, rng=7)
    >>> abs(r.mean - 4.0) < 5 * r.stderr, r.min
    (True, 2)
    """
    model = check_model(board)
    chain = None if isinstance(model, Board) else model
    games = positive_int(games, "games", 1)
    max_throws = positive_int(max_throws, "max_throws", 1)
    at = check_start(model, start)  # (the start's index in the compiled table)
    start = at if chain is None else chain.start if start is None else int(start)
    if not isinstance(confidence, numbers.Real) or not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    n_max = max_threads()
    if threads is None:
        threads = default_threads()
    threads = positive_int(threads, "threads", 1)
    per_game = flag(per_game, "per_game")
    if threads > n_max:
        raise ValueError(f"threads must be at most NUMBA_NUM_THREADS={n_max}, got {threads}")
    ss = seed_sequence(rng)

    cb = model.compiled
    if per_game:  # throws, final square and one flag per jump, for every game
        check_memory(games * (16 + len(cb.jump_src)),
                     f"per_game=True for {games:,} games on a board with {len(cb.jump_src)} jumps")
    # the flat successor table, and a histogram row per thread
    check_memory(cb.succ.size * 16 + threads * 8 * (HIST_BINS + 1),
                 f"simulating a board of {cb.n_states:,} squares")
    if cb.probs.ndim == 1:
        alias, thresh, fair = alias_table(cb.probs)
    else:  # a chain's rows: a table each
        check_memory(cb.probs.size * 16, f"alias tables for a chain of {cb.n_states:,} rows")
        alias, thresh = (np.array(a) for a in cb.cache.get("alias_rows",
                                                           lambda: _alias_rows(cb.probs)))
        fair = False
    # exact Python integers: b * games overflows int64 beyond 2**63 / 256 games
    bounds = np.array([b * games // BLOCKS for b in range(BLOCKS + 1)], dtype=np.int64)
    seeds = _block_seeds(ss, bounds)
    run = Run(cb, cb.reach[0] < 0, alias, thresh, fair, at,
              min(max_throws, _MAX_CAP), seeds, bounds, threads)
    run.compile(per_game)  # compile time is not run time: the clock and the bar start after it

    t0 = time.perf_counter()
    with Progress(games, "simulate", enabled=progress) as bar:
        hist, counts, extra, long_games = run.play(per_game, bar)
    elapsed = time.perf_counter() - t0
    censored, stranded, total = counts

    finished = games - censored
    if censored:
        warnings.warn(
            f"{censored} of {games} games did not finish ({stranded} stranded on squares that "
            f"cannot reach the goal, {censored - stranded} stopped at max_throws={max_throws}); "
            "the statistics describe the finished games only", RuntimeWarning, stacklevel=2)
    mean, var, lo_hi = hist_moments(hist, long_games)
    std = math.sqrt(var)
    stderr = std / math.sqrt(finished) if finished else math.nan
    from scipy.special import ndtri  # here: importing the package needs no scipy.special

    z = float(ndtri(0.5 + confidence / 2.0))
    throws, final, used = extra
    if chain is not None and final is not None:  # compiled indices -> the chain's states
        ends = chain.absorbing if len(chain.absorbing) == 1 else np.array([-1])
        final = np.append(np.flatnonzero(~chain.is_absorbing), ends)[final]
    return SimulationResult(
        board=model, start=start, games=games, finished=finished, censored=censored,
        stranded=stranded, max_throws=max_throws, mean=mean, variance=var, std=std,
        stderr=stderr, ci=(mean - z * stderr, mean + z * stderr), confidence=float(confidence),
        min=lo_hi[0], max=lo_hi[1], histogram=hist, total_throws=total,
        entropy=int(ss.entropy), spawn_key=tuple(int(x) for x in ss.spawn_key), blocks=BLOCKS,
        threads=threads, elapsed=elapsed, throws=throws, final_square=final, jump_used=used,
        long_games=long_games)


def _alias_rows(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A Walker/Vose alias table per row of ``probs`` (shape ``(rows, k)``), as
    ``(alias, thresh)`` of that shape (read-only; :func:`alias_rows`)."""
    alias = np.empty(probs.shape, dtype=np.int64)
    thresh = np.empty(probs.shape, dtype=np.uint64)
    alias_rows(np.ascontiguousarray(probs, dtype=np.float64), alias, thresh)
    alias.flags.writeable = thresh.flags.writeable = False
    return alias, thresh


def _block_seeds(ss: np.random.SeedSequence, bounds: np.ndarray) -> np.ndarray:
    """A xoshiro256** stream per non-empty block, from child ``spawn_key + (b,)``."""
    seeds = np.zeros((len(bounds) - 1, 4), dtype=np.uint64)
    for b in np.flatnonzero(np.diff(bounds)).tolist():
        seeds[b] = stream_words(np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, b),
                                                       pool_size=ss.pool_size))
    return seeds
