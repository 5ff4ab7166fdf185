"""Issue 24: one ordinary board answered with NumPy/SciPy and nothing compiled; the direct and
structured paths are each other's twins. Issue 28: bounds that bound, survival pushed
forward directly."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import naive
import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import given, settings
from hypothesis import strategies as st
from subproc import COMPILE_LISTENER

import snl_numeric as snl
from snl_numeric import Board, Dice
from snl_numeric._core import sizes
from snl_numeric._core.solve import DirectSolver, Solution, Solver
from snl_numeric.boards import random_board
from snl_numeric.chain import fundamental

HERE = Path(__file__).resolve().parent


def everything(board):
    """Every single-board answer, from a fresh copy of ``board``."""
    b = board.replace()
    cb = b.compiled
    out = {"dist": cb.reach[0], "sure": cb.reach[1], "succ": cb.succ,
           "mean": snl.expected_throws_all(b), "var": snl.throws_variance_all(b),
           "finish": snl.finish_probability(b)}
    if np.isfinite(out["mean"][b.start]) and b.start != b.size:
        a = snl.analyze(b, jump_probability=True)
        out["visits"] = a.expected_visits
        out["uses"] = np.array(list(a.jump_uses.values()))
        out["jump_p"] = np.array(list(a.jump_probability.values()))
    if cb.reach[0][b.start] >= 0:
        out["pmf"] = snl.length_distribution(b, tail=1e-10, max_throws=10**6)
    return out


def assert_twins(a, b, faces, rtol=1e-12):
    """Equal answers; the pmf's ``k``-th entry within the rounding of ``k`` pushes (each
    entry of a push a sum of at most ``faces`` products per square moved from, summed in
    another order by the other path)."""
    assert a.keys() == b.keys()
    for key in a:
        x, y = np.asarray(a[key]), np.asarray(b[key])
        assert x.shape == y.shape, key
        if x.dtype.kind in "biu":
            np.testing.assert_array_equal(x, y, err_msg=key)
        elif key == "pmf":
            tol = rtol + np.arange(len(x)) * 2 * (faces + 1) * np.finfo(float).eps
            assert (np.abs(x - y) <= tol * y + 1e-300).all(), key
        else:
            np.testing.assert_allclose(x, y, rtol=rtol, atol=1e-300, err_msg=key)


@settings(max_examples=120, deadline=None)
@given(board_strategy(max_size=40))
def test_direct_and_structured_paths_are_twins(board):
    with snl.options(path="direct"):
        direct = everything(board)
    with snl.options(path="structured"):
        structured = everything(board)
    assert_twins(direct, structured, len(board.dice.faces))


@pytest.mark.parametrize("rules", [{}, {"overshoot": "exact"}, {"overshoot": "bounce"},
                                   {"chain": True}, {"dice": Dice.sum_of(2)}])
def test_both_sides_of_the_size(rules):
    """The same board just below and just above the ordinary size: both answers agree with
    an independent sparse solve, and only the first is ordinary."""
    faces = len(rules.get("dice", Dice.fair(6)).faces)
    size = sizes.ORDINARY_ENTRIES // faces
    small = random_board(size - 2, 0.1, rng=4, **rules)
    large = Board(size + 10, small.jumps, **rules)
    assert small.compiled.ordinary and not large.compiled.ordinary
    for b in (small, large):
        mean, var, _, _ = naive.large_moments(b)
        fin = np.isfinite(mean)
        np.testing.assert_allclose(snl.expected_throws_all(b)[fin], mean[fin], rtol=1e-10)
        np.testing.assert_allclose(snl.throws_variance_all(b)[fin], var[fin], rtol=1e-9)
        np.testing.assert_array_equal(snl.throw_distances(b), naive.large_distances(b))
    assert fundamental(small.compiled).method in ("splu", "gth")
    assert fundamental(large.compiled).method in ("triangular", "woodbury", "gmres")


@pytest.mark.parametrize("n", [12, 30, 60])
def test_huge_expectations_on_both_paths(n, path):
    """Expected lengths up to 1e47: LU cannot be certified there, and the cancellation-free
    elimination (GTH here, the structured solver's otherwise) is exact to 1e-12."""
    board = naive.run_board(n)
    mean, var = naive.run_moments(n)
    rep = snl.solver_report(board)
    assert rep.error_estimate < 1e-11
    if path == "direct" and n >= 30:
        assert rep.method == "gth"
    for ours, exact in ((snl.expected_throws(board), mean),
                        (snl.throws_variance(board), var)):
        assert abs(Fraction(ours) - exact) / exact < 1e-12


def test_far_snakes_direct_path_is_exact():
    """Expected lengths up to ~1e31 on 1,000 squares: SuperLU's answer cannot be certified,
    GTH elimination's is, to every digit the reference has."""
    gen = np.random.default_rng(3)
    n = 1000
    src = gen.choice(np.arange(10, n), size=n // 5, replace=False)
    mark = np.zeros(n, bool)
    mark[src] = True
    run = 0
    for i in range(n):
        run = run + 1 if mark[i] else 0
        if run >= 6:
            mark[i], run = False, 0
    board = Board(n, {int(x): int(gen.integers(0, x)) for x in np.flatnonzero(mark)})
    t = snl.expected_throws_all(board)
    rep = snl.solver_report(board)
    assert rep.method == "gth" and rep.error_estimate < 1e-11 and rep.condition > 1e30
    ref = naive.naive_expected_gth(board)
    fin = np.isfinite(ref) & (ref > 0)
    np.testing.assert_allclose(t[fin], ref[fin], rtol=1e-12)


def test_snakes_near_goal_by_gth_in_descending_order():
    """The family of 100 snakes near the goal on 1,000 squares (1.6e16 expected throws):
    LU cannot certify it and GTH elimination answers, in descending order (a few
    multipliers per column; in increasing order every column below the snakes' heads had
    hundreds), certified, within both bounds of the structured solver's elimination."""
    from benchmarks._families import snakes_near_goal

    board = snakes_near_goal(1000)
    t = snl.expected_throws_all(board)
    rep = snl.solver_report(board)
    assert rep.method == "gth" and rep.error_estimate < 1e-11 and rep.condition > 1e15
    with snl.options(path="structured"):
        twin = Board.from_dict(board.to_dict())
        ts, reps = snl.expected_throws_all(twin), snl.solver_report(twin)
    assert reps.error_estimate < 1e-11
    np.testing.assert_allclose(t, ts, rtol=rep.error_estimate + reps.error_estimate, atol=0)


# -- issue 28: the certified bound covers the true error ---------------------------------------
@st.composite
def lopsided_dice(draw):
    """Dice of 2 to 9 faces with probabilities that are not exact in binary."""
    faces = draw(st.lists(st.integers(1, 9), min_size=2, max_size=9, unique=True))
    weights = draw(st.lists(st.integers(1, 97), min_size=len(faces), max_size=len(faces)))
    probs = np.array(weights, float) / sum(weights)
    return dict(zip(faces, probs.tolist(), strict=True))


@settings(max_examples=60, deadline=None)
@given(board_strategy(max_size=14), lopsided_dice(), st.booleans())
def test_certified_bound_covers_the_true_error(board, dice, lopsided):
    if lopsided:
        rules = {"dice": dice}
        if board.overshoot == "bounce" and max(dice) > board.size + 1:
            rules["overshoot"] = "exact"
        board = board.replace(**rules)
    if board.start not in naive.naive_sure(board):  # the twin says: may never finish
        assert snl.expected_throws(board) == math.inf
        return
    if board.start == board.size:
        return
    mean, var = naive.exact_chain_moments(board)
    bound = snl.solver_report(board).error_estimate
    assert abs(Fraction(snl.expected_throws(board)) - mean) <= bound * mean


def test_fixed_length_game_has_zero_variance():
    # every game takes exactly 10 throws: t = 10 - x, variance 0 exactly
    board = Board(10, dice={1: 1.0})
    assert snl.throws_variance_all(board).tolist() == [0.0] * 11
    assert snl.analyze(board).variance == 0.0


# -- issue 28: survival is pushed forward, never one minus the finished mass -------------------
def test_fast_and_slow_players_mean_length_is_unbiased():
    board = Board(9, {2: 6, 7: 0, 1: 2}, overshoot="bounce", dice={1: 0.999, 2: 0.001})
    game = snl.expected_game_length(board, starts=[7, 1])
    exact = naive.players_joint_length([board, board], [7, 1])
    assert exact == pytest.approx(2.999999999001, rel=1e-12)
    assert game.mean_throws == pytest.approx(exact, rel=1e-11)


def test_win_probabilities_take_max_throws():
    board = naive.run_board(8)  # E = 2e6 throws
    with pytest.raises(ValueError, match="raise max_throws or tail"):
        snl.win_probabilities(board, 2, max_throws=1000)
    with pytest.raises(ValueError, match="max_throws must be"):
        snl.expected_game_length(board, 2, max_throws=0)


# -- issue 24: nothing compiled on ordinary boards -----------------------------------------------
ENTRY_POINTS = COMPILE_LISTENER + """
import json, os
import snl_numeric as snl
from snl_numeric import boards
from snl_numeric.boards import random_board
for board in (boards.get("milton-bradley"), random_board(1000, 0.1, rng=7)):
    snl.analyze(board, jump_probability=True)
    snl.expected_throws(board), snl.expected_throws_all(board)
    snl.throws_variance(board), snl.throws_variance_all(board)
    snl.length_distribution(board), snl.finish_probability(board)
    snl.min_throws(board), snl.shortest_path(board), snl.throw_distances(board)
    snl.win_probabilities(board, 3), snl.expected_game_length(board, 2)
    snl.solver_report(board)
print(json.dumps(compiled))
"""


def test_ordinary_boards_compile_nothing(tmp_path):
    cache = tmp_path / "cache"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(HERE)}
    out = subprocess.run([sys.executable, "-c", ENTRY_POINTS], env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout) == []
    assert not list(cache.rglob("*.nb[ic]"))  # no entry (Numba makes its folders at import)


def test_direct_solver_threads_share_one_board():
    """Threads asking for every answer of one fresh board at once get the same numbers."""
    from concurrent.futures import ThreadPoolExecutor

    board = random_board(300, 0.2, rng=2, overshoot="bounce")
    expected = everything(board)
    shared = board.replace()

    def work(_):
        return snl.expected_throws_all(shared), snl.throws_variance_all(shared)

    with ThreadPoolExecutor(8) as pool:
        for mean, var in pool.map(work, range(16)):
            np.testing.assert_array_equal(mean, expected["mean"])
            np.testing.assert_array_equal(var, expected["var"])


def test_solvers_agree_on_several_columns_and_transposes():
    board = random_board(200, 0.2, rng=5)
    cb = board.compiled
    act = cb.reach[1].copy()
    act[-1] = False
    gen = np.random.default_rng(0)
    b = np.where(act[:, None], gen.random((cb.n_states, 4)), 0.0)
    direct, structured = DirectSolver(cb.succ, cb.probs, act), Solver(cb.succ, cb.probs, act)
    for trans in (False, True):
        x, y = direct.solve(b, trans), structured.solve(b, trans)
        np.testing.assert_allclose(x.x, y.x, rtol=1e-12)
        assert x.error < 1e-12 and y.error < 1e-11


def _throws_twice(board, probs=None):
    """``throws()`` (certified by one LU solve where it can be), the general ``solve`` of
    the same column, each by a fresh solver, and whether the one solve certified it
    (``probs``: the dice's, or a row per square)."""
    cb = board.compiled
    probs = cb.probs if probs is None else probs
    act = cb.sure.copy()
    act[-1] = False
    fast = DirectSolver(cb.succ, probs, act)
    general = DirectSolver(cb.succ, probs, act).solve(act.astype(np.float64))
    return fast.throws(), general, isinstance(fast._throws_at_once(), Solution)


@settings(max_examples=150, deadline=None)
@given(board_strategy(max_size=60))
def test_expected_throws_by_one_solve_are_the_general_solves(board):
    fast, general, _ = _throws_twice(board)
    np.testing.assert_array_equal(fast.x, general.x)
    assert fast.error == general.error and fast.method == general.method


@pytest.mark.parametrize("n", [12, 30, 60])
def test_expected_throws_one_solve_cannot_certify_go_the_general_way(n):
    """Expected lengths of 1e4 to 1e47 throws: the residual in double precision does not
    certify the first LU answer, so ``throws()`` is the general refined (or GTH) answer.
    (Milton Bradley's is certified at once: ``test_milton_bradley_throws_in_one_solve``.)"""
    fast, general, at_once = _throws_twice(naive.run_board(n))
    assert not at_once and fast.method == general.method == ("lu" if n == 12 else "gth")
    np.testing.assert_array_equal(fast.x, general.x)
    assert fast.error == general.error < 1e-11


@pytest.mark.parametrize("per_square", [False, True])
def test_milton_bradley_throws_in_one_solve(per_square):
    """Certified by one solve, with the die's probabilities or a row per square (the
    policies' and races' systems)."""
    board = snl.boards.get("milton-bradley")
    probs = (np.random.default_rng(3).dirichlet(np.ones(6), size=board.size + 1)
             if per_square else None)
    fast, general, at_once = _throws_twice(board, probs)
    assert at_once and fast.error == general.error < 1e-12
    np.testing.assert_array_equal(fast.x, general.x)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 30), st.integers(1, 3), st.booleans(), st.integers(0, 2**32 - 1))
