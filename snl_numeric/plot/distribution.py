"""Game-length plots: one distribution, several compared."""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .._core.table import quantiles
from .._core.validation import choice, flag, shown
from ..analysis import Analysis
from ..board import Board
from ..display.html import board_title
from ..simulate import SimulationResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes

from .common import (
    DEFAULT_COVERAGE,
    as_analysis,
    axes,
    check_coverage,
    colour,
    pmf_cdf,
    xmax,
)

#: Headroom above the tallest bar for the percentile labels (a fraction of its height),
#: and the least distance between two labels (a fraction of the x range): closer ones merge.
LABEL_BAND = 0.15
MIN_LABEL_GAP = 0.045


def _touch(left, right) -> bool:
    """Whether two labels drawn now would overlap (measured; False without a renderer)."""
    try:
        renderer = left.figure.canvas.get_renderer()
    except AttributeError:  # pragma: no cover - a backend without one
        return False
    a, b = left.get_window_extent(renderer), right.get_window_extent(renderer)
    return a.x1 + 2 >= b.x0


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
    analysis_or_board : Analysis, Board or Chain
        A chain's (or its analysis') distribution is of the steps to absorption.
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
    a = as_analysis(analysis_or_board)
    coverage = check_coverage(coverage)
    color = colour(color)
    if isinstance(percentiles, (str, bytes)) or not isinstance(percentiles, Iterable):
        raise TypeError(f"percentiles must be a sequence of numbers, got {shown(percentiles)}")
    for q in percentiles:
        if isinstance(q, (bool, np.bool_)) or not isinstance(q, numbers.Real):
            raise TypeError(f"percentiles must be numbers, got {shown(q)}")
        if not 0 < q <= 100:
            raise ValueError(f"percentiles must be in (0, 100], got {q!r}")
    if simulation is not None:
        if not isinstance(simulation, SimulationResult):
            raise TypeError("simulation must be a SimulationResult, "
                            f"got {type(simulation).__name__}")
        if simulation.board != a.board or simulation.start != a.start:
            raise ValueError("simulation must be of the same board and start square as the "
                             f"analysis, got {simulation.board!r} from {simulation.start}")
    cdf = flag(cdf, "cdf")
    ax = axes(ax, (8, 4.5))
    kmax = xmax(a, coverage)
    pmf, cdf_values = pmf_cdf(a)
    k = np.arange(kmax + 1)
    ax.bar(k, pmf[: kmax + 1], width=1.0, color=color, alpha=0.6, label="P(T = k)")
    if simulation is not None:
        freq = np.zeros(kmax + 1)
        emp = simulation.pmf[: kmax + 1]
        freq[: len(emp)] = emp
        ax.plot(k, freq, linestyle="none", marker=".", markersize=4, color="black",
                label=f"simulated ({simulation.games:,} games)")
    chain = not isinstance(a.board, Board)
    ax.set_xlabel("steps to absorption, k" if chain else "throws to finish, k")
    ax.set_ylabel("probability P(T = k)")
    ax.set_xlim(-0.5, kmax + 0.5)
    ax.set_title(title if title is not None else
                 f"{'Walk' if chain else 'Game'} length: {board_title(a.board)}")
    if np.isfinite(a.mean):
        ax.axvline(a.mean, color="black", linestyle="--", linewidth=1.2,
                   label=f"mean {a.mean:.2f}")
    if a.median is not None:
        ax.axvline(a.median, color="black", linestyle="-", linewidth=1.2,
                   label=f"median {a.median}")
    marked = []
    at: dict[int, list[str]] = {}  # percentile labels by position
    for q, v in zip(percentiles, quantiles(cdf_values, [q / 100.0 for q in percentiles]),
                    strict=True):
        if v is None:
            continue
        marked.append(f"p{q:g}")
        ax.axvline(v, color="dimgray", linestyle=":", linewidth=1)
        at.setdefault(v, []).append(f"p{q:g}")
    # labels in a band above the tallest bar (headroom added), neighbours merged, so they
    # never overlap the bars or each other
    top = ax.get_ylim()[1]
    ax.set_ylim(0, top * (1 + LABEL_BAND))
    y = top * (1 + LABEL_BAND / 2)
    placed: list = []  # left to right; a label that would touch the previous one merges into it
    for v in sorted(at):
        text = ",".join(at[v])
        if placed and v - placed[-1][0] < MIN_LABEL_GAP * (kmax + 1):
            placed[-1][1].set_text(placed[-1][1].get_text() + "," + text)
            continue
        artist = ax.text(v, y, text, va="center", ha="center", fontsize=8, color="dimgray",
                         gid="percentile label", bbox={"boxstyle": "square,pad=0.1",
                                                       "facecolor": "white", "linewidth": 0})
        if placed and _touch(placed[-1][1], artist):
            placed[-1][1].set_text(placed[-1][1].get_text() + "," + text)
            artist.remove()
            continue
        placed.append((v, artist))
    handles, labels = ax.get_legend_handles_labels()
    if marked:
        from matplotlib.lines import Line2D

        handles.append(Line2D([], [], color="dimgray", linestyle=":", linewidth=1))
        labels.append("percentiles " + ", ".join(marked))
    legend_ax = ax
    if cdf:
        twin = ax.twinx()
        line = twin.plot(k, cdf_values[: kmax + 1], color="C1", linewidth=2, label="P(T ≤ k)")
        twin.set_ylim(0, 1.02)
        twin.set_ylabel("cumulative P(T ≤ k)")
        handles += line
        labels.append("P(T ≤ k)")
        legend_ax = twin
    legend_ax.legend(handles, labels, loc="center right", fontsize=8)
    return ax




def _labels(analyses: list[Analysis], labels: Sequence[str] | None) -> list[str]:
    if labels is not None:
        if isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable):
            raise TypeError(f"labels must be a list of strings, got {shown(labels)}")
        labels = [str(s) for s in labels]
        if len(labels) != len(analyses):
            raise ValueError(f"got {len(labels)} labels for {len(analyses)} boards")
        return labels
    out = [board_title(a.board) for a in analyses]
    if len(set(out)) < len(out):  # same name: tell rule variants apart
        out = []
        for a in analyses:
            b = a.board
            if not isinstance(b, Board):  # a chain: its start state tells it apart
                out.append(f"{board_title(b)} [start {b.labels[a.start]!s}]")
                continue
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
    kind = choice(kind, "kind", ("pmf", "cdf"))
    coverage = check_coverage(coverage)
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
    analyses = [as_analysis(x) for x in items]
    names = _labels(analyses, labels)
    ax = axes(ax, (8, 4.5))
    kmax = max(xmax(a, coverage) for a in analyses)
    for i, (a, name) in enumerate(zip(analyses, names, strict=True)):
        colour = f"C{i % 10}"
        values = pmf_cdf(a)[0 if kind == "pmf" else 1]
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


