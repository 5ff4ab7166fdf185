"""Numba written plainly (issues 24-25): one per-board kernel for batch and design, the
Solver's fixed method and its GMRES certificate, kernels per job, large boards from
arrays, batch rows the per-board kernel hands over, distribution columns as ``analyze``
gives them (issue 28), and memory refused before it is allocated (issue 29)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
from fractions import Fraction

import naive
import numpy as np
import pandas as pd
import pytest
from conftest import boards as board_strategy
from conftest import every_start
from hypothesis import example, given, settings
from hypothesis import strategies as st

from snl_numeric import (
    Board,
    Dice,
    analyze,
    analyze_many,
    design_board,
    expected_throws,
    expected_throws_all,
    throws_variance,
)
from snl_numeric._core.memory import MemoryLimitError
from snl_numeric._core.solve import (
    CANCELLATION,
    TARGET_ERROR,
    Solver,
    board_moments_kernel,
    solver_bytes,
)
from snl_numeric._core.solve.blocks import ROTATE_GAIN, structure_kernel
from snl_numeric._core.solve.krylov import FLAT_STEPS, flat_steps, landing_sweep_kernel
from snl_numeric._core.solve.residual import (
    bound_kernel,
    difference_residual_kernel,
)
from snl_numeric._core.table import reach_kernel
from snl_numeric.boards import random_board
from snl_numeric.chain import sure_states


def _structured(board: Board) -> Solver:
    """The structured solver of ``board``'s fundamental system (whatever its size)."""
    cb = board.compiled
    active = sure_states(cb).copy()
    active[cb.size] = False
    return Solver(cb.succ, cb.probs, active)


# -- the per-board kernel ------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(board_strategy(max_size=25))
def test_per_board_kernel_matches_the_dense_solve(board):
    df = every_start(board)
    dice = dict(zip(board.dice.faces.tolist(), board.dice.probs.tolist(), strict=True))
    for x in range(board.size + 1):
        mean, var = df["mean"].iloc[x], df["variance"].iloc[x]
        ref = naive.batch_row(board.size, board.jumps, start=x, overshoot=board.overshoot,
                              chain=board.chain, dice=dice)
        if math.isinf(ref["mean"]):
            assert mean == np.inf and var == np.inf
            continue
        assert mean == pytest.approx(ref["mean"], rel=1e-12, abs=1e-12)
        assert var == pytest.approx(ref["variance"], rel=1e-8, abs=1e-8 * ref["mean"] ** 2)


def test_the_cancellation_fallback_runs_where_the_start_cancels():
    # Board(20, {5: 15}): 2 u - t - t**2 loses more than CANCELLATION to cancellation
    # (exact values) on squares 1-13 only, each the start of a batch row: there the
    # one-step variance is solved (3e-16 off; the formula alone, 1.1e-14)
    board = Board(20, {5: 15})
    var = every_start(board)["variance"]
    for x in range(board.size):
        mean, exact = naive.naive_expected_fraction(board, start=x)
        cancels = 1 <= x <= 13
        assert (exact * CANCELLATION < mean**2 and mean > 1) == cancels
        assert abs(Fraction(var.iloc[x]) - exact) <= (1e-15 if cancels else 1e-14) * exact
    assert var.iloc[board.size] == 0.0
    # a plain board cancels far from the goal (the formula alone: 1.4e-12 off at the
    # start); from x it is Board(300 - x) from 0
    var = every_start(Board(300))["variance"]
    for x in range(0, 290, 13):
        exact = naive.plain_moments(300 - x)[1]
        assert abs(Fraction(var.iloc[x]) - exact) <= 1e-13 * exact


