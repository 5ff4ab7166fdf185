"""sensitivity(): derivatives against complex-step derivatives of naive dense solves, exact
rational central differences and float central differences."""

from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction

import naive
import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import given, settings
from hypothesis import strategies as st

from snl_numeric import (
    Board,
    analyze,
    boards,
    expected_throws,
    expected_throws_all,
    length_distribution,
    options,
    sensitivity,
    throws_variance,
    win_probabilities,
)


def _fd(f, x0, h):
    """Central difference with one Richardson step (error O(h**4))."""
    d1 = (f(x0 + h) - f(x0 - h)) / (2 * h)
    d2 = (f(x0 + h / 2) - f(x0 - h / 2)) / h
    return (4 * d2 - d1) / 3


def _complex_step(f, x0):
    """``Im f(x0 + i h) / h``: the derivative of the naive dense solve with no subtraction
    in it, hence no cancellation, and an error ``O(h**2)`` that vanishes for
    ``h = 1e-30 x0`` however near a pole (where the chain stops being absorbing) ``x0``
    lies. A float central difference is not accurate enough near one: see
    ``test_exact_central_difference_near_a_pole``."""
    h = 1e-30 * x0
    return f(x0 + 1j * h).imag / h


def _exact_fd(f, x0):
    """Central difference in exact rational arithmetic at the double ``x0`` with the step
    ``2**-100``: its error ``f'''(x0) h**2 / 6`` is far below a double's rounding."""
    h = Fraction(1, 2**100)
    x = Fraction(float(x0))
    return float((f(x + h) - f(x - h)) / (2 * h))


def _exact_dice_answers(board):
    """``answers(face, x)``: the exact (mean, variance) with face ``face``'s probability
    set to the Fraction ``x``, the others the board's (as exact doubles)."""
    mats = naive.sensitivity_matrices(board)
    probs = [Fraction(float(x)) for x in board.dice.probs]
    sure = naive.naive_sure(board)
    n = board.size + 1

    def answers(face, x):
        w = probs[:face] + [x] + probs[face + 1:]
        p = [[sum((c for c, m in zip(w, mats, strict=True) if m[i, j]), Fraction(0))
              for j in range(n)] for i in range(n)]
        return naive.sensitivity_answers_exact(p, board.start, sure)

    return answers


def _close(a, b, scale, rel=1e-7):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-9 * scale  # (the differences' rounding)


def _finite(board):
    """Whether the game surely ends from the start: the naive twin's answer, not the code's."""
    return board.start in naive.naive_sure(board)


@settings(max_examples=500, deadline=None)
@given(board_strategy(max_size=16), st.data())
def test_transitions_match_complex_step(board, data):
    if not _finite(board):
        with pytest.raises(ValueError, match="infinite"):
            sensitivity(board, wrt="transitions")
        return
    mats = naive.sensitivity_matrices(board)
    p = sum(w * m for w, m in zip(board.dice.probs, mats, strict=True))
    sure = naive.naive_sure(board)
    for of, k in (("mean", 0), ("variance", 1)):
        s = sensitivity(board, of=of, wrt="transitions")
        g = s.gradient.toarray()
        assert s.gradient.shape == p.shape
        scale = np.abs(g).max() + abs(s.value)
        rows, cols = np.nonzero(p[:-1])
        pick = data.draw(st.lists(st.integers(0, len(rows) - 1), min_size=1, max_size=3))
        for e in pick:
            i, j = rows[e], cols[e]

            def f(x, i=i, j=j, k=k):
                q = p.astype(complex)
                q[i, j] = x
                return naive.sensitivity_answers(q, board.start, sure)[k]

            assert _close(g[i, j], _complex_step(f, p[i, j]), scale), (of, i, j)
        assert np.all(g[:, board.size][p[:, board.size] > 0] == 0)  # into the goal


@settings(max_examples=500, deadline=None)
@given(board_strategy(max_size=16))
def test_dice_match_complex_step_of_each_face(board):
    if not _finite(board):
        return
    mats = naive.sensitivity_matrices(board)
    probs = board.dice.probs
    sure = naive.naive_sure(board)
    for of, k in (("mean", 0), ("variance", 1)):
        s = sensitivity(board, of=of, wrt="dice")
        assert s.faces.tolist() == board.dice.faces.tolist()
        scale = np.abs(s.gradient).max() + abs(s.value)
        for f in range(len(probs)):
            def value(x, f=f, k=k):
                w = probs.astype(complex)
                w[f] = x
                p = sum(c * m for c, m in zip(w, mats, strict=True))
                return naive.sensitivity_answers(p, board.start, sure)[k]

            assert _close(s.gradient[f], _complex_step(value, probs[f]), scale), (of, f)


