import functools
import math
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
    analyze_many,
    boards,
    expected_throws,
    expected_throws_all,
    finish_probability,
    length_distribution,
    min_throws,
    shortest_path,
    throw_distances,
    throws_variance,
    throws_variance_all,
)

REGISTRY = boards.names()


# --- the seeds' examples ------------------------------------------------------

def test_seed_30_needs_three_throws():
    b = boards.get("seed-30")
    assert min_throws(b) == 3
    path = shortest_path(b)
    assert len(path) == 3 and path[-1][2] == b.size
    for square, face, landing in path:
        assert naive.naive_move(b, square, face) == landing


def test_seed_bfs_agrees_on_random_move_arrays():
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(200):
        cell = int(rng.integers(8, 60))
        move = [-1] * cell
        for j in rng.choice(np.arange(1, cell - 1), size=cell // 5, replace=False):
            move[int(j)] = int(rng.integers(0, cell - 1))
            if move[int(j)] == j:
                move[int(j)] = -1
        b = Board.from_moves(move)
        if min_throws(b) < 0:
            continue  # the seed returns garbage there; ours says -1 (tested below)
        assert min_throws(b) == naive.seed_min_dice_throw(move)
        checked += 1
    assert checked > 100


def test_seed004_board_against_gauss_seidel_and_exact():
    b = boards.get("seed004")
    gs = naive.naive_gauss_seidel(b, eps=1e-13)
    assert expected_throws_all(b)[: b.size] == pytest.approx(gs[: b.size], rel=1e-9)
    exact_mean, exact_var = naive.naive_expected_fraction(b)
    assert expected_throws(b) == pytest.approx(float(exact_mean), rel=1e-12)
    assert throws_variance(b) == pytest.approx(float(exact_var), rel=1e-10)
    assert min_throws(b) == naive.naive_min_throws(b)


@pytest.mark.parametrize("name", REGISTRY)
def test_registry_boards_exact(name):
    b = boards.get(name)
    mean, var = naive.naive_expected_fraction(b)
    assert expected_throws(b) == pytest.approx(float(mean), rel=1e-12)
    assert throws_variance(b) == pytest.approx(float(var), rel=1e-10)
    assert min_throws(b) == naive.naive_min_throws(b)


# --- closed forms -------------------------------------------------------------

def test_deterministic_walk():
    b = Board(12, dice={1: 1.0})
    assert expected_throws(b) == 12.0 and throws_variance(b) == 0.0
    assert length_distribution(b).tolist() == [0.0] * 12 + [1.0]
    assert throw_distances(b).tolist() == list(range(12, -1, -1))


@pytest.mark.parametrize(
    "board",
    [
        Board(2, overshoot="exact", dice={1: 0.5, 2: 0.5}),  # 1 throw or 1 + Geometric(1/2)
        Board(2, {1: 0}, dice={1: 0.5, 2: 0.5}),  # Geometric(1/2) through a snake to 0
    ],
)
def test_geometric_cases(board):
    assert expected_throws(board) == pytest.approx(2.0, rel=1e-14)
    assert throws_variance(board) == pytest.approx(2.0, rel=1e-14)
    pmf = length_distribution(board)
    assert pmf[1:6] == pytest.approx([0.5, 0.25, 0.125, 0.0625, 0.03125])


def test_geometric_with_start_on_jump_square():
    # a token placed on a snake's square does not take it
    b = Board(5, {3: 0}, start=3, dice={2: 1.0})
    assert min_throws(b) == 1 and expected_throws(b) == 1.0


def test_empty_board_fair_die():
    p = Fraction(1, 6)
    # from square 0 of a 1-square board every face wins
    assert expected_throws(Board(1)) == 1.0
    # exact rule on a 2-square board: from 1 need exactly a 1
    b = Board(2, overshoot="exact")
    assert expected_throws(b, start=1) == pytest.approx(float(1 / p))


def test_bounce_reflects():
    b = Board(10, overshoot="bounce", dice={4: 1.0})
    # 0 -> 4 -> 8 -> (12 bounces to) 8 -> ... never finishes
    assert min_throws(b) == -1
    assert expected_throws(b) == math.inf
    b2 = Board(10, overshoot="bounce", dice={3: 0.5, 4: 0.5})
    assert naive.naive_move(b2, 9, 3) == 8
    assert throw_distances(b2).tolist() == [naive.naive_min_throws(b2, x) for x in range(11)]


# --- unreachable and unsure goals ---------------------------------------------

def test_unreachable_goal():
    b = Board(4, overshoot="exact", dice={3: 1.0})  # 0 -> 3, then stuck
    assert min_throws(b) == -1
    assert shortest_path(b) is None
    assert expected_throws(b) == math.inf
    assert throws_variance(b) == math.inf
    assert finish_probability(b) == 0.0
    assert length_distribution(b).tolist() == [0.0]
    a = analyze(b)
    assert (a.min_throws, a.shortest_path, a.median, a.mode) == (-1, None, None, None)
    assert a.expected_visits is None and a.jump_probability is None
    assert all(v is None for v in a.percentiles.values())
    assert "fewest throws     - (the goal cannot be reached)" in str(a)


def test_goal_reached_with_probability_half():
    b = Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5})
    assert min_throws(b) == 1
    assert expected_throws(b) == math.inf
    assert finish_probability(b) == pytest.approx(0.5)
    pmf = length_distribution(b)
    assert pmf.tolist() == [0.0, 0.5]
    a = analyze(b)
    assert a.median == 1 and a.percentiles[75] is None and a.mode == 1
    # from 1 a 3 wins and a 4 is lost (Geometric(1/2)); from 2 and 3 nothing lands
    assert expected_throws_all(b).tolist() == [math.inf, 2.0, math.inf, math.inf, 0.0]