@pytest.mark.parametrize("board, report, stuck", [
    (Board(20, {5: 15}), [0, 7, 16], []),  # 7 cancels (see above), 0 and 16 do not
    # even faces, exact landing on 12: the odd squares never reach the goal
    (Board(12, {10: 4}, overshoot="exact", dice={2: 0.5, 4: 0.5}), [0, 3, 8],
     [1, 3, 5, 7, 9, 11]),
])
def test_the_per_board_kernel_writes_the_variance_of_the_reported_squares_only(board, report,
                                                                                stuck):
    # the library reports one square (the start, analyze_many and design_board); the
    # kernel takes any set: the variance there (the cancellation fallback fixing those
    # that cancel), NaN on the system's other squares, inf where the goal is not sure,
    # 0 on the goal; the mean everywhere
    cb = board.compiled
    succ = np.ascontiguousarray(cb.succ, dtype=np.int32)
    n = succ.shape[0]
    dist, sure = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.bool_)
    reach_kernel(succ, -1, dist, sure)
    assert np.flatnonzero(~sure).tolist() == stuck
    asked = np.zeros(n, dtype=np.bool_)
    asked[report] = True
    mean, var = np.full(n, -7.0), np.full(n, -7.0)  # (whatever the arrays held before)
    assert board_moments_kernel(succ, cb.probs.reshape(1, -1), sure, asked, n, True, mean,
                                var) <= n
    assert mean[-1] == var[-1] == 0.0
    for x in range(n - 1):
        if not sure[x]:
            assert mean[x] == var[x] == np.inf
            continue
        exact_mean, exact_var = naive.naive_expected_fraction(board, start=x)
        assert abs(Fraction(mean[x]) - exact_mean) <= 1e-14 * exact_mean
        if asked[x]:  # where the formula cancels, only the fallback is this close
            cancels = exact_var * CANCELLATION < exact_mean**2 and exact_mean > 1
            assert abs(Fraction(var[x]) - exact_var) <= (1e-15 if cancels else 1e-14) * exact_var
        else:
            assert np.isnan(var[x])


# -- the solver: one method for life, GMRES certified by one solve ---------------------
def test_gmres_certifies_its_first_answer_and_agrees_with_the_woodbury_twin():
    board = random_board(6000, 0.1, rng=5)
    solver = _structured(board)
    assert solver.method == "gmres" and solver.k > 64
    ones = solver.active.astype(float)
    sol = solver.solve(ones)
    assert sol.method == "gmres" and sol.error < TARGET_ERROR and solver.second is None
    exact = Solver(solver.succ, board.compiled.probs, solver.active, method="woodbury")
    ref = exact.solve(ones)
    assert ref.method == "woodbury" and exact.method == "woodbury"
    np.testing.assert_allclose(sol.x, ref.x, rtol=2 * TARGET_ERROR)
    assert solver.method == "gmres"  # unchanged by the solves


@settings(max_examples=25, deadline=None)
@given(st.integers(300, 3000), st.floats(0.02, 0.4), st.sampled_from(["win", "exact", "bounce"]),
       st.sampled_from([None, {1: 0.9, 2: 0.1}, {2: 0.5, 5: 0.5}]), st.integers(0, 2**32 - 1))
def test_deflated_gmres_solves_as_the_woodbury_twin(size, jumps, overshoot, die, seed):
    board = random_board(size, jumps, rng=seed, overshoot=overshoot,
                         **({} if die is None else {"dice": die}))
    solver = _structured(board)
    ones = solver.active.astype(float)
    gmres = Solver(solver.succ, board.compiled.probs, solver.active, method="gmres")
    sol = gmres.solve(ones)
    twin = Solver(solver.succ, board.compiled.probs, solver.active, method="woodbury")
    np.testing.assert_allclose(sol.x, twin.solve(ones).x, rtol=4 * TARGET_ERROR, atol=0)
    if sol.iterations:  # U = 1 / ||C 1||, Q = C U of norm 1: U's row is a constant
        u, q = gmres._deflation  # (preconditioned by M, issue 53: M 1 / ||C 1||)
        assert u.shape == q.shape == (1, gmres.k)
        m1 = np.ones(gmres.k)
        if gmres.pre[0].size:
            phi, w = gmres.pre[:2]
            m1 -= np.where(phi >= 0, w, 0.0)
        np.testing.assert_allclose(u[0] / u[0, 0], m1 / m1[0], rtol=1e-14)
        assert abs(np.linalg.norm(q) - 1.0) < 1e-12
    t = gmres.solve(ones, trans=True)  # transposed: not deflated
    np.testing.assert_allclose(t.x, twin.solve(ones, trans=True).x, rtol=1e-9, atol=0)


def test_deflation_takes_the_slow_mode_off_gmres():
    board = random_board(60_000, 0.1, rng=3)
    solver = _structured(board)
    ones = solver.active.astype(float)
    plain = Solver(solver.succ, board.compiled.probs, solver.active)
    plain._deflation = (np.zeros((0, plain.k)), np.zeros((0, plain.k)))  # none
    a, b = solver.solve(ones), plain.solve(ones)
    assert solver.method == plain.method == "gmres"
    assert a.error < TARGET_ERROR and b.error < TARGET_ERROR
    np.testing.assert_allclose(a.x, b.x, rtol=2 * TARGET_ERROR, atol=0)
    # fewer sweeps, the one that makes U included (26 against 28 here; 10^7 squares: 34
    # against 45)
    assert a.iterations < b.iterations


