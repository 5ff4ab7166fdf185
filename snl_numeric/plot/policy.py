"""Policy maps: the die chosen on every square."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._core.grid import square_xy
from .._core.text import dice_text, label
from ..display.html import GOAL_COLOR, board_title
from ..policy import PolicyResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes

from .common import (
    NUMBER_ZORDER,
    axes,
    board_frame,
    cells,
    draw_jumps,
    legend_beside_board,
    number_squares,
    shows_zero,
)


def plot_policy(
    policy_result: PolicyResult,
    *,
    ax: Axes | None = None,
    numbers: bool | None = None,
    values: bool | None = None,
    title: str | None = None,
    legend: bool = True,
) -> Axes:
    """A policy map: the die chosen on every square, on the board's grid.

    Each square is coloured by the die the policy of
    :func:`~snl_numeric.optimal_policy` throws there (labelled A, B, ... as
    in the result's text form); the jumps are drawn as in
    :func:`plot_board`, declined jumps (``optional_jumps=True``) as grey
    dashed arrows.

    Parameters
    ----------
    policy_result : PolicyResult
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    numbers : bool, optional
        Number the squares; by default when the board has at most
        :data:`NUMBER_MAX_SIZE` squares.
    values : bool, optional
        Write the expected throws from each square under the policy in its
        cell; by default when the board has at most 100 squares.
    title : str, optional
    legend : bool, default True
        Add a legend naming the dice.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from snl_numeric import boards, optimal_policy
    >>> from snl_numeric.plot import plot_policy
    >>> r = optimal_policy(boards.get("milton-bradley"), [None, {1: 0.5, 2: 0.5}])
    >>> ax = plot_policy(r)
    >>> [t.get_text() for t in ax.get_legend().get_texts()][:2]
    ['A = d6', 'B = 1-2']
    """
    if not isinstance(policy_result, PolicyResult):
        raise TypeError("policy_result must be a PolicyResult, "
                        f"got {type(policy_result).__name__}")
    r = policy_result
    ax = axes(ax, (8, 7))
    from matplotlib.colors import ListedColormap, to_rgba
    from matplotlib.patches import Patch, Rectangle

    board = r.board
    size = board.size
    n_act = len(r.actions)
    colours = [to_rgba(f"C{i % 10}", 0.45) for i in range(n_act)]
    choice = np.asarray(r.policy, dtype=float)
    choice[choice < 0] = np.nan
    zero_shown = shows_zero(board)
    rows, n = board_frame(ax, size, zero_shown)
    ax.imshow(cells(size, choice), origin="lower", extent=(-0.5, n - 0.5, -0.5, rows - 0.5),
              cmap=ListedColormap(colours), vmin=-0.5, vmax=n_act - 0.5,
              interpolation="nearest", zorder=0)
    gx, gy = square_xy(size, size)
    ax.add_patch(Rectangle((float(gx) - 0.5, float(gy) - 0.5), 1, 1, facecolor=GOAL_COLOR,
                           edgecolor="none", zorder=0.5))
    if zero_shown:
        ax.add_patch(Rectangle((-1.5, -0.5), 1, 1, facecolor=colours[int(r.policy[0])],
                               edgecolor="gray", zorder=0.5))
        ax.text(-1.0, -0.45, "0", ha="center", va="bottom", fontsize=7, color="gray")
    number_squares(ax, size, numbers)
    if values is None:
        values = size <= 100
    if values:
        x, y = square_xy(np.arange(size), size)
        for k in range(size):
            if k == 0 and not zero_shown:
                continue
            v = float(r.expected[k])
            text = "∞" if not np.isfinite(v) else f"{v:.1f}"
            ax.text(float(x[k]), float(y[k]) - 0.12, text, ha="center", va="center",
                    fontsize=max(4.0, min(7.0, 70.0 / n)), color="dimgray",
                    zorder=NUMBER_ZORDER)  # over the arrows
    draw_jumps(ax, board, declined=~np.asarray(r.take, dtype=bool))
    if legend:
        handles = [Patch(facecolor=colours[i], edgecolor="gray",
                         label=f"{label(i)} = {dice_text(d)}")
                   for i, d in enumerate(r.actions)]
        if not np.all(r.take):
            from matplotlib.lines import Line2D

            handles.append(Line2D([], [], color="gray", linestyle="--", label="declined jump"))
        legend_beside_board(ax, handles, n, title="die thrown")
    what = "Optimal" if r.objective == "min" else "Worst"
    ax.set_title(title if title is not None else
                 f"{what} play on {board_title(board)}: "
                 f"{r.mean:.2f} expected throws from square {board.start}")
    return ax

