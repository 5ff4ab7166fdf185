"""The whole-analysis questions (analyze, simulate, report, plots) asked of a Chain: a board's
chain answers as the board does, and a hand-built chain as the textbook formulas say."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import boards
from hypothesis import given, settings
from naive import alias_rows_loop, chain_dense, ruin

from snl_numeric import Board, analyze
from snl_numeric.markov import Chain


def close(a: float | None, b: float | None, rel: float = 1e-10) -> bool:
    if a is None or b is None:
        return a is b
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= rel * max(abs(a), abs(b), 1.0)


def assert_same_analysis(ac, ab, *, rel: float = 1e-10) -> None:
    """``ac`` (of ``board.to_chain()``) and ``ab`` (of the board) agree: the integers and
    quantiles exactly, the floats within ``rel`` (bitwise when the chain compiles to the
    board's own table)."""
    assert ac.start == ab.start
    assert ac.min_throws == ab.min_throws
    assert (ac.shortest_path is None) == (ab.shortest_path is None)
    if ab.shortest_path is not None:  # (a board takes the smallest face, a chain the
        assert len(ac.shortest_path) == len(ab.shortest_path)  # lowest next state)
        P, x = ac.board.P, ac.start
        for y, p, z in ac.shortest_path:
            assert y == x and p == P[y, z] > 0
            x = z
        assert x == ab.board.size
    for name in ("mean", "variance", "std", "finish_probability"):
        assert close(getattr(ac, name), getattr(ab, name), rel), name
    assert (ac.note == "") == (ab.note == "")
    if ab.pmf is not None:
        assert len(ac.pmf) == len(ab.pmf)
        np.testing.assert_allclose(ac.pmf, ab.pmf, rtol=rel, atol=1e-15)
        # the quantiles may differ only where a cdf sits on a level within the roundings
        assert ac.median == ab.median or abs(ab.cdf[ab.median] - 0.5) < 1e-9
        for q, k in ab.percentiles.items():
            assert ac.percentiles[q] == k or abs(ab.cdf[k] - q / 100) < 1e-9
    if ab.expected_visits is None:
        assert ac.expected_visits is None
    else:
        np.testing.assert_allclose(ac.expected_visits, ab.expected_visits, rtol=rel,
                                   atol=1e-13)
    if ab.visit_probability is None:
        assert ac.visit_probability is None
    else:
        np.testing.assert_allclose(ac.visit_probability, ab.visit_probability, rtol=rel,
                                   atol=1e-13)
    assert ac.jump_uses is None and ac.jump_probability is None


# -- analyze ---------------------------------------------------------------------------------

@settings(max_examples=60)
@given(boards())
def test_analyze_board_chain_agrees(board: Board) -> None:
    chain = board.to_chain()
    ab = analyze(board, visit_probability=True)
    ac = analyze(chain, visit_probability=True)
    assert ac.board is chain
    assert_same_analysis(ac, ab)


def test_analyze_milton_bradley_chain_within_certified_bound() -> None:
    from snl_numeric import boards as registry
    from snl_numeric import solver_report

    board = registry.get("milton-bradley")
    chain = board.to_chain()
    ab, ac = analyze(board), analyze(chain)
    bound = 2 * max(solver_report(chain).error_estimate, solver_report(board).error_estimate)
    assert abs(ac.mean - ab.mean) <= bound * ab.mean
    assert (ac.median, ac.mode, ac.percentiles) == (ab.median, ab.mode, ab.percentiles)
    np.testing.assert_allclose(ac.pmf, ab.pmf, rtol=1e-12, atol=1e-17)
    np.testing.assert_allclose(ac.expected_visits, ab.expected_visits, rtol=1e-12,
                               atol=1e-15)


@pytest.mark.parametrize("p", [0.5, 0.3])
def test_analyze_ruin_against_closed_forms(p: float) -> None:
    N, s = 6, 2
    P = ruin(N, p)
    labels = [f"s{i}" for i in range(N + 1)]
    a = analyze(Chain(P, labels=labels, start=s), visit_probability=True)
    mean, var, B, _ = chain_dense(P, [0, N])
    assert a.mean == pytest.approx(mean[s], rel=1e-12)
    assert a.variance == pytest.approx(var[s], rel=1e-10)
    assert a.min_throws == 2 and a.shortest_path == [(2, 1 - p, 1), (1, 1 - p, 0)]
    # visits: row s of N = (I - Q)^-1, dense; visiting an absorbing state = ending there
    Q = P[1:N, 1:N]
    Nmat = np.linalg.inv(np.eye(N - 1) - Q)
    np.testing.assert_allclose(a.expected_visits[1:N], Nmat[s - 1], rtol=1e-12)
    assert a.expected_visits[0] == a.expected_visits[N] == 0.0
    h = Nmat[s - 1] / np.diag(Nmat)
    np.testing.assert_allclose(a.visit_probability[1:N], h, rtol=1e-12)
    np.testing.assert_allclose(a.visit_probability[[0, N]], B[s], rtol=1e-12)
    # the pmf against a dense power of P
    dist, pmf = np.eye(N + 1)[s], [0.0]
    for _ in range(len(a.pmf) - 1):
        dist = dist @ P
        pmf.append(dist[[0, N]].sum())
        dist[[0, N]] = 0.0
    np.testing.assert_allclose(a.pmf, pmf, rtol=1e-12, atol=1e-16)
    assert abs(a.pmf.sum() - 1.0) < a.tail
    assert a.jump_uses is None and a.jump_probability is None


def test_analyze_chain_display_uses_labels_and_steps() -> None:
    P = ruin(4, 0.5)
    a = analyze(Chain(P, labels=["lo", "b", "c", "d", "hi"], start=2))
    text = str(a)
    assert "expected steps" in text and "throws" not in text
    assert "c-(0.5)->b b-(0.5)->lo" in text
    html = a._repr_html_()
    assert "Percentiles of the number of steps" in html and "lo" in html
    df = a.to_frame("squares")
    assert df["label"].tolist() == ["lo", "b", "c", "d", "hi"]
    assert df["expected_visits"].tolist() == pytest.approx([0, 1, 2, 1, 0], abs=1e-12)
    with pytest.raises(ValueError, match="a Chain has no jumps"):
        a.to_frame("jumps")
    d = a.to_dict()
    assert d["board"]["chain"]["labels"] == ["lo", "b", "c", "d", "hi"]
    assert d["jump_uses"] is None and d["start"] == 2


def test_analyze_chain_start_absorbing_and_never_absorbed() -> None:
    P = ruin(4, 0.5)
    a = analyze(Chain(P, start=4), visit_probability=True)
    assert a.mean == 0.0 and a.min_throws == 0 and a.shortest_path == []
    assert a.visit_probability.tolist() == [0.0, 0.0, 0.0, 0.0, 1.0]
    # state 3 falls into a trap (a state with P[i, i] = 1 left out of absorbing): no visits
    Q = np.zeros((4, 4))
    Q[0, 0] = Q[2, 2] = 1.0
    Q[1, 0] = Q[1, 2] = 0.5
    Q[3, 2] = 1.0
    a = analyze(Chain(Q, absorbing=[0], start=1))
    assert math.isinf(a.mean) and a.finish_probability == pytest.approx(0.5)
    assert a.expected_visits is None


def test_analyze_chain_start_option_is_a_state() -> None:
    P = ruin(5, 0.5)
    chain = Chain(P, start=1)
    assert analyze(chain, start=3).start == 3
    assert analyze(chain, start=3).mean == pytest.approx(3 * 2, rel=1e-12)
    with pytest.raises(ValueError, match="start must be a state in 0..5"):
        analyze(chain, start=6)


# -- simulate --------------------------------------------------------------------------------

def test_simulate_chain_agrees_with_exact_mean_and_reproduces() -> None:
    from snl_numeric import expected_throws, simulate, throws_variance

    P = ruin(8, 0.4)
    chain = Chain(P, labels=[f"s{i}" for i in range(9)], start=3)
    r = simulate(chain, 200_000, rng=11)
    assert r.finished == r.games == 200_000 and r.censored == 0
    assert abs(r.mean - expected_throws(chain)) < 4 * r.stderr
    assert abs(r.variance - throws_variance(chain)) < 0.05 * throws_variance(chain)
    again = simulate(chain, 200_000, rng=11, threads=1)
    assert again.mean == r.mean and np.array_equal(again.histogram, r.histogram)
    assert simulate(chain, 200_000, rng=12).mean != r.mean
    assert "mean steps" in str(r) and "state s3" in str(r) and "mean steps" in r._repr_html_()


def test_simulate_chain_per_row_probabilities_against_distribution() -> None:
    """A chain of uneven rows (not a die): the histogram against length_distribution, and
    the final states of a chain with two ends against their absorption chances."""
    from snl_numeric import length_distribution, simulate

    rng = np.random.default_rng(5)
    n = 12
    P = np.zeros((n, n))
    for i in range(n - 2):
        to = rng.choice(n, size=3, replace=False)
        P[i, to] = rng.dirichlet(np.ones(3))
    P[n - 2, n - 2] = P[n - 1, n - 1] = 1.0
    P[: n - 2, n - 1] += 0.2
    P[: n - 2] /= P[: n - 2].sum(axis=1, keepdims=True)
    chain = Chain(P, absorbing=[n - 1], start=0)  # n - 2: a trap that never ends
    games = 100_000
    with pytest.warns(RuntimeWarning, match="stranded"):
        r = simulate(chain, games, rng=3, per_game=True)
    pmf = length_distribution(chain)
    for k in range(1, 6):  # each bin within 4.5 binomial standard deviations
        p = pmf[k] if k < len(pmf) else 0.0
        sd = math.sqrt(games * p * (1 - p))
        assert abs(r.histogram[k] - games * p) < 4.5 * sd + 1
    stuck = np.count_nonzero(r.final_square == n - 2)
    assert stuck == r.stranded == r.censored
    assert set(np.unique(r.final_square).tolist()) <= {n - 2, n - 1}
    # two ends: the final state is -1 (absorbed) or where it stopped
    two = Chain(P, start=0)
    r2 = simulate(two, 1000, rng=3, per_game=True)
    assert r2.censored == 0 and (r2.final_square == -1).all()
    assert r2.to_frame("games")["finished"].all()


def test_alias_rows_match_the_loop_of_alias_table() -> None:
    from snl_numeric import options
    from snl_numeric._core.rng import alias_table

    rng = np.random.default_rng(4)
    for k in (1, 2, 3, 6, 11):
        probs = rng.dirichlet(np.ones(k), size=300)
        probs[rng.random(probs.shape) < 0.3] = 0.0  # padded rows: zero entries
        probs[probs.sum(axis=1) == 0, 0] = 1.0
        probs /= probs.sum(axis=1, keepdims=True)
        probs[:5] = 1.0 / k  # equal shares: rows that need no comparison
        want_alias, want_thresh = alias_rows_loop(probs)
        for path in ("direct", "structured"):  # the NumPy body, then its Numba twin
            with options(path=path):
                alias, thresh, _ = alias_table(probs)
            assert np.array_equal(alias, want_alias) and np.array_equal(thresh, want_thresh)
        # each row's table gives back its probabilities: (thresh + what aliases in) / k
        share = thresh.astype(np.float64) / 2.0**64
        back = share.copy()
        np.add.at(back, (np.repeat(np.arange(len(probs)), k), alias.ravel()),
                  (1.0 - share).ravel())
        np.testing.assert_allclose(back / k, probs, atol=1e-12)


def test_simulate_board_chain_agrees_with_board() -> None:
    from snl_numeric import boards as registry
    from snl_numeric import expected_throws, simulate

    board = registry.get("milton-bradley").replace(dice={1: 0.1, 2: 0.2, 3: 0.3, 6: 0.4})
    chain = board.to_chain()
    assert chain.compiled.probs.ndim == 2  # (uneven: a table per row)
    rc = simulate(chain, 100_000, rng=9)
    assert abs(rc.mean - expected_throws(board)) < 4 * rc.stderr


# -- plots and report ------------------------------------------------------------------------

def test_chain_plots_distribution_and_visits() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from snl_numeric import simulate
    from snl_numeric.plot import plot_board, plot_compare, plot_distribution, plot_visits

    labels = ["lo", "b", "c", "d", "hi"]
    chain = Chain(ruin(4, 0.5), labels=labels, start=2)
    a = analyze(chain)
    ax = plot_distribution(chain, simulation=simulate(chain, 2000, rng=1))
    assert ax.get_xlabel() == "steps to absorption, k"
    assert ax.get_title().startswith("Walk length: chain of 5 states")
    heights = [p.get_height() for p in ax.patches]
    np.testing.assert_allclose(heights, a.pmf[: len(heights)])
    ax = plot_visits(a)
    assert [t.get_text() for t in ax.get_xticklabels()] == labels
    np.testing.assert_allclose([p.get_height() for p in ax.patches], [0, 1, 2, 1, 0],
                               atol=1e-12)
    ax = plot_compare([chain, Chain(ruin(4, 0.5), labels=labels, start=1)])
    assert [t.get_text() for t in ax.get_legend().get_texts()][0].endswith(
        "[start c] (mean 4.00)")
    with pytest.raises(TypeError, match="a chain has no squares on a grid"):
        plot_board(chain)
    plt.close("all")


def _cells(html: str, section: str) -> list[list[str]]:
    """The rows of the tables of one ``<section id=...>`` of a report, as cell texts."""
    import re
    from html import unescape

    body = html.split(f'<section id="{section}">', 1)[1].split("</section>", 1)[0]
    return [[unescape(c) for c in re.findall(r"<t[hd]>(.*?)</t[hd]>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", body)]


def test_report_of_a_chain_shows_steps_visits_and_ends(tmp_path) -> None:
    """The page of gambler's ruin on 0..6 (p = 0.4, from 2, three labelled ends: the
    middle state 4 made absorbing too) against the dense fundamental matrix of
    tests/naive.py: the mean with its bound, the visits and each end's chance and
    conditional mean."""
    from snl_numeric import report

    P = ruin(6, 0.4)
    P[4] = 0.0
    P[4, 4] = 1.0
    labels = ["broke", "one", "two", "three", "half", "five", "rich"]
    chain = Chain(P, labels=labels, start=2)
    html = report(chain, tmp_path / "chain.html")
    assert (tmp_path / "chain.html").read_text(encoding="utf-8") == html
    assert "throws" not in html and "<script" not in html
    # the references: N = (I - Q)^-1 by numpy.linalg.solve on the dense matrix
    transient = [1, 2, 3, 5]
    Q = P[np.ix_(transient, transient)]
    N = np.linalg.solve(np.eye(4) - Q, np.eye(4))
    t = N.sum(axis=1)
    s = transient.index(2)
    B = N @ P[np.ix_(transient, [0, 4, 6])]
    with np.errstate(invalid="ignore", divide="ignore"):
        cond = (N @ B) / B  # E[T; end j] = N B[:, j]
    numbers = dict(_cells(html, "numbers"))
    mean, bound = numbers["expected steps"].split(" ± ")
    assert abs(float(mean) - t[s]) <= 1e-9 * t[s] and 0 < float(bound) < 1e-12
    assert numbers["start"] == "state two" and numbers["fewest steps"] == "2"
    variance = (2 * N - np.eye(4)) @ t - t * t
    assert float(numbers["standard deviation"].split()[0]) == pytest.approx(
        math.sqrt(variance[s]), rel=1e-9)
    assert numbers["a shortest walk"] == "two-(0.6)->one one-(0.6)->broke"
    rows = {r[0]: r[1:] for r in _cells(html, "ends")[1:]}
    assert list(rows) == [["broke", "half", "rich"][j] for j in np.argsort(-B[s], kind="stable")]
    for j, end in enumerate(["broke", "half", "rich"]):
        p, m, sd = rows[end]
        assert abs(float(p) - B[s, j]) < 1e-12
        if B[s, j] == 0:
            assert m == "—"
        else:
            value, err = m.split(" ± ")
            assert abs(float(value) - cond[s, j]) <= 1e-9 * cond[s, j] and float(err) < 1e-11
    assert rows["rich"] == ["0.000000000000", "—", "—"]  # (4 absorbs first)
    # the visits: one bar per state visited, labelled, N[s] in the caption's order
    visits = html.split('<section id="visits">', 1)[1].split("</section>", 1)[0]
    for k, state in enumerate(transient):  # (five: never visited from two, no bar)
        assert (f">{labels[state]}</text>" in visits) == (N[s, k] > 0)
    assert f"they add up to the expected steps, {float(mean):.10g}" in visits


def test_report_of_a_chain_refuses_what_needs_a_board() -> None:
    from snl_numeric import report

    chain = Chain(ruin(4, 0.5))
    for kwargs in ({"actions": [{1: 1.0}]}, {"race": True}, {"editable": True}):
        with pytest.raises(TypeError, match=f"report\\({next(iter(kwargs))}=...\\) needs a "
                                            "Board.*a Chain has none"):
            report(chain, **kwargs)


def test_report_of_a_board_chain_shows_the_board_numbers() -> None:
    """A registry board's chain: the page's key numbers are the board page's, in steps."""
    from snl_numeric import boards as registry
    from snl_numeric import report

    board = registry.get("milton-bradley")
    on_board, on_chain = (dict(_cells(report(m), "numbers")) for m in (board, board.to_chain()))
    assert on_chain["expected steps"].split(" ± ")[0] == on_board["expected throws"].split(
        " ± ")[0]
    assert on_chain["fewest steps"] == on_board["fewest throws"]
    assert on_chain["standard deviation"] == on_board["standard deviation"]
    ends = _cells(report(board.to_chain()), "ends")
    assert ends[1][:2] == [str(board.size), "1.000000000000"]


# -- every registry board, every question that takes a chain ---------------------------------

def _registry_names() -> list[str]:
    from snl_numeric import boards as registry

    return list(registry.names())


@pytest.mark.parametrize("name", _registry_names())
def test_registry_boards_answer_the_same_through_their_chain(name: str) -> None:
    """Each question that takes a Chain gives a registry board's chain the board's answer:
    the integers exactly, the solves within both certified bounds, the distribution and
    the exports entry by entry, the simulation within 4 standard errors of the exact mean."""
    from snl_numeric import boards as registry
    from snl_numeric import (
        expected_throws,
        expected_throws_all,
        finish_probability,
        length_distribution,
        min_throws,
        shortest_path,
        simulate,
        solver_report,
        throw_distances,
        throws_variance,
        throws_variance_all,
        transition_matrix,
    )

    board = registry.get(name)
    chain = board.to_chain()
    rb, rc = solver_report(board), solver_report(chain)
    assert rc.unknowns == rb.unknowns
    bound = 2 * max(rb.error_estimate, rc.error_estimate, 1e-15)
    tb, tc = expected_throws_all(board), expected_throws_all(chain)
    np.testing.assert_allclose(tc, tb, rtol=bound, atol=0)
    assert abs(expected_throws(chain) - expected_throws(board)) <= bound * expected_throws(board)
    np.testing.assert_allclose(throws_variance_all(chain), throws_variance_all(board),
                               rtol=1e-9)
    assert throws_variance(chain) == pytest.approx(throws_variance(board), rel=1e-9)
    for x in range(0, board.size + 1, 7):
        assert finish_probability(chain, x) == finish_probability(board, x)
        assert min_throws(chain, x) == min_throws(board, x)
        pb, pc = shortest_path(board, x), shortest_path(chain, x)
        assert (pb is None) == (pc is None) and len(pb or []) == len(pc or [])
    assert np.array_equal(throw_distances(chain), throw_distances(board))
    pmf_b, pmf_c = length_distribution(board), length_distribution(chain)
    assert len(pmf_b) == len(pmf_c)
    np.testing.assert_allclose(pmf_c, pmf_b, rtol=1e-11, atol=1e-16)
    assert (transition_matrix(chain) != transition_matrix(board)).nnz == 0
    assert_same_analysis(analyze(chain, visit_probability=True),
                         analyze(board, visit_probability=True), rel=1e-10)
    r = simulate(chain, 20_000, rng=2)
    assert r.censored == 0 and abs(r.mean - tb[board.start]) < 4 * r.stderr
    import networkx as nx

    g_b, g_c = to_nx(board), to_nx(chain)
    assert g_c.graph["start"] == g_b.graph["start"]
    assert g_c.graph["absorbing"] == [g_b.graph["goal"]]
    gb, gc = (nx.to_scipy_sparse_array(g, nodelist=range(board.size + 1),
                                       weight="probability") for g in (g_b, g_c))
    assert (gb != gc).nnz == 0 and gb.nnz == transition_matrix(board).nnz


def to_nx(model):
    from snl_numeric import to_networkx

    return to_networkx(model)


# -- the boards of the main answers' tests, through their chain -----------------------------

def _answer_boards():
    from conftest import ANSWER_BOARDS

    return [pytest.param(args, kwargs, id=name) for name, args, kwargs in ANSWER_BOARDS]


@pytest.mark.parametrize(("args", "kwargs"), _answer_boards())
def test_answer_boards_answer_the_same_through_their_chain(args, kwargs) -> None:
    """Issue 50: every board the main answers are tested on (conftest.ANSWER_BOARDS) gives
    the same answers through ``Board.to_chain()``: the means within both certified bounds,
    the variances within both (1e-10 each, or what a warning states, the same on both
    sides), the distribution entry by entry (games of up to 10^4 throws on average), the
    finish probability and the fewest throws from every square exactly; inf where inf."""
    import re
    import warnings

    from snl_numeric import (
        expected_throws_all,
        finish_probability,
        length_distribution,
        min_throws,
        solver_report,
        throws_variance_all,
    )

    board = Board(*args, **kwargs)
    chain = board.to_chain()
    tb, tc = expected_throws_all(board), expected_throws_all(chain)
    assert np.array_equal(np.isinf(tb), np.isinf(tc))
    fin = np.isfinite(tb)
    bound = 2 * max(solver_report(board).error_estimate, solver_report(chain).error_estimate,
                    1e-15)
    np.testing.assert_allclose(tc[fin], tb[fin], rtol=bound, atol=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vb = throws_variance_all(board)
        said = [str(w.message) for w in caught]
        vc = throws_variance_all(chain)
    assert [str(w.message) for w in caught[len(said):]] == said
    stated = [float(x) for m in said for x in re.findall(r"relative error of ([0-9.e+-]+)", m)]
    assert np.array_equal(np.isinf(vb), np.isinf(vc))
    np.testing.assert_allclose(vc[fin], vb[fin], rtol=2 * max([1e-10, *stated]), atol=1e-300)
    squares = range(board.size + 1) if board.size <= 400 else range(0, board.size + 1, 1499)
    for x in squares:
        assert finish_probability(chain, x) == finish_probability(board, x), x
        assert min_throws(chain, x) == min_throws(board, x), x
    for x in sorted({board.start, 0}):
        if not tb[x] <= 1e4:
            continue
        pb, pc = length_distribution(board, x), length_distribution(chain, x)
        assert len(pb) == len(pc)
        np.testing.assert_allclose(pc, pb, rtol=1e-11, atol=1e-16)