def _flat_stop(residuals, start=1.0):
    """Where GMRES stops on the flat-step rule over these residuals (None: it does not)."""
    flat, last = 0, start
    for step, res in enumerate(residuals, 1):
        flat, last = flat_steps(res, last, start, flat), res
        if flat >= FLAT_STEPS:
            return step
    return None


def test_gmres_stops_where_its_residual_stops_moving():
    # the residuals (relative) of the first solve of a random board of 10^7 squares
    floor = [2.44e-12, 8.12e-13, 4.69e-13, 4.29e-13, 4.25e-13, 4.249e-13, 4.2485e-13]
    assert _flat_stop(floor) == 5
    # a slow die converging steadily, then slowing at the floor
    die = [0.78**i * 1e-9 for i in range(1, 12)] + [2e-11, 1.8e-11, 1.7e-11, 1.65e-11]
    assert _flat_stop(die) == 14
    # steady convergence, even slow, is never stopped; nor is a cycle's first plateau
    assert _flat_stop([0.85**i for i in range(1, 230)]) is None
    assert _flat_stop([0.96, 0.95, 0.94, 0.87, 0.53, 0.2]) is None
    # a cycle that starts from an already small residual is left to STALL
    assert _flat_stop([0.991e-13, 0.982e-13, 0.937e-13], start=1e-13) is None


@settings(max_examples=25, deadline=None)
@given(st.integers(300, 3000), st.floats(0.02, 0.4), st.sampled_from(["win", "exact", "bounce"]),
       st.sampled_from(["d6", "d4", "biased", "2d6", "per square"]), st.integers(0, 2**31))
@example(300, 0.2109375, "win", "biased", 4194304)  # a block of cond 3e3 (see below)
def test_the_gmres_sweep_is_the_board_sweep(size, jumps, overshoot, die, seed):
    # landing_sweep_kernel reads each square's moves through its landing squares' values
    # (blocks of short snakes, squares outside the system, one die or a row per square);
    # it differs from the plain block sweep by roundings (the pivot's reciprocal, the order
    # of sums, the blocks' solves)
    dice = {"d4": Dice.fair(4), "biased": {1: 0.2, 4: 0.8}, "2d6": Dice.sum_of(2)}.get(die)
    board = random_board(size, jumps, rng=seed, overshoot=overshoot)
    if dice is not None:
        board = Board(board.size, board.jumps, overshoot=overshoot, dice=dice)
    cb = board.compiled
    active = sure_states(cb).copy()
    active[cb.size] = False
    rng = np.random.default_rng(seed)
    probs = cb.probs
    if die == "per square":
        probs = rng.random((cb.succ.shape[0], probs.size)) + 0.01
        probs /= probs.sum(axis=1, keepdims=True)
    solver = Solver(cb.succ, probs, active, method="gmres")  # whatever the size
    _assert_landing_sweep(solver, rng)


def test_the_gmres_sweep_is_the_board_sweep_on_a_rotated_solver():
    # snakes near the goal fall far back: the solver takes the squares rotated, and more
    # than WOODBURY_MAX squares are still landed on from above (shorter snakes)
    jumps = {x: x - 2000 for x in range(2400, 2990, 2)}
    jumps.update({x: x - 300 for x in range(1701, 2390, 4)})
    board = Board(3000, jumps)
    solver = _structured(board)
    assert solver.cut > 0 and solver.method == "gmres"
    _assert_landing_sweep(solver, np.random.default_rng(1))
    ones = solver.active.astype(float)
    exact = Solver(solver.succ, board.compiled.probs, solver.active, method="woodbury")
    np.testing.assert_allclose(solver.solve(ones).x, exact.solve(ones).x, rtol=2 * TARGET_ERROR)


