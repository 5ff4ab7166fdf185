"""The board drawn, and the expected visits on it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._core.grid import square_xy
from .._core.memory import check_memory
from .._core.validation import flag, optional_flag
from ..analysis import Analysis
from ..board import Board
from ..display.html import GOAL_COLOR, LADDER_COLOR, SNAKE_COLOR, board_title

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..markov import Chain

from .common import (
    as_analysis,
    axes,
    board_frame,
    cells,
    colormap,
    draw_jumps,
    fit_board_figure,
    legend_beside_board,
    number_squares,
    shows_zero,
)


def plot_board(
    board: Board,
    *,
    ax: Axes | None = None,
    numbers: bool | None = None,
    title: str | None = None,
    legend: bool = True,
) -> Axes:
    """The board as printed: numbered squares, ladders and snakes as arrows.

    Squares run boustrophedon from the bottom-left (see the module
    docstring); the goal is gold, the start square outlined. Each ladder is
    a green arrow from its foot to its top, each snake a red curved arrow
    from its head to its tail.

    Parameters
    ----------
    board : Board
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    numbers : bool, optional
        Number the squares; by default when the board has at most
        :data:`NUMBER_MAX_SIZE` squares.
    title : str, optional
        Defaults to the board's name and jump counts.
    legend : bool, default True
        Add a legend for ladders and snakes.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from snl_numeric import boards
    >>> from snl_numeric.plot import plot_board
    >>> ax = plot_board(boards.get("seed-30"))
    >>> sorted(t.get_gid() for t in ax.texts if t.get_gid())[:3]  # one arrow per jump
    ['ladder 10->25', 'ladder 19->28', 'ladder 2->21']
    """
    if not isinstance(board, Board):
        kind = type(board).__name__
        raise TypeError(f"board must be a Board, got {kind}" + (
            ": a chain has no squares on a grid or jumps to draw (plot_visits and "
            "plot_distribution take a Chain)" if kind == "Chain" else ""))
    numbers, legend = optional_flag(numbers, "numbers"), flag(legend, "legend")
    # the squares' cells, coordinates and shades (nothing else sizes a board drawing: the
    # other plots analyse the board first, which checks more)
    check_memory(80.0 * (board.size + 1), f"drawing a board of {board.size + 1:,} squares")
    created = ax is None
    ax = axes(ax, (7, 7))
    from matplotlib.colors import ListedColormap
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    size = board.size
    zero_shown = shows_zero(board)
    rows, n = board_frame(ax, size, zero_shown)
    x, y = square_xy(np.arange(size + 1), size)
    shade = ((x + y) % 2).astype(float)
    ax.imshow(cells(size, shade), origin="lower", extent=(-0.5, n - 0.5, -0.5, rows - 0.5),
              cmap=ListedColormap(["#e6dcc3", "#f5f0e1"]), vmin=0, vmax=1,
              interpolation="nearest", zorder=0)
    gx, gy = square_xy(size, size)
    ax.add_patch(Rectangle((float(gx) - 0.5, float(gy) - 0.5), 1, 1, facecolor=GOAL_COLOR,
                           edgecolor="none", zorder=0.5))
    if zero_shown:
        ax.add_patch(Rectangle((-1.45, -0.45), 0.9, 0.9, facecolor="#ffffff",
                               edgecolor="gray", linestyle="--", zorder=0.5))
        ax.text(-1.0, 0.0, "0", ha="center", va="center", fontsize=8, color="gray")
    sx, sy = square_xy(board.start, size)
    ax.add_patch(Rectangle((float(sx) - 0.5, float(sy) - 0.5), 1, 1, facecolor="none",
                           edgecolor="black", linewidth=1.5, zorder=0.6))
    if legend:
        handles = [
            Line2D([], [], color=LADDER_COLOR, linewidth=2,
                   label=f"ladders ({len(board.ladders)})"),
            Line2D([], [], color=SNAKE_COLOR, linewidth=2,
                   label=f"snakes ({len(board.snakes)})"),
            Rectangle((0, 0), 1, 1, facecolor="none", edgecolor="black",
                      label=f"start {board.start}"),
            Rectangle((0, 0), 1, 1, facecolor=GOAL_COLOR, label=f"goal {size}"),
        ]
        legend_beside_board(ax, handles, n)
    ax.set_title(title if title is not None else
                 f"{board_title(board)}: {len(board.ladders)} ladders, {len(board.snakes)} snakes")
    if created:
        fit_board_figure(ax)
    number_squares(ax, size, numbers)  # sized to the cells: after the legend room and fit
    draw_jumps(ax, board)
    return ax


def plot_visits(
    analysis_or_board: Analysis | Board | Chain,
    *,
    ax: Axes | None = None,
    cmap: str = "viridis",
    numbers: bool | None = None,
    jumps: bool = True,
    title: str | None = None,
) -> Axes:
    """A heat map of the expected visits per square, on the board's grid.

    The value of a square is the expected number of throws made from it
    (they sum to the expected game length). Jump squares are never rested
    on, so they read 0. Square 0 is drawn as an extra cell left of square 1
    when it is the start.

    A chain (or its analysis) has no grid: its expected visits (steps made from each
    state) are drawn as bars, one per state, labelled by the chain's labels (every
    ``ceil(n / 40)``-th one); ``cmap``, ``numbers`` and ``jumps`` do not apply.

    Parameters
    ----------
    analysis_or_board : Analysis, Board or Chain
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    cmap : str
        A matplotlib colormap name.
    numbers : bool, optional
        Number the squares; by default when the board has at most
        :data:`NUMBER_MAX_SIZE` squares.
    jumps : bool, default True
        Overlay the jumps as faint arrows.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        When the goal is not reached with probability 1 (visits are infinite).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from snl_numeric import boards
    >>> from snl_numeric.plot import plot_visits
    >>> ax = plot_visits(boards.get("milton-bradley"))
    >>> ax.images[0].colorbar is not None
    True
    """
    numbers, jumps = optional_flag(numbers, "numbers"), flag(jumps, "jumps")
    cmap = colormap(cmap)
    a = as_analysis(analysis_or_board, distribution=False)
    if a.expected_visits is None:
        raise ValueError(
            "expected visits are infinite: the goal is reached with probability "
            f"{a.finish_probability:.6g} < 1 from square {a.start}"
        )
    if not isinstance(a.board, Board):
        return _chain_visits(a, ax, title)
    created = ax is None
    ax = axes(ax, (8, 7))
    board = a.board
    size = board.size
    visits = np.asarray(a.expected_visits, dtype=float)
    zero_shown = a.start == 0
    rows, n = board_frame(ax, size, zero_shown)
    im = ax.imshow(cells(size, visits), origin="lower",
                   extent=(-0.5, n - 0.5, -0.5, rows - 0.5), cmap=cmap,
                   vmin=0.0, vmax=float(visits.max()), interpolation="nearest", zorder=0)
    if zero_shown:
        from matplotlib.patches import Rectangle

        ax.add_patch(Rectangle((-1.5, -0.5), 1, 1, facecolor=im.cmap(im.norm(visits[0])),
                               edgecolor="gray", zorder=1))
        ax.text(-1.0, -0.5, "0", ha="center", va="top", fontsize=7, color="gray")
    cax = ax.inset_axes((1.03, 0.1, 0.035, 0.8))  # beside the board, whatever its shape
    ax.figure.colorbar(im, cax=cax, label="expected throws made from the square")
    ax.set_title(title if title is not None else
                 f"Expected visits: {board_title(board)} (total {a.mean:.2f} throws)")
    if created:
        fit_board_figure(ax, colorbar=True)
    number_squares(ax, size, numbers, background=np.asarray(im.cmap(im.norm(visits))))
    if jumps:
        draw_jumps(ax, board, alpha=0.45)
    return ax




def _chain_visits(a: Analysis, ax: Axes | None, title: str | None) -> Axes:
    """:func:`plot_visits` of a chain's analysis: a bar per state."""
    chain: Chain = a.board  # type: ignore[assignment]
    visits = np.asarray(a.expected_visits, dtype=float)
    n = len(visits)
    ax = axes(ax, (8, 4.5))
    ax.bar(np.arange(n), visits, width=0.8, color="C0")
    every = -(-n // 40)
    ticks = np.arange(0, n, every)
    ax.set_xticks(ticks, [str(chain.labels[i]) for i in ticks.tolist()],
                  rotation=90 if n > 12 else 0, fontsize=8)
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_xlabel("state")
    ax.set_ylabel("expected steps made from the state")
    ax.set_title(title if title is not None else
                 f"Expected visits: {board_title(chain)} (total {a.mean:.2f} steps)")
    return ax
