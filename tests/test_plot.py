"""Plots (snl_numeric.plot) and the notebook HTML reprs."""

from __future__ import annotations

import io
import math
import sys
from html.parser import HTMLParser

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from snl_numeric import Board, analyze, boards  # noqa: E402
from snl_numeric._core.grid import grid_shape, square_xy  # noqa: E402
from snl_numeric.boards import random_board  # noqa: E402
from snl_numeric.display.html import _CELL, LADDER_COLOR, SNAKE_COLOR, fmt  # noqa: E402
from snl_numeric.plot import (  # noqa: E402
    plot_board,
    plot_compare,
    plot_distribution,
    plot_policy,
    plot_race,
    plot_visits,
)
from snl_numeric.plot.common import ARROW_END  # noqa: E402
from tests.naive import plot_square_cells_naive  # noqa: E402

MB = boards.get("milton-bradley")
#: From 9 a token needs a 1 that never comes: it finishes with probability < 1.
LEAKY = Board(10, dice={2: 0.5, 3: 0.5}, overshoot="exact", name="leaky")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def png_bytes(ax) -> bytes:
    buf = io.BytesIO()
    ax.figure.savefig(buf, format="png", dpi=40)
    data = buf.getvalue()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return data


def arrows(ax):
    return [t for t in ax.texts if getattr(t, "arrow_patch", None) is not None]


def arrow_jumps(ax, size):
    """The jumps drawn on ``ax``, read back from the arrows' end points (each at the same
    offset ``ARROW_END`` from the centre of its cell)."""
    where = {xy: k for k, xy in plot_square_cells_naive(size).items()}
    out = {}
    for ann in arrows(ax):
        tail = tuple(round(v - o) for v, o in zip(ann.xyann, ARROW_END, strict=True))
        head = tuple(round(v - o) for v, o in zip(ann.xy, ARROW_END, strict=True))
        assert np.allclose(np.subtract(ann.xyann, ARROW_END), tail)
        assert np.allclose(np.subtract(ann.xy, ARROW_END), head)
        assert where[tail] not in out
        out[where[tail]] = where[head]
    return out


# -- geometry ----------------------------------------------------------------
@given(st.integers(1, 3000))
@settings(deadline=None, max_examples=60)
def test_square_xy_matches_naive_walk(size):
    cells = plot_square_cells_naive(size)
    x, y = square_xy(np.arange(size + 1), size)
    assert list(zip(x.tolist(), y.tolist(), strict=True)) == [cells[k] for k in range(size + 1)]
    rows, n = grid_shape(size)
    assert n * n >= size > (n - 1) * (n - 1)
    assert rows == max(r for _, r in cells.values()) + 1
    # consecutive squares are neighbours on the grid: the printed board's path
    assert np.all(np.abs(np.diff(x[1:])) + np.abs(np.diff(y[1:])) == 1)


def test_square_xy_hand_made():
    x, y = square_xy([1, 10, 11, 20, 21, 91, 100], 100)
    assert x.tolist() == [0, 9, 9, 0, 0, 9, 0]
    assert y.tolist() == [0, 0, 1, 1, 2, 9, 9]
    assert grid_shape(30) == (5, 6) and grid_shape(36) == (6, 6) and grid_shape(37) == (6, 7)


# -- plot_distribution ---------------------------------------------------------
def test_distribution_bars_lines_and_labels():
    a = analyze(MB)
    ax = plot_distribution(a)
    assert len(png_bytes(ax)) > 1000
    assert ax.get_xlabel() == "throws to finish, k"
    assert ax.get_ylabel() == "probability P(T = k)"
    assert "milton-bradley" in ax.get_title()
    heights = np.array([p.get_height() for p in ax.patches])
    assert len(heights) > a.percentiles[99]
    np.testing.assert_allclose(heights, a.pmf[: len(heights)])
    # cdf on the twin axis
    twin = [other for other in ax.figure.axes if other is not ax]
    assert len(twin) == 1
    assert twin[0].get_ylabel() == "cumulative P(T ≤ k)"
    np.testing.assert_allclose(twin[0].lines[0].get_ydata(), a.cdf[: len(heights)])
    # mean and median marked, percentiles labelled
    xs = {line.get_label(): line.get_xdata()[0] for line in ax.lines}
    assert xs[f"mean {a.mean:.2f}"] == pytest.approx(a.mean)
    assert xs[f"median {a.median}"] == a.median
    labels = [t.get_text() for t in twin[0].get_legend().get_texts()]
    assert "percentiles p5, p25, p75, p95" in labels
    assert {t.get_text() for t in ax.texts} == {"p5", "p25", "p75", "p95"}
    marked = sorted(line.get_xdata()[0] for line in ax.lines if line.get_linestyle() == ":")
    assert marked == [a.percentiles[5], a.percentiles[25], a.percentiles[75], a.percentiles[95]]