def _assert_landing_sweep(solver: Solver, rng: np.random.Generator) -> None:
    n, k = solver.n, solver.k
    step, code, copy, irregular, ref, slot = solver.landing
    # most squares take the fast path; every irregular block is a real block
    assert len(irregular) - 1 <= len(solver.block_start) - 1
    v = rng.standard_normal(k)
    v[rng.random(k) < 0.1] = 0.0
    rhs = rng.random(n) * solver._active
    op = (solver._probs, solver.pstride, solver._active, solver.block_start, solver.offsets,
          solver.lu, solver.piv)
    for back, b in ((v, np.zeros(0)), (np.zeros(k), rhs), (v, rhs)):
        full = np.zeros(n)
        full[solver.targets] = back
        terms = b if b.size else np.zeros(n)
        # the plain block sweep, of the terms and of their absolute values
        want, scale = naive.block_sweep(solver._succ, solver._probs, solver._active,
                                        solver.block_start, np.column_stack([terms, np.abs(terms)]),
                                        np.column_stack([full, np.abs(full)])).T
        got = np.empty(n)
        near = np.zeros(copy.max() + 1)
        near[:k] = back
        landing_sweep_kernel(solver.landing, *op, b, near, got)
        assert near[k] == 0.0
        np.testing.assert_array_equal(near[slot], got[solver.targets])
        assert np.all(np.diff(solver.targets[np.argsort(slot)]) < 0)  # written in order
        kept = copy < near.size - 1  # (the last place takes the squares with no copy)
        np.testing.assert_array_equal(near[copy[kept]], got[kept])
        # a unit in the last place per square the sweep passes, of scale = P^-1 s, the sweep
        # of s = |terms| + R |back| (P^-1 >= 0: P is an M-matrix). A square's terms are sums
        # of products, each rounded, over a pivot summed and inverted: off by at most c u (c:
        # a few per face) of what its |terms| and the |values| it reads sum to. Through a block's
        # A^-1 >= 0 that is at most c u of the block's scale, whatever the block's condition:
        # it is relative to the same absolute system as scale. An error of e scale read
        # from above comes out as at most e scale too (A^-1 N scale_above <= scale). So the
        # error, relative to scale, grows by each block's roundings down the chain of blocks:
        # c u, plus its solve's (GTH in the kernel, no subtraction; in the twin, refined
        # against the exact matrix: naive.refined_solve). A solve of the block's rounded
        # matrix is off by its condition instead: numpy.linalg.solve alone was 9.4e-11 off
        # (bound 2.3e-11; the kernel 2.8e-13 off the exact sweep) on a 31-square block of
        # snakes the game rarely leaves (cond 3e3), 301 squares, die {1: 0.2, 4: 0.8}.
        # Measured: at most 0.43 of the bound over 600 examples (a d6 pivot summed to
        # 1 - 2^-53, not 1 - 2^-54, on 300 squares); a pivot off by 2^-44 fails it
        np.testing.assert_array_less(np.abs(got - want), 2**-53 * n * scale + 1e-300)


def _system(board):
    """The successor table, the die (one row) and the squares of the system (the sure ones,
    not the goal) of ``board``."""
    cb = board.compiled
    active = sure_states(cb).copy()
    active[cb.size] = False
    return cb.succ, np.asarray(cb.probs, dtype=float).reshape(1, -1), active


@pytest.mark.parametrize("case", ["random", "bounce", "snakes near the goal", "far back"])
def test_rotation_counts_match_counting_move_by_move(case):
    # cost[c]: the moves backward in the order c .. n-1, 0 .. c-1. Exact when some order
    # could leave ROTATE_GAIN times fewer than cost[0]; else a lower bound failing that too
    gen = np.random.default_rng(7)
    if case == "snakes near the goal":
        src = gen.choice(np.arange(150, 299), size=40, replace=False)
        board = Board(300, {int(s): int(gen.integers(0, 150)) for s in src})
    elif case == "far back":
        board = Board(300, {x: x - 200 for x in range(240, 299, 2)})
    else:
        board = random_board(300, 0.1, rng=3, overshoot="bounce" if case == "bounce" else "win")
    succ, probs, active = _system(board)
    n = succ.shape[0]
    want = naive.rotation_costs(succ, probs, active)
    cost = np.empty(n + 1, dtype=np.int64)
    structure_kernel(succ, probs, 0, active, 16, np.empty(n + 1, dtype=np.int32),
                     np.empty(n, dtype=np.int64), cost)
    assert cost[0] == want[0]
    if np.any(ROTATE_GAIN * want[1:] < want[0]):
        np.testing.assert_array_equal(cost[1:n], want[1:])
    else:
        assert np.all(cost[1:n] <= want[1:]) and np.all(ROTATE_GAIN * cost[1:n] >= cost[0])
    assert (case in ("snakes near the goal", "far back")) == bool(np.any(ROTATE_GAIN * want[1:] < want[0]))