def test_double_residual_bounds_cover_the_exact_residuals(m, cols, per_square, seed):
    """The residuals of ``A x`` (each row summed as ``sum_f p_f (x_i - x_to)``) and of
    ``A^T x`` (each row's bound by its own count of moves in) in double precision are
    within their bounds of the exact residuals, in rationals, for values of either sign
    and any size."""
    rng = np.random.default_rng(seed)
    n = m + 1  # the last square is off the system
    succ = rng.integers(0, n, (n, 4))
    probs = rng.dirichlet(np.ones(4), size=n) if per_square else rng.dirichlet(np.ones(4))
    solver = DirectSolver(succ, probs, np.arange(n) < m)
    x = rng.standard_normal((m, cols)) * 10.0 ** rng.integers(0, 8, (m, 1))
    if seed % 2:  # (values >= 0 take the residuals' other branch)
        x = np.abs(x)
    rhs = rng.random((m, cols))
    to, moving = solver.to, solver.moving
    r, bound = solver._residual(rhs, x, False)
    for i in range(m):
        for c in range(cols):
            at = [Fraction(x[t, c]) if t < m else Fraction(0) for t in to[i]]
            exact = Fraction(rhs[i, c]) - sum(Fraction(p) * (Fraction(x[i, c]) - v)
                                              for p, v in zip(moving[i], at, strict=True))
            assert abs(Fraction(r[i, c]) - exact) <= Fraction(bound[i, c])
    r, bound = solver._residual(rhs, x, True)  # A^T: row j is the pivot's and every move in
    for j in range(m):
        for c in range(cols):
            exact = Fraction(rhs[j, c]) - sum(map(Fraction, moving[j])) * Fraction(x[j, c])
            for i, f in zip(*np.nonzero(to == j), strict=True):
                exact += Fraction(moving[i, f]) * Fraction(x[i, c])
            assert abs(Fraction(r[j, c]) - exact) <= Fraction(bound[j, c])


