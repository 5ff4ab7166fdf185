"""The capacitance preconditioner of slow-mixing boards (issue 53): its paths against a
plain walk and the capacitance matrix formed column by column, its solve against a dense
one, and GMRES preconditioned by it against the Woodbury twin."""

from __future__ import annotations

import warnings

import naive
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from snl_numeric import Board, expected_throws_all, solver_report
from snl_numeric.chain import sure_states
from snl_numeric._core.solve import TARGET_ERROR, WARN_ERROR, Solver
from snl_numeric._core.solve.greedy import (
    CYCLE_MARGIN,
    MIN_SHARE,
    NONE,
    THRESHOLD,
    greedy_paths_kernel,
    greedy_plan_kernel,
    greedy_solve,
)
from snl_numeric._core.solve.krylov import capacitance_apply
from snl_numeric.boards import random_board


def _gmres(board: Board) -> Solver:
    cb = board.compiled
    active = sure_states(cb).copy()
    active[cb.size] = False
    return Solver(cb.succ, cb.probs, active, method="gmres")


def _capacitance(s: Solver) -> np.ndarray:
    """``S = I - W[D]``, column by column (one sweep each)."""
    op = (s._succ, s._probs, s.pstride, s._active, s.block_start, s.offsets, s.lu, s.piv)
    work = (s.landing, np.zeros(int(s.landing[2].max()) + 1), np.empty(s.n))
    no_t = (np.zeros((0, 1)), np.empty((0, 1)), np.empty((0, 1)))
    out = np.empty((s.k, s.k))
    e = np.zeros(s.k)
    for c in range(s.k):
        e[c] = 1.0
        capacitance_apply(False, op, s.targets, e, work, no_t, out[:, c], NONE, np.empty(0))
        e[c] = 0.0
    return out


_slow = st.sampled_from([{1: 0.99, 6: 0.01}, {1: 0.9, 2: 0.1}, {1: 0.8, 3: 0.2},
                         {1: 0.97, 2: 0.02, 5: 0.01}])


@settings(max_examples=20, deadline=None)
@given(st.integers(200, 1500), st.floats(0.05, 0.3), _slow,
       st.sampled_from(["win", "exact", "bounce"]), st.integers(0, 2**32 - 1))
def test_paths_match_a_plain_walk_and_bound_the_capacitance_matrix(size, jumps, dice,
                                                                  overshoot, seed):
    board = random_board(size, jumps, rng=seed, overshoot=overshoot, dice=dice)
    s = _gmres(board)
    phi, w = greedy_paths_kernel(s._succ, s._probs, s.pstride, s._active, s.block_start,
                                 s.targets)
    want_phi, want_w = naive.greedy_paths(s._succ, s._probs, s._active, s.block_start,
                                          s.targets)
    np.testing.assert_array_equal(phi, want_phi)
    np.testing.assert_allclose(w, want_w, rtol=1e-13, atol=0)
    if s.k and s.k <= 400:  # one path's chance is at most the whole row entry (> 1/2:
        wd = np.eye(s.k) - _capacitance(s)  # so the row's largest)
        rows = np.flatnonzero(phi >= 0)
        assert np.all(w[rows] <= wd[rows, phi[rows]] * (1 + 1e-12))
        assert np.all(w[rows] > THRESHOLD)
        np.testing.assert_array_equal(np.argmax(wd[rows], axis=1), phi[rows])


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_the_map_system_is_solved_exactly(k, seed):
    rng = np.random.default_rng(seed)
    phi = np.where(rng.random(k) < 0.8, rng.integers(0, k, size=k), -1).astype(np.int32)
    w = np.where(phi >= 0, rng.uniform(0.5, 0.999, size=k), 0.0)
    given = phi.copy()
    seq, cycles, cstart = greedy_plan_kernel(phi, w)  # cuts cycles of chance near 1
    cut = np.flatnonzero(phi != given)
    assert np.all(phi[cut] == -1)
    for c in cut:  # each the first of a cycle of chance at least 1 - CYCLE_MARGIN
        chance, d = w[c], given[c]
        while d != c:
            chance, d = chance * w[d], given[d]
        assert chance >= 1 - CYCLE_MARGIN
    for i in range(len(cstart) - 1):
        assert np.prod(w[cycles[cstart[i]: cstart[i + 1]]]) < 1 - CYCLE_MARGIN
    pre = (phi, w, seq, cycles, cstart)
    m = np.eye(k)
    rows = np.flatnonzero(phi >= 0)
    np.add.at(m, (rows, phi[rows]), -w[rows])
    v = rng.standard_normal(k)
    z = np.empty(k)
    greedy_solve(pre, v, z)
    np.testing.assert_allclose(z, np.linalg.solve(m, v), rtol=1e-9, atol=1e-9)
    # every target with a path is placed once: after the one it leads to, or first in
    # its cycle
    assert sorted(seq.tolist() + cycles[cstart[:-1]].tolist()) == rows.tolist()


@settings(max_examples=20, deadline=None)
@given(st.integers(300, 3000), st.floats(0.05, 0.3), _slow,
       st.sampled_from(["win", "exact", "bounce"]), st.integers(0, 2**32 - 1))
def test_preconditioned_gmres_solves_as_the_woodbury_twin(size, jumps, dice, overshoot, seed):
    board = random_board(size, jumps, rng=seed, overshoot=overshoot, dice=dice)
    gmres = _gmres(board)
    ones = gmres.active.astype(float)
    sol = gmres.solve(ones)
    twin = Solver(gmres.succ, board.compiled.probs, gmres.active, method="woodbury")
    ref = twin.solve(ones)
    # (boards whose token nearly never escapes a loop, 1e16 throws, certify only to a few
    # 1e-11 in the refining rounds allowed, unpreconditioned as well): the bound is honest
    assert sol.error < WARN_ERROR or sol.method == "woodbury"
    np.testing.assert_allclose(sol.x, ref.x, rtol=max(sol.error, TARGET_ERROR) + ref.error,
                               atol=0)
    t = gmres.solve(ones, trans=True)  # transposed: not preconditioned
    np.testing.assert_allclose(t.x, twin.solve(ones, trans=True).x, rtol=1e-9, atol=0)


def test_a_slow_die_is_preconditioned_and_a_fair_one_is_not():
    slow = _gmres(random_board(20_000, 0.1, rng=1, dice={1: 0.99, 6: 0.01}))
    fair = _gmres(random_board(20_000, 0.1, rng=1))
    assert np.count_nonzero(slow.pre[0] >= 0) >= MIN_SHARE * slow.k
    assert fair.pre[0].size == 0
    ones = slow.active.astype(float)
    plain = _gmres(random_board(20_000, 0.1, rng=1, dice={1: 0.99, 6: 0.01}))
    plain.pre = fair.pre  # the same board without the preconditioner
    a, b = slow.solve(ones), plain.solve(ones)
    assert a.error < TARGET_ERROR and b.error < TARGET_ERROR
    np.testing.assert_allclose(a.x, b.x, rtol=2 * TARGET_ERROR, atol=0)
    assert 3 * a.iterations < b.iterations  # (measured: 28 against 105)


def test_the_benchmark_family_solves_t_equals_one_plus_p_t():
    board = random_board(100_000, 0.1, rng=1, dice={1: 0.99, 6: 0.01})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        every = expected_throws_all(board)
    rep = solver_report(board)
    assert rep.method == "gmres" and rep.iterations < 100 and rep.error_estimate < TARGET_ERROR
    p = naive.large_transitions(board)
    every[board.size] = 0.0
    np.testing.assert_allclose(every[:-1], 1.0 + (p @ every)[:-1], rtol=1e-12)
