"""What the plots share: matplotlib on demand, axes, the board grid, jump arrows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .._core.grid import grid_shape, square_xy
from .._core.table import quantiles
from .._core.validation import probability, shown
from ..analysis import Analysis, analyze
from ..board import Board
from ..display.html import LADDER_COLOR, SNAKE_COLOR

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


#: Boards up to this many squares get their squares numbered by default.
NUMBER_MAX_SIZE = 400
#: Cumulative probability up to which distributions are drawn by default.
DEFAULT_COVERAGE = 0.999
#: Blank room kept right of a board for its legend, as a fraction of the columns: the
#: legend sits inside the axes, so ``savefig`` never clips it (``bbox_inches`` or not).
LEGEND_ROOM = 0.4
#: Drawing order: jump arrows under the square numbers (which stay readable).
ARROW_ZORDER = 2
NUMBER_ZORDER = 4
#: Height in inches of a new board figure; its width follows the board (``fit_board_figure``).
BOARD_HEIGHT = 6.5
#: Where jump arrows start and end, from the centre of a cell: right of it, so that an
#: arrowhead covers neither the square's number (top left) nor a value written below.
ARROW_END = (0.2, 0.05)


def pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            "snl_numeric.plot needs matplotlib; install it with `pip install snl_numeric[plot]`"
        ) from None
    return plt


def axes(ax: Any, figsize: tuple[float, float]) -> Axes:
    plt = pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
        return ax
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    return ax


def as_analysis(obj: Any, *, distribution: bool = True) -> Analysis:
    """An :class:`Analysis` (a Board or a Chain is analysed); with ``distribution``, one
    that has it."""
    from ..markov import Chain

    if isinstance(obj, (Board, Chain)):
        obj = analyze(obj)
    if not isinstance(obj, Analysis):
        raise TypeError(f"expected an Analysis, a Board or a Chain, got {type(obj).__name__}")
    if distribution:
        pmf_cdf(obj)
    return obj


def pmf_cdf(a: Analysis) -> tuple[np.ndarray, np.ndarray]:
    """The analysis' distribution, ``(pmf, cdf)``; ``ValueError`` if it was not computed."""
    if a.pmf is None or a.cdf is None:
        raise ValueError(f"nothing to plot: {a.note}")
    return a.pmf, a.cdf


def xmax(a: Analysis, coverage: float) -> int:
    pmf, cdf = pmf_cdf(a)
    k = quantiles(cdf, [coverage * a.finish_probability])[0]
    return len(pmf) - 1 if k is None else max(k, a.min_throws, 1)


def check_coverage(coverage: float) -> float:
    coverage = probability(coverage, "coverage")
    if not 0.0 < coverage <= 1.0:
        raise ValueError(f"coverage must be in (0, 1], got {coverage!r}")
    return coverage




def colormap(cmap: Any) -> Any:
    """``cmap`` as a Matplotlib colormap: a name in ``matplotlib.colormaps`` or a
    ``Colormap``; ``TypeError``/``ValueError`` in our words (Matplotlib raised KeyError, or
    ignored the name where nothing is drawn with it)."""
    from matplotlib import colormaps
    from matplotlib.colors import Colormap

    if isinstance(cmap, Colormap):
        return cmap
    if not isinstance(cmap, str):
        raise TypeError(f"cmap must be a Matplotlib colormap name or Colormap, got {shown(cmap)}")
    try:
        return colormaps[cmap]
    except KeyError:
        raise ValueError(f"cmap must name a Matplotlib colormap (matplotlib.colormaps), got "
                         f"{shown(cmap)}") from None


def colour(color: Any) -> Any:
    """``color`` if Matplotlib takes it as one colour, else ``TypeError``/``ValueError``."""
    from matplotlib.colors import is_color_like

    if not is_color_like(color):
        kind = ValueError if isinstance(color, str) else TypeError
        raise kind(f"color must be a Matplotlib colour such as 'C0' or '#1f77b4', got "
                   f"{shown(color)}")
    return color


def board_frame(ax: Axes, size: int, zero_shown: bool) -> tuple[int, int]:
    rows, n = grid_shape(size)
    ax.set_xlim(-1.6 if zero_shown else -0.6, n - 0.4)
    ax.set_ylim(-0.6, rows - 0.4)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    return rows, n


def cells(size: int, values: np.ndarray) -> np.ndarray:
    """A (rows, n) image holding ``values[k]`` in the cell of square ``k`` (NaN elsewhere)."""
    rows, n = grid_shape(size)
    img = np.full((rows, n), np.nan)
    x, y = square_xy(np.arange(1, size + 1), size)
    img[y, x] = values[1:]
    return img