@pytest.fixture
def dd_shapes(monkeypatch):
    """The shapes of the right-hand sides of every residual in double-double, in order."""
    from snl_numeric._core.solve.certify import Rows

    shapes = []
    dd_residual = Rows.dd_residual

    def spy(self, b, hi, lo):
        shapes.append(b.shape)
        return dd_residual(self, b, hi, lo)

    monkeypatch.setattr(Rows, "dd_residual", spy)
    return shapes


def test_hundreds_of_expected_throws_are_certified_without_double_double(dd_shapes):
    """A 1,000-square board (about 240 expected throws from the start, SuperLU): the
    residual of the first answer in double precision certifies it, with no residual in
    double-double (which took a third of the time when the bound grew with |A| |x|)."""
    board = random_board(1000, 0.1, rng=1)
    t = snl.expected_throws_all(board)
    report = snl.solver_report(board)
    assert dd_shapes == []
    assert report.method == "splu" and report.error_estimate < 1e-12
    assert 200 < t[0] < 300 and t.max() == pytest.approx(report.condition)


def test_only_the_columns_not_yet_certified_are_refined(dd_shapes):
    """The visits' solve of a 1,000-square board: of 91 columns (rows of N) one misses
    the target at first and goes to double-double; the rest keep their first answer. Each
    column is what solving it alone gives, bit for bit."""
    cb = random_board(1000, 0.1, rng=1).compiled
    solver = fundamental(cb)
    targets = np.unique(cb.rests[cb.rests < cb.size])
    e = np.zeros((cb.n_states, 1 + len(targets)))
    e[0, 0] = 1.0
    e[targets, np.arange(1, 1 + len(targets))] = 1.0
    sol = solver.solve(e, trans=True)
    widths = [shape[1] for shape in dd_shapes]
    assert e.shape[1] == 91 and widths and set(widths) == {1} and sol.error < 1e-11
    for j in range(e.shape[1]):
        assert solver.solve(e[:, j], trans=True).x.tolist() == sol.x[:, j].tolist()