@pytest.mark.parametrize("case", ["random", "bounce", "short snakes"])
def test_the_structure_pass_lists_the_moves_to_lower_blocks(case):
    # the entries of C (R = C E_D^T), move by move: every move to a lower block, row
    # increasing, column the target's number; targets numbered 0 .. k-1, the others -1
    gen = np.random.default_rng(11)
    if case == "short snakes":
        board = Board(400, {int(x): int(x) - int(gen.integers(1, 12))
                            for x in gen.choice(np.arange(20, 399), 60, replace=False)})
    else:
        board = random_board(400, 0.1, rng=5, overshoot="bounce" if case == "bounce" else "win")
    succ, probs, active = _system(board)
    n = succ.shape[0]
    block_start, tcol = np.empty(n + 1, dtype=np.int32), np.empty(n, dtype=np.int64)
    nb, k, rows, cols, vals = structure_kernel(succ, probs, 0, active, 16, block_start, tcol,
                                               np.empty(0, dtype=np.int64))
    first = np.repeat(block_start[:nb], np.diff(block_start[: nb + 1]))  # each square's block
    want = sorted((x, int(y), float(probs[0, f])) for x in range(n) if active[x]
                  for f, y in enumerate(succ[x])
                  if probs[0, f] and active[y] and y < first[x])
    targets = np.flatnonzero(tcol >= 0)[np.argsort(tcol[tcol >= 0])]  # by column
    got = zip(rows.tolist(), targets[cols].tolist(), vals.tolist(), strict=True)
    assert sorted(got) == want
    assert np.all(np.diff(rows) >= 0) and len(want) > 0
    assert sorted(tcol[tcol >= 0].tolist()) == list(range(k))
    assert set(np.flatnonzero(tcol >= 0).tolist()) == {y for _, y, _ in want}


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 30), st.booleans(), st.sampled_from([np.inf, 1e-15, 0.0]),
       st.integers(0, 2**32 - 1))
def test_the_residual_in_double_is_within_its_bound(n, per_square, limit, seed):
    # sum_f p_f ((x_i - x_to) + (lo_i - lo_to)) in double precision: within its allowance
    # (gamma(2 faces + 6) |terms|) of the exact residual of x + lo (in rationals), for
    # values of either sign and any size, lo a double-double pair's low part or not; rows
    # whose allowance is above limit * b_i formed in double-double, within theirs
    from fractions import Fraction

    from snl_numeric._core.solve.certify import gamma

    rng = np.random.default_rng(seed)
    succ = rng.integers(0, n, (n, 4)).astype(np.int32)
    probs = (rng.dirichlet(np.ones(4), size=n) if per_square
             else rng.dirichlet(np.ones(4)).reshape(1, -1))
    probs[rng.random(probs.shape) < 0.1] = 0.0  # faces that cannot be thrown
    active = rng.random(n) < 0.8
    x = np.where(active, rng.standard_normal(n) * 10.0 ** rng.integers(0, 8, n), 0.0)
    lo = np.where(active & (rng.random(n) < 0.7), x * 2.0**-53 * rng.uniform(-1, 1, n), 0.0)
    b = np.where(active, rng.random(n), 0.0)
    r, size = np.empty(n), np.empty(n)
    difference_residual_kernel(succ, probs, int(per_square), active, b, x, lo, limit, r, size)
    value = [Fraction(x[i]) + Fraction(lo[i]) if active[i] else Fraction(0) for i in range(n)]
    for i in range(n):
        exact = Fraction(0)
        if active[i]:
            exact = Fraction(b[i])
            for f in range(4):
                p, y = probs[i if per_square else 0, f], succ[i, f]
                if p and y != i:
                    exact -= Fraction(p) * (value[i] - value[y])
        assert abs(Fraction(r[i]) - exact) <= Fraction(size[i])
        if limit == np.inf and active[i]:  # every row in double: its allowance as documented
            terms = abs(b[i]) + sum(
                probs[i if per_square else 0, f] * (abs(x[i] - x[y] * active[y])
                                                     + abs(lo[i] - lo[y] * active[y]))
                for f, y in enumerate(succ[i]) if probs[i if per_square else 0, f] and y != i)
            assert size[i] == pytest.approx(gamma(14) * terms, rel=1e-12)
        elif limit == 0.0 and active[i] and b[i] > 0:  # every row in double-double
            assert size[i] <= 1e-25 * (abs(b[i]) + 4 * abs(x).max()) + 2.0**-53 * abs(r[i])