def test_distribution_respects_ax_and_accepts_board():
    fig, (left, right) = plt.subplots(1, 2)
    out = plot_distribution(boards.get("seed-30"), ax=right, cdf=False, title="mine")
    assert out is right
    assert right.get_title() == "mine"
    assert not left.patches and right.patches
    assert len(fig.axes) == 2  # no twin axis without cdf
    assert len(png_bytes(right)) > 1000


def test_distribution_when_goal_may_be_missed():
    a = analyze(LEAKY)
    assert 0 < a.finish_probability < 1 and math.isinf(a.mean)
    ax = plot_distribution(a)
    assert not any(line.get_label().startswith("mean") for line in ax.lines)
    assert len(png_bytes(ax)) > 1000


def test_distribution_errors():
    with pytest.raises(TypeError, match="Analysis, a Board or a Chain, got int"):
        plot_distribution(42)
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes, got str"):
        plot_distribution(MB, ax="left")
    with pytest.raises(ValueError, match="percentiles must be in"):
        plot_distribution(MB, percentiles=(0,))
    with pytest.raises(ValueError, match="coverage must be in"):
        plot_distribution(MB, coverage=1.5)
    for bad in ("0.9", True):  # no number: a TypeError (True was taken as 1.0)
        with pytest.raises(TypeError, match=f"^coverage must be a number, got {bad!r}$"):
            plot_distribution(MB, coverage=bad)
    with pytest.raises(ValueError, match="^kind must be one of 'pmf', 'cdf', got 'sf'$"):
        plot_compare([MB], kind="sf")
    with pytest.raises(TypeError, match="^kind must be one of 'pmf', 'cdf', got 1$"):
        plot_compare([MB], kind=1)



def test_yes_no_options_take_only_true_false_or_none():
    """A drawing option that says yes or no takes True, False (NumPy's too) and, where its
    default is None, None: a string or a number is a TypeError, not read as true."""
    from snl_numeric import optimal_policy
    from snl_numeric.plot import plot_sensitivity
    from snl_numeric.sensitivity import sensitivity

    small = Board(12, {3: 9, 10: 2})
    r = optimal_policy(small, [None, {1: 1.0}])
    s = sensitivity(small, wrt="transitions")
    calls = {"numbers": [lambda v: plot_board(small, numbers=v),
                         lambda v: plot_visits(small, numbers=v),
                         lambda v: plot_policy(r, numbers=v),
                         lambda v: plot_sensitivity(s, numbers=v)],
             "values": [lambda v: plot_policy(r, values=v)],
             "legend": [lambda v: plot_board(small, legend=v),
                        lambda v: plot_policy(r, legend=v)],
             "jumps": [lambda v: plot_visits(small, jumps=v)],
             "cdf": [lambda v: plot_distribution(small, cdf=v)]}
    for name, draws in calls.items():
        optional = name in ("numbers", "values")
        said = "None, True or False" if optional else "True or False"
        for draw in draws:
            for bad in ("no", 0, *(() if optional else (None,))):
                with pytest.raises(TypeError, match=f"^{name} must be {said}, got {bad!r}$"):
                    draw(bad)
            for good in (np.bool_(False), True, *((None,) if optional else ())):
                draw(good)
            plt.close("all")


# -- plot_board ------------------------------------------------------------------
def test_board_milton_bradley():
    ax = plot_board(MB)
    assert len(png_bytes(ax)) > 1000
    assert ax.get_title() == "milton-bradley: 9 ladders, 10 snakes"
    assert arrow_jumps(ax, 100) == dict(MB.jumps)
    numbers = sorted(int(t.get_text()) for t in ax.texts if t.get_text().isdigit())
    assert numbers == [0] + list(range(1, 101))  # square 0 drawn off the board
    colours = {ann.get_gid(): ann.arrow_patch.get_edgecolor() for ann in arrows(ax)}
    assert colours["ladder 80->100"] == pytest.approx(to_rgba(LADDER_COLOR))
    assert colours["snake 87->24"] == pytest.approx(to_rgba(SNAKE_COLOR))
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["ladders (9)", "snakes (10)", "start 0", "goal 100"]