def test_refinement_takes_a_round_in_double_first(dd_shapes):
    """The variances of a 1,000-square board need t and u tighter than their first
    answers: one refinement round in double precision (A's residual is accurate there)
    brings each within one residual in double-double of its target (two each before, four
    in all). Which of t and u then needs a second one depends on the last bits of the LU
    factors, that is on the BLAS build and the processor's kernels (three on OpenBLAS
    0.3.31's Haswell kernels, two on the host where the test was written)."""
    board = random_board(1000, 0.1, rng=1)
    var = snl.throws_variance_all(board)
    assert set(dd_shapes) == {(1000, 1)} and 2 <= len(dd_shapes) <= 3
    _, ref, sure, _ = naive.large_moments(board)
    np.testing.assert_allclose(var[sure], ref[sure], rtol=1e-9)


@pytest.mark.parametrize("order_a, order_b", [("C", "C"), ("F", "C"), ("C", "F"), ("F", "F")])
def test_scipy_blas_products_are_numpys(order_a, order_b):
    # the single-board path's dense products go through SciPy's BLAS (see _core.blas)
    from snl_numeric._core.blas import matmul

    rng = np.random.default_rng(7)
    a = np.asarray(rng.random((7, 5)), order=order_a)
    b = np.asarray(rng.random((5, 3)), order=order_b)
    v, w = rng.random(5), rng.random(7)
    np.testing.assert_allclose(matmul(a, b), a @ b, rtol=1e-14)
    np.testing.assert_allclose(matmul(a, v), a @ v, rtol=1e-14)
    np.testing.assert_allclose(matmul(w, a), w @ a, rtol=1e-14)
    np.testing.assert_allclose(matmul(a[:, ::2], b[::2]), a[:, ::2] @ b[::2], rtol=1e-14)
    assert matmul(a[:, :0], b[:0]).shape == (7, 3) and not matmul(a[:, :0], b[:0]).any()


@pytest.mark.parametrize("shape_a, shape_b", [((81, 81), (81, 81)), ((128, 128), (128, 48)),
                                              ((3000, 90), (90, 3)), ((1, 300_000), (300_000, 1))])
def test_products_above_the_serial_size_are_made_in_panels(shape_a, shape_b):
    # OpenBLAS hands products above SERIAL_PRODUCT multiply-adds to its worker threads:
    # matmul splits them into panels under it, and the answer is the product's
    from snl_numeric._core.blas import SERIAL_PRODUCT, matmul

    rng = np.random.default_rng(11)
    a, b = rng.random(shape_a), rng.random(shape_b)
    assert a.shape[0] * a.shape[1] * b.shape[1] > SERIAL_PRODUCT
    got = matmul(a, b)
    assert got.shape == (a.shape[0], b.shape[1])
    np.testing.assert_allclose(got, a @ b, rtol=1e-13)


def test_lu_solves_column_by_column_are_the_solve():
    # multi-column LAPACK solves go one column at a time (each on the calling thread)
    from scipy.linalg.lapack import dgetrf, dgetrs

    from snl_numeric._core.blas import columns

    rng = np.random.default_rng(12)
    a = rng.random((40, 40)) + 40.0 * np.eye(40)
    b = rng.random((40, 7))
    lu, piv, _ = dgetrf(a)
    for trans in (0, 1):
        got = columns(lambda c, t=trans: dgetrs(lu, piv, c, trans=t)[0], b)
        np.testing.assert_allclose(got, dgetrs(lu, piv, b, trans=trans)[0], rtol=1e-13)
        np.testing.assert_allclose((a.T if trans else a) @ got, b, rtol=1e-13)
    assert columns(lambda c: dgetrs(lu, piv, c)[0], b[:, :1]).shape == (40, 1)


