"""Plots for notebooks: game length, the board, expected visits, comparisons, races,
players racing.

Needs matplotlib, the optional extra ``plot``
(``pip install snl_numeric[plot]``); it is imported only when a function
here is called, so ``import snl_numeric`` never pulls it in.

Every function draws on ``ax`` when given (or on a new figure) and returns
the matplotlib ``Axes`` it drew on. Functions that take an
"analysis or board" accept an :class:`~snl_numeric.Analysis` or a
:class:`~snl_numeric.Board` (analysed on the fly with
:func:`~snl_numeric.analyze`).

Boards are drawn as the printed game: squares ``1 .. size`` boustrophedon
on a grid of ``n = ceil(sqrt(size))`` columns, square 1 bottom-left, rows
alternating direction; square 0 (off the board) just left of square 1.
Ladders are green arrows, snakes red (curved) arrows, each an
``ax.annotate`` arrow from the jump's square to its destination.
"""

from __future__ import annotations

from .._core.grid import grid_shape, square_xy
from .board import plot_board, plot_visits
from .common import DEFAULT_COVERAGE, NUMBER_MAX_SIZE
from .distribution import plot_compare, plot_distribution
from .impact import plot_candidates, plot_impact
from .players import plot_players
from .policy import plot_policy
from .race import plot_race
from .sensitivity import plot_sensitivity

__all__ = [
    "plot_board",
    "plot_candidates",
    "plot_compare",
    "plot_distribution",
    "plot_impact",
    "plot_players",
    "plot_policy",
    "plot_race",
    "plot_sensitivity",
    "plot_visits",
    "grid_shape",
    "square_xy",
    "NUMBER_MAX_SIZE",
    "DEFAULT_COVERAGE",
]