@given(st.integers(2, 150), st.floats(0.0, 0.5), st.integers(0, 2**32 - 1))
@settings(deadline=None, max_examples=12)
def test_board_arrows_are_the_jumps(size, fraction, seed):
    board = random_board(size, fraction, rng=seed, start=1 if seed % 2 else 0)
    ax = plot_board(board, numbers=False)
    assert arrow_jumps(ax, size) == dict(board.jumps)
    for ann in arrows(ax):
        s, d = map(int, ann.get_gid().split()[1].split("->"))
        want = LADDER_COLOR if d > s else SNAKE_COLOR
        assert ann.arrow_patch.get_edgecolor() == pytest.approx(to_rgba(want))
    assert not [t for t in ax.texts if t.get_text().isdigit() and t.get_text() != "0"]


def test_board_respects_ax_and_checks_type():
    fig, ax = plt.subplots()
    assert plot_board(boards.get("seed004"), ax=ax, legend=False) is ax
    assert ax.get_legend() is None
    assert len(fig.axes) == 1
    with pytest.raises(TypeError, match="board must be a Board, got Analysis"):
        plot_board(analyze(MB))


def test_board_large_has_no_numbers_but_all_arrows():
    board = random_board(2500, 0.02, rng=3)
    ax = plot_board(board)
    assert [t.get_text() for t in ax.texts if t.get_text().isdigit()] == ["0"]
    assert len(arrows(ax)) == len(board.jumps) == 50


# -- plot_visits -------------------------------------------------------------------
def test_visits_image_holds_expected_visits():
    a = analyze(MB)
    ax = plot_visits(a)
    assert len(png_bytes(ax)) > 1000
    img = ax.images[0].get_array()
    for k, (x, y) in plot_square_cells_naive(100).items():
        if k:
            assert img[y, x] == pytest.approx(a.expected_visits[k])
    assert ax.images[0].colorbar.ax.get_ylabel() == "expected throws made from the square"
    assert "Expected visits" in ax.get_title()
    assert arrow_jumps(ax, 100) == dict(MB.jumps)


def test_visits_non_square_board_and_ax():
    board = boards.get("seed-30")
    a = analyze(board)
    fig, ax = plt.subplots()
    assert plot_visits(board, ax=ax, jumps=False) is ax
    assert not arrows(ax)
    img = ax.images[0].get_array()
    assert img.shape == (5, 6)
    assert int(np.ma.count_masked(img)) + int(np.isnan(img.filled(np.nan)).sum()) >= 1
    assert np.nansum(img.filled(np.nan)) + a.expected_visits[0] == pytest.approx(a.mean)


def test_visits_infinite_is_an_error():
    with pytest.raises(ValueError, match="expected visits are infinite"):
        plot_visits(LEAKY)


# -- plot_compare -------------------------------------------------------------------
def test_compare_rule_variants():
    variants = [MB, MB.replace(overshoot="win"), MB.replace(overshoot="bounce")]
    ax = plot_compare(variants, kind="cdf")
    assert len(png_bytes(ax)) > 1000
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    means = [analyze(b).mean for b in variants]
    assert labels == [f"milton-bradley [{o}] (mean {m:.2f})"
                      for o, m in zip(("exact", "win", "bounce"), means, strict=True)]
    assert ax.get_ylabel() == "cumulative P(T ≤ k)"
    assert ax.get_xlabel() == "throws to finish, k"
    dashed = [line.get_xdata()[0] for line in ax.lines if line.get_linestyle() == "--"]
    assert dashed == pytest.approx(means)
    curves = [line for line in ax.lines if line.get_linestyle() == "-"]
    assert np.all(np.diff(curves[0].get_ydata()) >= 0)


def test_compare_labels_mapping_and_ax():
    fig, ax = plt.subplots()
    a = analyze(boards.get("seed-30"))
    out = plot_compare([a, boards.get("seed004")], labels=["small", "big"], ax=ax)
    assert out is ax
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[0].startswith("small (mean") and texts[1].startswith("big (mean")
    np.testing.assert_allclose(ax.lines[0].get_ydata(), a.pmf[: len(ax.lines[0].get_ydata())])
    ax2 = plot_compare({"leaky": LEAKY})
    assert ax2.get_legend().get_texts()[0].get_text() == "leaky (mean ∞)"


