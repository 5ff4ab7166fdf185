"""Many right-hand sides by one sweep and a low-rank correction (``_core/solve/sweeps``)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import boards
from hypothesis import given, settings
from hypothesis import strategies as st

from snl_numeric import Board
from snl_numeric._core.solve import sweeps, system_solver
from snl_numeric._core.solve.sweeps import SWEEP_ERROR, sweep_bound, sweep_solve
from snl_numeric.boards import random_board
from snl_numeric.chain import fundamental, sure_states
from tests import naive


def _system(board):
    cb = board.compiled
    active = sure_states(cb).copy()
    active[cb.size] = False
    return cb, active


def _rhs(n, m, rng):
    """Sparse non-negative right-hand sides, some columns empty."""
    g = np.random.default_rng(rng)
    dense = np.where(g.random((n, m)) < 0.2, g.random((n, m)), 0.0)
    dense[:, 0] = 0.0
    return sp.csc_array(dense)


@settings(max_examples=80)
@given(boards(max_size=25))
def test_matches_dense_solve(board):
    cb, active = _system(board)
    b = _rhs(cb.n_states, 4, board.size)
    sol = sweep_solve(cb.succ, cb.probs, active, b, max_targets=cb.n_states)
    # the dense twin solves the chain whose rows sum to 1: the sweep's A is the die's
    ref = naive.dense_system_solve(board, b.toarray() / cb.probs.sum())
    assert sol is not None and sol.method == "sweep"
    assert sol.error < 1e-12
    assert np.all(sol.x[~active] == 0.0)
    assert np.array_equal(sol.peak, sol.x.max(axis=0))  # each column's largest entry
    np.testing.assert_allclose(sol.x, ref, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(ref).max()))
    # the same entries in any sparse form, duplicates summed (here a COO, each entry twice)
    twice = sp.coo_array((np.concatenate([b.data, b.data]) / 2,
                          (np.tile(b.tocoo().row, 2), np.tile(b.tocoo().col, 2))), shape=b.shape)
    again = sweep_solve(cb.succ, cb.probs, active, twice, max_targets=cb.n_states)
    assert again is not None
    np.testing.assert_allclose(again.x, sol.x, rtol=1e-14, atol=0.0)


@pytest.mark.parametrize(("overshoot", "chain", "dice"), [
    ("win", False, None), ("exact", False, None), ("bounce", True, None),
    ("win", True, {1: 0.5, 3: 0.5}), ("exact", False, {1: 0.9, 6: 0.1})])
def test_matches_the_solver_on_large_boards(overshoot, chain, dice):
    """The twin on 1,500 squares: the solver's factorisation, certified by residuals."""
    board = random_board(1500, 0.1, rng=7, overshoot=overshoot, chain=chain, dice=dice)
    cb, active = _system(board)
    b = _rhs(cb.n_states, 50, 3)
    sol = sweep_solve(cb.succ, cb.probs, active, b, max_targets=cb.n_states)
    ref = fundamental(cb).solve(b.toarray() / cb.probs.sum())
    # componentwise: every entry within the two certified errors of the other
    tol = (sol.error + ref.error) * np.abs(ref.x).max(axis=0) + 1e-300
    assert np.all(np.abs(sol.x - ref.x) <= tol)


@settings(max_examples=40)
@given(boards(max_size=20))
def test_certified_error_bounds_the_exact_error(board):
    """The error the sweep states holds against the exact answer (Fraction elimination of
    the same float data): every entry within ``error`` of it, relatively."""
    cb, active = _system(board)
    b = _rhs(cb.n_states, 3, board.size)
    sol = sweep_solve(cb.succ, cb.probs, active, b, max_targets=cb.n_states)
    exact = naive.exact_system_solve(cb.succ, cb.probs, active, b.toarray())
    bound = Fraction(sol.error)
    for x, row in enumerate(exact):
        for j, v in enumerate(row):
            assert abs(Fraction(float(sol.x[x, j])) - v) <= bound * v, (x, j)


