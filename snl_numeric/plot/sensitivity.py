"""How sensitive the game is: the elasticity map on the board, the dice gradient, the
moved jumps."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._core.validation import optional_flag
from ..board import Board
from ..display.html import board_title
from ..sensitivity import Sensitivity, sensitivity
from .common import (
    axes,
    board_frame,
    cells,
    colormap,
    draw_jumps,
    fit_board_figure,
    number_squares,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

_WHAT = {"mean": "expected throws", "variance": "variance", "win": "first player's win chance"}


def plot_sensitivity(
    sensitivity_or_board: Sensitivity | Board,
    *,
    ax: Axes | None = None,
    cmap: str = "RdBu_r",
    numbers: bool | None = None,
    title: str | None = None,
) -> Axes:
    """Draw a :class:`~snl_numeric.Sensitivity`.

    - ``wrt="transitions"``: the elasticity map on the board's grid: each square coloured
      by how much the answer hangs on the throws made from it (``by_square``: the
      relative change of the answer per relative change of all its moves), on a
      diverging scale centred on 0, the jumps drawn over it;
    - ``wrt="dice"``: a bar per face, the partial derivative of its probability;
    - ``wrt="jumps"``: an image of the change per jump end (rows) and shift (columns).

    Parameters
    ----------
    sensitivity_or_board : Sensitivity or Board
        A board is passed to :func:`~snl_numeric.sensitivity` first (``of="mean"``,
        ``wrt="transitions"``).
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    cmap : str
        A diverging matplotlib colormap (maps and images).
    numbers : bool, optional
        Number the squares of the map; by default on small boards.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from snl_numeric import boards
    >>> from snl_numeric.plot import plot_sensitivity
    >>> ax = plot_sensitivity(boards.get("milton-bradley"))
    >>> ax.images[0].colorbar.ax.get_ylabel()
    'elasticity of the expected throws'
    """
    numbers = optional_flag(numbers, "numbers")
    cmap = colormap(cmap)  # (was taken unchecked, and ignored where nothing is coloured)
    s = sensitivity_or_board
    if isinstance(s, Board):
        s = sensitivity(s, wrt="transitions")
    if not isinstance(s, Sensitivity):
        raise TypeError(f"expected a Sensitivity or a Board, got {type(s).__name__}")
    what = _WHAT[s.of]
    if s.wrt == "dice":
        ax = axes(ax, (6, 3.5))
        faces = np.asarray(s.faces)
        ax.bar(faces.astype(str), s.gradient, color=np.where(s.gradient < 0, "tab:blue",
                                                              "tab:red"))
        ax.axhline(0.0, color="gray", linewidth=0.8)
        ax.set_xlabel("face")
        ax.set_ylabel(f"d {what} / d probability")
        ax.set_title(title if title is not None else f"Dice gradient of the {what}")
        return ax
    if s.wrt == "jumps":
        assert s.jumps is not None and s.shifts is not None  # (given with wrt="jumps")
        ax = axes(ax, (6, max(2.5, 0.35 * 2 * len(s.jumps) + 1.2)))
        change = s.gradient.reshape(-1, len(s.shifts))
        edge = float(np.nanmax(np.abs(change), initial=0.0)) or 1.0
        im = ax.imshow(np.ma.masked_invalid(change), cmap=cmap, vmin=-edge, vmax=edge,
                       aspect="auto", interpolation="nearest")
        labels = [f"{a}→{b} {end}" for a, b in s.jumps.tolist() for end in ("from", "to")]
        ax.set_yticks(np.arange(len(labels)), labels)
        ax.set_xticks(np.arange(len(s.shifts)), [f"{k:+d}" for k in s.shifts.tolist()])
        ax.set_xlabel("squares moved")
        ax.figure.colorbar(im, ax=ax, label=f"change of the {what}")
        ax.set_title(title if title is not None else f"Moving each jump's ends: {what}")
        return ax
    board = s.board
    created = ax is None
    ax = axes(ax, (8, 7))
    values = np.asarray(s.by_square, dtype=float)
    size = len(values) - 1
    edge = float(np.abs(values[1:]).max(initial=0.0)) or 1.0
    rows, n = board_frame(ax, size, False)
    im = ax.imshow(cells(size, values), origin="lower",
                   extent=(-0.5, n - 0.5, -0.5, rows - 0.5), cmap=cmap, vmin=-edge,
                   vmax=edge, interpolation="nearest", zorder=0)
    cax = ax.inset_axes((1.03, 0.1, 0.035, 0.8))
    ax.figure.colorbar(im, cax=cax, label=f"elasticity of the {what}")
    ax.set_title(title if title is not None else
                 f"Elasticity of the {what}: {board_title(board)}" if board is not None
                 else f"Elasticity of the {what}")
    if created:
        fit_board_figure(ax, colorbar=True)
    number_squares(ax, size, numbers, background=np.asarray(im.cmap(im.norm(values))))
    if board is not None:
        draw_jumps(ax, board, alpha=0.45)
    return ax


__all__ = ["plot_sensitivity"]
