"""Exact rational answers (snl_numeric.exact and the exact= keyword)."""

from __future__ import annotations

import math
from fractions import Fraction

import naive
import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import given, settings

from snl_numeric import (
    Board,
    boards,
    expected_throws,
    expected_throws_all,
    solver_report,
    throws_variance,
    throws_variance_all,
    win_probabilities,
)
from snl_numeric.exact import MAX_WORK, exact_probabilities


def test_milton_bradley_equals_naive_fraction_elimination():
    mb = boards.get("milton-bradley")
    mean, var = naive.naive_expected_fraction(mb)
    assert expected_throws(mb, exact=True) == mean
    assert throws_variance(mb, exact=True) == var
    # the fraction published by Althoen, King and Schilling (1993)
    assert mean == Fraction(225837582538403273407117496273279920181931269186581786048583,
                            5757472998140039232950575874628786131130999406013041613400)


def test_closed_forms():
    # a fair coin of 1 or 2 on 3 squares, overshoot wins: t0 = 1 + (t1 + t2) / 2 ...
    b = Board(3, dice={1: Fraction(1, 2), 2: Fraction(1, 2)})
    assert expected_throws_all(b, exact=True) == (Fraction(9, 4), Fraction(3, 2), Fraction(1),
                                                  Fraction(0))
    assert throws_variance(b, exact=True) == Fraction(3, 16)
    # geometric: exact landing with a d6 from 5 squares before the goal... one face in six
    g = Board(6, start=5, overshoot="exact")
    assert expected_throws(g, exact=True) == 6
    assert throws_variance(g, exact=True) == 30  # (1 - p) / p**2


@settings(max_examples=200, deadline=None)
@given(board_strategy(max_size=20))
def test_exact_agrees_with_float_within_certified_bound(board):
    mean = expected_throws_all(board, exact=True)
    floats = expected_throws_all(board)
    bound = solver_report(board).error_estimate
    for x, (e, f) in enumerate(zip(mean, floats, strict=True)):
        if math.isinf(f):
            assert e == math.inf
        else:
            assert isinstance(e, Fraction)
            assert abs(Fraction(f) - e) <= Fraction(bound) * e + Fraction(1, 10**300), x
    var = throws_variance_all(board, exact=True)
    fvar = throws_variance_all(board)
    for e, f in zip(var, fvar, strict=True):
        if math.isinf(f):
            assert e == math.inf
        else:
            assert abs(f - float(e)) <= 1e-9 * float(e) + 1e-300


@settings(max_examples=40, deadline=None)
@given(board_strategy(max_size=12))
def test_exact_equals_naive_fraction_elimination(board):
    if not board.compiled.sure[board.start]:
        assert expected_throws(board, exact=True) == math.inf
        return
    mean, var = naive.naive_expected_fraction(board)
    assert expected_throws(board, exact=True) == mean
    assert throws_variance(board, exact=True) == var


def test_dice_read_as_fractions():
    assert exact_probabilities([1, 2, 3], [1 / 3, 1 / 3, 1 / 3]) == (Fraction(1, 3),) * 3
    assert exact_probabilities([1, 2], [2.0**-30, 1 - 2.0**-30]) == (
        Fraction(1, 2**30), 1 - Fraction(1, 2**30))
    tenth = Board(5, dice={f: 0.1 for f in range(1, 11)})
    # t_x = 1 + (t_{x+1} + ... + t_4) / 10, so t_x = 1.1 t_{x+1} and t_4 = 1
    assert expected_throws(tenth, exact=True) == Fraction(11, 10) ** 4
    third = Board(4, dice={1: Fraction(1, 3), 2: Fraction(2, 3)})
    twin = Board(4, dice="1:0.3333333333333333,2:0.6666666666666666")
    assert expected_throws(third, exact=True) == expected_throws(twin, exact=True)
    assert expected_throws(Board(10, dice="2d6"), exact=True) == expected_throws(
        Board(10, dice={f: Fraction(6 - abs(f - 7), 36) for f in range(2, 13)}), exact=True)


def test_errors():
    with pytest.raises(ValueError, match="no exact rational reading"):
        expected_throws(Board(4, dice={1: 0.5, 2: 0.5 - 1e-13}), exact=True)
    with pytest.raises(TypeError, match="exact must be True or False, got 1"):
        expected_throws(Board(4), exact=1)
    rng = np.random.default_rng(0)
    size = 1000
    jumps = {int(s): int(rng.integers(1, s)) for s in rng.choice(np.arange(10, size), 60,
                                                                 replace=False)}
    big = Board(size, jumps)
    with pytest.raises(ValueError, match=f"the limit is {MAX_WORK:,}"):
        expected_throws(big, exact=True)


def test_not_sure_is_inf():
    b = Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5})
    assert expected_throws(b, exact=True) == math.inf
    assert throws_variance(b, exact=True) == math.inf
    assert expected_throws(b, 4, exact=True) == 0


@settings(max_examples=30, deadline=None)
@given(board_strategy(max_size=6))
def test_exact_win_equals_naive_joint_chain(board):
    assert win_probabilities(board, 2, exact=True) == naive.players_joint_fraction(board)


@settings(max_examples=40, deadline=None)
@given(board_strategy(max_size=12))
def test_exact_win_agrees_with_float(board):
    exact = win_probabilities(board, 2, exact=True)
    floats = win_probabilities(board, 2)
    assert all(isinstance(w, Fraction) for w in exact)
    assert np.allclose([float(w) for w in exact], floats, rtol=0, atol=1e-10)


def test_exact_win_refusals():
    b = Board(4, dice="1-3")
    assert win_probabilities(b, 2, exact=True) == (Fraction(559, 729), Fraction(170, 729))
    assert win_probabilities(b, starts=[1, 1], exact=True) == win_probabilities(
        b.replace(start=1), exact=True)
    with pytest.raises(ValueError, match="two players"):
        win_probabilities(b, 3, exact=True)
    with pytest.raises(ValueError, match="one start square"):
        win_probabilities(b, starts=[0, 1], exact=True)
    with pytest.raises(ValueError, match="exact=True is for small boards"):
        win_probabilities(boards.get("milton-bradley"), 2, exact=True)
