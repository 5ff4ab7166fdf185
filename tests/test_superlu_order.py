"""Issue 53: the direct solver's SuperLU factorisation, in descending order of the squares
without ordering or pivoting where the backward moves fill in little, in COLAMD's order
otherwise (``sizes.natural_order``); both give the same certified answers."""

from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction

import naive
import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import given, settings

import snl_numeric as snl
from benchmarks._families import FAMILIES
from snl_numeric._core import sizes
from snl_numeric._core.solve import DirectSolver, direct
from snl_numeric.boards import random_board
from snl_numeric.chain import fundamental

ORDERS = {"descending": 10**18, "colamd": -1}


@contextmanager
def superlu(order: str):
    """Every system of the block factorised by SuperLU (none by dense LAPACK), in the
    ``order`` given."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(direct, "DENSE_MAX", 0)
        mp.setattr(sizes, "NATURAL_ENVELOPE", ORDERS[order])
        yield


def answers(board):
    """Expected throws and variances from every square (``A``), and the visits from the
    start (``A^T``), with the certified error of the first, from a fresh copy."""
    b = board.replace()
    out = {"mean": snl.expected_throws_all(b), "var": snl.throws_variance_all(b)}
    if np.isfinite(out["mean"][b.start]) and b.start != b.size:
        out["visits"] = snl.analyze(b).expected_visits
    return out, snl.solver_report(b).error_estimate


def test_natural_order_rule():
    limit = sizes.NATURAL_ENVELOPE
    assert sizes.natural_order(0, 1) and sizes.natural_order(limit * 900, 900)
    assert not sizes.natural_order(limit * 900 + 1, 900)


@settings(max_examples=60, deadline=None)
@given(board_strategy(max_size=40))
def test_envelope_twins_the_naive_count(board):
    solver = fundamental(board.compiled)
    if solver.unknowns:
        assert solver._envelope(solver._mu) == naive.naive_envelope(board, solver.active)


@settings(max_examples=80, deadline=None)
@given(board_strategy(max_size=40))
def test_both_orders_give_the_certified_answers(board):
    results = {}
    for order in ORDERS:
        with superlu(order):
            solver = DirectSolver(board.compiled.succ, board.compiled.probs,
                                  fundamental(board.compiled).active)
            if solver._mu < solver.unknowns:
                assert solver.method == "splu" and solver._descending == (order == "descending")
            results[order] = answers(board)
    (a, err), (b, _) = results.values()
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_allclose(a[key], b[key], rtol=1e-11, atol=1e-300, err_msg=key)
    mean, _ = naive.naive_expected_dense(board)
    fin = np.isfinite(mean)
    np.testing.assert_array_equal(np.isfinite(a["mean"]), fin)
    np.testing.assert_allclose(a["mean"][fin], mean[fin], rtol=max(err, 1e-12) + 1e-12)


def test_exact_answer_within_the_bound_on_both_orders():
    board = snl.Board(60, {3: 40, 17: 2, 25: 55, 44: 9, 52: 1, 58: 30})
    exact = naive.naive_expected_fraction(board)[0]
    for order in ORDERS:
        with superlu(order):
            t, err = snl.expected_throws(board.replace()), snl.solver_report(
                board.replace()).error_estimate
        assert abs(Fraction(t) - exact) <= err * exact


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_family_on_both_orders(family):
    board = FAMILIES[family](300)
    mean, var, _, _ = naive.large_moments(board)
    fin = np.isfinite(mean)
    got = {}
    for order in ORDERS:
        with superlu(order):
            assert fundamental(board.replace().compiled).method == "splu"
            got[order], err = answers(board)
            assert err < 1e-11
            np.testing.assert_allclose(got[order]["mean"][fin], mean[fin], rtol=1e-10)
            np.testing.assert_allclose(got[order]["var"][fin], var[fin], rtol=1e-9)
    for key in got["colamd"]:
        np.testing.assert_allclose(got["descending"][key], got["colamd"][key], rtol=1e-11,
                                   atol=1e-300, err_msg=key)


def test_the_rule_takes_descending_order_where_it_pays():
    assert fundamental(random_board(1000, 0.1, rng=1).compiled)._descending
    assert not fundamental(random_board(4000, 0.3, rng=1).compiled)._descending


def test_a_zero_pivot_in_descending_order_falls_back_to_colamd_then_scipy(monkeypatch):
    board = random_board(300, 0.1, rng=2)
    exact = snl.expected_throws_all(board)
    splu, calls = direct.spla.splu, []

    def failing(a, **options):  # a pivot exactly 0 on the first `fail` factorisations
        calls.append(options)
        if len(calls) <= fail:
            raise RuntimeError("Factor is exactly singular")
        return splu(a, **options)

    monkeypatch.setattr(direct.spla, "splu", failing)
    for fail, how in ((1, {"panel_size": 1, "relax": 1}), (2, {})):
        calls.clear()
        solver = fundamental(board.replace().compiled)
        assert calls[0]["permc_spec"] == "NATURAL" and calls[-1] == how
        assert not solver._descending and solver.method == "splu"
        np.testing.assert_allclose(solver.throws().x, exact, rtol=1e-12)


def test_no_factors_anywhere_falls_back_to_gth(monkeypatch):
    """SuperLU meeting a pivot exactly 0 in every order leaves nothing factorised: GTH
    elimination answers (up to GTH_MAX unknowns), certified."""
    board = random_board(300, 0.1, rng=2)
    exact = snl.expected_throws_all(board)

    def failing(a, **options):
        raise RuntimeError("Factor is exactly singular")

    monkeypatch.setattr(direct.spla, "splu", failing)
    b = board.replace()
    t = snl.expected_throws_all(b)
    assert snl.solver_report(b).method == "gth"
    np.testing.assert_allclose(t, exact, rtol=1e-12)
    visits = snl.analyze(b).expected_visits
    np.testing.assert_allclose(visits, snl.analyze(board).expected_visits, rtol=1e-11)


def test_no_factors_above_gth_max_falls_back_to_the_structured_solver():
    """``run_board(251)`` (1,506 unknowns, 2.5e195 throws): SuperLU met a pivot exactly 0
    in descending order, in COLAMD's and with SciPy's options, and the solver raised
    SciPy's RuntimeError (also at fd5ae7e); the structured solver answers, within its
    certified bound of the exact value."""
    board = naive.run_board(251)
    assert fundamental(board.compiled)._unfactorised
    t, rep = snl.expected_throws(board), snl.solver_report(board)
    exact = naive.run_moments(251)[0]
    assert rep.method == "structured" and rep.error_estimate < 1e-11
    assert abs(Fraction(t) - exact) <= rep.error_estimate * exact
