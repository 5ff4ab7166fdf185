"""Plots for notebooks: game length, the board, expected visits, comparisons.

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

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._core.grid import grid_shape, square_xy
from ._core.table import quantile
from ._core.text import dice_text, label
from .analysis import Analysis, analyze
from .board import Board
from .display.html import GOAL_COLOR, LADDER_COLOR, SNAKE_COLOR, board_title
from .policy import PolicyResult
from .simulate import SimulationResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "plot_board",
    "plot_compare",
    "plot_distribution",
    "plot_policy",
    "plot_visits",
    "grid_shape",
    "square_xy",
]

#: Boards up to this many squares get their squares numbered by default.
NUMBER_MAX_SIZE = 400
#: Cumulative probability up to which distributions are drawn by default.
DEFAULT_COVERAGE = 0.999


def _pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            "snl_numeric.plot needs matplotlib; install it with `pip install snl_numeric[plot]`"
        ) from None
    return plt


def _axes(ax: Any, figsize: tuple[float, float]) -> Axes:
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
        return ax
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    return ax


def _as_analysis(obj: Any) -> Analysis:
    if isinstance(obj, Analysis):
        return obj
    if isinstance(obj, Board):
        return analyze(obj)
    raise TypeError(f"expected an Analysis or a Board, got {type(obj).__name__}")


def _xmax(a: Analysis, coverage: float) -> int:
    k = quantile(a.cdf, coverage * a.finish_probability)
    return len(a.pmf) - 1 if k is None else max(k, a.min_throws, 1)


def _check_coverage(coverage: float) -> float:
    if not 0.0 < coverage <= 1.0:
        raise ValueError(f"coverage must be in (0, 1], got {coverage!r}")
    return float(coverage)


def plot_distribution(
    analysis_or_board: Analysis | Board,
    *,
    ax: Axes | None = None,
    cdf: bool = True,
    percentiles: Sequence[float] = (5, 25, 75, 95),
    coverage: float = DEFAULT_COVERAGE,
    color: str = "C0",
    title: str | None = None,
    simulation: SimulationResult | None = None,
) -> Axes:
    """The distribution of the number of throws to finish.

    Bars for ``P(T = k)``; with ``cdf=True`` the cumulative ``P(T <= k)`` on a
    twin axis on the right. The mean (dashed), the median (solid) and the
    ``percentiles`` (dotted, labelled at the top) are marked.

    Parameters
    ----------
    analysis_or_board : Analysis or Board
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    cdf : bool, default True
        Also draw the cumulative distribution on a twin axis.
    percentiles : sequence of float
        Percentiles (in (0, 100]) to mark.
    coverage : float, default 0.999
        Draw ``k`` up to the point where this much of the probability of
        finishing is covered.
    color : str
        Colour of the bars.
    title : str, optional
        Defaults to the board's name.
    simulation : SimulationResult, optional
        A Monte Carlo run of the same board (:func:`~snl_numeric.simulate`)
        whose empirical frequencies are drawn over the bars as dots.

    Returns
    -------
    matplotlib.axes.Axes
        The axes holding the bars (the cdf twin is ``ax.figure.axes[-1]``
        when drawn on a new figure).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from snl_numeric import boards
    >>> from snl_numeric.plot import plot_distribution
    >>> ax = plot_distribution(boards.get("milton-bradley"))
    >>> ax.get_xlabel()
    'throws to finish, k'
    """
    a = _as_analysis(analysis_or_board)
    coverage = _check_coverage(coverage)
    for q in percentiles:
        if not 0 < q <= 100:
            raise ValueError(f"percentiles must be in (0, 100], got {q!r}")
    if simulation is not None:
        if not isinstance(simulation, SimulationResult):
            raise TypeError("simulation must be a SimulationResult, "
                            f"got {type(simulation).__name__}")
        if simulation.board != a.board or simulation.start != a.start:
            raise ValueError("simulation must be of the same board and start square as the "
                             f"analysis, got {simulation.board!r} from {simulation.start}")
    ax = _axes(ax, (8, 4.5))
    kmax = _xmax(a, coverage)
    k = np.arange(kmax + 1)
    ax.bar(k, a.pmf[: kmax + 1], width=1.0, color=color, alpha=0.6, label="P(T = k)")
    if simulation is not None:
        freq = np.zeros(kmax + 1)
        emp = simulation.pmf[: kmax + 1]
        freq[: len(emp)] = emp
        ax.plot(k, freq, linestyle="none", marker=".", markersize=4, color="black",
                label=f"simulated ({simulation.games:,} games)")
    ax.set_xlabel("throws to finish, k")
    ax.set_ylabel("probability P(T = k)")
    ax.set_xlim(-0.5, kmax + 0.5)
    ax.set_title(title if title is not None else f"Game length: {board_title(a.board)}")
    if np.isfinite(a.mean):
        ax.axvline(a.mean, color="black", linestyle="--", linewidth=1.2,
                   label=f"mean {a.mean:.2f}")
    if a.median is not None:
        ax.axvline(a.median, color="black", linestyle="-", linewidth=1.2,
                   label=f"median {a.median}")
    marked = []
    for q in percentiles:
        v = quantile(a.cdf, q / 100.0)
        if v is None:
            continue
        marked.append(f"p{q:g}")
        ax.axvline(v, color="dimgray", linestyle=":", linewidth=1)
        ax.text(v, 1.0, f" p{q:g}", transform=ax.get_xaxis_transform(), rotation=90,
                va="top", ha="left", fontsize=8, color="dimgray")
    handles, labels = ax.get_legend_handles_labels()
    if marked:
        from matplotlib.lines import Line2D

        handles.append(Line2D([], [], color="dimgray", linestyle=":", linewidth=1))
        labels.append("percentiles " + ", ".join(marked))
    legend_ax = ax
    if cdf:
        twin = ax.twinx()
        line = twin.plot(k, a.cdf[: kmax + 1], color="C1", linewidth=2, label="P(T ≤ k)")
        twin.set_ylim(0, 1.02)
        twin.set_ylabel("cumulative P(T ≤ k)")
        handles += line
        labels.append("P(T ≤ k)")
        legend_ax = twin
    legend_ax.legend(handles, labels, loc="center right", fontsize=8)
    return ax


def _board_frame(ax: Axes, size: int, show_zero: bool) -> tuple[int, int]:
    rows, n = grid_shape(size)
    ax.set_xlim(-1.6 if show_zero else -0.6, n - 0.4)
    ax.set_ylim(-0.6, rows - 0.4)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    return rows, n


def _cells(size: int, values: np.ndarray) -> np.ndarray:
    """A (rows, n) image holding ``values[k]`` in the cell of square ``k`` (NaN elsewhere)."""
    rows, n = grid_shape(size)
    img = np.full((rows, n), np.nan)
    x, y = square_xy(np.arange(1, size + 1), size)
    img[y, x] = values[1:]
    return img


def _number_squares(ax: Axes, size: int, numbers: bool | None, color: str = "black") -> None:
    if numbers is None:
        numbers = size <= NUMBER_MAX_SIZE
    if not numbers:
        return
    _, n = grid_shape(size)
    fontsize = max(4.0, min(9.0, 90.0 / n))
    x, y = square_xy(np.arange(1, size + 1), size)
    for k, (xk, yk) in enumerate(zip(x.tolist(), y.tolist(), strict=True), start=1):
        ax.text(xk - 0.42, yk + 0.42, str(k), fontsize=fontsize, ha="left", va="top",
                color=color, alpha=0.8)


def _draw_jumps(ax: Axes, board: Board, *, alpha: float = 1.0,
                declined: np.ndarray | None = None) -> None:
    """One arrow per jump: ladders green, snakes red and curved, ``declined`` ones grey, dashed."""
    if not board.jumps:
        return
    src = np.fromiter(board.jumps.keys(), dtype=np.int64)
    dst = np.fromiter(board.jumps.values(), dtype=np.int64)
    off = np.zeros(len(src), dtype=bool) if declined is None else np.asarray(declined, bool)
    xs, ys = square_xy(src, board.size)
    xd, yd = square_xy(dst, board.size)
    _, n = grid_shape(board.size)
    width = max(0.6, min(2.5, 25.0 / n))
    for i in range(len(src)):
        ladder = dst[i] > src[i]
        kind = "declined" if off[i] else "ladder" if ladder else "snake"
        ann = ax.annotate(
            "", xy=(float(xd[i]), float(yd[i])), xytext=(float(xs[i]), float(ys[i])),
            arrowprops={
                "arrowstyle": "-|>",
                "color": "gray" if off[i] else LADDER_COLOR if ladder else SNAKE_COLOR,
                "linewidth": width,
                "linestyle": "--" if off[i] else "-",
                "alpha": alpha,
                "shrinkA": 0,
                "shrinkB": 2,
                "mutation_scale": 6 + 2 * width,
                "connectionstyle": "arc3,rad=0" if ladder else "arc3,rad=0.25",
            },
            annotation_clip=False,
        )
        ann.set_gid(f"{kind} {src[i]}->{dst[i]}")


def _show_zero(board: Board) -> bool:
    return board.start == 0 or 0 in board.jumps.values()


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
        raise TypeError(f"board must be a Board, got {type(board).__name__}")
    ax = _axes(ax, (7, 7))
    from matplotlib.colors import ListedColormap
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    size = board.size
    show_zero = _show_zero(board)
    rows, n = _board_frame(ax, size, show_zero)
    x, y = square_xy(np.arange(size + 1), size)
    shade = ((x + y) % 2).astype(float)
    ax.imshow(_cells(size, shade), origin="lower", extent=(-0.5, n - 0.5, -0.5, rows - 0.5),
              cmap=ListedColormap(["#e6dcc3", "#f5f0e1"]), vmin=0, vmax=1,
              interpolation="nearest", zorder=0)
    gx, gy = square_xy(size, size)
    ax.add_patch(Rectangle((float(gx) - 0.5, float(gy) - 0.5), 1, 1, facecolor=GOAL_COLOR,
                           edgecolor="none", zorder=0.5))
    if show_zero:
        ax.add_patch(Rectangle((-1.45, -0.45), 0.9, 0.9, facecolor="#ffffff",
                               edgecolor="gray", linestyle="--", zorder=0.5))
        ax.text(-1.0, 0.0, "0", ha="center", va="center", fontsize=8, color="gray")
    sx, sy = square_xy(board.start, size)
    ax.add_patch(Rectangle((float(sx) - 0.5, float(sy) - 0.5), 1, 1, facecolor="none",
                           edgecolor="black", linewidth=1.5, zorder=0.6))
    _number_squares(ax, size, numbers)
    _draw_jumps(ax, board)
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
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.set_title(title if title is not None else
                 f"{board_title(board)}: {len(board.ladders)} ladders, {len(board.snakes)} snakes")
    return ax


def plot_visits(
    analysis_or_board: Analysis | Board,
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

    Parameters
    ----------
    analysis_or_board : Analysis or Board
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
    a = _as_analysis(analysis_or_board)
    if a.expected_visits is None:
        raise ValueError(
            "expected visits are infinite: the goal is reached with probability "
            f"{a.finish_probability:.6g} < 1 from square {a.start}"
        )
    ax = _axes(ax, (8, 7))
    board = a.board
    size = board.size
    visits = np.asarray(a.expected_visits, dtype=float)
    show_zero = a.start == 0
    rows, n = _board_frame(ax, size, show_zero)
    im = ax.imshow(_cells(size, visits), origin="lower",
                   extent=(-0.5, n - 0.5, -0.5, rows - 0.5), cmap=cmap,
                   vmin=0.0, vmax=float(visits.max()), interpolation="nearest", zorder=0)
    if show_zero:
        from matplotlib.patches import Rectangle

        ax.add_patch(Rectangle((-1.5, -0.5), 1, 1, facecolor=im.cmap(im.norm(visits[0])),
                               edgecolor="gray", zorder=1))
        ax.text(-1.0, -0.5, "0", ha="center", va="top", fontsize=7, color="gray")
    _number_squares(ax, size, numbers, color="white")
    if jumps:
        _draw_jumps(ax, board, alpha=0.45)
    ax.figure.colorbar(im, ax=ax, label="expected throws made from the square", shrink=0.8)
    ax.set_title(title if title is not None else
                 f"Expected visits: {board_title(board)} (total {a.mean:.2f} throws)")
    return ax


def _labels(analyses: list[Analysis], labels: Sequence[str] | None) -> list[str]:
    if labels is not None:
        labels = [str(s) for s in labels]
        if len(labels) != len(analyses):
            raise ValueError(f"got {len(labels)} labels for {len(analyses)} boards")
        return labels
    out = [board_title(a.board) for a in analyses]
    if len(set(out)) < len(out):  # same name: tell rule variants apart
        out = []
        for a in analyses:
            b = a.board
            rules = [b.overshoot] + (["chain"] if b.chain else [])
            if b.start != 0:
                rules.append(f"start {b.start}")
            if not (b.dice.is_fair() and len(b.dice.faces) == 6):
                rules.append(repr(b.dice))
            out.append(f"{board_title(b)} [{', '.join(rules)}]")
    return out


def plot_compare(
    boards_or_analyses: Iterable[Analysis | Board] | Mapping[str, Analysis | Board],
    *,
    labels: Sequence[str] | None = None,
    ax: Axes | None = None,
    kind: str = "pmf",
    coverage: float = DEFAULT_COVERAGE,
    title: str | None = None,
) -> Axes:
    """Several boards or rule variants: game-length distributions overlaid.

    Parameters
    ----------
    boards_or_analyses : iterable of Board or Analysis, or a mapping label -> one
        What to compare; a mapping's keys are the labels.
    labels : sequence of str, optional
        One per board; by default the boards' names (with their rules when
        names repeat).
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    kind : {"pmf", "cdf"}
        Overlay ``P(T = k)`` or ``P(T <= k)``.
    coverage : float, default 0.999
        Draw ``k`` up to where every board has this much probability covered.
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from snl_numeric import boards
    >>> from snl_numeric.plot import plot_compare
    >>> mb = boards.get("milton-bradley")
    >>> ax = plot_compare({"exact": mb, "win": mb.replace(overshoot="win")})
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['exact (mean 39.23)', 'win (mean 35.83)']
    """
    if kind not in ("pmf", "cdf"):
        raise ValueError(f"kind must be 'pmf' or 'cdf', got {kind!r}")
    coverage = _check_coverage(coverage)
    if isinstance(boards_or_analyses, Mapping):
        if labels is not None:
            raise ValueError("give labels either as the mapping's keys or as labels=, not both")
        labels = list(boards_or_analyses.keys())
        items = list(boards_or_analyses.values())
    elif isinstance(boards_or_analyses, (Board, Analysis)) or not isinstance(
            boards_or_analyses, Iterable):
        raise TypeError("boards_or_analyses must be an iterable of boards or analyses, "
                        f"got {type(boards_or_analyses).__name__}")
    else:
        items = list(boards_or_analyses)
    if not items:
        raise ValueError("nothing to compare: boards_or_analyses is empty")
    analyses = [_as_analysis(x) for x in items]
    names = _labels(analyses, labels)
    ax = _axes(ax, (8, 4.5))
    kmax = max(_xmax(a, coverage) for a in analyses)
    for i, (a, name) in enumerate(zip(analyses, names, strict=True)):
        colour = f"C{i % 10}"
        values = a.pmf if kind == "pmf" else a.cdf
        k = np.arange(min(kmax + 1, len(values)))
        mean = f"mean {a.mean:.2f}" if np.isfinite(a.mean) else "mean ∞"
        ax.plot(k, values[: len(k)], drawstyle="steps-mid" if kind == "pmf" else "steps-post",
                color=colour, linewidth=1.6, label=f"{name} ({mean})")
        if np.isfinite(a.mean):
            ax.axvline(a.mean, color=colour, linestyle="--", linewidth=1, alpha=0.8)
    ax.set_xlim(0, kmax)
    ax.set_xlabel("throws to finish, k")
    ax.set_ylabel("probability P(T = k)" if kind == "pmf" else "cumulative P(T ≤ k)")
    ax.set_title(title if title is not None else "Game length compared (dashed: means)")
    ax.legend(fontsize=8)
    return ax


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
    ['A = 1-6', 'B = 1-2']
    """
    if not isinstance(policy_result, PolicyResult):
        raise TypeError("policy_result must be a PolicyResult, "
                        f"got {type(policy_result).__name__}")
    r = policy_result
    ax = _axes(ax, (8, 7))
    from matplotlib.colors import ListedColormap, to_rgba
    from matplotlib.patches import Patch, Rectangle

    board = r.board
    size = board.size
    n_act = len(r.actions)
    colours = [to_rgba(f"C{i % 10}", 0.45) for i in range(n_act)]
    choice = np.asarray(r.policy, dtype=float)
    choice[choice < 0] = np.nan
    show_zero = _show_zero(board)
    rows, n = _board_frame(ax, size, show_zero)
    ax.imshow(_cells(size, choice), origin="lower", extent=(-0.5, n - 0.5, -0.5, rows - 0.5),
              cmap=ListedColormap(colours), vmin=-0.5, vmax=n_act - 0.5,
              interpolation="nearest", zorder=0)
    gx, gy = square_xy(size, size)
    ax.add_patch(Rectangle((float(gx) - 0.5, float(gy) - 0.5), 1, 1, facecolor=GOAL_COLOR,
                           edgecolor="none", zorder=0.5))
    if show_zero:
        ax.add_patch(Rectangle((-1.5, -0.5), 1, 1, facecolor=colours[int(r.policy[0])],
                               edgecolor="gray", zorder=0.5))
        ax.text(-1.0, -0.45, "0", ha="center", va="bottom", fontsize=7, color="gray")
    _number_squares(ax, size, numbers)
    if values is None:
        values = size <= 100
    if values:
        x, y = square_xy(np.arange(size), size)
        for k in range(size):
            if k == 0 and not show_zero:
                continue
            v = float(r.expected[k])
            text = "∞" if not np.isfinite(v) else f"{v:.1f}"
            ax.text(float(x[k]), float(y[k]) - 0.12, text, ha="center", va="center",
                    fontsize=max(4.0, min(7.0, 70.0 / n)), color="dimgray")
    _draw_jumps(ax, board, declined=~np.asarray(r.take, dtype=bool))
    if legend:
        handles = [Patch(facecolor=colours[i], edgecolor="gray",
                         label=f"{label(i)} = {dice_text(d)}")
                   for i, d in enumerate(r.actions)]
        if not np.all(r.take):
            from matplotlib.lines import Line2D

            handles.append(Line2D([], [], color="gray", linestyle="--", label="declined jump"))
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
                  title="die thrown")
    what = "Optimal" if r.objective == "min" else "Worst"
    ax.set_title(title if title is not None else
                 f"{what} play on {board_title(board)}: "
                 f"{r.expected_start:.2f} expected throws from square {board.start}")
    return ax