def test_compare_errors():
    with pytest.raises(ValueError, match="empty"):
        plot_compare([])
    with pytest.raises(ValueError, match="got 1 labels for 2 boards"):
        plot_compare([MB, MB], labels=["one"])
    with pytest.raises(ValueError, match="kind must be"):
        plot_compare([MB], kind="hist")
    with pytest.raises(TypeError, match="iterable of boards"):
        plot_compare(MB)
    with pytest.raises(ValueError, match="not both"):
        plot_compare({"a": MB}, labels=["b"])


def test_missing_matplotlib_is_a_clear_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install snl_numeric\[plot\]"):
        plot_board(MB)


# -- HTML reprs ---------------------------------------------------------------------
VOID = {"br", "hr", "img", "input", "meta", "link", "col", "area", "base", "wbr"}


class Checker(HTMLParser):
    """Checks that tags nest and close; collects the text."""

    def __init__(self):
        super().__init__()
        self.stack, self.text, self.tags = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack)
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(html: str) -> Checker:
    checker = Checker()
    checker.feed(html)
    checker.close()
    assert checker.stack == []
    assert "<script" not in html.lower()
    return checker


def test_board_html():
    html = MB._repr_html_()
    page = parse(html)
    text = " ".join(page.text)
    for piece in ("Board: milton-bradley", "0..100 (goal 100)", "overshoot 'exact'",
                  "one jump per throw", "Dice.fair(6)", "ladders (9)", "snakes (10)",
                  "80→100", "98→78"):
        assert piece in text
    assert page.tags.count("svg") == 1
    assert page.tags.count("line") == len(MB.jumps)
    assert page.tags.count("rect") == 101


def test_board_html_escapes_and_truncates():
    board = random_board(1000, 0.1, rng=5, name="<b>Tom & 'Jerry'</b>", chain=True,
                         dice={1: 0.25, 3: 0.75})
    html = board._repr_html_()
    page = parse(html)
    assert "<b>" not in html and "&lt;b&gt;Tom &amp; &#x27;Jerry&#x27;&lt;/b&gt;" in html
    text = " ".join(page.text)
    assert "<b>Tom & 'Jerry'</b>" in text and "jumps chain" in text
    assert "Dice({1: 0.25, 3: 0.75})" in text
    assert "svg" not in page.tags  # too big for a thumbnail
    n_ladders = len(board.ladders)
    assert f"… and {n_ladders - 24} more" in text


def test_analysis_html():
    a = analyze(MB)
    page = parse(a._repr_html_())
    text = " ".join(page.text)
    for piece in ("Analysis of milton-bradley", "fewest throws", "39.2251", "25.225",
                  "32 / 22", "p99", "128", "Most used jumps (top 5 of 19)", "80→100",
                  "0.4828", "exact landing on the goal"):
        assert piece in text, piece
    assert "finish probability" not in text


def test_analysis_html_when_goal_may_be_missed():
    page = parse(analyze(LEAKY)._repr_html_())
    text = " ".join(page.text)
    assert "finish probability" in text and "∞" in text
    assert "Most used jumps" not in text  # no jumps on this board


def test_game_length_html():
    from snl_numeric import expected_game_length

    g = expected_game_length(MB, 3)
    page = parse(g._repr_html_())
    text = " ".join(page.text)
    assert "A race of 3 players" in text and "Win probabilities" in text
    for p in g.win_probabilities:
        assert f"{p:.6f}" in text
    assert fmt(g.mean_rounds) in text and "nobody ever wins" not in text
    leaky = parse(expected_game_length(LEAKY, 2)._repr_html_())
    text = " ".join(leaky.text)
    assert "nobody ever wins" in text and "0.140625" in text and "∞" in text


# -- simulation results ------------------------------------------------------------------
def test_distribution_with_simulation_overlay():
    from snl_numeric import simulate

    board = boards.get("seed-30")
    a = analyze(board)
    sim = simulate(board, 4000, rng=7)
    ax = plot_distribution(a, simulation=sim)
    dots = [line for line in ax.lines if line.get_label() == "simulated (4,000 games)"]
    assert len(dots) == 1
    y = dots[0].get_ydata()
    np.testing.assert_allclose(y[: len(sim.histogram)], (sim.histogram / 4000)[: len(y)])
    # each frequency within 5 standard errors of the exact probability
    p = a.pmf[: len(y)]
    assert np.all(np.abs(y - p) <= 5 * np.sqrt(p * (1 - p) / 4000) + 1e-12)
    assert len(png_bytes(ax)) > 1000
    with pytest.raises(ValueError, match="same board"):
        plot_distribution(MB, simulation=sim)
    with pytest.raises(TypeError, match="simulation must be a SimulationResult, got Analysis"):
        plot_distribution(a, simulation=a)


