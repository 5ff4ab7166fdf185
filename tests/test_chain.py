"""``snl_numeric.chain``: expected throws and their variance from every square, the
chance to finish and the solver's report, against closed forms, exact fractions and the
naive twins (the solver's accuracy across every path: ``test_accuracy.py``)."""

import math
import re
import warnings
from fractions import Fraction

import naive
import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import given, settings
from hypothesis import strategies as st

import snl_numeric as snl
from snl_numeric import (
    Board,
    analyze,
    boards,
    expected_throws,
    expected_throws_all,
    finish_probability,
    length_distribution,
    min_throws,
    shortest_path,
    throw_distances,
    throws_variance,
    throws_variance_all,
)
from snl_numeric.chain import solver_report


def test_seed004_board_against_gauss_seidel_and_exact():
    b = boards.get("seed004")
    gs = naive.naive_gauss_seidel(b, eps=1e-13)
    assert expected_throws_all(b)[: b.size] == pytest.approx(gs[: b.size], rel=1e-9)
    exact_mean, exact_var = naive.naive_expected_fraction(b)
    assert expected_throws(b) == pytest.approx(float(exact_mean), rel=1e-12)
    assert throws_variance(b) == pytest.approx(float(exact_var), rel=1e-10)
    assert min_throws(b) == naive.naive_min_throws(b)


REGISTRY = boards.names()


@pytest.mark.parametrize("name", REGISTRY)
def test_registry_boards_exact(name):
    b = boards.get(name)
    mean, var = naive.naive_expected_fraction(b)
    assert expected_throws(b) == pytest.approx(float(mean), rel=1e-12)
    assert throws_variance(b) == pytest.approx(float(var), rel=1e-10)
    assert min_throws(b) == naive.naive_min_throws(b)


def test_deterministic_walk():
    b = Board(12, dice={1: 1.0})
    assert expected_throws(b) == 12.0 and throws_variance(b) == 0.0
    assert length_distribution(b).tolist() == [0.0] * 12 + [1.0]
    assert throw_distances(b).tolist() == list(range(12, -1, -1))


@pytest.mark.parametrize(
    "board",
    [
        Board(2, overshoot="exact", dice={1: 0.5, 2: 0.5}),  # 1 throw or 1 + Geometric(1/2)
        Board(2, {1: 0}, dice={1: 0.5, 2: 0.5}),  # Geometric(1/2) through a snake to 0
    ],
)
def test_geometric_cases(board):
    assert expected_throws(board) == pytest.approx(2.0, rel=1e-14)
    assert throws_variance(board) == pytest.approx(2.0, rel=1e-14)
    pmf = length_distribution(board)
    assert pmf[1:6] == pytest.approx([0.5, 0.25, 0.125, 0.0625, 0.03125])


def test_geometric_with_start_on_jump_square():
    # a token placed on a snake's square does not take it
    b = Board(5, {3: 0}, start=3, dice={2: 1.0})
    assert min_throws(b) == 1 and expected_throws(b) == 1.0


def test_empty_board_fair_die():
    p = Fraction(1, 6)
    # from square 0 of a 1-square board every face wins
    assert expected_throws(Board(1)) == 1.0
    # exact rule on a 2-square board: from 1 need exactly a 1
    b = Board(2, overshoot="exact")
    assert expected_throws(b, start=1) == pytest.approx(float(1 / p))


def test_unreachable_goal():
    b = Board(4, overshoot="exact", dice={3: 1.0})  # 0 -> 3, then stuck
    assert min_throws(b) == -1
    assert shortest_path(b) is None
    assert expected_throws(b) == math.inf
    assert throws_variance(b) == math.inf
    assert finish_probability(b) == 0.0
    assert length_distribution(b).tolist() == [0.0]
    a = analyze(b)
    assert (a.min_throws, a.shortest_path, a.median, a.mode) == (-1, None, None, None)
    assert a.expected_visits is None and a.jump_probability is None
    assert all(v is None for v in a.percentiles.values())
    assert "fewest throws     - (the goal cannot be reached)" in str(a)


def test_goal_reached_with_probability_half():
    b = Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5})
    assert min_throws(b) == 1
    assert expected_throws(b) == math.inf
    assert finish_probability(b) == pytest.approx(0.5)
    pmf = length_distribution(b)
    assert pmf.tolist() == [0.0, 0.5]
    a = analyze(b)
    assert a.median == 1 and a.percentiles[75] is None and a.mode == 1
    # from 1 a 3 wins and a 4 is lost (Geometric(1/2)); from 2 and 3 nothing lands
    assert expected_throws_all(b).tolist() == [math.inf, 2.0, math.inf, math.inf, 0.0]