@settings(max_examples=100, deadline=None)
@given(board_strategy(max_size=10))
def test_dice_match_exact_central_differences(board):
    if not _finite(board):
        return
    answers = _exact_dice_answers(board)
    for of, k in (("mean", 0), ("variance", 1)):
        s = sensitivity(board, of=of, wrt="dice")
        scale = np.abs(s.gradient).max() + abs(s.value)
        for f, x in enumerate(board.dice.probs):
            exact = _exact_fd(lambda y, f=f, k=k: answers(f, y)[k], x)
            assert _close(s.gradient[f], exact, scale, rel=1e-10), (of, f)


def test_exact_central_difference_near_a_pole():
    """The board on which a Richardson float difference (``h = 8e-4``) was off by 2.5e-7
    relative: the derivative agrees with the exact one to a few units of rounding of its
    terms, and the complex step with both."""
    board = Board(15, {11: 8}, start=3, overshoot="exact", dice={1: 0.2, 4: 0.8})
    answers = _exact_dice_answers(board)
    v = sensitivity(board, of="variance", wrt="dice")
    exact = _exact_fd(lambda y: answers(1, y)[1], 0.8)
    assert -17.5749307 < exact < -17.5749306
    assert abs(v.gradient[1] - exact) <= 1e-12 * abs(exact)
    mats = naive.sensitivity_matrices(board)
    sure = naive.naive_sure(board)

    def value(x):
        p = 0.2 * mats[0] + x * mats[1].astype(complex)
        return naive.sensitivity_answers(p, board.start, sure)[1]

    assert abs(_complex_step(value, 0.8) - exact) <= 1e-12 * abs(exact)
    # the float difference the test used to take: too far from the exact value
    assert abs(_fd(lambda x: value(x).real, 0.8, 8e-4) - exact) > 1e-7 * abs(exact)


def test_win_value_within_rounding_of_win_probabilities_on_a_slow_board():
    """The example Hypothesis found: 5,794 throws pushed to a tail of 1e-15, the two pushes
    9.1e-15 apart (both within 1.5e-14 of the exact value), beyond the 4e-15 the test
    below first allowed."""
    board = Board(6, {5: 0}, overshoot="exact", dice={1: 0.2, 4: 0.8})
    mats = naive.sensitivity_matrices(board)
    p = sum(w * m for w, m in zip(board.dice.probs, mats, strict=True))
    p[board.size, board.size] = 0.0
    exact = naive.sensitivity_win(p, board.start)
    throws = len(length_distribution(board, tail=1e-15))
    s = sensitivity(board, of="win", wrt="transitions", tail=1e-15).value
    w = win_probabilities(board, 2, tail=1e-15)[0]
    assert throws > 5000
    for value in (s, w):
        assert abs(value - exact) <= 1e-15 + throws * 2.0**-53
    assert abs(s - w) <= 4e-15 + throws * 2.0**-53


@settings(max_examples=40, deadline=None)
@given(board_strategy(max_size=10), st.data())
def test_win_matches_finite_differences(board, data):
    mats = naive.sensitivity_matrices(board)
    p = sum(w * m for w, m in zip(board.dice.probs, mats, strict=True))
    p[board.size, board.size] = 0.0  # the goal absorbs: the push takes its mass out
    s = sensitivity(board, of="win", wrt="transitions", tail=1e-15)
    assert abs(s.value - naive.sensitivity_win(p, board.start)) < 1e-12
    # win_probabilities' value (pushed to its tail: the same to rounding, which grows with
    # the throws pushed: 1.5e-14 after 5,794 throws on Board(6, {5: 0}, overshoot="exact",
    # dice={1: .2, 4: .8}), well within a unit in the last place per throw)
    throws = len(length_distribution(board, tail=1e-15))
    assert abs(s.value - win_probabilities(board, 2, tail=1e-15)[0]) <= 4e-15 + throws * 2.0**-53
    g = s.gradient.toarray()
    rows, cols = np.nonzero(p[:-1])
    scale = np.abs(g).max() + 1.0
    for e in data.draw(st.lists(st.integers(0, len(rows) - 1), min_size=1, max_size=3)):
        i, j = rows[e], cols[e]

        def f(x, i=i, j=j):
            q = p.copy()
            q[i, j] = x
            return naive.sensitivity_win(q, board.start)

        exact = naive.sensitivity_win_derivative(p, board.start, i, j)
        assert _close(g[i, j], exact, scale, rel=1e-8), (i, j)
        assert _close(exact, _fd(f, p[i, j], 1e-4 * p[i, j]), scale, rel=1e-6), (i, j)
    d = sensitivity(board, of="win", wrt="dice", tail=1e-15)
    rows_all = np.repeat(np.arange(board.size + 1), len(board.dice.faces))
    succ = board.compiled.succ
    per_face = [sum(g[x, succ[x, f]] for x in range(board.size))
                for f in range(len(board.dice.faces))]
    assert np.allclose(d.gradient, per_face, rtol=1e-12, atol=1e-15)
    assert len(rows_all) == succ.size