def test_an_empty_system_is_not_handed_to_lapack(capfd):
    # LAPACK refuses a 0 x 0 matrix by printing to stderr: nothing is solved instead
    s = DirectSolver(np.array([[1], [1]]), np.array([1.0]), np.array([False, False]))
    assert s.unknowns == 0 and s.solve(np.zeros(2)).x.tolist() == [0.0, 0.0]
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("per_square", [False, True])
def test_squares_nobody_moves_to_are_solved_after_the_rest(per_square):
    """Jump sources and the start (no square moves to them) are left out of the LU and
    solved by one product: the answers are A^-1 b and A^-T b all the same."""
    board = snl.boards.get("milton-bradley")
    cb = board.compiled
    n, k = cb.succ.shape
    gen = np.random.default_rng(3)
    probs = gen.random((n, k)) + 0.1 if per_square else cb.probs
    act = np.ones(n, dtype=bool)
    act[-1] = False
    solver = DirectSolver(cb.succ, probs, act)
    assert solver.method == "lu"
    p = np.broadcast_to(probs, (n, k))
    a = np.diag(p.sum(axis=1))  # A = diag(s) - (moves among the system's squares)
    for x in range(n - 1):
        for f in range(k):
            if act[cb.succ[x, f]]:
                a[x, cb.succ[x, f]] -= p[x, f]
    a, s = a[:-1, :-1], p.sum(axis=1)[:-1]
    b = np.vstack([gen.random((n - 1, 3)), np.zeros((1, 3))])
    forward = solver.solve(b)
    backward = solver.solve(b, trans=True)
    np.testing.assert_allclose(forward.x[:-1], np.linalg.solve(a, b[:-1] * s[:, None]),
                               rtol=1e-12)
    np.testing.assert_allclose(backward.x[:-1], np.linalg.solve(a.T, b[:-1]) * s[:, None],
                               rtol=1e-12)
    assert forward.error < 1e-12 and backward.error < 1e-12
    for col in b.T:  # one column: gathered from the table (forward), scattered (transposed)
        np.testing.assert_allclose(solver.solve(col).x[:-1],
                                   np.linalg.solve(a, col[:-1] * s), rtol=1e-12)
        np.testing.assert_allclose(solver.solve(col, trans=True).x[:-1],
                                   np.linalg.solve(a.T, col[:-1]) * s, rtol=1e-12)


def test_many_moves_into_one_square_are_certified():
    """A square that 60 throws lead to (ten ladders end on it): the rows of A^T are that
    wide, and the transposed answers still come out within their certified bounds."""
    board = Board(100, {k: 50 for k in range(60, 70)} | {80: 5})
    cb = board.compiled
    solver = fundamental(cb)
    act = solver.active
    q = np.zeros((cb.n_states, cb.n_states))
    for x in np.flatnonzero(act):
        for y, p in zip(cb.succ[x], cb.probs, strict=True):
            q[x, y] += p
    a = np.eye(act.sum()) - q[np.ix_(act, act)]
    b = np.where(act, np.linspace(1.0, 2.0, cb.n_states), 0.0)
    for trans in (False, True):
        sol = solver.solve(b, trans=trans)
        exact = np.linalg.solve(a.T if trans else a, b[act])
        np.testing.assert_allclose(sol.x[act], exact, rtol=1e-12)
        assert sol.error < 1e-12


def _kept_per_board(ask) -> float:
    """Bytes a Milton Bradley board keeps after ``ask(board)`` (the answers and caches)."""
    import gc
    import tracemalloc

    boards = [snl.boards.get("milton-bradley").replace() for _ in range(20)]
    ask(boards[0])
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for b in boards[1:]:
            ask(b)
        gc.collect()
        return (tracemalloc.get_traced_memory()[0] - before) / 19
    finally:
        tracemalloc.stop()


def test_expected_throws_keep_only_the_lu_factors():
    """A board asked only its expected throws keeps the LU factors of the squares that
    are moved to and the tables, no dense copy of the system (about 73 kB on Milton
    Bradley; 172 kB when the dense matrix and a block of it were kept too)."""
    assert 52_000 < _kept_per_board(snl.expected_throws) < 120_000  # the 81 x 81 LU: 52 kB


def test_analyze_keeps_no_dense_matrix_but_the_lu_factors():
    """The visits and jump use (transposed solves) read their products off the table:
    an analysed board keeps about 84 kB (169 kB with a dense G kept for them)."""
    assert 52_000 < _kept_per_board(snl.analyze) < 130_000


@pytest.mark.parametrize("name", ["milton-bradley", "seed-30"])
def test_backward_targets_are_the_squares_moves_back_down_lead_to(name):
    # solver_report's backward_targets: counted here from the table, one square at a time
    cb = snl.boards.get(name).compiled
    solver = fundamental(cb)
    act = solver.active
    back = {int(y) for x in np.flatnonzero(act) for y, p in zip(cb.succ[x], cb.probs,
                                                                 strict=True)
            if p > 0 and y < x and act[y]}
    assert solver.k == len(back) > 0