def test_start_on_goal():
    b = Board(10, start=10)
    assert min_throws(b) == 0 and shortest_path(b) == [] and expected_throws(b) == 0.0
    assert length_distribution(b).tolist() == [1.0]


# --- fast paths against their naive twins -------------------------------------

@settings(max_examples=150)
@given(board_strategy())
def test_distances_and_moments_match_naive(board):
    dist = throw_distances(board)
    assert dist.tolist() == [naive.naive_min_throws(board, x) for x in range(board.size + 1)]
    mean, var = naive.naive_expected_dense(board)
    fast_mean, fast_var = expected_throws_all(board), throws_variance_all(board)
    assert np.array_equal(np.isinf(fast_mean), np.isinf(mean))
    finite = np.isfinite(mean)
    np.testing.assert_allclose(fast_mean[finite], mean[finite], rtol=1e-9)
    np.testing.assert_allclose(fast_var[finite], var[finite], rtol=1e-7, atol=1e-8)
    # expected throws are at least the fewest throws
    assert np.all(fast_mean[finite] >= dist[finite] - 1e-9)


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


@settings(max_examples=100)
@given(board_strategy())
def test_shortest_path_is_a_real_play(board):
    path = shortest_path(board)
    m = min_throws(board)
    if m < 0:
        assert path is None
        return
    assert len(path) == m
    x = board.start
    for square, face, landing in path:
        assert square == x and face in board.dice.faces
        assert naive.naive_move(board, square, face) == landing
        x = landing
    assert x == board.size


@settings(max_examples=40)
@given(board_strategy(max_size=14, rules=False))
def test_exact_fractions_on_fair_boards(board):
    if not math.isfinite(expected_throws(board)):
        return
    mean, var = naive.naive_expected_fraction(board)
    assert expected_throws(board) == pytest.approx(float(mean), rel=1e-12)
    assert throws_variance(board) == pytest.approx(float(var), rel=1e-9, abs=1e-12)


@settings(max_examples=60)
@given(board_strategy(max_size=25))
def test_analyze_against_naive(board):
    a = analyze(board)
    assert a.min_throws == min_throws(board)
    assert a.mean == expected_throws(board)
    assert a.cdf[-1] == pytest.approx(a.finish_probability, abs=1e-9)
    if not math.isfinite(a.mean):
        assert a.expected_visits is None
        return
    assert a.expected_visits.sum() == pytest.approx(a.mean, rel=1e-9)
    np.testing.assert_allclose(a.expected_visits, naive.naive_visits(board), rtol=1e-9, atol=1e-12)
    uses, prob = naive.naive_jump_use(board)
    for key in board.jumps.items():
        assert a.jump_uses[key] == pytest.approx(uses[key], rel=1e-8, abs=1e-12)
        assert a.jump_probability[key] == pytest.approx(prob[key], rel=1e-8, abs=1e-12)
        assert 0.0 <= a.jump_probability[key] <= 1.0 + 1e-12
    assert a.std == pytest.approx(math.sqrt(a.variance))
    qs = [v for v in a.percentiles.values()]
    assert qs == sorted(qs)
    assert a.cdf[a.median] >= 0.5 - 1e-9 and (a.median == 0 or a.cdf[a.median - 1] < 0.5)
    assert a.pmf[a.mode] == a.pmf.max()


def test_analyze_milton_bradley_reads_well():
    a = analyze(boards.get("milton-bradley"))
    text = str(a)
    for part in ("fewest throws", "expected throws", "median", "p90", "ladder", "snake"):
        assert part in text
    assert "pmf" not in repr(a)
    d = a.to_dict()
    assert d["min_throws"] == 7 and d["mean"] == a.mean and len(d["pmf"]) == len(a.pmf)
    for bad in (0, 100):  # the tail is cut at the tolerance: the 100th percentile is undefined
        with pytest.raises(ValueError, match="percentiles"):
            analyze(boards.get("milton-bradley"), percentiles=(bad,))


