"""Large boards: the structured solver, the banded distribution kernel, fast compilation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import snl_numeric as snl
from snl_numeric import Board, Dice
from snl_numeric._core.sizes import ORDINARY_ENTRIES, SMALL_SYSTEM
from snl_numeric._core.vectorised import succ_table
from snl_numeric.boards import random_board
from snl_numeric.chain import fundamental, solver_report
from tests import naive

RULES = ("win", "exact", "bounce")
DICE = (None, Dice.sum_of(2), {1: 0.5, 3: 0.5})


def jumpy_board(size, fraction, rng, **rules):
    """Random jumps whose destinations may start other jumps (chains), no cycles."""
    gen = np.random.default_rng(rng)
    while True:
        src = gen.choice(np.arange(1, size), size=int(fraction * size), replace=False)
        dst = gen.integers(0, size + 1, size=len(src))
        keep = dst != src
        try:
            return Board(size, np.column_stack([src[keep], dst[keep]]), **rules)
        except ValueError:  # a cycle under chain=True: draw again
            continue


def close(ours, ref, rtol=1e-10):
    """Same inf pattern, and finite entries within ``rtol`` relative to the largest."""
    assert np.array_equal(np.isinf(ours), np.isinf(ref))
    fin = np.isfinite(ref)
    scale = max(1.0, float(np.abs(ref[fin]).max())) if fin.any() else 1.0
    err = np.abs(ours[fin] - ref[fin])
    assert np.all(err <= rtol * np.maximum(np.abs(ref[fin]), 1e-3 * scale)), err.max()


@pytest.mark.parametrize(("overshoot", "chain", "dice"),
                         list(itertools.product(RULES, (False, True), DICE)))
def test_moments_match_direct_solve(overshoot, chain, dice, path):
    board = jumpy_board(2500, 0.08, rng=11, overshoot=overshoot, chain=chain, dice=dice)
    mean, var, _, _ = naive.large_moments(board)
    close(snl.expected_throws_all(board), mean)
    close(snl.throws_variance_all(board), var)
    rep = solver_report(board)
    # exact landing with 2d6: square size - 1 never finishes, so most squares are unsure
    methods = ("lu", "splu", "gth") if path == "direct" else ("triangular", "woodbury", "gmres")
    assert rep.method in methods
    assert rep.residual < 1e-13 and rep.error_estimate < 1e-10
    assert rep.unknowns == int(np.isfinite(mean[:-1]).sum())


@pytest.mark.parametrize("overshoot", RULES)
def test_random_board_50k(overshoot):
    board = random_board(50_000, 0.1, rng=5, overshoot=overshoot, dice={1: 0.5, 3: 0.5})
    mean, _, sure, _ = naive.large_moments(board)
    close(snl.expected_throws_all(board), mean)
    rep = solver_report(board)
    assert rep.method == "gmres" and rep.iterations > 0 and rep.residual < 1e-13


def test_residual_floor_certified_by_a_componentwise_correction(monkeypatch):
    # a slow die: max(t) u puts the residual of any double answer near the target; one
    # refining round, its GMRES stopped on the certificate's criterion against b, certifies
    from snl_numeric._core.solve import Solver

    seen = []
    once = Solver._once

    def spy(self, b, trans, tol, scale=None, limit=Solver._once.__defaults__[-1]):
        out = once(self, b, trans, tol, scale, limit)
        seen.append((tol, scale is not None, out[1]))
        return out

    monkeypatch.setattr(Solver, "_once", spy)
    board = random_board(50_000, 0.1, rng=1, dice={1: 0.97, 2: 0.03})
    mean = snl.expected_throws_all(board)
    rep = solver_report(board)
    assert [(tol, scaled) for tol, scaled, _ in seen] == [(5e-12, False), (5e-12, True)]
    # the first solve stops where GMRES has cost SuperLU's least (the table alone); the
    # envelope of the backward moves then prices SuperLU above the steps GMRES needs, and
    # the correction finishes (98 steps in all; 90 without the stop, the same time)
    from snl_numeric.chain import fundamental

    assert fundamental(board.compiled).step_budget() > seen[0][2] + seen[1][2]
    assert rep.method == "gmres" and rep.error_estimate < 1e-11
    assert rep.iterations == seen[0][2] + seen[1][2]
    close(mean, naive.large_moments(board)[0])


def test_method_chosen_by_structure(structured):
    ladders = random_board(3000, 0.1, snake_fraction=0.0, rng=1)
    assert solver_report(ladders).method == "triangular"
    assert solver_report(ladders).iterations == 0
    exact = ladders.replace(overshoot="exact")  # self-loops only: still triangular
    assert solver_report(exact).method == "triangular"
    few = Board(3000, {1500: 3, 2990: 10, 2000: 1000, 700: 3}, overshoot="bounce")
    rep = solver_report(few)
    assert rep.method == "woodbury" and rep.backward_targets >= 3
    for b in (ladders, exact, few):
        close(snl.expected_throws_all(b), naive.large_moments(b)[0])
    assert solver_report(Board(SMALL_SYSTEM // 2)).method == "triangular"
    assert solver_report(random_board(SMALL_SYSTEM * 10, rng=2)).method == "gmres"


def test_unsure_regions_are_inf():
    # odd goal, even faces under "exact": even squares never finish; snakes to them
    # make odd squares unsure too
    jumps = {x: x - 501 for x in range(1001, 3001, 200)}
    board = Board(3001, jumps, overshoot="exact", dice={2: 0.5, 4: 0.5}, start=1)
    mean, var, sure, _ = naive.large_moments(board)
    ours = snl.expected_throws_all(board)
    assert np.isinf(ours).sum() > 1500
    close(ours, mean)
    close(snl.throws_variance_all(board), var)
    assert snl.expected_throws(board, 2) == np.inf
    assert snl.finish_probability(board, 2) == 0.0


def test_transposed_solves_match_dense():
    board = jumpy_board(3000, 0.1, rng=3, overshoot="bounce")
    _, _, sure, p = naive.large_moments(board)
    solver = fundamental(board.compiled)
    assert np.array_equal(np.flatnonzero(solver.active), sure)
    a = np.eye(len(sure)) - p[sure][:, sure].toarray()
    rhs = np.random.default_rng(0).random((len(sure), 3))
    for j in range(3):
        b = np.zeros(board.size + 1)
        b[sure] = rhs[:, j]
        np.testing.assert_allclose(solver.solve(b).x[sure], np.linalg.solve(a, rhs[:, j]),
                                   rtol=1e-10)
        np.testing.assert_allclose(solver.solve(b, trans=True).x[sure],
                                   np.linalg.solve(a.T, rhs[:, j]), rtol=1e-10)


def test_analyze_large_board_visits_sum_to_mean():
    board = jumpy_board(1500, 0.05, rng=4, overshoot="exact")
    a = snl.analyze(board)
    assert a.expected_visits.sum() == pytest.approx(a.mean, rel=1e-10)
    assert a.pmf @ np.arange(len(a.pmf)) == pytest.approx(a.mean, rel=1e-6)


@pytest.mark.parametrize(("overshoot", "chain"), list(itertools.product(RULES, (False, True))))
def test_length_distribution_matches_sparse_products(overshoot, chain):
    board = jumpy_board(1200, 0.05, rng=8, overshoot=overshoot, chain=chain,
                        dice=Dice.sum_of(2))
    pmf = snl.length_distribution(board, tail=1e-9)
    ref = naive.large_pmf(board, board.start, len(pmf))
    np.testing.assert_allclose(pmf, ref, rtol=1e-9, atol=1e-15)
    assert 0.0 <= snl.finish_probability(board) - pmf.sum() < 1e-8


def test_length_distribution_local_board():
    # mass stays in a narrow band: the banded kernel touches few squares per throw
    board = Board(20_000, {x: x - 3 for x in range(10, 19_990, 10)}, overshoot="exact")
    pmf = snl.length_distribution(board, tail=1e-10)
    assert pmf @ np.arange(len(pmf)) == pytest.approx(snl.expected_throws(board), rel=1e-8)
    ref = naive.large_pmf(board, 0, len(pmf))
    np.testing.assert_allclose(pmf, ref, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize(("overshoot", "chain", "dice"),
                         list(itertools.product(RULES, (False, True), DICE)))
def test_compile_and_distances_match_rules(overshoot, chain, dice):
    board = jumpy_board(700, 0.15, rng=9, overshoot=overshoot, chain=chain, dice=dice)
    cb = board.compiled
    for x in range(0, board.size + 1, 7):
        for f, face in enumerate(cb.faces):
            assert cb.succ[x, f] == naive.large_successor(board, x, int(face))
    np.testing.assert_array_equal(snl.throw_distances(board), naive.large_distances(board))
    assert snl.min_throws(board) == naive.large_distances(board)[board.start]


@pytest.mark.parametrize(("overshoot", "chain"), list(itertools.product(RULES, (False, True))))
def test_large_tables_are_int32_and_match_numpy(overshoot, chain):
    # above ORDINARY_ENTRIES the table is compiled by the kernel, as int32 (half the memory
    # and faster sweeps); the same squares and fired jumps as the NumPy path's
    board = jumpy_board(ORDINARY_ENTRIES // 2, 0.15, rng=5, overshoot=overshoot, chain=chain,
                        dice={1: 0.5, 3: 0.5})
    cb = board.compiled
    assert not cb.ordinary and cb.succ.dtype == np.int32
    jump_to = np.full(board.size + 1, -1)
    jump_to[cb.jump_src] = cb.jump_dst
    succ, landed = succ_table(board.size, jump_to, overshoot, chain, cb.faces, landing=True)
    np.testing.assert_array_equal(cb.succ, succ)
    np.testing.assert_array_equal(cb.fired, np.where(landed >= 0, cb.jump_index[landed], -1))


@settings(deadline=None, max_examples=15)
@given(size=st.integers(SMALL_SYSTEM + 1, 1500), frac=st.floats(0.0, 0.3), seed=st.integers(0, 10**6),
       overshoot=st.sampled_from(RULES), chain=st.booleans(), dice=st.sampled_from(DICE))
def test_property_large_matches_naive(size, frac, seed, overshoot, chain, dice):
    board = jumpy_board(size, frac, rng=seed, overshoot=overshoot, chain=chain, dice=dice)
    mean, var, _, _ = naive.large_moments(board)
    ours = snl.expected_throws_all(board)
    close(ours, mean)
    close(snl.throws_variance_all(board), var)
    fin = np.isfinite(ours)
    dist = snl.throw_distances(board)
    assert np.all(ours[fin] >= dist[fin] * (1 - 1e-14))  # E[T] >= min T, up to rounding
    assert solver_report(board).residual < 1e-13


def test_random_board_arrays_and_errors():
    b = random_board(10**5, 0.1, rng=1, chain=True)
    assert len(b.jumps) == 10**4 - 0  # round(0.1 * (size - 1))
    src = np.fromiter(b.jumps, dtype=np.int64)
    assert np.all(np.diff(src) > 0)
    assert b == Board.from_dict(b.to_dict())
    with pytest.raises(ValueError, match=r"jump cycle under chain=True: 1->5->3->1"):
        Board(10, {1: 5, 5: 3, 3: 1}, chain=True)
    with pytest.raises(ValueError, match="jump_fraction"):
        random_board(100, 1.5)
    with pytest.raises(TypeError, match="size"):
        random_board(10.0)
