"""Policy maps: the die chosen on every square."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.grid import square_xy
from .._core.text import dice_text, label
from .._core.validation import flag, integer, optional_flag
from ..display.html import GOAL_COLOR, board_title
from ..policy import FinishWithinResult, PolicyResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes

from .common import (
    NUMBER_ZORDER,
    axes,
    board_frame,
    cell_points,
    cells,
    draw_jumps,
    fit_board_figure,
    legend_beside_board,
    number_squares,
    shows_zero,
)


def plot_policy(
    policy_result: PolicyResult | FinishWithinResult,
    *,
    ax: Axes | None = None,
    numbers: bool | None = None,
    values: bool | None = None,
    title: str | None = None,
    legend: bool = True,
    step: int = 0,
) -> Axes:
    """A policy map: the die chosen on every square, on the board's grid.

    Each square is coloured by the die the policy of
    :func:`~snl_numeric.optimal_policy` (or :func:`~snl_numeric.finish_within`)
    throws there (labelled A, B, ... as in the result's text form); the jumps
    are drawn as in :func:`plot_board`, declined jumps (``optional_jumps=True``)
    as grey dashed arrows.

    Parameters
    ----------
    policy_result : PolicyResult or FinishWithinResult
        A :class:`~snl_numeric.FinishWithinResult`'s choice depends on the
        throws left: ``step`` picks the throw drawn.
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    numbers : bool, optional
        Number the squares; by default when the board has at most
        :data:`NUMBER_MAX_SIZE` squares.
    values : bool, optional
        Write in each cell the expected throws from the square under the
        policy (for a ``FinishWithinResult``: the chance to finish in the
        throws left); by default when the board has at most 100 squares.
    title : str, optional
    legend : bool, default True
        Add a legend naming the dice.
    step : int, default 0
        For a ``FinishWithinResult``: the throw whose choice is drawn (0, the
        first, has ``horizon`` throws left).

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
    >>> from snl_numeric import finish_within
    >>> ax = plot_policy(finish_within(boards.get("milton-bradley"), ["1-3", "4-6"], 20))
    >>> ax.get_title()
    'Best chance to finish within 20 throws on milton-bradley: 0.7520 from square 0'
    """
    numbers, values = optional_flag(numbers, "numbers"), optional_flag(values, "values")
    legend = flag(legend, "legend")
    step = integer(step, "step")
    r = policy_result
    if isinstance(r, PolicyResult):
        if step != 0:  # (was ignored)
            raise ValueError(f"step picks a throw of a FinishWithinResult; a PolicyResult has "
                             f"one policy, got step={step}")
        policy, take = r.policy, r.take
        cell_values, value_format = r.expected, "{:.1f}"
        what = "Optimal" if r.objective == "min" else "Worst"
        default_title = (f"{what} play on {board_title(r.board)}: "
                         f"{r.mean:.2f} expected throws from square {r.board.start}")
    elif isinstance(r, FinishWithinResult):
        if not 0 <= step < r.horizon:
            raise ValueError(f"step must be a throw in 0..{r.horizon - 1}, got {step}")
        policy, take = r.policy[step], r.take[step]
        cell_values, value_format = r.values[r.horizon - step], "{:.2f}"
        default_title = (f"Best chance to finish within {r.horizon - step} throws on "
                         f"{board_title(r.board)}: {cell_values[r.board.start]:.4f} "
                         f"from square {r.board.start}")
    else:
        raise TypeError("policy_result must be a PolicyResult or a FinishWithinResult, "
                        f"got {type(policy_result).__name__}")
    created = ax is None
    ax = axes(ax, (8, 7))
    from matplotlib.colors import ListedColormap, to_rgba
    from matplotlib.patches import Patch, Rectangle

    board = r.board
    size = board.size
    n_act = len(r.actions)
    colours = [to_rgba(f"C{i % 10}", 0.45) for i in range(n_act)]
    choice = np.asarray(policy, dtype=float)
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
        ax.add_patch(Rectangle((-1.5, -0.5), 1, 1, facecolor=colours[int(policy[0])],
                               edgecolor="gray", zorder=0.5))
        ax.text(-1.42, 0.42, "0", ha="left", va="top", fontsize=7, color="gray")
    if legend:
        handles: list[Any] = [Patch(facecolor=colours[i], edgecolor="gray",
                                    label=f"{label(i)} = {dice_text(d)}")
                              for i, d in enumerate(r.actions)]
        if not np.all(take):
            from matplotlib.lines import Line2D

            handles.append(Line2D([], [], color="gray", linestyle="--", label="declined jump"))
        legend_beside_board(ax, handles, n, title="die thrown")
    ax.set_title(title if title is not None else default_title)
    if created:
        fit_board_figure(ax)
    number_squares(ax, size, numbers)
    if values is None:
        values = size <= 100
    if values:
        x, y = square_xy(np.arange(size), size)
        value_size = max(4.0, min(7.0, 0.22 * cell_points(ax)))
        for k in range(size):
            if k == 0 and not zero_shown:
                continue
            v = float(cell_values[k])
            text = "∞" if not np.isfinite(v) else value_format.format(v)
            ax.text(float(x[k]), float(y[k]) - 0.28, text, ha="center", va="center",
                    fontsize=value_size, color="dimgray",
                    zorder=NUMBER_ZORDER)  # over the arrows
    draw_jumps(ax, board, declined=~np.asarray(take, dtype=bool))
    return ax

