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