def test_win_on_a_large_board_matches_forward_differentiation():
    """More than 128 squares hold mass: the per-throw sparse path (the smaller boards
    above take the dense Gram path)."""
    board = Board(140, {5: 100, 60: 62, 120: 40, 138: 128}, overshoot="bounce",
                  dice={1: 0.25, 2: 0.25, 3: 0.5})
    assert board.compiled.reachable_from(0).sum() - 4 > 128
    mats = naive.sensitivity_matrices(board)
    p = sum(w * m for w, m in zip(board.dice.probs, mats, strict=True))
    p[board.size, board.size] = 0.0
    s = sensitivity(board, of="win", wrt="transitions", tail=1e-15)
    assert abs(s.value - naive.sensitivity_win(p, board.start)) < 1e-12
    g = s.gradient.toarray()
    for i, j in ((0, 3), (59, 62), (139, 140), (100, 101)):
        exact = naive.sensitivity_win_derivative(p, board.start, i, j)
        assert _close(g[i, j], exact, 1.0, rel=1e-8), (i, j)
    d = sensitivity(board, of="win", wrt="dice", tail=1e-15)
    succ = board.compiled.succ
    per_face = [sum(g[x, succ[x, f]] for x in range(board.size)) for f in range(3)]
    assert np.allclose(d.gradient, per_face, rtol=1e-12, atol=0)


def test_win_masses_pushed_again_where_the_cut_lies_late(monkeypatch):
    """The sparse path keeps the masses while the live mass is not too small; when the
    cut of the sum lies later it pushes them again from the first one not kept: the same
    products, so the same gradient to the last bit."""
    board = Board(140, {5: 100, 60: 62, 120: 40, 138: 128}, overshoot="bounce",
                  dice={1: 0.25, 2: 0.25, 3: 0.5})
    sens = sys.modules["snl_numeric.sensitivity"]
    kept = sensitivity(board, of="win", wrt="transitions")
    monkeypatch.setattr(sens, "KEEP", 1e12)  # stop keeping after the first block
    again = sensitivity(board, of="win", wrt="transitions")
    assert again.value == kept.value
    assert np.array_equal(again.gradient.toarray(), kept.gradient.toarray())
    assert np.array_equal(sensitivity(board, of="win").gradient,
                          sensitivity(board, of="win").gradient)


@settings(max_examples=40, deadline=None)
@given(board_strategy(max_size=30))
def test_win_sparse_path_twins_the_dense_one(board):
    """Boards of at most 128 squares holding mass take the blocked dense products; the
    one-throw-at-a-time sparse path, forced on the same boards by ``options(push="sparse")``,
    gives the same value and gradients (the cut of each may land a throw apart: terms below
    the tail)."""
    dense = [sensitivity(board, of="win", wrt=w, tail=1e-14) for w in ("dice", "transitions")]
    with options(push="sparse"):
        sparse = [sensitivity(board, of="win", wrt=w, tail=1e-14)
                  for w in ("dice", "transitions")]
    for d, s in zip(dense, sparse, strict=True):
        assert abs(d.value - s.value) <= 1e-15
        a = d.gradient if d.wrt == "dice" else d.gradient.toarray()
        b = s.gradient if s.wrt == "dice" else s.gradient.toarray()
        assert np.allclose(a, b, rtol=1e-10, atol=1e-13)


