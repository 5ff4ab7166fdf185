"""``snl_numeric.distribution``: the distribution of the number of throws, against the
naive push and its moments, and its arguments."""

import math

import naive
import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import given, settings
from hypothesis import strategies as st

from snl_numeric import (
    Board,
    boards,
    expected_throws,
    expected_throws_all,
    finish_probability,
    length_distribution,
    min_throws,
    options,
)
from snl_numeric.distribution import pushed, pushed_to_tail, tail_floor


@settings(max_examples=100)
@given(board_strategy(max_size=20))
def test_distribution_matches_naive(board):
    pmf = length_distribution(board)
    ref = naive.naive_distribution(board, throws=min(len(pmf) + 5, 300))
    k = min(len(pmf), len(ref))
    np.testing.assert_allclose(pmf[:k], ref[:k], rtol=1e-9, atol=1e-15)
    total = pmf.sum()
    assert total == pytest.approx(finish_probability(board), abs=1e-9)
    if math.isfinite(expected_throws(board)):
        assert total == pytest.approx(1.0, abs=1e-11)
        k = np.arange(len(pmf))
        assert (k * pmf).sum() == pytest.approx(expected_throws(board), rel=1e-8, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(board_strategy(max_size=30), st.booleans())
def test_dense_and_sparse_pushes_twin_the_naive_push(board, as_chain):
    """``options(push=...)`` forces either form of the NumPy push (a board this small is
    pushed densely by default, a chain's rows too): both match the naive push throw by
    throw, and each other to rounding (every entry a sum of non-negative terms)."""
    model = board.to_chain() if as_chain else board
    with options(push="dense"):
        dense = length_distribution(model)
    with options(push="sparse"):
        sparse = length_distribution(model)
    assert np.array_equal(length_distribution(model), dense)  # the default on small boards
    ref = naive.naive_distribution(board, throws=min(max(len(dense), len(sparse)) + 5, 300))
    for pmf in (dense, sparse):
        k = min(len(pmf), len(ref))
        np.testing.assert_allclose(pmf[:k], ref[:k], rtol=1e-9, atol=1e-15)
    k = min(len(dense), len(sparse))  # (the cut may land a throw apart: below the tail)
    np.testing.assert_allclose(dense[:k], sparse[:k], rtol=1e-11, atol=1e-300)
    assert dense[k:].sum() < 1e-12 and sparse[k:].sum() < 1e-12


def test_dense_push_forced_on_a_board_pushed_sparsely_by_default():
    """A 300-square board holds mass on more than ``DENSE_PUSH_MAX`` = 128 squares: one
    sparse product per throw by default, forced dense here; both against the naive push."""
    board = Board(300, {1: 38, 4: 14, 9: 31, 21: 42, 28: 84, 87: 24, 93: 73, 98: 78, 290: 120},
                  overshoot="exact")
    sparse = length_distribution(board)
    with options(push="sparse"):
        assert np.array_equal(length_distribution(board), sparse)
    with options(push="dense"):
        dense = length_distribution(board)
    assert not np.array_equal(dense, sparse)  # (the other form was taken: rounding differs)
    k = min(len(dense), len(sparse))
    np.testing.assert_allclose(dense[:k], sparse[:k], rtol=1e-11, atol=1e-300)
    assert dense[k:].sum() < 1e-12 and sparse[k:].sum() < 1e-12
    ref = naive.naive_distribution(board, throws=200)
    np.testing.assert_allclose(dense[:201], ref, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(sparse[:201], ref, rtol=1e-9, atol=1e-15)
    assert sum(dense) == pytest.approx(1.0, abs=1e-11)
    k = np.arange(len(dense))
    assert (k * dense).sum() == pytest.approx(expected_throws(board), rel=1e-9)


def test_a_forced_dense_push_checks_memory_first(monkeypatch):
    board = Board(800, {790: 120})
    monkeypatch.setenv("SNL_NUMERIC_MAX_MEMORY", "10M")  # 32 bytes x 799**2 = 19.5 MiB
    with options(push="dense"), pytest.raises(MemoryError, match="a dense push over 799 squares"):
        length_distribution(board)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda b: min_throws(b, start=99), ValueError, "start must be a square"),
        (lambda b: expected_throws(b, start=1.5), TypeError, "start must be an integer"),
        (lambda b: length_distribution(b, tail=0), ValueError, "tail"),
        (lambda b: length_distribution(b, tail="small"), TypeError, "tail must be a number"),
        (lambda b: length_distribution(b, max_throws=0), ValueError, "max_throws"),
        (lambda b: length_distribution(b, max_throws=2.5), TypeError, "max_throws"),
        (lambda b: expected_throws("milton-bradley"), TypeError, "expected a Board"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call(boards.get("seed-30"))


def test_max_throws_is_exact():
    b = Board(10)  # fair d6 from 0: between 2 and 10 throws
    assert len(length_distribution(b, max_throws=10)) == 11
    with pytest.raises(ValueError, match="max_throws=9"):
        length_distribution(b, max_throws=9)
    assert len(length_distribution(b, tail=np.float32(1e-6))) <= 11


def test_max_throws_is_reported():
    b = Board(100, {99: 0}, overshoot="exact", dice={1: 0.999, 2: 0.001})
    with pytest.raises(ValueError, match="max_throws=50"):
        length_distribution(b, max_throws=50)


@pytest.mark.parametrize("path", ["direct", "structured"])
def test_astronomical_length_refused_from_the_bound(path):
    """100 snakes near the goal of 1,000 squares: 1.6e16 throws expected. The push finds the
    tail falling far too slowly and asks the bound, which proves that no push of ten million
    throws reaches it (only that path words the error "cannot fall")."""
    from benchmarks._families import snakes_near_goal

    with options(path=path), pytest.raises(
            ValueError, match=r"cannot fall below 1e-12 within max_throws=10000000 throws "
                              r"\(at least 1 of the mass"):
        length_distribution(snakes_near_goal(1000))


@settings(max_examples=60, deadline=None)
@given(board_strategy(max_size=20), st.integers(0, 40))
def test_tail_floor_is_below_the_naive_survival(board, throws):
    floor = tail_floor(board.compiled, board.start, throws)
    survival = 1.0 - math.fsum(naive.naive_distribution(board, throws=throws))
    assert 0.0 <= floor <= survival + 1e-12
    mean = expected_throws(board)
    assert (floor > 0.0) == (math.isfinite(mean) and mean > throws * (1 + 1e-9) + 1e-9) or (
        floor == 0.0 and abs(mean - throws) < 1e-6)


@pytest.mark.parametrize("path", ["direct", "structured"])
def test_a_slow_push_the_bound_cannot_refuse_goes_on(path):
    """A die that nearly always throws 1 past a snake to 0 (9,900 throws expected, some
    270,000 to a tail of 1e-12): within 20,000 throws the push asks the bound once, which
    cannot refuse (the mean is below 20,000), and goes on as a push never asked, to its own
    error."""
    b = Board(100, {99: 0}, overshoot="exact", dice={1: 0.99, 2: 0.01})
    cb, asked = b.compiled, []

    def hopeless():
        asked.append(tail_floor(cb, 0, 20_000))
        return False

    with options(path=path):
        full = pushed(cb, 0, 1e-12, 20_000)
        again = pushed(cb, 0, 1e-12, 20_000, None, hopeless)
        with pytest.raises(ValueError, match="did not fall below 1e-12 within max_throws=20000 "):
            pushed_to_tail(cb, 0, 1e-12, 20_000)
    assert asked == [0.0] and len(full.pmf) == 20_001 and full.remaining > 1e-6
    assert np.array_equal(full.pmf, again.pmf) and full.remaining == again.remaining
    assert tail_floor(cb, 0, 5000) == pytest.approx((expected_throws(b) - 5000)
                                                    / expected_throws_all(b).max(), rel=1e-9)