def test_hand_worked_gamblers_ruin():
    # squares 0, 1; goal 2; from 1 a throw of 1 (p = 1/2) goes back to 0
    succ = np.array([[1, 2], [2, 0], [2, 2]])
    sol = sweep_solve(succ, np.array([0.5, 0.5]), np.array([True, True, False]),
                      sp.csr_array(np.eye(3)), max_targets=1)
    # (I - Q)^-1 = [[1, -1/2], [-1/2, 1]]^-1 = [[4/3, 2/3], [2/3, 4/3]]
    np.testing.assert_allclose(sol.x[:2, :2], [[4 / 3, 2 / 3], [2 / 3, 4 / 3]], rtol=1e-15)


def test_declines():
    board = random_board(300, 0.2, rng=1)
    cb, active = _system(board)
    b = _rhs(cb.n_states, 3, 1)
    assert sweep_solve(cb.succ, cb.probs, active, b, max_targets=2) is None  # too many snakes
    assert sweep_solve(cb.succ, cb.probs, active, -b, max_targets=300) is None  # b < 0
    assert sweep_bound(10**6, 6, 10) > SWEEP_ERROR  # too long a chain of operations
    empty = sweep_solve(cb.succ, cb.probs, active, b[:, :0], max_targets=300)
    assert empty.x.shape == (cb.n_states, 0)
    board = Board(10)  # no backward move at all: one sweep
    cb, active = _system(board)
    sol = sweep_solve(cb.succ, cb.probs, active, sp.csr_array(np.ones((11, 1))), max_targets=0)
    np.testing.assert_allclose(sol.x[:, 0], naive.naive_expected_dense(board)[0][:11]
                               * (np.arange(11) < 10), rtol=1e-14)


def test_direct_solver_twin_is_the_entry_point():
    """The sweep answers the same system as :func:`system_solver` (scaled by the die)."""
    board = random_board(200, 0.1, rng=3, dice={1: 0.25, 2: 0.25, 3: 0.5})
    cb, active = _system(board)
    b = _rhs(cb.n_states, 5, 2)
    sol = sweep_solve(cb.succ, cb.probs, active, b, max_targets=200)
    ref = system_solver(cb.succ, cb.probs, active).solve(b.toarray() / cb.probs.sum())
    np.testing.assert_allclose(sol.x, ref.x, rtol=1e-11, atol=1e-14)


@settings(max_examples=60)
@given(boards(max_size=25), st.integers(1, 5), st.sampled_from([1, 7, 1 << 18]))
def test_blocks_of_any_size_match_dense_solve(board, block, product):
    """Blocks smaller than the faces' reach (rows beyond the window gathered both ways) and
    products split into parts of a few columns: the same answers (the dense twin)."""
    cb, active = _system(board)
    b = _rhs(cb.n_states, 9, board.size + block)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sweeps, "BLOCK", block)
        mp.setattr(sweeps, "SERIAL_PRODUCT", product)
        sol = sweep_solve(cb.succ, cb.probs, active, b, max_targets=cb.n_states)
    ref = naive.dense_system_solve(board, b.toarray() / cb.probs.sum())
    assert sol is not None and np.all(sol.x[~active] == 0.0)
    np.testing.assert_allclose(sol.x, ref, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(ref).max()))


def test_block_size_moves_answers_within_the_bound():
    """One board of 1,500 squares, ladders reaching past many blocks: blocks of 3 and of 64
    squares agree with the default to the a priori bound (every sum non-negative)."""
    board = random_board(1500, 0.1, rng=11, dice={1: 0.25, 2: 0.25, 9: 0.5})
    cb, active = _system(board)
    b = _rhs(cb.n_states, 20, 5)
    base = sweep_solve(cb.succ, cb.probs, active, b, max_targets=cb.n_states)
    for block in (3, 64):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(sweeps, "BLOCK", block)
            sol = sweep_solve(cb.succ, cb.probs, active, b, max_targets=cb.n_states)
        assert np.all(np.abs(sol.x - base.x) <= (sol.error + base.error) * base.x)