def test_win_dense_path_forced_on_a_board_pushed_sparsely():
    """A board of more than 128 squares holding mass takes the sparse path by default;
    ``options(push="dense")`` forces the blocked dense products: the same value and
    gradients, and the value is the two-player win chance."""
    board = Board(140, {5: 100, 60: 62, 120: 40, 138: 128}, overshoot="bounce",
                  dice={1: 0.25, 2: 0.25, 3: 0.5})
    sparse = [sensitivity(board, of="win", wrt=w) for w in ("dice", "transitions")]
    with options(push="dense"):
        dense = [sensitivity(board, of="win", wrt=w) for w in ("dice", "transitions")]
    assert not np.array_equal(dense[0].gradient, sparse[0].gradient)  # (the other form)
    for d, s in zip(dense, sparse, strict=True):
        assert abs(d.value - s.value) <= 1e-15
        assert d.value == pytest.approx(win_probabilities(board)[0], abs=1e-11)
        a = d.gradient if d.wrt == "dice" else d.gradient.toarray()
        b = s.gradient if s.wrt == "dice" else s.gradient.toarray()
        assert np.allclose(a, b, rtol=1e-10, atol=1e-13)


def test_a_forced_dense_win_push_checks_memory_first(monkeypatch):
    """Forced dense on 799 squares, the win chance's push holds the rows of ``Q`` and seven
    powers ``Q^(2^i)`` up to ``Q^64`` and one transposed (about 46 MB): refused under a
    30 MiB limit."""
    board = Board(800, {790: 120})
    monkeypatch.setenv("SNL_NUMERIC_MAX_MEMORY", "30M")
    with options(push="dense"), pytest.raises(MemoryError,
                                              match="a dense push over 799 squares"):
        sensitivity(board, of="win")


def test_win_cut_drops_no_more_than_the_tail():
    """The terms past the cut are bounded by the tail times their total: the gradient with
    the default tail agrees with the one summed to 1e-15 far inside that."""
    mb = boards.get("milton-bradley")
    large = Board(140, {5: 100, 60: 62, 120: 40, 138: 128}, overshoot="bounce",
                  dice={1: 0.25, 2: 0.25, 3: 0.5})  # (the sparse path)
    for board, wrt in itertools.product((mb, large), ("dice", "transitions")):
        coarse = sensitivity(board, of="win", wrt=wrt)
        fine = sensitivity(board, of="win", wrt=wrt, tail=1e-15)
        assert abs(coarse.value - fine.value) <= 1e-12
        a = coarse.gradient if wrt == "dice" else coarse.gradient.toarray()
        b = fine.gradient if wrt == "dice" else fine.gradient.toarray()
        assert np.abs(a - b).max() <= 1e-10 * np.abs(b).max()
        assert np.abs(a - b).max() > 0  # the cut moved (the test can fail)


def test_milton_bradley_dice_gradient():
    mb = boards.get("milton-bradley")
    s = sensitivity(mb, of="mean", wrt="dice")
    toward_six = np.eye(6)[5] - 1 / 6
    # central difference along the direction, on boards with that die
    h = 1e-4

    def mean(x):
        return expected_throws(mb.replace(dice=dict(enumerate(1 / 6 + x * toward_six, 1))))

    assert _close(s.gradient @ toward_six, _fd(mean, 0.0, h), 1.0)
    assert -25.5 < s.gradient @ toward_six < -24.5  # the hand computation: about 25
    v = sensitivity(mb, of="variance", wrt="dice")

    def var(x):
        return throws_variance(mb.replace(dice=dict(enumerate(1 / 6 + x * toward_six, 1))))

    assert _close(v.gradient @ toward_six, _fd(var, 0.0, h), 1.0)
    t = sensitivity(mb, wrt="transitions")
    assert t.by_square.shape == (101,)
    # sum_ij Q_ij v_i t_j = sum_i v_i (t_i - 1): visits from analyze, t from the solver
    visits, t_all = analyze(mb).expected_visits, expected_throws_all(mb)
    assert math.isclose(t.elasticity.sum(), (visits @ t_all - s.value) / s.value, rel_tol=1e-12)
    assert np.allclose(t.by_square, visits * (t_all - 1) / s.value, rtol=1e-12, atol=0)