def test_results_are_read_only_and_copies():
    b = boards.get("seed-30")
    t = expected_throws_all(b)
    t[0] = -5.0  # a copy: the cache is untouched
    assert expected_throws(b) > 0
    a = analyze(b)
    with pytest.raises(ValueError):
        a.pmf[0] = 1.0


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


@settings(max_examples=30)
@given(st.integers(2, 200), st.floats(0.0, 0.4), st.integers(0, 2**32 - 1))
def test_random_boards_have_finite_or_consistent_answers(size, frac, seed):
    b = boards.random_board(size, frac, rng=seed, overshoot="exact")
    t = expected_throws_all(b)
    d = throw_distances(b)
    # a fair d6 under the exact rule reaches the goal from every square, unless six snakes
    # in a row make a wall: then the squares below it never finish
    wall = any(all(s in b.snakes for s in range(x, x + 6)) for x in range(1, size - 5))
    assert wall or (np.all(d >= 0) and np.all(np.isfinite(t)))
    assert np.all(np.isinf(t[d < 0])) and np.all(t[np.isfinite(t)] >= d[np.isfinite(t)] - 1e-12)


def test_jump_probability_option():
    mb = boards.get("milton-bradley")
    full = analyze(mb)
    skipped = analyze(mb, jump_probability=False)
    assert skipped.jump_probability is None and skipped.jump_uses.keys() == full.jump_uses.keys()
    # the same uses to rounding: without probabilities the visits are solved alone, with
    # them in one multi-column solve with the jumps' rows (LAPACK blocks it differently)
    for key, uses in full.jump_uses.items():
        assert skipped.jump_uses[key] == pytest.approx(uses, rel=1e-14)
    assert "      -" in str(skipped)
    big = boards.random_board(3000, 0.2, rng=5)  # ~300 distinct landing squares: over the auto limit
    auto = analyze(big)
    assert auto.jump_probability is None and len(auto.jump_uses) == len(big.jumps)
    assert analyze(big, jump_probability=True).jump_probability is not None
    with pytest.raises(TypeError, match="jump_probability"):
        analyze(mb, jump_probability=1)


def test_absurd_board_is_refused_before_allocating():
    with pytest.raises(ValueError, match="board too large to compile"):
        expected_throws(Board(10**9))


# --- the written-out sort and search of the board checks ---------------------------------
@functools.cache
def _compiled_sort_and_search():
    import numba

    from snl_numeric._core.validation import lower_bound, stable_order

    return numba.njit(lambda v: stable_order(v)), numba.njit(lambda v, x: lower_bound(v, x))


@functools.cache
def _compiled_board_problem():
    import numba

    from snl_numeric._core.validation import board_problem

    return numba.njit(lambda *args: board_problem(*args))


@given(st.lists(st.integers(-5, 5), max_size=40))
@settings(max_examples=200)
def test_stable_order_and_lower_bound_match_numpy(values):
    """From Python (``sorted``/``bisect``) and compiled (merge sort/binary search)."""
    from snl_numeric._core.validation import lower_bound, stable_order

    compiled_order, compiled_bound = _compiled_sort_and_search()
    arr = np.array(values, dtype=np.int64)
    expect = np.argsort(arr, kind="stable").tolist()
    assert list(stable_order(arr)) == expect
    assert compiled_order(arr).tolist() == expect
    ordered = arr[expect]
    for x in range(-6, 7):
        want = int(np.searchsorted(ordered, x, side="left"))
        assert lower_bound(ordered, x) == want
        assert compiled_bound(ordered, x) == want


@given(size=st.integers(-1, 12), start=st.integers(-1, 13), code=st.integers(-1, 3),
       chain=st.booleans(), pairs=st.lists(st.tuples(st.integers(-1, 13), st.integers(-1, 13)),
                                           max_size=8),
       dice=st.lists(st.tuples(st.integers(-1, 14),
                               st.sampled_from([0.0, 0.25, 0.5, 1.0, -0.5, np.nan, np.inf])),
                     max_size=4))
@settings(max_examples=300, deadline=None)
def test_board_rules_same_in_python_and_compiled(size, start, code, chain, pairs, dice):
    """Board checks its rules as plain Python, huge boards and batch rows compiled: the
    same rule code, so the same first problem and indices."""
    from snl_numeric._core.validation import SUM_TOL, board_problem

    src = np.array([a for a, _ in pairs], dtype=np.int64)
    dst = np.array([b for _, b in pairs], dtype=np.int64)
    faces = np.array([f for f, _ in dice], dtype=np.int64)
    probs = np.array([p for _, p in dice], dtype=np.float64)
    args = (size, start, code, chain, src, dst, faces, probs, SUM_TOL)
    in_python = board_problem(size, start, code, chain, src.tolist(), dst.tolist(),
                              faces.tolist(), probs.tolist(), SUM_TOL)
    assert tuple(in_python) == tuple(_compiled_board_problem()(*args))


