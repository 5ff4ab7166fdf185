"""What each jump does (bars), and every jump one could add (a heat map)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._core.validation import choice, positive_int
from ..board import Board
from ..display.html import LADDER_COLOR, SNAKE_COLOR, board_title
from ..impact import JumpCandidates, JumpImpact, candidates, jump_impact
from .common import axes, colormap

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: What the bars of :func:`plot_impact` can show.
IMPACT_MEASURES = {"mean": "expected throws", "std": "standard deviation",
                   "median": "median throws", "win_probability": "first player's chance to win"}


def plot_impact(
    impact_or_board: JumpImpact | Board,
    *,
    by: str = "mean",
    top: int | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """Bars of the change when each jump alone is removed, largest effect on top.

    Ladders are green, snakes red; a removal after which the goal is no longer
    reached surely reaches the edge of the axes, labelled "∞".

    Parameters
    ----------
    impact_or_board : JumpImpact or Board
        A board is passed to :func:`~snl_numeric.jump_impact` first.
    by : {"mean", "std", "median", "win_probability"}, default "mean"
        Which change to draw (``median`` and ``win_probability`` only when computed).
    top : int, optional
        Only the ``top`` largest effects.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from snl_numeric import boards
    >>> from snl_numeric.plot import plot_impact
    >>> ax = plot_impact(boards.get("milton-bradley"), top=5)
    >>> [t.get_text() for t in ax.get_yticklabels()][-1]
    '80→100'
    """
    r = impact_or_board
    if isinstance(r, Board):
        r = jump_impact(r)
    if not isinstance(r, JumpImpact):
        raise TypeError(f"expected a JumpImpact or a Board, got {type(r).__name__}")
    by = choice(by, "by", tuple(IMPACT_MEASURES))
    if top is not None:  # (a negative or a True top sliced the bars silently)
        top = positive_int(top, "top")
    order = r.order(by)[:top][::-1]  # the largest at the top
    change = getattr(r, f"{by}_change")[order]
    ax = axes(ax, (7, max(2.5, 0.3 * len(order) + 1.2)))
    finite = change[np.isfinite(change)]
    edge = float(np.abs(finite).max()) * 1.15 if len(finite) and finite.any() else 1.0
    shown = np.clip(np.nan_to_num(change, nan=0.0), -edge, edge)
    ladder = r.destination[order] > r.source[order]
    colours = np.where(ladder, LADDER_COLOR, SNAKE_COLOR)
    ypos = np.arange(len(order))
    ax.barh(ypos, shown, color=colours, height=0.7)
    ax.set_yticks(ypos, [f"{s}→{d}" for s, d in zip(r.source[order].tolist(),
                                                       r.destination[order].tolist(),
                                                       strict=True)])
    for y, c in zip(ypos.tolist(), change.tolist(), strict=True):
        if np.isinf(c):  # the bar runs to the edge
            ax.text(np.sign(c) * edge, y, " ∞ ", va="center", ha="right" if c > 0 else "left",
                    fontsize=9, color="white", fontweight="bold")
        elif np.isnan(c):  # infinite with and without the jump
            ax.text(0.0, y, " stays infinite", va="center", ha="left", fontsize=8)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlim(-edge if (change < 0).any() else 0.0, edge if (change > 0).any() else 0.0)
    if ax.get_xlim()[0] == ax.get_xlim()[1]:
        ax.set_xlim(-1.0, 1.0)
    ax.set_xlabel(f"change of the {IMPACT_MEASURES[by]} without the jump")
    ax.set_title(title if title is not None else f"Jump impact on {board_title(r.board)}")
    return ax


def plot_candidates(
    candidates_or_board: JumpCandidates | Board,
    *,
    ax: Axes | None = None,
    cmap: str = "RdBu_r",
    title: str | None = None,
) -> Axes:
    """A heat map of ``change[a, b]``: every jump ``a -> b`` one could add.

    Rows are the new jump's square ``a``, columns its destination ``b``; red
    lengthens the game, blue shortens it (the scale centred on 0), black makes it
    endless, blank is forbidden.

    Parameters
    ----------
    candidates_or_board : Board or JumpCandidates
        A board is passed to :func:`~snl_numeric.impact.candidates` first.
    ax : matplotlib Axes, optional
    cmap : str, default "RdBu_r"
        A diverging colour map.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from snl_numeric import boards
    >>> from snl_numeric.plot import plot_candidates
    >>> ax = plot_candidates(boards.get("milton-bradley"))
    >>> ax.get_xlabel()
    'destination b'
    """
    from matplotlib.colors import TwoSlopeNorm

    cmap = colormap(cmap)
    c = candidates_or_board
    if isinstance(c, Board):
        c = candidates(c)
    if not isinstance(c, JumpCandidates):
        raise TypeError(f"expected a Board or a JumpCandidates (snl_numeric.impact.candidates), "
                        f"got {type(c).__name__}")
    change = c.change
    finite = change[np.isfinite(change)]
    lo = min(float(finite.min(initial=0.0)), -1e-12)
    hi = max(float(finite.max(initial=0.0)), 1e-12)
    colours = colormap(cmap).with_extremes(bad="white", over="black")
    ax = axes(ax, (7, 6))
    shown = np.where(np.isposinf(change), 2.0 * hi + 1.0, change)  # endless: the "over" colour
    image = ax.imshow(shown, origin="lower", cmap=colours,
                      norm=TwoSlopeNorm(0.0, lo, hi), interpolation="nearest", aspect="auto")
    extend = "max" if np.isposinf(change).any() else "neither"
    ax.figure.colorbar(image, ax=ax, extend=extend, label="change of expected throws")
    ax.set_xlabel("destination b")
    ax.set_ylabel("new jump's square a")
    ax.set_title(title if title is not None else f"Adding a jump a→b to {board_title(c.board)}")
    return ax