def test_jumps_equal_fresh_solves():
    b = Board(30, {3: 22, 17: 4, 25: 11}, overshoot="bounce")
    for of, answer in (("mean", expected_throws), ("variance", throws_variance)):
        s = sensitivity(b, of=of, wrt="jumps", shift=2)
        assert s.shifts.tolist() == [-2, -1, 0, 1, 2]
        assert s.jumps.tolist() == [[3, 22], [17, 4], [25, 11]]
        base = answer(b)
        assert answer(Board(30, {2: 22, 17: 4, 25: 11}, overshoot="bounce")) - base == (
            s.gradient[0, 0, 1])
        assert answer(Board(30, {3: 22, 17: 6, 25: 11}, overshoot="bounce")) - base == (
            s.gradient[1, 1, 4])
        assert np.isfinite(s.gradient).all()  # every move allowed on this board
        assert (s.gradient[:, :, 2] == 0).all()
    w = sensitivity(Board(10, {3: 8, 5: 2}), of="win", wrt="jumps", shift=2)
    assert np.isnan(w.gradient[0, 0, 4])  # 3 -> 5 moves onto the other jump's square
    assert np.isnan(w.gradient[1, 0, 0])  # and 5 -> 3
    assert np.isnan(w.gradient).sum() == 2
    assert w.gradient[0, 1, 4] == (
        win_probabilities(Board(10, {3: 10, 5: 2}), 2)[0] - win_probabilities(Board(10, {3: 8, 5: 2}), 2)[0])


def test_errors():
    b = Board(10)
    with pytest.raises(ValueError, match="of must be one of"):
        sensitivity(b, of="median")
    with pytest.raises(TypeError, match="^wrt must be one of 'dice', 'transitions', 'jumps', "
                                        "got 3$"):
        sensitivity(b, wrt=3)
    with pytest.raises(ValueError, match="^shift must be at least 1, got 0$"):
        sensitivity(b, wrt="jumps", shift=0)
    for bad in (1.5, "3", True):  # a wrong type is a TypeError (a bool is no count)
        with pytest.raises(TypeError, match=f"^shift must be an integer, got {bad!r}$"):
            sensitivity(b, wrt="jumps", shift=bad)
    for bad in ({"shift": 0}, {"tail": 0}, {"tail": 2.0}, {"max_throws": 0}):
        for wrt in ("dice", "transitions"):  # options the call does not use are checked too
            with pytest.raises(ValueError, match=f"{next(iter(bad))} must be"):
                sensitivity(b, wrt=wrt, **bad)
    for wrt in ("dice", "transitions"):
        with pytest.raises(TypeError, match="shift must be an integer"):
            sensitivity(b, wrt=wrt, shift=1.5)
    stuck = Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5})
    with pytest.raises(ValueError, match="infinite and have no derivative"):
        sensitivity(stuck, of="variance")
    assert sensitivity(stuck, of="win").value == 0.5  # a 4 at once; after a 3 nobody wins


def test_jump_moves_refuse_an_infinite_mean_as_the_other_wrt_do():
    """wrt="jumps" on a board whose goal may never be reached from the start raises as
    wrt="dice" does: it returned value inf and NaN (inf - inf: the mark of a move the rules
    forbid) for moves that are allowed, and -inf for moves that rescue the board."""
    b = Board(5, {4: 0}, overshoot="exact", dice={2: 1.0})  # 0 -> 2 -> 4 -> 0 -> ...
    rescued = Board(5, {4: 1}, overshoot="exact", dice={2: 1.0})  # its snake's end moved up
    assert math.isinf(expected_throws(b)) and expected_throws(rescued) == 4.0
    for of in ("mean", "variance"):
        for wrt in ("dice", "jumps"):
            with pytest.raises(ValueError, match=r"^the goal may never be reached from "
                                                 r"square 0: the .* are infinite"):
                sensitivity(b, of=of, wrt=wrt, shift=1)
    w = sensitivity(b, of="win", wrt="jumps", shift=1)  # the win chance is defined
    assert w.value == 0.0 and w.gradient[0, 1, 2] == win_probabilities(rescued, 2)[0] == 1.0


def test_jump_shift_beyond_the_board():
    """A shift larger than the board only adds columns of NaN (every such move leaves the
    board): they are filled without a solve each, the others equal a small shift's, and a
    shift too large for memory is refused up front, naming it."""
    b = Board(6, {2: 5, 4: 1})
    small = sensitivity(b, wrt="jumps", shift=6)
    big = sensitivity(b, wrt="jumps", shift=50)
    assert big.shifts.tolist() == list(range(-50, 51))
    np.testing.assert_array_equal(big.gradient[:, :, 44:57], small.gradient)
    assert np.isnan(big.gradient[:, :, :44]).all() and np.isnan(big.gradient[:, :, 57:]).all()
    with pytest.raises(ValueError, match="shift=1,000,000,000,000 squares needs about"):
        sensitivity(b, wrt="jumps", shift=10**12)
