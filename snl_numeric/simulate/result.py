"""The result of a simulation: statistics, histogram, seed material."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.equality import value_eq
from ..board import Board

if TYPE_CHECKING:
    from ..markov import Chain

#: Number of blocks the games are split into, each with its own random stream
#: (fixed: results never depend on the number of threads).
BLOCKS = 256


# -- result -------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class SimulationResult:
    """Summary of a Monte Carlo run (see the module docstring for the statistics).

    Attributes
    ----------
    board : Board or Chain
        The board (or chain) simulated; for a chain every count of throws is of steps.
    start : int
        The start square (a chain's state).
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
        ``histogram[k]``: finished games that took exactly ``k`` throws, for games of
        fewer than ``HIST_DENSE_MAX`` (2**20) throws.
    long_games : ndarray of int64, shape (m, 2), or None
        The rare finished games of at least ``HIST_DENSE_MAX`` throws, as rows
        ``(throws, games)`` by increasing throws (None when there are none): listed
        sparsely, so memory does not grow with the length of a game. ``mean``,
        ``variance``, ``std`` and ``max`` count them.
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
        Wall time of the simulation, seconds (not compared by ``==``).
    throws : ndarray of int64 or None
        Per game (``per_game=True``): throws made.
    final_square : ndarray of intp or None
        Per game: the goal, or where a censored game stopped (a chain's state; ``-1``
        for a walk absorbed in a chain of several absorbing states).
    jump_used : ndarray of bool or None
        Per game, shape ``(games, n_jumps)``: whether each jump fired at
        least once; columns follow ``board.compiled.jump_src`` (none for a chain).
    """

    __eq__ = value_eq  # (value equality: see snl_numeric._core.equality)
    __hash__ = None  # type: ignore[assignment]

    board: Board | Chain
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
    elapsed: float = field(default=0.0, repr=False, compare=False)
    throws: np.ndarray | None = field(default=None, repr=False)
    final_square: np.ndarray | None = field(default=None, repr=False)
    jump_used: np.ndarray | None = field(default=None, repr=False)
    long_games: np.ndarray | None = field(default=None, repr=False)

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

    def to_frame(self, kind: str = "throws") -> Any:
        """A tidy pandas table.

        Parameters
        ----------
        kind : {"throws", "games", "summary"}
            One row per number of throws (``throws``, ``games``, ``pmf``), per
            game (``per_game=True`` runs: ``throws``, ``final_square``,
            ``finished``), or one row of the statistics.

        Examples
        --------
        >>> from snl_numeric import boards, simulate
        >>> r = simulate(boards.get("seed-30"), 1000, rng=1)
        >>> int(r.to_frame()["games"].sum()), r.to_frame("summary")["games"].item()
        (1000, 1000)
        """
        from ..display.frames import simulation_frame

        return simulation_frame(self, kind)

    def to_dict(self) -> dict[str, Any]:
        """A summary of Python numbers and lists (per-game arrays left out; ``inf``/``nan``
        stay floats)."""
        return {
            "board": (self.board.to_dict() if isinstance(self.board, Board)
                      else {"chain": repr(self.board)}), "start": self.start, "games": self.games,
            "finished": self.finished, "censored": self.censored, "stranded": self.stranded,
            "max_throws": self.max_throws, "mean": self.mean, "variance": self.variance,
            "std": self.std, "stderr": self.stderr, "ci": list(self.ci), "confidence": self.confidence,
            "min": self.min, "max": self.max, "histogram": self.histogram.tolist(),
            **({} if self.long_games is None else {"long_games": self.long_games.tolist()}),
            "total_throws": self.total_throws, "entropy": str(self.entropy),
            "spawn_key": list(self.spawn_key), "blocks": self.blocks, "threads": self.threads,
            "elapsed": self.elapsed,
        }

    def _repr_html_(self) -> str:
        from ..display.html import simulation_html

        return simulation_html(self)

    def __str__(self) -> str:
        from ..display.text import simulation_text

        return simulation_text(self)



@dataclass(frozen=True, eq=False)
class GameSimulationResult:
    """Summary of a Monte Carlo run of ``k``-player races (``simulate(..., players=k)``), the
    twin of :class:`~snl_numeric.GameLength`.

    Attributes
    ----------
    board : Board
        The board raced on.
    players : int
        Number of players ``k``; player 0 throws first in every round.
    starts : tuple of int
        Each player's start square.
    capture : tuple
        The capture rule played, ``(mode, back, safe)``: ``mode`` 0 (none), 1 (to the start)
        or 2 (back ``back`` squares), ``safe`` the squares where nobody is captured.
    games : int
        Games played.
    finished : int
        Games somebody won; the statistics of rounds and throws describe them.
    censored : int
        Games without a winner: ``games - finished``. They used ``max_throws`` throws (all
        players together) or were stranded.
    stranded : int
        Censored games stopped early because every player stood on a square from which it
        can never reach the goal; under a capture rule, only where no capture could send a
        player from such a square to one that can (else the game runs to ``max_throws``).
    max_throws : int
        The cap on the throws of one game, all players together.
    wins : ndarray of int64, shape (k,)
        Games won by each player.
    win_shares : ndarray of float64, shape (k,)
        ``wins / games``: the estimate of each player's chance to win (censored games count
        in the total, as ``no_winner`` in :class:`~snl_numeric.GameLength`).
    win_stderr : ndarray of float64, shape (k,)
        Standard error of each share, ``sqrt(p (1 - p) / games)``.
    win_ci : ndarray of float64, shape (k, 2)
        Normal (Wald) interval ``share +/- z * stderr`` at level ``confidence``.
    mean_rounds, rounds_stderr : float
        Mean rounds of the finished games and its standard error (``s / sqrt(finished)``,
        ``ddof=1``; ``nan`` when undefined).
    mean_throws, throws_stderr : float
        The same for the total throws of all players.
    confidence : float
        Level of ``win_ci``.
    rounds_histogram : ndarray of int64
        ``rounds_histogram[n]``: finished games that ended in round ``n`` (round 0: a
        player started on the goal), for games of fewer than ``2**14`` rounds.
    throws_histogram : ndarray of int64
        ``throws_histogram[t]``: finished games of ``t`` throws in all, the same games.
    long_games : int
        Finished games of at least ``2**14`` rounds: left out of the histograms, counted in
        the means.
    total_throws : int
        Every throw made, censored games included.
    entropy : int
        ``SeedSequence`` entropy of the run.
    spawn_key : tuple of int
        ``SeedSequence`` spawn key of the run; :meth:`seed_sequence` rebuilds it.
    blocks : int
        Number of blocks (streams) the games were split into.
    threads : int
        Threads used (does not affect the numbers).
    elapsed : float
        Wall time of the simulation, seconds (not compared by ``==``).
    """

    __eq__ = value_eq  # (value equality: see snl_numeric._core.equality)
    __hash__ = None  # type: ignore[assignment]

    board: Board
    players: int
    starts: tuple[int, ...]
    capture: tuple[int, int, tuple[int, ...]]
    games: int
    finished: int
    censored: int
    stranded: int
    max_throws: int
    wins: np.ndarray
    win_shares: np.ndarray
    win_stderr: np.ndarray
    win_ci: np.ndarray = field(repr=False)
    mean_rounds: float = math.nan
    rounds_stderr: float = math.nan
    mean_throws: float = math.nan
    throws_stderr: float = math.nan
    confidence: float = 0.95
    rounds_histogram: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64),
                                         repr=False)
    throws_histogram: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64),
                                         repr=False)
    long_games: int = 0
    total_throws: int = 0
    entropy: int = 0
    spawn_key: tuple[int, ...] = ()
    blocks: int = BLOCKS
    threads: int = 1
    elapsed: float = field(default=0.0, repr=False, compare=False)

    def seed_sequence(self) -> np.random.SeedSequence:
        """The ``SeedSequence`` that reproduces this run when passed as ``rng``."""
        return np.random.SeedSequence(self.entropy, spawn_key=self.spawn_key)

    def __str__(self) -> str:
        from ..display.text import game_simulation_text

        return game_simulation_text(self)

    @property
    def rounds_pmf(self) -> np.ndarray:
        """Empirical ``P(the game ends in round n)`` over all games (censored ones count in
        the total), the twin of ``GameLength.rounds_pmf``."""
        return self.rounds_histogram / self.games

    @property
    def throws_per_second(self) -> float:
        """Simulated throws per second of wall time."""
        return self.total_throws / self.elapsed if self.elapsed > 0 else math.inf

    def to_dict(self) -> dict[str, Any]:
        """A summary of Python numbers and lists (``nan`` stays a float)."""
        mode, back, safe = self.capture
        return {
            "board": self.board.to_dict(), "players": self.players, "starts": list(self.starts),
            "capture": {"mode": mode, "back": back, "safe": list(safe)}, "games": self.games,
            "finished": self.finished, "censored": self.censored, "stranded": self.stranded,
            "max_throws": self.max_throws, "wins": self.wins.tolist(),
            "win_shares": self.win_shares.tolist(), "win_stderr": self.win_stderr.tolist(),
            "win_ci": self.win_ci.tolist(), "mean_rounds": self.mean_rounds,
            "rounds_stderr": self.rounds_stderr, "mean_throws": self.mean_throws,
            "throws_stderr": self.throws_stderr, "confidence": self.confidence,
            "rounds_histogram": self.rounds_histogram.tolist(),
            "throws_histogram": self.throws_histogram.tolist(), "long_games": self.long_games,
            "total_throws": self.total_throws, "entropy": str(self.entropy),
            "spawn_key": list(self.spawn_key), "blocks": self.blocks, "threads": self.threads,
            "elapsed": self.elapsed,
        }


def hist_moments(hist: np.ndarray, long_games: np.ndarray | None = None
                 ) -> tuple[float, float, tuple[int | None, int | None]]:
    """Mean, sample variance (ddof=1) and (min, max) from an exact histogram, and the
    sparse ``(throws, games)`` rows of the longer games."""
    k = np.arange(len(hist), dtype=np.float64)
    c = hist.astype(np.float64)
    if long_games is not None:
        k = np.concatenate([k, long_games[:, 0].astype(np.float64)])
        c = np.concatenate([c, long_games[:, 1].astype(np.float64)])
    n = int(hist.sum()) + (0 if long_games is None else int(long_games[:, 1].sum()))
    if n == 0:
        return math.nan, math.nan, (None, None)
    mean = float(k @ c) / n
    var = float(((k - mean) ** 2) @ c) / (n - 1) if n > 1 else math.nan
    nz = np.flatnonzero(c)
    return mean, var, (int(k[nz[0]]), int(k[nz[-1]]))


def pooled_moments(hist: np.ndarray, n_long: int, total: int, squares: float
                   ) -> tuple[float, float]:
    """Mean and standard error of the mean of values counted in ``hist`` (value ``i``:
    ``hist[i]`` times) and ``n_long`` more whose sum is ``total`` and sum of squares
    ``squares``; ``nan`` where undefined."""
    c = hist.astype(np.float64)
    v = np.arange(len(hist), dtype=np.float64)
    n = float(c.sum()) + n_long
    if n == 0:
        return math.nan, math.nan
    mean = (float(v @ c) + total) / n
    dev = float(((v - mean) ** 2) @ c) + (squares - 2.0 * mean * total + n_long * mean * mean)
    if n < 2:
        return mean, math.nan
    return mean, math.sqrt(max(dev, 0.0) / (n - 1) / n)