@pytest.mark.parametrize("faces", [[1, 2, 3], [3, 1, 2], [1, 2, 2], [2, 1, 2]])
@pytest.mark.parametrize("excess", [-1.5, -0.9, 0.0, 0.9, 1.5])
def test_board_rules_at_the_edge_of_the_dice_sum(faces, excess):
    """Sums just inside and just outside the tolerance, sorted or not, distinct or not:
    the same verdict in Python and compiled (as batch rows are checked)."""
    from snl_numeric._core.validation import SUM_TOL, board_problem

    probs = np.array([0.5, 0.25, 0.25 + excess * SUM_TOL])
    f = np.array(faces, dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    problem = board_problem(10, 0, 0, False, [], [], faces, probs.tolist(), SUM_TOL)[0]
    assert _compiled_board_problem()(10, 0, 0, False, none, none, f, probs,
                                     SUM_TOL)[0] == problem
    assert (problem == 0) == (abs(excess) < 1 and len(set(faces)) == 3)


def test_batch_row_of_a_huge_negative_size_is_a_size_error():
    df = analyze_many([{"size": -2**57}, {"size": 10}], errors="coerce")
    assert df["error"].tolist()[0] == f"size must be at least 1, got {-2**57}"
    assert df["mean"].notna().tolist() == [False, True]


def test_many_jumps_checked_compiled_with_the_same_message():
    """Above PYTHON_RULES_MAX jumps the rules run compiled: a cycle is still named."""
    from snl_numeric._core.validation import PYTHON_RULES_MAX

    n = PYTHON_RULES_MAX + 5
    jumps = {x: x + 1 for x in range(1, n)} | {n: 1}  # one long chain closed into a loop
    with pytest.raises(ValueError, match="cycle"):
        Board(n + 10, jumps, chain=True)
    assert len(Board(2 * n + 10, {x: x + 1 for x in range(1, 2 * n, 2)}, chain=True).jumps) == n


@settings(max_examples=40)
@given(board_strategy(rules=True))
def test_the_tiniest_percentile_is_the_fewest_throws(board):
    """A level of 1e-10 % is first met by the fewest throws (the quantile rule's slack is
    relative: a cdf of 0 never meets a positive level), in analyze and analyze_many."""
    fewest = min_throws(board)
    rep = analyze(board, percentiles=(1e-10, 1e-14))
    if finish_probability(board) == 0.0:
        assert rep.percentiles == {1e-10: None, 1e-14: None}
        return
    assert rep.percentiles == {1e-10: fewest, 1e-14: fewest}
    row = analyze_many([board], columns=["p0.0000000001", "min_throws"]).iloc[0]
    assert row["p0.0000000001"] == row["min_throws"] == fewest


@pytest.mark.parametrize("tail", [0.8, 0.01, 1e-12])
def test_quantiles_and_mode_past_the_tail_cut_are_still_found(tail):
    """The pmf is cut where the mass left is below ``tail``, but a level (or the mode)
    past the cut is still reached: it is found by pushing on, never given as missing."""
    # a throw finishes with probability 0.3, else stays: P(T <= k) = 1 - 0.7**k
    geometric = Board(2, overshoot="exact", dice={2: 0.3, 3: 0.7})
    # the 2 climbs square by square, the 10 jumps home: pmf .2, .16, .128, .1024, .4096
    late_mode = Board(10, dice={10: 0.2, 2: 0.8})
    expected = [(2, 20, 1), (4, 5, 5)]  # median, p99.9, mode (derived by hand)
    for board, (median, p999, mode) in zip([geometric, late_mode], expected, strict=True):
        rep = analyze(board, tail=tail, percentiles=(99.9,))
        assert (rep.median, rep.percentiles[99.9], rep.mode, rep.note) == (median, p999,
                                                                         mode, "")
    df = analyze_many([geometric, late_mode], columns=["median", "p99.9", "mode"], tail=tail)
    assert df.astype(int).values.tolist() == [list(e) for e in expected]


def test_quantiles_past_max_throws_are_missing_with_a_note():
    """Pushing past the tail cut stops at ``max_throws``: what it leaves undecided is
    None, and the note says so."""
    rep = analyze(Board(2, overshoot="exact", dice={2: 0.3, 3: 0.7}), tail=0.01,
                  max_throws=15, percentiles=(99.9,))
    assert (rep.median, rep.percentiles[99.9]) == (2, None)
    assert "not decided within max_throws=15" in rep.note
    assert rep.pmf is not None
