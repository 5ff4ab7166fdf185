"""The result of a board-design search."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._core.deprecation import deprecated
from .._core.equality import value_eq
from ..board import Board


@dataclass(frozen=True, eq=False)
class DesignResult:
    """The best layout a :func:`design_board` search found.

    Attributes
    ----------
    board : Board
        The best board (its jumps and the rules searched under).
    mean : float
        Its exact expected number of throws from ``board.start`` (the name
        used by :class:`~snl_numeric.Analysis`; ``expected`` is deprecated).
    variance : float
        The variance of that number of throws.
    objective : str
        ``"max"``, ``"min"``, ``"target"`` or ``"fair"``.
    target : float or None
        The target length for ``objective="target"``.
    value : float
        The objective value: ``mean`` for max/min, ``|mean - target|`` for a
        target, the first player's edge (:func:`~snl_numeric.first_player_advantage`)
        for ``"fair"``.
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
    players : int or None
        The number of players racing for ``objective="fair"``; None otherwise.
    """

    __eq__ = value_eq  # (value equality: see snl_numeric._core.equality)
    __hash__ = None  # type: ignore[assignment]

    board: Board
    mean: float
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
    players: int | None = None

    @property
    @deprecated("DesignResult.expected is now DesignResult.mean; DesignResult.expected will be "
                "removed in snl_numeric 0.2.0")
    def expected(self) -> float:
        """Deprecated: the old name of ``mean`` (removed in snl_numeric 0.2.0)."""
        return self.mean

    def to_frame(self, kind: str = "trace") -> Any:
        """A tidy pandas table.

        Parameters
        ----------
        kind : {"trace", "jumps"}
            One row per recorded search step (``step``, ``evaluations``,
            ``best``: the best objective value so far) or per jump of the board
            found (``from``, ``to``, ``kind``).

        Examples
        --------
        >>> from snl_numeric import design_board
        >>> res = design_board(20, snakes=1, ladders=1, objective="max", iterations=50,
        ...                    chains=2, rng=1)
        >>> res.to_frame().shape, res.to_frame("jumps")["kind"].tolist()
        ((50, 3), ['ladder', 'snake'])
        """
        from ..display.frames import design_frame

        return design_frame(self, kind)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (the board in the ``snl_numeric.board`` format)."""
        out = {"board": self.board.to_dict(), "mean": self.mean,
               "variance": self.variance, "objective": self.objective, "target": self.target,
               "value": self.value, "method": self.method, "evaluations": self.evaluations,
               "iterations": self.iterations, "chains": self.chains,
               "seed_entropy": list(self.seed_entropy)}
        if self.players is not None:
            out["players"] = self.players
        return out

    def _repr_html_(self) -> str:
        from ..display.html import design_html

        return design_html(self)

    def __str__(self) -> str:
        from ..display.text import design_text

        return design_text(self)
