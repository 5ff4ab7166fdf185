"""Plots for notebooks: game length, the board, expected visits, comparisons, races,
players racing.

Needs matplotlib, the optional extra ``plot``
(``pip install snl_numeric[plot]``); it is imported only when a function
here is called, so ``import snl_numeric`` never pulls it in. Each function's
module is imported on first use too (:mod:`snl_numeric._core.lazy`): ``from
snl_numeric.plot import plot_distribution`` loads no policy, race or
sensitivity code.

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

from typing import TYPE_CHECKING

from .._core.lazy import attach

if TYPE_CHECKING:  # the same names for type checkers (tests/test_lazy.py checks they agree)
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

if not TYPE_CHECKING:  # hidden from type checkers, which would accept any name through it
    __getattr__ = attach(__name__, {
        ".._core.grid": ("grid_shape", "square_xy"),
        ".board": ("plot_board", "plot_visits"),
        ".common": ("DEFAULT_COVERAGE", "NUMBER_MAX_SIZE"),
        ".distribution": ("plot_compare", "plot_distribution"),
        ".impact": ("plot_candidates", "plot_impact"),
        ".players": ("plot_players",),
        ".policy": ("plot_policy",),
        ".race": ("plot_race",),
        ".sensitivity": ("plot_sensitivity",),
    })

del annotations, attach, TYPE_CHECKING  # not part of the namespace


def __dir__() -> list[str]:
    """The public names only (no private modules)."""
    return sorted(__all__)
