"""``simulate``: validate, seed, run the kernel, summarise."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast, overload

import numpy as np

from .._core.memory import check_memory
from .._core.parallel import default_threads, max_threads
from .._core.progress import Progress
from .._core.validation import DEFAULT_MAX_THROWS, flag, positive_int, probability, seed_sequence
from .._core.warn import warn_user
from ..board import Board, check_model, check_start
from ..dice import DiceLike
from .kernel import HIST_BINS, Run, alias_tables, block_bounds, block_seeds
from .multi import players_count, simulate_players
from .result import BLOCKS, GameSimulationResult, SimulationResult, hist_moments

if TYPE_CHECKING:
    from ..markov import Chain

#: Larger ``max_throws`` act as this (no game gets near it; keeps step counters in int64).
_MAX_CAP = 1 << 53


@overload
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
    players: None = None,
    starts: None = None,
    dice: None = None,
) -> SimulationResult: ...


@overload
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
    players: int,
    starts: Sequence[int | None] | None = None,
    dice: DiceLike | Sequence[DiceLike | None] | None = None,
) -> GameSimulationResult: ...


@overload
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
    players: None = None,
    starts: Sequence[int | None],
    dice: DiceLike | Sequence[DiceLike | None] | None = None,
) -> GameSimulationResult: ...


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
    players: int | None = None,
    starts: Sequence[int | None] | None = None,
    dice: DiceLike | Sequence[DiceLike | None] | None = None,
) -> SimulationResult | GameSimulationResult:
    """Play ``games`` independent games and summarise the number of throws; with
    ``players=k``, races of ``k`` players and who wins them.

    Parameters
    ----------
    board : Board or Chain
        A :class:`~snl_numeric.Chain` is walked step by step until it is absorbed (its
        "throws" are steps), each step drawn from its row by the row's own alias table;
        a game that falls where no absorbing state can be reached is stranded.
    games : int
        Number of games (``>= 1``, up to ``2**63 - 1``). They are played in rounds over a
        fixed number of blocks: memory does not grow with ``games`` (only ``per_game=True``
        keeps arrays per game, and its memory is checked first), so any count is taken;
        the time grows: ``progress`` shows it, and Ctrl-C (``KeyboardInterrupt``) stops
        the run within a round.
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
    players : int, optional
        Play races of ``players`` players (``>= 1``) instead of one-player games: players
        throw in turn, player 0 first, under the board's capture rule (none: they never
        meet), and the first to rest on the goal wins. ``max_throws`` then caps the throws
        of a game, all players together; ``start`` and ``per_game`` do not apply. By default
        the length of ``starts`` or ``dice`` when either is a list, else one-player games.
    starts : list of int or None, optional
        With ``players``: each player's start square (``None`` entries: the board's).
    dice : Dice, mapping, str, None or list of them, optional
        With ``players``: the same dice for everybody, or one per player, as
        :func:`~snl_numeric.win_probabilities` takes them: ``None`` (the default), or a
        ``None`` entry, is the board's own die.

    Returns
    -------
    SimulationResult or GameSimulationResult
        A :class:`~snl_numeric.GameSimulationResult` with ``players`` (win shares with their standard
        errors and intervals, censored games, mean rounds and throws, the distribution of
        rounds).

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

    Three players, the twin of :func:`~snl_numeric.win_probabilities`:

    >>> from snl_numeric import expected_game_length
    >>> g = simulate(board, 100_000, players=3, rng=1)
    >>> exact = expected_game_length(board, 3)
    >>> bool(np.all(abs(g.win_shares - exact.win_probabilities) < 4 * g.win_stderr))
    True
    >>> bool(abs(g.mean_rounds - exact.mean_rounds) < 4 * g.rounds_stderr), g.censored
    (True, 0)
    """
    result = play_games(board, games, rng=rng, max_throws=max_throws, start=start,
                        threads=threads, per_game=per_game, progress=progress,
                        confidence=confidence, players=players, starts=starts, dice=dice)
    if result.censored:
        warn_user(censored_message(result))
    return result


def censored_message(result: SimulationResult | GameSimulationResult) -> str:
    """What :func:`simulate` warns when games did not finish (``snl simulate`` prints the
    counts in its output instead)."""
    c, s, games, cap = result.censored, result.stranded, result.games, result.max_throws
    if isinstance(result, GameSimulationResult):
        return (f"{c} of {games} games had no winner ({s} stranded with every player on a "
                f"square that cannot reach the goal, {c - s} stopped at max_throws={cap}); "
                "the rounds and throws describe the finished games only")
    return (f"{c} of {games} games did not finish ({s} stranded on squares that cannot reach "
            f"the goal, {c - s} stopped at max_throws={cap}); the statistics describe the "
            "finished games only")


def play_games(
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
    players: int | None = None,
    starts: Sequence[int | None] | None = None,
    dice: DiceLike | Sequence[DiceLike | None] | None = None,
) -> SimulationResult | GameSimulationResult:
    """:func:`simulate` without its warning about games that did not finish: for callers
    that report ``censored`` themselves (``snl simulate``, the warm-up), so they need not
    silence it with ``warnings.catch_warnings`` (process-wide filters: not thread-safe)."""
    if players is not None or starts is not None or dice is not None:
        return _race(board, games, players, starts, dice, rng=rng, max_throws=max_throws,
                     start=start, threads=threads, per_game=per_game, progress=progress,
                     confidence=confidence)
    model = check_model(board)
    chain = None if isinstance(model, Board) else model
    games = positive_int(games, "games", 1)
    max_throws = positive_int(max_throws, "max_throws", 1)
    at = check_start(model, start)  # (the start's index in the compiled table)
    start = at if chain is None else chain.start if start is None else int(start)
    confidence = _confidence(confidence)
    threads = _threads(threads)
    per_game = flag(per_game, "per_game")
    ss = seed_sequence(rng)

    cb = model.compiled
    if per_game:  # throws, final square and one flag per jump, for every game
        check_memory(games * (16 + len(cb.jump_src)),
                     f"per_game=True for {games:,} games on a board with {len(cb.jump_src)} jumps")
    # the flat successor table, and a histogram row per thread
    check_memory(cb.succ.size * 16 + threads * 8 * (HIST_BINS + 1),
                 f"simulating a board of {cb.n_states:,} squares")
    if cb.probs.ndim == 2:  # a chain's rows: a table each
        check_memory(cb.probs.size * 16, f"alias tables for a chain of {cb.n_states:,} rows")
    alias, thresh, fair = alias_tables(cb)
    fair = fair and cb.probs.ndim == 1  # (a chain's rows always compare: one kernel less)
    bounds = block_bounds(games)
    seeds = block_seeds(ss, bounds)
    run = Run(cb, cb.reach[0] < 0, alias, thresh, fair, at,
              min(max_throws, _MAX_CAP), seeds, bounds, threads)
    run.compile(per_game)  # compile time is not run time: the clock and the bar start after it

    t0 = time.perf_counter()
    with Progress(games, "simulate", enabled=progress) as bar:
        hist, counts, extra, long_games = run.play(per_game, bar)
    elapsed = time.perf_counter() - t0
    censored, stranded, total = counts

    finished = games - censored
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
        entropy=int(cast(int, ss.entropy)), spawn_key=tuple(int(x) for x in ss.spawn_key), blocks=BLOCKS,
        threads=threads, elapsed=elapsed, throws=throws, final_square=final, jump_used=used,
        long_games=long_games)


def _confidence(confidence: float) -> float:
    confidence = probability(confidence, "confidence")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return confidence


def _threads(threads: int | None) -> int:
    n_max = max_threads()
    if threads is None:
        threads = default_threads()
    threads = positive_int(threads, "threads", 1)
    if threads > n_max:
        raise ValueError(f"threads must be at most NUMBA_NUM_THREADS={n_max}, got {threads}")
    return threads


def _race(board: Any, games: Any, players: Any, starts: Any, dice: Any, *, rng: Any,
          max_throws: Any, start: Any, threads: Any, per_game: Any, progress: Any,
          confidence: Any) -> GameSimulationResult:
    """``simulate`` with ``players``: validate, then :func:`simulate_players`."""
    model = check_model(board)
    if not isinstance(model, Board):
        raise TypeError(f"players= races on a Board, got {type(model).__name__}")
    if start is not None:
        raise ValueError(f"start={start!r} is the one-player start; with players give "
                         "starts=[...] (one per player)")
    if flag(per_game, "per_game"):
        raise ValueError("per_game=True records one-player games; it does not apply with "
                         "players")
    players_count(players, starts, dice)
    return simulate_players(model, positive_int(games, "games", 1), players, starts=starts,
                            dice=dice, ss=seed_sequence(rng),
                            max_throws=positive_int(max_throws, "max_throws", 1),
                            threads=_threads(threads), progress=progress,
                            confidence=_confidence(confidence))