@settings(max_examples=150)
@given(board_strategy())
def test_distances_and_moments_match_naive(board):
    dist = throw_distances(board)
    assert dist.tolist() == [naive.naive_min_throws(board, x) for x in range(board.size + 1)]
    mean, var = naive.naive_expected_dense(board)
    fast_mean, fast_var = expected_throws_all(board), throws_variance_all(board)
    assert np.array_equal(np.isinf(fast_mean), np.isinf(mean))
    finite = np.isfinite(mean)
    np.testing.assert_allclose(fast_mean[finite], mean[finite], rtol=1e-9)
    np.testing.assert_allclose(fast_var[finite], var[finite], rtol=1e-7, atol=1e-8)
    # expected throws are at least the fewest throws
    assert np.all(fast_mean[finite] >= dist[finite] - 1e-9)


@settings(max_examples=40)
@given(board_strategy(max_size=14, rules=False))
def test_exact_fractions_on_fair_boards(board):
    if board.start not in naive.naive_sure(board):  # the twin says: may never finish
        assert expected_throws(board) == math.inf and throws_variance(board) == math.inf
        return
    mean, var = naive.naive_expected_fraction(board)
    assert expected_throws(board) == pytest.approx(float(mean), rel=1e-12)
    assert throws_variance(board) == pytest.approx(float(var), rel=1e-9, abs=1e-12)


def test_results_are_read_only_and_copies():
    b = boards.get("seed-30")
    t = expected_throws_all(b)
    t[0] = -5.0  # a copy: the cache is untouched
    assert expected_throws(b) > 0
    a = analyze(b)
    with pytest.raises(ValueError):
        a.pmf[0] = 1.0


@settings(max_examples=30)
@given(st.integers(2, 200), st.floats(0.0, 0.4), st.integers(0, 2**32 - 1))
def test_random_boards_have_finite_or_consistent_answers(size, frac, seed):
    b = boards.random_board(size, frac, rng=seed, overshoot="exact")
    t = expected_throws_all(b)
    d = throw_distances(b)
    # a fair d6 under the exact rule reaches the goal from every square, unless six snakes
    # in a row make a wall: then the squares below it never finish
    wall = any(all(s in b.snakes for s in range(x, x + 6)) for x in range(1, size - 5))
    assert wall or (np.all(d >= 0) and np.all(np.isfinite(t)))
    assert np.all(np.isinf(t[d < 0])) and np.all(t[np.isfinite(t)] >= d[np.isfinite(t)] - 1e-12)


def test_chained_snakes_board_is_right():
    board = Board(20000, {s: s - 97 for s in range(19999, 200, -97)}, chain=True)
    exact = naive.chained_snakes_mean(20000, 97, 200)
    ours = expected_throws(board)
    assert ours == pytest.approx(float(exact), rel=1e-11)
    rep = solver_report(board)
    assert rep.method == "woodbury" and rep.backward_targets == 1
    assert rep.error_estimate < 1e-10


def test_uncertified_answers_warn_with_their_estimate():
    # the same chained snakes on 60,000 squares: E ~ 1e94, beyond what a double-double
    # residual certifies, and a chain of 60,000 dependent steps (a priori ~1e-10)
    board = Board(60_000, {s: s - 97 for s in range(59_999, 200, -97)}, chain=True)
    with pytest.warns(RuntimeWarning, match=r"certified only to a relative error of \d"):
        t = expected_throws(board)
    rep = solver_report(board)
    assert math.isfinite(t) and 1e-10 < rep.error_estimate < 1e-8


def test_expectations_beyond_the_largest_double_are_inf_with_a_warning():
    # snakes on 15% of the last 2,000 squares, each to a square far below: E ~ 1e300+
    gen = np.random.default_rng(1)
    n = 20_000
    src = [s for s in range(n - 5000, n) if gen.random() < 0.5 and s % 6 != 5]
    board = Board(n, {s: int(gen.integers(0, n - 5000)) for s in src})
    with pytest.warns(RuntimeWarning, match="exceed the largest double"):
        t = expected_throws(board)
    assert t == math.inf


def test_solver_report_is_public():
    assert snl.solver_report is solver_report
    rep = snl.solver_report(snl.boards.get("milton-bradley"))
    assert isinstance(rep, snl.SolveReport)
    assert rep.method == "lu" and rep.residual < 1e-14 and rep.error_estimate < 1e-12
    with pytest.raises(TypeError, match="expected a Board"):
        snl.solver_report("milton-bradley")