def test_simulation_html():
    from snl_numeric import simulate

    sim = simulate(MB, 2000, rng=11)
    page = parse(sim._repr_html_())
    text = " ".join(page.text)
    for piece in ("Simulation of milton-bradley", "2,000 (2,000 finished)", fmt(sim.mean),
                  "standard error", "95% interval", f"{sim.min} / {sim.max}",
                  "entropy 11", "exact landing on the goal"):
        assert piece in text, piece
    with pytest.warns(RuntimeWarning, match="did not finish"):
        censored = simulate(LEAKY, 500, rng=3, max_throws=50)
    text = " ".join(parse(censored._repr_html_()).text)
    assert censored.censored == censored.stranded > 0
    assert (f"{censored.censored} did not finish: {censored.stranded} stranded where the goal "
            "is out of reach, 0 stopped at 50 throws") in text


def test_design_html():
    from snl_numeric import design_board

    res = design_board(30, snakes=2, ladders=2, objective="max", iterations=200, chains=2, rng=1)
    page = parse(res._repr_html_())
    text = " ".join(page.text)
    for piece in ("Designed board of size 30", "longest expected game", fmt(res.mean),
                  f"{res.evaluations:,} exact evaluations", "ladders (2)", "snakes (2)"):
        assert piece in text, piece
    assert page.tags.count("line") == 4
    near = design_board(30, snakes=1, ladders=1, target=8.0, iterations=100, chains=1, rng=2)
    text = " ".join(parse(near._repr_html_()).text)
    assert "expected game closest to 8 (off by" in text


# -- plot_policy ------------------------------------------------------------------------------
def test_policy_map_matches_the_policy():
    from snl_numeric import optimal_policy
    from snl_numeric.plot import plot_policy

    r = optimal_policy(MB, [None, {1: 0.5, 2: 0.5}, {4: 1 / 3, 5: 1 / 3, 6: 1 / 3}],
                       optional_jumps=True)
    ax = plot_policy(r)
    assert len(png_bytes(ax)) > 1000
    img = ax.images[0].get_array()
    for k, (x, y) in plot_square_cells_naive(100).items():
        if 0 < k < 100:
            assert img[y, x] == r.policy[k]
    assert np.isnan(img.filled(np.nan)[9, 0])  # the goal has no die
    assert arrow_jumps(ax, 100) == dict(MB.jumps)
    kinds = {ann.get_gid().split()[1]: ann.get_gid().split()[0] for ann in arrows(ax)}
    for (s, d), take in zip(r.jumps, r.take, strict=True):
        assert (kinds[f"{s}->{d}"] == "declined") == (not take)
    assert r.declined and "47->26" not in [f"{s}->{d}" for s, d in r.declined]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["A = d6", "B = 1-2", "C = 4-6", "declined jump"]
    assert f"{r.mean:.2f} expected throws" in ax.get_title()
    shown = {t.get_text() for t in ax.texts}
    assert f"{r.expected[50]:.1f}" in shown and f"{r.expected[0]:.1f}" in shown


def test_policy_map_ax_worst_play_and_errors():
    from snl_numeric import optimal_policy
    from snl_numeric.plot import plot_policy

    board = Board(30, {3: 22, 5: 8}, name="forward")  # no snake, overshoot wins: finite
    r = optimal_policy(board, [None, {1: 1.0}], objective="max")
    fig, ax = plt.subplots()
    assert plot_policy(r, ax=ax, values=False, legend=False) is ax
    assert ax.get_title().startswith("Worst play on forward")
    assert np.isfinite(r.mean)
    assert ax.get_legend() is None
    assert not [a for a in arrows(ax) if a.get_gid().startswith("declined")]
    assert arrow_jumps(ax, board.size) == dict(board.jumps)
    with pytest.raises(TypeError, match="policy_result must be a PolicyResult or a "
                                        "FinishWithinResult, got Analysis"):
        plot_policy(analyze(board))