def test_a_nan_residual_is_not_certified():
    # bound_kernel's maxima skip a NaN (Python's max does): the sums carry it to them
    r, size = np.array([np.nan, 1e-20]), np.zeros(2)
    terms = bound_kernel(r, size, 1.0, np.ones(2), np.zeros(2), np.ones(2), np.ones(2, bool))
    assert np.isnan(terms[0]) and np.isnan(terms[4])
    r = np.array([0.25, -0.5])  # |r| + 0.5 * size
    terms = bound_kernel(r, np.array([0.5, 0.0]), 0.5, np.array([1.0, -3.0]), np.zeros(2),
                         np.array([1.0, 4.0]), np.ones(2, bool))
    assert terms == (0.5, 3.0, 4.0, 1.0, 0.5, 1.0, 4.0, 0.25) and r.tolist() == [0.25, -0.5]


def test_an_int32_table_is_solved_as_it_is():
    board = random_board(3000, 0.1, rng=6)
    solver = _structured(board)
    ones = solver.active.astype(float)
    small = Solver(solver.succ.astype(np.int32), board.compiled.probs, solver.active)
    assert small.succ.dtype == np.int32
    np.testing.assert_array_equal(small.solve(ones).x, solver.solve(ones).x)


# -- batch rows ---------------------------------------------------------------------
def test_a_row_with_too_many_backward_targets_is_solved_by_the_single_board_solver():
    board = random_board(4000, 0.5, rng=2)  # more than KMAX (512) backward targets
    assert _structured(board).k > 512
    df = analyze_many([board, Board(10)], columns=["mean", "variance"])
    assert df["mean"].iloc[0] == pytest.approx(expected_throws(board), rel=1e-12)
    assert df["variance"].iloc[0] == pytest.approx(throws_variance(board), rel=1e-10)


def test_a_row_whose_tail_is_not_reached_keeps_what_max_throws_decides_as_analyze_does():
    # P(T <= 40) = 0.957: the median and p90 are decided within 40 throws, p99.5 is not
    slow = Board(20, {19: 0}, overshoot="exact")
    fast = Board(10)
    cols = ["min_throws", "mean", "median", "p90", "p99.5", "mode"]
    with pytest.warns(RuntimeWarning, match=r"rows \[0\]: some distribution columns are "
                                            r"missing.*max_throws=40"):
        df = analyze_many([slow, fast], columns=cols, max_throws=40)
    a = analyze(slow, max_throws=40, percentiles=[90, 99.5])
    assert a.pmf is None and a.percentiles[99.5] is None and a.median is not None
    row = df.iloc[0]
    assert (row["min_throws"], row["median"], row["p90"], row["mode"]) == (
        a.min_throws, a.median, a.percentiles[90], a.mode)
    assert row["mean"] == pytest.approx(a.mean, rel=1e-12) and pd.isna(row["p99.5"])
    assert df["median"].iloc[1] == analyze(fast).median
    with warnings.catch_warnings():  # decided within max_throws: no warning
        warnings.simplefilter("error")
        df = analyze_many([slow], columns=["median", "p90"], max_throws=40)
    assert (df["median"].iloc[0], df["p90"].iloc[0]) == (a.median, a.percentiles[90])


def test_the_mode_of_a_tie_is_the_first_as_analyze_gives_it():
    # P(T = 1) = P(T = 2) = 1/3: the push may round the second a bit larger
    board = Board(6, {2: 1, 5: 6}, overshoot="bounce")
    assert analyze_many([board], columns=["mode"])["mode"].iloc[0] == analyze(board).mode == 1


# -- design ---------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [{"method": "local", "batch": 10**9}, {"chains": 10**9},
                                {"iterations": 10**12}])
def test_design_refuses_a_search_it_cannot_hold_before_allocating(kw, monkeypatch):
    monkeypatch.setenv("SNL_NUMERIC_MAX_MEMORY", "2G")
    with pytest.raises(MemoryLimitError, match=r"needs about [\d.]+ [TGP]iB of memory"):
        design_board(100, snakes=5, ladders=5, objective="max", **kw)


def test_snl_design_refuses_a_billion_chains_with_one_line():
    out = subprocess.run([sys.executable, "-m", "snl_numeric", "design", "--snakes", "5",
                          "--ladders", "5", "--max", "--chains", "1000000000"],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "SNL_NUMERIC_MAX_MEMORY": "2G"})
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1].startswith(
        "snl design: error: a search of 1,000,000,000 chains")


