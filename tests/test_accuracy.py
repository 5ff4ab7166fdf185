"""Accuracy (issue 15): cancellation-free elimination, certified bounds, honest warnings."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import naive
import numpy as np
import pytest
from conftest import boards as board_strategy
from conftest import every_start
from hypothesis import given, settings

from snl_numeric import (
    Board,
    analyze,
    analyze_many,
    expected_throws,
    expected_throws_all,
    options,
    optimal_policy,
    solver_report,
    throws_variance,
    throws_variance_all,
)
from snl_numeric._core.solve import Solver
from snl_numeric.boards import get as board_named
from snl_numeric.boards import random_board
from snl_numeric.chain import fundamental


def rel(ours, exact):
    return float(abs(Fraction(ours) - exact) / exact)


@pytest.mark.parametrize("n", [6, 9, 12, 16, 20, 25, 30, 40, 50, 60])
def test_run_family_matches_exact_rationals(n):
    """Expected length 6 (6**n - 1) / 5 up to ~1e47: every path to 1e-12."""
    board = naive.run_board(n)
    mean, var = naive.run_moments(n)
    assert mean == Fraction(6 * (6**n - 1), 5)
    assert rel(expected_throws(board), mean) < 1e-12
    assert rel(throws_variance(board), var) < 1e-12
    rep = solver_report(board)
    assert rep.error_estimate < 1e-12 and rep.condition == pytest.approx(float(mean), rel=1e-12)
    df = analyze_many([board], columns=["mean", "variance"])
    assert rel(df["mean"].iloc[0], mean) < 1e-12
    assert rel(df["variance"].iloc[0], var) < 1e-12
    # the per-board kernel (batch, design) agrees with the single-board solver everywhere
    df = every_start(board)
    np.testing.assert_allclose(df["mean"], expected_throws_all(board), rtol=1e-12)
    np.testing.assert_allclose(df["variance"], throws_variance_all(board), rtol=1e-12)
    # the policy evaluator (one die) too
    assert rel(optimal_policy(board, [None]).mean, mean) < 1e-12


def test_run_family_cross_checked_by_general_fraction_elimination():
    for n in (3, 5):
        board = naive.run_board(n)
        mean, var = naive.naive_expected_fraction(board)
        assert (mean, var) == naive.run_moments(n)


def test_analyze_keeps_moments_when_the_distribution_cannot_finish():
    board = naive.run_board(8)  # E = 2.0e6: the 1e-12 tail needs ~6e7 throws
    a = analyze(board, max_throws=100_000)
    mean, var = naive.run_moments(8)
    assert rel(a.mean, mean) < 1e-12 and rel(a.variance, var) < 1e-12
    assert a.pmf is None and a.cdf is None and a.median is None and a.mode is None
    assert set(a.percentiles.values()) == {None}
    assert "max_throws=100000" in a.note and "note" in str(a)
    assert a.expected_visits.sum() == pytest.approx(a.mean, rel=1e-12)
    assert a.to_dict()["pmf"] is None
    full = analyze(naive.run_board(2), tail=1e-6, max_throws=10_000)
    assert full.note == "" and full.pmf is not None and full.cdf[-1] <= 1.0


def test_snakes_near_the_goal_are_solved_first(structured):
    # 80 snakes in the upper half, each to a square in the lower half: taken in their own
    # order 80 backward targets (GMRES); rotated, only the ~6 squares where a walk enters
    # the upper half (Woodbury, exact)
    gen = np.random.default_rng(3)
    n = 3000
    src = gen.choice(np.arange(n // 2, n - 1), size=80, replace=False)
    board = Board(n, {int(s): int(gen.integers(0, n // 2)) for s in src})
    solver = fundamental(board.compiled)
    assert solver.cut > 0 and solver.method == "woodbury" and solver.k <= 8
    plain = Solver(solver.succ, board.dice.probs, solver.active, rotate=False)
    assert plain.cut == 0 and plain.method == "gmres" and plain.k > 64
    ones = solver.active.astype(float)
    ours, other = solver.solve(ones), plain.solve(ones)
    assert ours.error < 1e-10 and other.error < 1e-10  # both certified: a real cross-check
    np.testing.assert_allclose(ours.x, other.x, rtol=2e-10)
    assert ours.x.max() > 1e13


def test_short_snakes_are_eliminated_in_blocks(path):
    gen = np.random.default_rng(5)
    n = 4000
    src = [s for s in range(8, n) if gen.random() < 0.2]
    board = Board(n, {s: s - int(gen.integers(1, 8)) for s in src if (s - 1) % 6})
    solver = fundamental(board.compiled)
    assert solver.blocks > 100 if path == "structured" else solver.method == "splu"
    ref, var_ref, _, _ = naive.large_moments(board)
    np.testing.assert_allclose(expected_throws_all(board), ref, rtol=1e-9)
    np.testing.assert_allclose(throws_variance_all(board), var_ref, rtol=1e-8)


def test_near_deterministic_variance_is_accurate():
    # a die that almost always throws 2: the variance is tiny against the mean squared
    board = Board(30, overshoot="exact", dice={1: 1e-3, 2: 1 - 1e-3})
    ref = naive.naive_expected_fraction(board)
    assert rel(expected_throws(board), ref[0]) < 1e-12
    assert rel(throws_variance(board), ref[1]) < 1e-10
    df = analyze_many([board], columns=["variance"])
    assert rel(df["variance"].iloc[0], ref[1]) < 1e-10


@settings(deadline=None, max_examples=60)
@given(board=board_strategy(max_size=40))
def test_probabilities_stay_in_range_and_visits_non_negative(board):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = analyze(board, jump_probability=True)
    if a.expected_visits is not None:
        assert np.all(a.expected_visits >= 0.0)
        assert a.expected_visits.sum() == pytest.approx(a.mean, rel=1e-10)
    for p in (a.jump_probability or {}).values():
        assert 0.0 <= p <= 1.0
    assert 0.0 <= a.finish_probability <= 1.0
    if a.cdf is not None and len(a.cdf):
        assert a.cdf[-1] <= 1.0
    assert all(u >= 0.0 for u in (a.jump_uses or {}).values())


@settings(deadline=None, max_examples=40)
@given(board=board_strategy(max_size=40))
def test_every_path_agrees_to_1e12(board):
    mean = expected_throws_all(board)
    var = throws_variance_all(board)
    df = every_start(board)
    m, v = df["mean"].to_numpy(), df["variance"].to_numpy()
    fin = np.isfinite(mean)
    assert np.array_equal(fin, np.isfinite(m))
    np.testing.assert_allclose(m[fin], mean[fin], rtol=1e-12)
    np.testing.assert_allclose(v[fin], var[fin], rtol=1e-12, atol=1e-12)
    if fin[board.start]:
        exact = naive.naive_expected_fraction(board)
        assert rel(mean[board.start], exact[0]) < 1e-12 if exact[0] else mean[board.start] == 0


def far_snakes(n, seed=3):
    """A fifth of the squares start a snake to a random lower square (no six in a row):
    expected lengths up to ~1e31 at 1,000 squares, where GMRES cannot certify."""
    gen = np.random.default_rng(seed)
    src = gen.choice(np.arange(10, n), size=n // 5, replace=False)
    mark = np.zeros(n, bool)
    mark[src] = True
    run = 0
    for i in range(n):
        run = run + 1 if mark[i] else 0
        if run >= 6:
            mark[i], run = False, 0
    return Board(n, {int(x): int(gen.integers(0, x)) for x in np.flatnonzero(mark)})


def test_gmres_that_cannot_certify_hands_over_to_the_exact_correction(structured):
    board = far_snakes(1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # certified: no warning
        t = expected_throws_all(board)
    rep = solver_report(board)
    assert rep.method == "woodbury" and rep.backward_targets > 64  # GMRES's board at first
    assert fundamental(board.compiled).second.method == "woodbury"  # its second solver
    assert rep.error_estimate < 1e-11 and rep.condition > 1e30
    ref = naive.naive_expected_gth(board)
    fin = np.isfinite(ref) & (ref > 0)
    np.testing.assert_allclose(t[fin], ref[fin], rtol=1e-12)
    assert analyze_many([board], columns=["mean"])["mean"].iloc[0] == pytest.approx(ref[0],
                                                                                     rel=1e-12)


def short_jumps(n):
    """A jump of 50 squares on every third square, up and down in turn (issue 53): the chain
    mixes slowly (GMRES took 8,002 steps at 200,000 squares) and SuperLU fills in little."""
    return Board(n, {s: s + 50 if s % 6 == 0 else s - 50 for s in range(60, n - 60, 3)})


def test_slow_gmres_hands_over_to_sparse_lu_within_its_cost():
    board = short_jumps(20_000)
    t = expected_throws_all(board)
    var = throws_variance_all(board)
    rep = solver_report(board)
    solver = fundamental(board.compiled)
    assert solver.method == "gmres" and rep.method == "splu" and solver.second.method == "splu"
    # GMRES stopped after the steps worth SuperLU's estimated cost (and the deflation's
    # sweep), not the 272 it needs
    budget = solver.step_budget()
    assert 0 < budget <= rep.iterations <= budget + 1 < 100
    with options(path="direct"):
        ref = short_jumps(20_000)
        t_ref, var_ref = expected_throws_all(ref), throws_variance_all(ref)
        ref_error = solver_report(ref).error_estimate
    fin = t_ref > 0
    bound = rep.error_estimate + ref_error
    assert bound < 2e-11
    np.testing.assert_allclose(t[fin], t_ref[fin], rtol=bound, atol=0)
    np.testing.assert_allclose(var[fin], var_ref[fin], rtol=1e-9, atol=0)
    # a random board of the size converges first: GMRES answers, no envelope computed
    rand = random_board(20_000, 0.1, rng=1)
    expected_throws_all(rand)
    assert solver_report(rand).method == "gmres"
    assert fundamental(rand.compiled).second is None


def test_sparse_lu_solves_the_solvers_own_matrix():
    # a die summing to 1 + 9.6e-13 (within the tolerance): A = diag(rowsum) - Q, not I - Q,
    # which would move these ~3e8 expectations by a relative 3e-4
    board = far_snakes(300)
    board = Board(300, board.jumps, dice={f: 1 / 6 + 1.6e-13 for f in range(1, 7)})
    solver = fundamental(board.compiled)
    lu = Solver(board.compiled.succ, board.compiled.probs, solver.active, method="splu")
    ref = naive.naive_expected_gth(board)
    x = lu.solve(solver.active.astype(float)).x
    np.testing.assert_allclose(x[solver.active], ref[solver.active], rtol=1e-12)
    assert ref[0] > 1e8


@pytest.mark.parametrize("size", [300, 400])
def test_batch_variance_matches_the_single_board_solve(size):
    # long plain boards: t**2 / var ~ 400, where 2u - t - t**2 loses ~1e-12 to cancellation
    board = Board(size)
    ref = naive.plain_moments(size)
    assert rel(throws_variance(board), ref[1]) < 1e-13
    assert rel(analyze_many([board], columns=["variance"])["variance"].iloc[0], ref[1]) < 1e-13


def test_batch_rows_whose_variance_formula_cancels_at_the_start_elsewhere_or_nowhere():
    # plain boards cancel at the start; Board(20, {5: 15}) only on squares near the goal
    mb = board_named("milton-bradley")
    plain = [Board(300), Board(40, {39: 0}), Board(400)]
    rows = [mb, plain[0], Board(20, {5: 15}), plain[1], {"size": 5, "jumps": [[5, 1]]},
            plain[2]]
    df = analyze_many(rows, columns=["mean", "variance"], errors="coerce")
    assert df["error"].notna().tolist() == [False] * 4 + [True, False]
    for i in (0, 1, 2, 3, 5):
        assert rel(df["mean"].iloc[i], expected_throws(rows[i])) < 1e-13
        assert rel(df["variance"].iloc[i], throws_variance(rows[i])) < 1e-12
    assert rel(df["variance"].iloc[5], naive.plain_moments(400)[1]) < 1e-13


def test_variance_beyond_the_largest_double_is_inf_not_nan():
    board = naive.run_board(200)  # E = 5.1e155, Var ~ 1e311
    assert naive.run_moments(200)[1] > 10**308
    with pytest.warns(RuntimeWarning, match="variances on this board exceed the largest double"):
        assert throws_variance(board) == math.inf
    with pytest.warns(RuntimeWarning, match="variances on this board exceed the largest double"):
        assert analyze(board, max_throws=10).variance == math.inf
    assert analyze_many([board], columns=["variance"])["variance"].iloc[0] == math.inf


def test_error_estimate_is_never_below_one_rounding():
    # the residual certifies ~1e-17 here; the row sums are rounded, and so is the double
    # returned
    board = Board(7, overshoot="exact", dice={2: 0.3, 5: 0.7})
    est = solver_report(board).error_estimate
    assert 2.0**-53 < est < 1e-14
    t = expected_throws_all(board)
    for x in sorted(naive.naive_sure(board) - {7}):
        assert rel(t[x], naive.naive_expected_fraction(board, x)[0]) <= est


def test_warnings_point_at_the_callers_line_on_every_call():
    gen = np.random.default_rng(1)  # the board of the test above: E beyond 1.8e308
    n = 20_000
    src = [s for s in range(n - 5000, n) if gen.random() < 0.5 and s % 6 != 5]
    board = Board(n, {s: int(gen.integers(0, n - 5000)) for s in src})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        expected_throws(board)
        expected_throws(board)  # cached: warned again
        analyze(board, max_throws=10)
    assert len(caught) >= 3
    assert {w.filename for w in caught} == {__file__}


def test_an_uncertified_policy_warns(monkeypatch):
    import snl_numeric.policy.solve as policy_solve

    monkeypatch.setattr(policy_solve, "WARN_ERROR", 0.0)  # every estimate is "too large"
    with pytest.warns(RuntimeWarning, match="optimal_policy: the expected throws of this "
                                            "policy are certified only to a relative error"):
        r = optimal_policy(Board(30, {20: 3}), ["1-3", "4-6"])
    assert "certified only" in r.convergence.note


def test_a_slow_mixing_board_is_solved_not_handed_to_sparse_lu():
    # a die that nearly always throws 1: GMRES restarted every 60 steps never converged
    # here and sparse LU took ~20 s; unrestarted it certified in a few hundred steps, and
    # preconditioned by the likeliest paths (issue 53) in 34
    board = random_board(100_000, 0.1, rng=1, dice={1: 0.999, 6: 0.001})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = expected_throws(board)
    rep = solver_report(board)
    assert rep.method == "gmres" and rep.iterations < 100 and rep.error_estimate < 1e-10
    # independently: the answers solve t = 1 + P t (P built square by square)
    every = expected_throws_all(board)
    p = naive.large_transitions(board)
    every[board.size] = 0.0
    np.testing.assert_allclose(every[:-1], 1.0 + (p @ every)[:-1], rtol=1e-12)
    assert every[0] == t > 100