def test_policy_html():
    from snl_numeric import optimal_policy

    r = optimal_policy(MB, [None, {1: 0.5, 2: 0.5}], optional_jumps=True)
    page = parse(r._repr_html_())
    text = " ".join(page.text)
    for piece in ("Policy on milton-bradley", "optimal play (fewest expected throws)",
                  "jumps optional", fmt(r.mean), "Bellman residual", "d6", "1-2"):
        assert piece in text, piece
    declined = ", ".join(f"{s}→{d}" for s, d in r.declined)
    assert declined and declined in text
    used = [int((r.policy[:100] == i).sum()) for i in range(2)]
    assert sum(used) == 100
    assert f"<td {_CELL}>A</td><td {_CELL}>d6</td><td {_CELL}>{used[0]}</td>" in r._repr_html_()



# -- manners (issue 16, item 6) ---------------------------------------------------------
def _inside_figure(artist) -> bool:
    fig = artist.figure
    fig.canvas.draw()
    box = artist.get_window_extent()
    return (box.x0 >= 0 and box.y0 >= 0 and box.x1 <= fig.bbox.width
            and box.y1 <= fig.bbox.height)


def test_board_and_policy_legends_are_never_clipped(tmp_path):
    from snl_numeric import optimal_policy

    mb = boards.get("milton-bradley")
    for ax in (plot_board(mb), plot_board(random_board(900, 0.1, rng=1)),
               plot_policy(optimal_policy(mb, ["1-3", "4-6"], optional_jumps=True))):
        legend = ax.get_legend()
        assert _inside_figure(legend)  # inside the figure: savefig keeps it, tight or not
        ax.figure.savefig(tmp_path / "board.png")  # no bbox_inches
        board_right = ax.transData.transform((ax.get_xlim()[1], 0))[0]
        assert legend.get_window_extent().x1 <= board_right + 1  # inside the axes too
        plt.close(ax.figure)


def test_square_numbers_are_drawn_over_the_arrows():
    ax = plot_board(boards.get("milton-bradley"))
    numbers = [t for t in ax.texts if t.get_text().isdigit() and t.get_bbox_patch() is not None]
    arrows = [t for t in ax.texts if t.get_gid()]
    assert len(numbers) == 100 and len(arrows) == 19
    assert min(t.get_zorder() for t in numbers) > max(a.get_zorder() for a in arrows)
    plt.close(ax.figure)


@pytest.mark.parametrize("percentiles", [(5, 25, 75, 95), (5, 10, 25, 50, 75, 90, 95, 99),
                                         (50, 51, 52)])
def test_percentile_labels_overlap_neither_bars_nor_each_other(percentiles):
    a = analyze(boards.get("milton-bradley"))
    ax = plot_distribution(a, percentiles=percentiles, cdf=False)
    ax.figure.canvas.draw()
    labels = [t for t in ax.texts if t.get_gid() == "percentile label"]
    names = ",".join(t.get_text() for t in labels).split(",")
    assert sorted(names) == sorted(f"p{q:g}" for q in percentiles)  # each once
    boxes = [t.get_window_extent() for t in labels]
    bars = [p.get_window_extent() for p in ax.patches]
    for i, box in enumerate(boxes):
        assert not any(box.overlaps(bar) for bar in bars if bar.height > 0)
        assert not any(box.overlaps(other) for other in boxes[i + 1:])
    plt.close(ax.figure)


# -- a library people can adopt (issue 27) ---------------------------------------------------
def _blank_fraction(fig) -> float:
    """Share of the figure outside the bounding box of everything drawn."""
    fig.canvas.draw()
    ink = (np.asarray(fig.canvas.buffer_rgba())[..., :3] < 250).any(axis=2)
    rows, cols = np.nonzero(ink.any(axis=1))[0], np.nonzero(ink.any(axis=0))[0]
    return 1 - (rows[-1] - rows[0] + 1) * (cols[-1] - cols[0] + 1) / ink.size


def _labels_under_arrowheads(ax) -> list[str]:
    """Jumps whose arrowhead touches a square's number or a value written in a cell."""
    fig = ax.figure
    fig.canvas.draw()
    labels = [t.get_window_extent() for t in ax.texts
              if not t.get_gid() and t.get_text()[:1] in set("0123456789∞")]
    bad = []
    for ann in arrows(ax):
        verts = ann.arrow_patch.get_path().vertices  # display coordinates
        tip = ax.transData.transform(ann.xy)
        head = ann.arrow_patch.get_mutation_scale() * 0.4 * fig.dpi / 72  # "-|>" head length
        near = verts[np.hypot(*(verts - tip).T) <= 1.5 * head]
        if any(box.contains(x, y) for box in labels for x, y in near):
            bad.append(ann.get_gid())
    return bad