def test_variance_formula_refines_t_only_as_far_as_it_needs(monkeypatch):
    # Milton Bradley's jumps under "win": the formula 2u - t - t**2 needs t and u to about
    # 1e-13, tighter than the first solves; t is solved to that (double), not refined to
    # double-double, and the variance stays within its target of the exact rational
    import snl_numeric.chain as chain

    board = Board(100, dict(snl.boards.get("milton-bradley").jumps))
    _, exact = naive.naive_expected_fraction(board)
    refined = []
    original = DirectSolver.refined
    monkeypatch.setattr(DirectSolver, "refined",
                        lambda self, b: refined.append(1) or original(self, b))
    var = snl.throws_variance(board)
    assert not refined
    assert abs(Fraction(var) - exact) / exact < 1e-14
    # a target below what double precision can certify: t refined to double-double
    monkeypatch.setattr(chain, "TARGET", 1e-17)
    again = snl.throws_variance(board.replace())
    assert refined and again == pytest.approx(var, rel=1e-14)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_dd_residual_matches_the_padded_rows(m, seed):
    """The slot-by-slot layout of Rows sums each row's terms in the same order as a table
    padded to the longest row: the same residual, bit for bit (a hub square included)."""
    from snl_numeric._core.solve.certify import Rows

    rng = np.random.default_rng(seed)
    moving = rng.random((m, 3)) / 3
    terms = rng.integers(0, 4 * m + 1)
    src = rng.integers(0, m, terms)
    src[: terms // 2] = rng.integers(0, m)  # one row with many terms
    dst, prob = rng.integers(0, m, terms), rng.random(terms) / 3
    b, hi = rng.random((m, 2)), rng.random((m, 2)) * 100
    lo = hi * 1e-17 * rng.standard_normal((m, 2))
    r, bound = Rows(moving, src, dst, prob).dd_residual(b, hi, lo)
    assert r.tolist() == naive.padded_dd_residual(moving, src, dst, prob, b, hi, lo).tolist()
    assert (bound > 0).all()


def test_an_lu_answer_that_overflows_is_solved_again_by_gth():
    # 2e20 expected throws: LU's pivots cancel (1 - 0.99999...) and its answer overflowed
    # to inf, which was reported with a warning that the throws exceed the largest double
    board = Board(11, {8: 9, 9: 0}, overshoot="bounce", dice={2: 1e-5, 5: 0.99999})
    for start in (0, 3, 7):
        mean, var = naive.naive_expected_fraction(board, start)
        assert mean > 1e15
        np.testing.assert_allclose(snl.expected_throws(board, start), float(mean), rtol=1e-12)
        np.testing.assert_allclose(snl.throws_variance(board, start), float(var), rtol=1e-12)
    assert snl.solver_report(board).method == "gth"


# -- a chain's CSR rows (issue 50: chains too uneven for a successor table) ------------------

@st.composite
def csr_chains(draw, max_states=24):
    """Random small chains as dense arrays with their absorbing states: rows of 1 to 6
    moves anywhere (many backward), self-loops, and sometimes a hub row moving to most
    states; some states may never be absorbed."""
    n = draw(st.integers(2, max_states))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    ends = rng.choice(n, size=int(rng.integers(1, max(2, n // 4))), replace=False)
    P = np.zeros((n, n))
    for i in range(n):
        k = int(rng.integers(1, 7))
        np.add.at(P[i], rng.integers(0, n, k), rng.random(k) + 0.05)
    if draw(st.booleans()):
        hub = int(rng.integers(0, n))
        P[hub] += rng.random(n) * (rng.random(n) < 0.8)
    P /= P.sum(axis=1, keepdims=True)
    P[ends] = 0.0
    P[ends, ends] = 1.0
    return P, np.sort(ends)


def _csr_solver(P, ends):
    """The CSR solver of a chain over the states from which absorption is sure (those of
    naive.chain_dense), and that dense answer."""
    import scipy.sparse as sp

    mean, var, _, _ = naive.chain_dense(P, ends)
    active = np.isfinite(mean) & (mean > 0)
    C = sp.csr_array(P)
    return DirectSolver.csr(C.indptr, C.indices, C.data, active), active, mean, var


@settings(max_examples=60, deadline=None)
@given(csr_chains())
def test_csr_rows_against_dense_solve(case):
    """Mean steps (componentwise, within the certified bound of the exact answer), the
    variance from 2 N t - t - t**2, a transposed solve (visits) and the one-step variance
    against dense numpy.linalg.solve on the same chain."""
    P, ends = case
    solver, active, mean, var = _csr_solver(P, ends)
    assert solver.method == "splu" and solver.unknowns == active.sum()
    if not active.any():
        return
    sol = solver.throws()
    assert sol.error < 1e-11
    t = sol.x
    np.testing.assert_array_equal(t[~active], 0.0)
    exact = np.array([float(v) for v in naive.chain_exact_mean(P, np.flatnonzero(active))])
    np.testing.assert_allclose(t[active], exact, rtol=sol.error + 2.0**-52, atol=0)
    u = solver.solve(t)
    v = 2 * u.x - t - t * t
    big = active & (var > 1e-6 * mean * mean)
    np.testing.assert_allclose(v[big], var[big], rtol=1e-8)
    idx = np.flatnonzero(active)
    N = np.linalg.inv(np.eye(len(idx)) - P[np.ix_(idx, idx)])
    b = np.zeros(len(P))
    b[idx[0]] = 1.0
    visits = solver.solve(b, trans=True)
    np.testing.assert_allclose(visits.x[idx], N[0], rtol=0, atol=(visits.error + 1e-13)
                               * np.abs(N[0]).sum())
    hi, lo = solver.refined(active.astype(float))
    w = solver.step_variance(hi, lo)
    te = np.where(active, mean, 0.0)
    te[~np.isfinite(te)] = 0.0
    expect = ((P[idx] * (te[None, :] - te[idx, None] + 1.0) ** 2)).sum(axis=1)
    every_step_leaves = (P[idx][:, idx] == 0).all(axis=1)
    expect[every_step_leaves] = 0.0
    np.testing.assert_allclose(w[idx], expect, rtol=1e-9, atol=1e-12 * te.max() ** 2)


@settings(max_examples=40, deadline=None)
@given(csr_chains())
def test_csr_rows_twin_of_the_table(case):
    """The CSR rows and the successor table of the same chain (compile_chain) give one
    answer within both certified bounds, and the same backward targets."""
    from snl_numeric import Chain

    P, ends = case
    chain = Chain(P, absorbing=ends)
    cb = chain.compiled
    solver, active, mean, _ = _csr_solver(P, ends)
    table = fundamental(cb)
    order = cb.states  # (each state's place in the table; every end merged into one)
    tt, tc = table.throws(), solver.throws()
    ok = active
    np.testing.assert_array_equal(table.active[order[ok]], True)
    np.testing.assert_allclose(tc.x[ok], tt.x[order[ok]],
                               rtol=2 * (tc.error + tt.error) + 1e-15, atol=0)


def test_csr_rows_hub_chain_refused_as_a_table_answered_by_rows():
    """A hub state moving to 4,800 states beside rows of 5 moves: too uneven for the table
    (compile_chain says why), answered from its rows: the mean within its certified bound
    of a dense solve, and a memory check before allocating anything large."""
    import scipy.sparse as sp

    from snl_numeric import Chain
    from snl_numeric._core.memory import MemoryLimitError
    from snl_numeric._core.solve.csr import csr_rows

    n = 4801
    rng = np.random.default_rng(5)
    rows = np.repeat(np.arange(n - 1), 5)
    cols = np.clip(rows + rng.integers(-40, 41, rows.size), 0, n - 1)
    P = sp.csr_array((rng.random(rows.size) + 0.1, (rows, cols)), shape=(n, n)).tolil()
    P[0, :] = rng.random(n) + 0.1
    P[n - 1, :] = 0.0
    P[n - 1, n - 1] = 1.0
    P = sp.csr_array(P)
    P = sp.csr_array(sp.diags_array(1.0 / P.sum(axis=1)) @ P)
    chain = Chain(P)
    with pytest.raises(ValueError, match="too uneven for a successor table"):
        chain.compiled
    active = ~chain.is_absorbing
    solver = DirectSolver.csr(chain.P.indptr, chain.P.indices, chain.P.data, active)
    sol = solver.throws()
    dense = chain.P.toarray()[:-1, :-1]
    t = np.linalg.solve(np.eye(n - 1) - dense, np.ones(n - 1))
    assert sol.error < 1e-11
    np.testing.assert_allclose(sol.x[:-1], t, rtol=2 * sol.error, atol=0)
    with pytest.raises(MemoryLimitError, match="the rows of a chain of"):
        csr_rows(np.array([0, 2**61]), np.zeros(1, np.int64), np.ones(1), np.array([0]),
                 1)


@settings(max_examples=25, deadline=None)
@given(csr_chains(max_states=160), st.booleans())
def test_csr_dd_residual_against_fractions(case, trans):
    """The double-double residual of the CSR rows (long rows summed by fsum, the others
    slot by slot) within its bound of the exact residual in fractions, for A and A^T;
    chains of up to 160 states, so that a hub row is longer than LONG_ROW."""
    from fractions import Fraction

    from snl_numeric._core.solve.csr import DDRows

    P, ends = case
    solver, active, _, _ = _csr_solver(P, ends)
    m = solver.unknowns
    if not m:
        return
    rows = solver.rows_csr
    rng = np.random.default_rng(m)
    hi = rng.random((m, 1)) * 100
    lo = hi * 2.0**-60 * rng.random((m, 1))
    b = rng.random((m, 1))
    r, bound = DDRows(rows, trans).dd_residual(b, hi, lo)
    x = [Fraction(float(h)) + Fraction(float(low)) for h, low in zip(hi[:, 0], lo[:, 0])]
    x.append(Fraction(0))
    exact = [Fraction(float(v)) for v in b[:, 0]]
    for i, to, p in zip(rows.row.tolist(), rows.to.tolist(), rows.moving.tolist()):
        if p == 0:
            continue
        if not trans:  # row i: sum p (x_i - x_to)
            exact[i] -= Fraction(p) * (x[i] - x[to])
        else:  # column i of A: p x_i on the diagonal, -p x_i in row `to`
            exact[i] -= Fraction(p) * x[i]
            if to < m:
                exact[to] += Fraction(p) * x[i]
    err = np.array([abs(float(e - Fraction(float(v)))) for e, v in zip(exact, r[:, 0])])
    assert (err <= bound[:, 0]).all()


# --- a solver whose rows on a few squares are replaced: updated factors (policy steps) ----
def _replaced(base_board, board, squares=None):
    """``base_board``'s direct solver over ``board``'s sure squares, and the solver of
    ``board``'s rows there made by updating it on ``squares`` (every square of the
    system by default), with the fresh solver of those rows."""
    from snl_numeric._core.solve import updated_solver

    cb, cb0 = board.compiled, base_board.compiled
    act = cb.sure.copy()
    act[-1] = False
    rows = np.broadcast_to(cb.probs, cb.succ.shape)
    mixed_succ, mixed_probs = cb0.succ.copy(), np.broadcast_to(cb0.probs, cb0.succ.shape).copy()
    states = np.flatnonzero(act)
    squares = states if squares is None else squares
    mixed_succ[squares], mixed_probs[squares] = cb.succ[squares], rows[squares]
    base = DirectSolver(cb0.succ, np.broadcast_to(cb0.probs, cb0.succ.shape).copy(), act)
    upd = updated_solver(base, squares, cb.succ[squares], rows[squares],
                         rows[squares].sum(axis=1), lambda: (mixed_succ, mixed_probs))
    return upd, DirectSolver(mixed_succ, mixed_probs, act), act


@pytest.mark.parametrize("size", [60, 400])
def test_updated_solver_is_the_fresh_solvers_twin(size):
    """Rows of a few squares replaced (dense LU and SuperLU factors): the answers, their
    transposes and several columns are the fresh solver's of the same rows, certified."""
    board = random_board(size, 0.2, rng=5)
    other = random_board(size, 0.2, rng=6)
    gen = np.random.default_rng(0)
    sure = np.flatnonzero(board.compiled.sure[:-1] & other.compiled.sure[:-1])
    squares = gen.choice(sure, size=5, replace=False)
    upd, fresh, act = _replaced(other, board, squares)
    assert upd is not None and upd.method == fresh.method
    b = np.where(act[:, None], gen.normal(size=(len(act), 3)), 0.0)
    for trans in (False, True):
        x, y = upd.solve(b, trans), fresh.solve(b, trans)
        assert x.error < 1e-12 and y.error < 1e-12
        scale = np.abs(y.x).max(axis=0)
        assert (np.abs(x.x - y.x).max(axis=0) <= 2 * (x.error + y.error) * scale).all()
    t, want = upd.throws(), fresh.throws()
    np.testing.assert_allclose(t.x, want.x, rtol=2 * (t.error + want.error))
    hi, lo = upd.refined(act.astype(float))
    np.testing.assert_allclose(hi + lo, want.x, rtol=2 * want.error)


@pytest.mark.parametrize("n", [12, 30])
def test_updated_solver_that_cannot_certify_factorises_its_own_rows(n):
    """Every row of a plain board replaced by naive.run_board's (up to 1e24 expected
    throws): where the updated factors cannot certify the answer, the solver factorises
    its own rows (and GTH elimination certifies them): exact to 1e-12 either way."""
    board = naive.run_board(n)
    upd, _, _ = _replaced(Board(board.size), board)
    mean, _ = naive.run_moments(n)
    assert abs(Fraction(upd.throws().x[board.start]) - mean) / mean < 1e-12
    assert upd.throws().error < 1e-11
    assert upd.throws().method == ("gth" if n == 30 else "lu")  # (12: updated, certified)


def test_updated_solver_that_refactorises_during_a_transposed_solve():
    """Another thread may factorise the solver's own rows (its update could not certify an
    answer) while a transposed solve is using the base's factors: the solve finishes with
    the base's (its factors are unchanged), certified."""
    board = random_board(400, 0.2, rng=5)
    other = random_board(400, 0.2, rng=6)
    sure = np.flatnonzero(board.compiled.sure[:-1] & other.compiled.sure[:-1])
    squares = np.random.default_rng(0).choice(sure, size=5, replace=False)
    upd, fresh, act = _replaced(other, board, squares)
    base = upd._base
    solve = base.by_factors

    def interleaved(rhs, trans):  # (the other thread's fallback, between two steps)
        base.by_factors = solve
        upd._own()
        return solve(rhs, trans)

    base.by_factors = interleaved
    b = np.where(act, 1.0, 0.0)
    x, y = upd.solve(b, True), fresh.solve(b, True)
    assert upd._base is None and x.error < 1e-12
    np.testing.assert_allclose(x.x, y.x, rtol=2 * (x.error + y.error))


def test_a_singular_system_certifies_no_answer():
    """Three squares that never leave each other (a play that never ends), their rows
    rounding to a matrix LU can factorise: the expected throws (4.5e16) are not certified,
    so neither is an answer certified normwise from their largest (a right-hand side with
    zeros: once certified to 0.24)."""
    import warnings

    succ = np.array([[1, 2, 0], [1, 2, 0], [0, 1, 2], [4, 4, 4], [4, 4, 4]])
    active = np.array([True, True, True, True, False])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = DirectSolver(succ, np.array([0.1, 0.2, 0.7]), active)
        assert s.throws().error == math.inf
        assert s.inverse_norm() == math.inf
        assert s.solve(np.array([1.0, 0.0, 1.0, 1.0, 0.0])).error == math.inf