def cell_points(ax: Axes) -> float:
    """The side of a board cell in points, as the axes stand (equal aspect)."""
    box = ax.get_position()
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    width, height = cast("Figure", ax.figure).get_size_inches()
    return 72.0 * min(box.width * width / (x1 - x0), box.height * height / (y1 - y0))


def relative_luminance(rgb: Any) -> np.ndarray:
    """WCAG 2 relative luminance of sRGB colours (the last axis R, G, B in 0..1)."""
    c = np.asarray(rgb, dtype=float)[..., :3]
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def contrast_ratio(a: Any, b: Any) -> np.ndarray:
    """WCAG 2 contrast ratio of two colours (1 to 21; 4.5 is enough for small text)."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (np.maximum(la, lb) + 0.05) / (np.minimum(la, lb) + 0.05)


def number_squares(ax: Axes, size: int, numbers: bool | None,
                   background: np.ndarray | None = None) -> None:
    """Square numbers, top left in each cell: black on a translucent white box, or, over
    the cell colours ``background[k]`` (RGBA per square), black or white, whichever
    contrasts more (at least 4.58:1)."""
    if numbers is None:
        numbers = size <= NUMBER_MAX_SIZE
    if not numbers:
        return
    fontsize = max(4.0, min(9.0, 0.3 * cell_points(ax)))  # "100" takes a third of a cell
    x, y = square_xy(np.arange(1, size + 1), size)
    box = {"boxstyle": "square,pad=0.08", "facecolor": "white", "alpha": 0.65,
           "linewidth": 0}
    if background is not None:
        dark = contrast_ratio(background, (1.0, 1.0, 1.0)) > contrast_ratio(background,
                                                                             (0.0, 0.0, 0.0))
    for k, (xk, yk) in enumerate(zip(x.tolist(), y.tolist(), strict=True), start=1):
        style = ({"color": "black", "alpha": 0.9, "bbox": box} if background is None
                 else {"color": "white" if dark[k] else "black"})
        ax.text(xk - 0.42, yk + 0.42, str(k), fontsize=fontsize, ha="left", va="top",
                zorder=NUMBER_ZORDER, **style)


def fit_board_figure(ax: Axes, *, colorbar: bool = False) -> None:
    """Size a figure made by a board plot to the board drawn (its axes limits, legend
    room included), laid out by matplotlib's constrained layout: no blank bands."""
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    width = BOARD_HEIGHT * (x1 - x0) / (y1 - y0) + (1.4 if colorbar else 0.0)
    fig = cast("Figure", ax.figure)
    fig.set_size_inches(width, BOARD_HEIGHT + 0.4)  # + the title
    fig.set_layout_engine("constrained")


def legend_beside_board(ax: Axes, handles: list, n: int, **kwargs: Any) -> Any:
    """A legend in blank room added right of the board, inside the axes (never clipped)."""
    lo, hi = ax.get_xlim()
    ax.set_xlim(lo, hi + LEGEND_ROOM * n)
    return ax.legend(handles=handles, loc="upper right", fontsize=8, **kwargs)


def draw_jumps(ax: Axes, board: Board, *, alpha: float = 1.0,
                declined: np.ndarray | None = None) -> None:
    """One arrow per jump: ladders green, snakes red and curved, ``declined`` ones grey, dashed."""
    if not board.jumps:
        return
    src = np.fromiter(board.jumps.keys(), dtype=np.int64)
    dst = np.fromiter(board.jumps.values(), dtype=np.int64)
    off = np.zeros(len(src), dtype=bool) if declined is None else np.asarray(declined, bool)
    xs, ys = square_xy(src, board.size)
    xd, yd = square_xy(dst, board.size)
    dx, dy = ARROW_END
    _, n = grid_shape(board.size)
    width = max(0.6, min(2.5, 25.0 / n))
    head = min(6 + 2 * width, 0.25 * cell_points(ax))  # small next to the square's labels
    for i in range(len(src)):
        ladder = dst[i] > src[i]
        kind = "declined" if off[i] else "ladder" if ladder else "snake"
        ann = ax.annotate(
            "", xy=(float(xd[i]) + dx, float(yd[i]) + dy),
            xytext=(float(xs[i]) + dx, float(ys[i]) + dy),
            arrowprops={
                "arrowstyle": "-|>",
                "color": "gray" if off[i] else LADDER_COLOR if ladder else SNAKE_COLOR,
                "linewidth": width,
                "linestyle": "--" if off[i] else "-",
                "alpha": alpha,
                "shrinkA": 0,
                "shrinkB": 2,
                "mutation_scale": head,
                "connectionstyle": "arc3,rad=0" if ladder else "arc3,rad=0.25",
            },
            annotation_clip=False,
            zorder=ARROW_ZORDER,
        )
        ann.set_gid(f"{kind} {src[i]}->{dst[i]}")


def shows_zero(board: Board) -> bool:
    return board.start == 0 or 0 in board.jumps.values()