def _wcag_contrast(a, b) -> float:
    def luminance(c):
        c = np.asarray(to_rgba(c)[:3])
        return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4) @ [
            0.2126, 0.7152, 0.0722]

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_board_figures_keep_little_blank_margin():
    from snl_numeric import optimal_policy

    for ax in (plot_board(MB), plot_board(boards.get("seed-30")), plot_visits(MB),
               plot_policy(optimal_policy(MB, ["1-3", "4-6"]))):
        assert _blank_fraction(ax.figure) < 0.12, ax.get_title()
        plt.close(ax.figure)


@pytest.mark.parametrize("figsize", [None, (5, 5), (3, 3)])
def test_arrowheads_leave_numbers_and_values_readable(figsize):
    from snl_numeric import optimal_policy

    r = optimal_policy(MB, ["1-3", "4-6"], optional_jumps=True)
    for board in (MB, boards.get("seed-30"), boards.get("seed004")):
        ax = None if figsize is None else plt.subplots(figsize=figsize)[1]
        assert _labels_under_arrowheads(plot_board(board, ax=ax)) == []
    ax = None if figsize is None else plt.subplots(figsize=figsize)[1]
    assert _labels_under_arrowheads(plot_policy(r, ax=ax)) == []


def test_visits_numbers_contrast_with_their_squares():
    ax = plot_visits(MB)
    im = ax.images[0]
    visits = analyze(MB).expected_visits
    x, y = square_xy(np.arange(MB.size + 1), MB.size)
    where = {(int(x[k]), int(y[k])): k for k in range(1, MB.size + 1)}
    numbers = [t for t in ax.texts if t.get_text().isdigit() and t.get_text() != "0"
               and not t.get_gid()]  # square 0 is labelled below its cell, on white
    assert len(numbers) == 100
    for t in numbers:
        tx, ty = t.get_position()
        k = where[(round(tx + 0.42), round(ty - 0.42))]
        assert int(t.get_text()) == k
        assert _wcag_contrast(t.get_color(), im.cmap(im.norm(visits[k]))) >= 4.5, k


def test_policy_map_of_finish_within():
    from snl_numeric import finish_within

    r = finish_within(MB, ["1-3", "4-6"], 10, optional_jumps=True)
    for step in (0, 7):
        ax = plot_policy(r, step=step)
        img = ax.images[0].get_array()
        for k, (x, y) in plot_square_cells_naive(100).items():
            if 0 < k < 100:
                assert img[y, x] == r.policy[step, k]
        kinds = {a.get_gid().split()[1]: a.get_gid().split()[0] for a in arrows(ax)}
        for (s, d), take in zip(r.jumps, r.take[step], strict=True):
            assert (kinds[f"{s}->{d}"] == "declined") == (not take)
        left = 10 - step
        assert ax.get_title().startswith(f"Best chance to finish within {left} throws")
        assert f"{r.values[left, 50]:.2f}" in {t.get_text() for t in ax.texts}
        plt.close(ax.figure)
    with pytest.raises(ValueError, match=r"step must be a throw in 0..9, got 10"):
        plot_policy(r, step=10)


def test_race_map_is_one_axes_in_a_colour_blind_safe_map():
    from matplotlib.axes import Axes

    from snl_numeric import optimal_race

    ax = plot_race(optimal_race(boards.get("seed-30"), ["1-3", "4-6"]))
    assert isinstance(ax, Axes)
    assert ax.images[0].get_cmap().name == "cividis"


def test_plot_players_stacks_each_winners_rounds():
    from snl_numeric import expected_game_length
    from snl_numeric.plot import plot_players

    board = boards.get("seed-30").replace(capture="start", safe=[5])
    game = expected_game_length(board, 3)
    ax = plot_players(board, 3, coverage=1.0)
    heights = np.array([p.get_height() for p in ax.patches]).reshape(3, -1)
    np.testing.assert_allclose(heights, game.win_pmf, rtol=0, atol=1e-15)
    np.testing.assert_allclose(heights.sum(axis=0), game.rounds_pmf, rtol=1e-12, atol=1e-15)
    assert "capture to the start (safe 5)" in ax.get_title()
    assert plot_players(game).get_title().startswith("3 players: player 1 wins")
    with pytest.raises(ValueError, match="players is required"):
        plot_players(board)
    with pytest.raises(ValueError, match="has 3 players"):
        plot_players(game, 2)
    with pytest.raises(TypeError, match="GameLength or a Board"):
        plot_players(object())