def test_design_with_a_die_of_many_faces_evaluates_them_merged():
    dice = Dice.fair(1000)  # 900 faces beyond the goal: one face moving to the goal
    res = design_board(100, snakes=3, ladders=3, objective="max", iterations=200, chains=2,
                       dice=dice, rng=4)
    assert res.mean == pytest.approx(expected_throws(res.board), rel=1e-12)
    exact = Board(100, res.board.jumps, dice=dice, overshoot="exact")
    res = design_board(100, snakes=3, ladders=3, objective="min", iterations=200, chains=2,
                       dice=dice, overshoot="exact", rng=4)
    assert res.mean == pytest.approx(expected_throws(res.board), rel=1e-12)
    assert expected_throws(exact) > 0


# -- boards from arrays ---------------------------------------------------------------
@settings(max_examples=50, deadline=None)
@given(board_strategy(max_size=40))
def test_from_arrays_is_the_board_of_the_same_jumps(board):
    src, dst = board.jump_arrays
    again = Board.from_arrays(board.size, src[::-1].copy(), dst[::-1].copy(),
                              start=board.start, overshoot=board.overshoot, chain=board.chain,
                              dice=board.dice)
    assert again == board and hash(again) == hash(board) and dict(again.jumps) == board.jumps
    assert repr(again) == repr(board)


@pytest.mark.parametrize("src, dst, error, words", [
    (np.array([[1, 2]]), np.array([3]), ValueError, "1-d array"),
    (np.array([1.5]), np.array([3]), TypeError, "integer squares"),
    (np.array([1, 2]), np.array([3]), ValueError, "same length"),
    (np.array([4]), np.array([4]), ValueError, "jump 4->4 goes nowhere"),
])
def test_from_arrays_refuses_bad_jumps(src, dst, error, words):
    with pytest.raises(error, match=words):
        Board.from_arrays(10, src, dst)


def test_a_million_squares_from_arrays_without_a_python_dict():
    board = random_board(10**6, 0.1, rng=1)
    assert board._jumps is None  # the mapping is built only when asked for
    t = expected_throws_all(board)
    assert board._jumps is None and np.isfinite(t[0])
    assert board.replace(start=5)._jumps is None
    assert len(board.jumps) == len(board.jump_arrays[0])


# -- memory estimates hold --------------------------------------------------------------
_PEAK = r"""
import json, sys
from snl_numeric import analyze_many
from snl_numeric.boards import random_board
n, frac = int(sys.argv[1]), float(sys.argv[2])
analyze_many([random_board(3000, frac, rng=2), random_board(20000, 0.1, rng=3)],
             columns=["mean", "variance"])  # compiled, and the solver path taken once
board = random_board(n, frac, rng=1)
def kib(field):
    with open("/proc/self/status") as fh:
        return next(int(ln.split()[1]) for ln in fh if ln.startswith(field + ":")) * 1024
with open("/proc/self/clear_refs", "w") as fh:  # the peak (VmHWM) set to what is resident
    fh.write("5")
now = kib("VmRSS")
analyze_many([board], columns=["mean", "variance"])
peak = kib("VmHWM") - now
from snl_numeric.chain import sure_states
from snl_numeric._core.solve import Solver
cb = board.compiled
active = sure_states(cb).copy()
active[cb.size] = False
print(json.dumps({"peak": peak, "k": Solver(cb.succ, cb.probs, active).k}))
"""


_TRACED = r"""
import json, sys, tracemalloc
from snl_numeric import Board
from snl_numeric.batch import BoardBatch
from snl_numeric.batch.run import _run_kernel, make_settings
from snl_numeric._core.numba_config import make_kernels
make_kernels()  # (kernels are made on first use: not inside the traced call)
batch = BoardBatch.from_boards([Board.from_dict(json.loads(sys.argv[1]))])
settings = make_settings(["mean", "variance"], "raise", 1e-12, 10**7, 1)
# (the first run's own allocations, e.g. Python's caches: not the board's)
_run_kernel(BoardBatch.from_boards([Board(30, {25: 3, 20: 10})]), settings)
tracemalloc.start()
out = _run_kernel(batch, settings)
print(json.dumps([tracemalloc.get_traced_memory()[1], int(out.targets[0]), int(out.status[0])]))
"""


