"""Race maps: the chance to win and the die to throw over both players' squares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .._core.text import dice_text, label
from .._core.validation import choice
from ..display.html import board_title
from ..race import RaceResult
from .common import axes, pyplot

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: What :func:`plot_race` can draw.
RACE_PANELS = ("value", "policy", "both")
#: The value map's colours: perceptually uniform and colour-vision-deficiency safe.
VALUE_CMAP = "cividis"


def plot_race(
    race_result: RaceResult,
    *,
    which: str = "value",
    ax: Axes | Sequence[Axes] | None = None,
    title: str | None = None,
) -> Any:
    """Heat maps of a race over the two squares: the chance to win and the die to throw.

    Rows are the mover's square ``i`` (about to throw), columns the other
    player's square ``j``; the goal row and column are left out. The value map
    colours ``value[i, j]`` from dark blue (0) to yellow (1) (``cividis``,
    readable with every colour-vision deficiency and in greyscale); the
    policy map colours each position by the die thrown there (labelled A, B,
    ... as in the result's text form). The start position is circled.

    Parameters
    ----------
    race_result : RaceResult
        From :func:`~snl_numeric.optimal_race`.
    which : {"value", "policy", "both"}, default "value"
        The map drawn; ``"both"`` draws the two side by side.
    ax : matplotlib Axes, or a pair of them for ``which="both"``, optional
        Where to draw; a new figure by default.
    title : str, optional
        Title of the axes (of the figure for ``"both"``).

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on (for ``which="both"``, the pair of them).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from snl_numeric import boards, optimal_race
    >>> from snl_numeric.plot import plot_race
    >>> r = optimal_race(boards.get("milton-bradley"), ["1-3", "4-6"])
    >>> ax = plot_race(r)
    >>> ax.get_title(), ax.images[0].get_cmap().name
    ('Chance to win', 'cividis')
    >>> policy_ax = plot_race(r, which="policy")
    >>> [t.get_text() for t in policy_ax.get_legend().get_texts()]
    ['A = 1-3', 'B = 4-6']
    """
    if not isinstance(race_result, RaceResult):
        raise TypeError(f"race_result must be a RaceResult, got {type(race_result).__name__}")
    which = choice(which, "which", RACE_PANELS)
    r = race_result
    if which == "both":
        if ax is None:
            plt = pyplot()
            fig, pair = plt.subplots(1, 2, figsize=(13, 5.5))
        else:
            pair = list(np.ravel(cast(Any, ax))) if isinstance(ax, (Sequence, np.ndarray)) \
                else [ax]
            if len(pair) != 2:
                raise ValueError(f"which='both' draws on two Axes, got {len(pair)}")
            pair = [axes(a, (6, 5.5)) for a in pair]
            fig = pair[0].figure
        _value(r, pair[0], None)
        _policy(r, pair[1], None)
        fig.suptitle(title if title is not None else _title(r))
        return pair[0], pair[1]
    one = axes(ax, (7, 6))
    (_value if which == "value" else _policy)(r, one, title)
    return one


def _title(r: RaceResult) -> str:
    who = "both optimal" if r.opponent == "optimal" else "best response"
    return (f"Race on {board_title(r.board)} ({who}): first player wins "
            f"{r.win_probability:.4f}")


def _frame(r: RaceResult, ax: Axes) -> None:
    size = r.board.size
    ax.set_xlabel("other player's square")
    ax.set_ylabel("mover's square (about to throw)")
    ax.set_xlim(-0.5, size - 0.5)
    ax.set_ylim(-0.5, size - 0.5)
    s = r.board.start
    if s < size:
        ax.plot([s], [s], marker="o", markersize=9, markerfacecolor="none",
                markeredgecolor="black", linestyle="none", label="start")


def _value(r: RaceResult, ax: Axes, title: str | None) -> None:
    size = r.board.size
    im = ax.imshow(r.value[:size, :size], origin="lower", cmap=VALUE_CMAP, vmin=0.0, vmax=1.0,
                   interpolation="nearest", aspect="auto")
    ax.figure.colorbar(im, ax=ax, label="chance that the mover wins")
    _frame(r, ax)
    ax.set_title(title if title is not None else "Chance to win")


def _policy(r: RaceResult, ax: Axes, title: str | None) -> None:
    from matplotlib.colors import ListedColormap, to_rgba
    from matplotlib.patches import Patch

    size = r.board.size
    n_act = len(r.dice)
    colours = [to_rgba(f"C{i % 10}", 0.75) for i in range(n_act)]
    ax.imshow(r.policy[:size, :size].astype(float), origin="lower",
              cmap=ListedColormap(colours), vmin=-0.5, vmax=n_act - 0.5,
              interpolation="nearest", aspect="auto")
    _frame(r, ax)
    handles = [Patch(facecolor=colours[i], edgecolor="gray", label=f"{label(i)} = {dice_text(d)}")
               for i, d in enumerate(r.dice)]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              title="die thrown")
    ax.set_title(title if title is not None else "Die to throw")
    if n_act == 1:
        ax.text(0.5, 0.5, "one die: nothing to choose", transform=ax.transAxes,
                ha="center", va="center", color="dimgray")