def test_plot_options_refused_in_our_words():
    """The robust65 audit: colormaps, colours, counts and grid squares (were Matplotlib's
    KeyError, or taken silently)."""
    from snl_numeric import finish_within, optimal_policy, sensitivity
    from snl_numeric.plot import plot_candidates, plot_impact, plot_sensitivity

    b = Board(20, {3: 10, 15: 4})
    for plot in (plot_candidates, plot_visits, plot_sensitivity):
        with pytest.raises(ValueError, match="^cmap must name a Matplotlib colormap "
                                             r"\(matplotlib.colormaps\), got 'nope'$"):
            plot(b, cmap="nope")
        with pytest.raises(TypeError, match="^cmap must be a Matplotlib colormap name or "
                                            "Colormap, got 5$"):
            plot(b, cmap=5)
        plt.close("all")
    # (the dice gradient draws bars: cmap was not even looked at)
    assert sensitivity(b).wrt == "dice"
    for bad, exc in ((5, TypeError), ("nope", ValueError), ([], TypeError)):
        with pytest.raises(exc, match="^color must be a Matplotlib colour such as 'C0'"):
            plot_distribution(b, color=bad)
    for bad, exc in ((-1, ValueError), (True, TypeError), (2**63, ValueError)):
        with pytest.raises(exc, match="^top must"):
            plot_impact(b, top=bad)  # -1 drew every bar but one; True drew one
    r = optimal_policy(b, ["1-3", "4-6"])
    with pytest.raises(ValueError, match="^step picks a throw of a FinishWithinResult; a "
                                         "PolicyResult has one policy, got step=3$"):
        plot_policy(r, step=3)
    with pytest.raises(TypeError, match="^step must be an integer, got 'x'$"):
        plot_policy(finish_within(b, ["1-3", "4-6"], 5), step="x")
    ax = plot_policy(finish_within(b, ["1-3", "4-6"], 5), step=np.int64(1))  # was refused
    assert ax.get_title().startswith("Best chance to finish within 4 throws")
    plt.close("all")
    for bad, exc, match in ((math.nan, TypeError, "size must be an integer, got nan"),
                            (-1, ValueError, "size must be at least 1, got -1"),
                            (True, TypeError, "size must be an integer, got True")):
        with pytest.raises(exc, match=f"^{match}$"):  # were (nan, 1), (-1, 1), (1, 1)
            grid_shape(bad)
    with pytest.raises(TypeError, match="^squares must hold integers, got dtype float64$"):
        square_xy([2.5], 20)  # was drawn on square 2
    with pytest.raises(ValueError, match="^squares must be in 0..20, got 21$"):
        square_xy([3, 21], 20)
    with pytest.raises(ValueError, match="^size must fit in a 64-bit integer"):
        square_xy([1], 2**63)  # was OverflowError


def test_a_board_too_large_to_draw_is_refused_before_numpy_allocates(monkeypatch):
    from snl_numeric._core.memory import MemoryLimitError

    monkeypatch.setenv("SNL_NUMERIC_MAX_MEMORY", "256M")
    n = len(plt.get_fignums())
    with pytest.raises(MemoryLimitError, match="^drawing a board of 80,000,001 squares"):
        plot_board(Board(8 * 10**7))  # was NumPy's "Unable to allocate 7.45 GiB ..."
    assert len(plt.get_fignums()) == n  # no figure left behind


def test_plot_lists_that_are_no_lists_are_refused_in_our_words():
    b = Board(20, {3: 10, 15: 4})
    for bad, match in ((math.nan, "percentiles must be a sequence of numbers, got nan"),
                       ("", "percentiles must be a sequence of numbers, got ''"),
                       (["50"], "percentiles must be numbers, got '50'")):
        with pytest.raises(TypeError, match=f"^{match}$"):  # nan: "not iterable"; '': taken
            plot_distribution(b, percentiles=bad)
    with pytest.raises(TypeError, match="^labels must be a list of strings, got 5$"):
        plot_compare([b, MB], labels=5)
    plt.close("all")


def test_plot_players_counts_players_in_our_words():
    from snl_numeric import expected_game_length
    from snl_numeric.plot import plot_players

    game = expected_game_length(Board(20, {3: 10, 15: 4}), 2)
    with pytest.raises(TypeError, match="^players must be an integer, got array"):
        plot_players(game, np.array([]))  # was NumPy's "truth value ... is ambiguous"
    with pytest.raises(TypeError, match="^players must be an integer, got 2.0$"):
        plot_players(game, 2.0)  # was taken
    plt.close("all")