def _traced(board: Board) -> tuple[int, int, int]:
    """The peak bytes traced while the batch kernels run as Python (NUMBA_DISABLE_JIT: every
    array they make is traced) on ``board`` alone, its backward targets and status."""
    out = subprocess.run([sys.executable, "-c", _TRACED, json.dumps(board.to_dict())],
                         capture_output=True, text=True, check=True, timeout=900,
                         env={**os.environ, "NUMBA_DISABLE_JIT": "1"})
    peak, k, status = json.loads(out.stdout.strip().splitlines()[-1])
    return peak, k, status


def test_a_small_rows_memory_estimate_is_within_one_and_a_half_of_its_peak():
    from snl_numeric.batch.kernels import row_bytes

    n = 1000
    peak, k, status = _traced(random_board(n, 0.1, rng=1))  # (k: the kernel's own count)
    assert status == 0
    estimate = row_bytes(n, 6, k)
    assert estimate / 1.5 <= peak <= estimate * 1.5, (peak, estimate)


#: 96 backward targets on 201 squares (snakes from every odd square down 7): the
#: capacitance's factors (``(k + 1) x k``) are half the size of the Woodbury columns.
BACKWARD = Board(200, {s: s - 7 for s in range(9, 200, 2)})


def test_a_rows_memory_estimate_bounds_its_peak_with_many_backward_targets():
    from snl_numeric.batch.kernels import row_bytes

    peak, k, status = _traced(BACKWARD)
    assert k == 96 and status == 0  # (solved by the kernel)
    assert peak <= row_bytes(200, 6, k) <= 1.5 * peak, (peak, row_bytes(200, 6, k))


def test_rows_beyond_the_memory_budget_are_routed_as_before(monkeypatch):
    """A row whose table and search exceed the budget is refused (``TOO_LARGE``); one whose
    Woodbury arrays, capacitance included, exceed it goes to the single-board solver."""
    from snl_numeric.batch import BoardBatch
    from snl_numeric.batch import run as batch_run
    from snl_numeric.batch.kernels import NEEDS_SOLVER, TOO_LARGE, row_bytes

    batch = BoardBatch.from_boards([BACKWARD])
    settings = batch_run.make_settings(["mean"], "raise", 1e-12, 10**7, 1)
    full = row_bytes(200, 6, 96)
    for budget, problem, status in [(full, 0, 0), (full - 1, 0, NEEDS_SOLVER),
                                    (row_bytes(200, 6, 95), 0, NEEDS_SOLVER),
                                    (row_bytes(200, 6) - 1, TOO_LARGE, 0)]:
        monkeypatch.setattr(batch_run, "_row_budget", lambda b=budget: b)
        out = batch_run._run_kernel(batch, settings)
        assert (out.problem[0], out.status[0]) == (problem, status), budget
        if problem:
            with pytest.raises(ValueError, match="needs about .* of memory for batch analysis"):
                analyze_many([BACKWARD], columns=["mean"])
        else:
            df = analyze_many([BACKWARD], columns=["mean"])
            assert df["mean"].iloc[0] == pytest.approx(expected_throws(BACKWARD), rel=1e-12)


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="Linux's /proc")
@pytest.mark.parametrize("n", [10**4, 10**5, 10**6])
def test_a_batch_rows_memory_estimate_is_within_one_and_a_half_of_its_peak(n):
    # every term of the estimates is linear in n: at 10**6 the constants are already
    # negligible, so 10**7 (140 s, a quarter of the suite) would check the same slopes
    from snl_numeric.batch.kernels import row_bytes
    from snl_numeric.compile import table_bytes

    out = subprocess.run([sys.executable, "-c", _PEAK, str(n), "0.1"], capture_output=True,
                         text=True, check=True, timeout=1800)
    measured = json.loads(out.stdout.strip().splitlines()[-1])
    peak, k = measured["peak"], measured["k"]
    if k <= 512:  # the per-board kernel's Woodbury arrays
        estimate = row_bytes(n, 6, k)
    else:  # handed to the single-board solver
        estimate = max(table_bytes(n, 6), table_bytes(n, 6, kept=True)
                       + solver_bytes(n + 1, 6, k))
    assert estimate / 1.5 <= peak <= estimate * 1.5, (peak / 2**20, estimate / 2**20)


def test_no_warning_on_a_plain_batch():
    bl = [Board(30), Board(30, {29: 0})]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = analyze_many(bl, columns=["median", "mean"])
    for i, b in enumerate(bl):  # and the answers are the obvious ones
        want = naive.batch_row(b.size, b.jumps)
        assert df["median"].iloc[i] == want["median"]
        assert df["mean"].iloc[i] == pytest.approx(want["mean"], rel=1e-12)