def _variances_right_or_warned(board):
    """Every square's variance within 1e-10 (relative) of exact.py's fractions (0 and inf
    exactly), or a RuntimeWarning whose stated bound covers the true error."""
    exact = throws_variance_all(board, exact=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        var = throws_variance_all(board)
        one = throws_variance(board)
    worst = 0.0
    for ours, ref in zip([*var, one], [*exact, exact[board.start]], strict=True):
        if ref in (0, math.inf) or not math.isfinite(ours):
            worst = max(worst, 0.0 if ours == ref else math.inf)
        else:
            worst = max(worst, float(abs(Fraction(ours) - ref) / ref))
    stated = [re.search(r"relative error of ([0-9.e+-]+)|(largest double)", str(w.message))
              for w in caught if issubclass(w.category, RuntimeWarning)]
    if not stated:
        assert worst <= 1e-10, (worst, board.to_dict())
    else:  # (beyond the largest double: no bound is claimed)
        bound = max(math.inf if m is None or m.group(2) else float(m.group(1)) for m in stated)
        assert worst <= bound, (worst, bound, board.to_dict())
    return worst, bool(stated)


@pytest.mark.parametrize("path", ["direct", "structured"])
def test_variance_far_below_the_largest_is_right(path):
    # a snake 4 -> 1 (never landed on from the start) makes variances of 4e6 on squares 1-2;
    # 2u - t - t**2 cancels at the start (0.003), solved as N w with w = 0 on square 7
    # (every throw finishes): that solve's bound was relative to 4e6, and the start's
    # variance came 1.6e-8 off with no warning
    with snl.options(path=path):
        board = Board(8, {1: 7, 2: 4, 3: 2, 4: 1}, dice={1: .001, 2: .999})
        exact = throws_variance(board, exact=True)
        assert exact == naive.naive_expected_fraction(board)[1]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert float(abs(Fraction(throws_variance(board)) - exact) / exact) < 1e-14
        assert _variances_right_or_warned(board) == (pytest.approx(0.0, abs=1e-13), False)


LOPSIDED = [{1: .001, 2: .999}, {1: .999, 2: .001}, {1: 1e-6, 3: 1 - 1e-6},
            {2: .001, 3: .998, 4: .001}, {1: .01, 2: .98, 6: .01}]


@settings(deadline=None, max_examples=80)
@given(board=board_strategy(max_size=16), dice=st.sampled_from(LOPSIDED),
       path=st.sampled_from(["direct", "structured"]))
def test_variances_with_lopsided_dice_are_right_or_warned(board, dice, path):
    overshoot = board.overshoot
    if overshoot == "bounce" and max(dice) > board.size + 1:
        overshoot = "exact"
    with snl.options(path=path):
        lopsided = Board(board.size, board.jumps, start=board.start, overshoot=overshoot,
                         chain=board.chain, dice=dice)
        _variances_right_or_warned(lopsided)


@pytest.mark.parametrize("path", ["direct", "structured"])
def test_a_fixed_number_of_throws_has_variance_zero(path):
    # from 0-3 every throw lands on 5-9 (7 -> 5), and from those every throw wins: 2 throws
    # exactly (t = 2, variance 0 though 2u - t - t**2 is a difference of roundings); from
    # 4 a throw may win at once
    with snl.options(path=path):
        board = Board(10, {7: 5}, dice={5: .5, 6: .5})
        var = throws_variance_all(board)
        exact = throws_variance_all(board, exact=True)
        assert [v == 0 for v in var] == [v == 0 for v in exact]
        assert var[:4].tolist() == [0.0] * 4 and exact[:4] == (0, 0, 0, 0)
        assert var[4] > 0 and exact[4] > 0
        _variances_right_or_warned(board)


def test_report_bounds_the_answers_returned():
    """``solver_report`` states the error bound of the expected throws that are returned.
    Here one LU solve is certified to 1e-13 and answered; the report's second solve (for the
    backward error) refined on to 4e-16, which it reported, below the answer's true error
    1.03e-15 (exact rationals, rows scaled to sum to 1 as the library solves them)."""
    board = Board(39, {8: 7, 32: 28, 37: 22, 25: 0, 26: 18, 28: 0},
                  dice={1: 0.5, 2: 0.49999999, 3: 1e-08})
    exact, _ = naive.exact_chain_moments(board)
    for path in ("direct", "structured"):
        with snl.options(path=path):
            b = board.replace()
            got = expected_throws(b)
            rep = solver_report(b)
            assert float(abs(Fraction(got) - exact) / exact) <= rep.error_estimate, path
            assert rep.condition == max(expected_throws_all(b)[:b.size])
