"""Tests for snl_numeric.design (board layout search)."""

from __future__ import annotations

import json
import math

import naive
import numba
from conftest import boards as board_strategy
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from snl_numeric import Board, expected_throws, throws_variance
from snl_numeric._core.rng import row_below, row_uniform, stream_words
from snl_numeric.cli import main
from snl_numeric.design import DesignResult, design_board

DICE = [None, {1: 0.5, 2: 0.5}, {1: 0.25, 2: 0.25, 3: 0.25, 4: 0.25}, {1: 0.2, 3: 0.3, 6: 0.5}]


def assert_feasible(res: DesignResult, size, snakes, ladders, *, min_length=1, max_length=None,
                    forbidden=(), start=0, **rules):
    b = res.board
    assert b.size == size and b.start == start
    for key, value in rules.items():
        if key == "dice":
            assert b.dice.to_dict() == Board(2, dice=value).dice.to_dict()
        else:
            assert getattr(b, key) == value
    assert len(b.snakes) == snakes and len(b.ladders) == ladders
    max_length = size if max_length is None else max_length
    ends = []
    for s, d in b.jumps.items():
        assert 1 <= s < size and s != start and s not in forbidden
        assert 0 <= d <= size and d not in forbidden
        assert min_length <= abs(d - s) <= max_length
        ends += [s, d]
    assert len(set(ends)) == len(ends)  # no shared squares, hence no chained jumps
    assert not set(b.jumps.values()) & set(b.jumps)
    # the reported numbers are the core's exact numbers for the returned board
    assert math.isfinite(res.mean)
    assert res.mean == pytest.approx(expected_throws(b), rel=1e-10)
    assert res.variance == pytest.approx(throws_variance(b), rel=1e-8, abs=1e-9)


BRUTE_CASES = [
    (10, 1, 1, {}),
    (12, 1, 1, {"overshoot": "exact"}),
    # most layouts have E = inf (square 9 traps the token): max must not pick them
    (10, 1, 1, {"overshoot": "exact", "dice": {2: 0.5, 3: 0.5}}),
    (11, 1, 1, {"overshoot": "bounce", "start": 1, "chain": True}),
    (9, 2, 0, {"dice": {1: 0.5, 2: 0.5}}),
    (12, 1, 1, {"min_length": 3, "max_length": 6, "forbidden": (5, 11)}),
]


@pytest.mark.parametrize("size,snakes,ladders,kw", BRUTE_CASES)
def test_finds_brute_force_optimum(size, snakes, ladders, kw):
    values = naive.design_values(size, snakes, ladders, **kw)
    for objective, best in (("max", max(values)), ("min", min(values))):
        for method in ("anneal", "local"):
            res = design_board(size, snakes=snakes, ladders=ladders, objective=objective,
                               method=method, iterations=600, chains=4, rng=3, **kw)
            assert_feasible(res, size, snakes, ladders, **kw)
            assert res.value == pytest.approx(best, rel=1e-10), (objective, method)


def test_target_matches_brute_force():
    values = sorted(naive.design_values(10, 1, 1))
    target = 0.5 * (values[100] + values[101]) + 0.01
    best = min(abs(v - target) for v in values)
    assert best == naive.design_brute_force(10, 1, 1, "target", target=target)
    for method in ("anneal", "local"):
        res = design_board(10, snakes=1, ladders=1, target=target, method=method,
                           iterations=800, chains=4, rng=5)
        assert res.objective == "target" and res.target == target
        assert res.value == pytest.approx(best, rel=1e-9, abs=1e-12)
        assert res.value == pytest.approx(abs(expected_throws(res.board) - target), abs=1e-9)


def test_target_gets_close_on_100_squares():
    for target in (20.0, 45.0):
        res = design_board(100, snakes=10, ladders=10, target=target, iterations=1500,
                           chains=2, rng=0)
        assert_feasible(res, 100, 10, 10)
        assert abs(res.mean - target) < 0.05
        assert res.value == pytest.approx(abs(res.mean - target))


def test_max_beats_min_and_trace_is_monotone():
    hi = design_board(100, snakes=10, ladders=10, objective="max", iterations=1000,
                      chains=2, rng=1)
    lo = design_board(100, snakes=10, ladders=10, objective="min", iterations=1000,
                      chains=2, rng=1)
    for res in (hi, lo):
        assert_feasible(res, 100, 10, 10)
        assert res.trace.shape == (1000,)
        assert res.trace_evaluations.shape == (1000,)
        assert np.all(np.diff(res.trace_evaluations) >= 0)
        assert res.evaluations <= 1000 * 2 + 2 * 200  # budget plus initial layouts
        assert res.trace[-1] == res.value
    assert np.all(np.diff(hi.trace) >= 0) and np.all(np.diff(lo.trace) <= 0)
    # an empty 100-square board needs ~ 29.4 throws; designs move far off it both ways
    assert lo.mean < 10 < 60 < hi.mean


def test_reproducible_for_seed_and_threads():
    kw = dict(snakes=3, ladders=3, objective="max", iterations=400, chains=4)
    a = design_board(40, rng=11, **kw)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        b = design_board(40, rng=11, **kw)
        c = design_board(40, rng=11, method="local", **kw)
    finally:
        numba.set_num_threads(old)
    d = design_board(40, rng=11, method="local", **kw)
    assert a.board == b.board and np.array_equal(a.trace, b.trace)
    assert a.evaluations == b.evaluations
    assert c.board == d.board and np.array_equal(c.trace, d.trace)
    e = design_board(40, rng=np.random.SeedSequence(a.seed_entropy), **kw)
    assert e.board == a.board
    f = design_board(40, rng=np.random.default_rng(11), **kw)
    assert f.board == a.board  # an int seed and default_rng(seed) agree
    g = design_board(40, rng=12, **kw)
    assert g.seed_entropy != a.seed_entropy


@settings(deadline=None, max_examples=25)
@given(
    size=st.integers(12, 40),
    snakes=st.integers(0, 3),
    ladders=st.integers(0, 3),
    min_length=st.integers(1, 3),
    extra=st.one_of(st.none(), st.integers(5, 20)),
    forbidden=st.lists(st.integers(0, 40), max_size=4, unique=True),
    overshoot=st.sampled_from(["win", "exact", "bounce"]),
    chain=st.booleans(),
    dice=st.sampled_from(DICE),
    start=st.sampled_from([0, 1]),
    objective=st.sampled_from(["max", "min", "target"]),
    method=st.sampled_from(["anneal", "local"]),
    seed=st.integers(0, 2**32),
)
def test_constraints_hold(size, snakes, ladders, min_length, extra, forbidden, overshoot, chain,
                          dice, start, objective, method, seed):
    if snakes + ladders == 0:
        snakes = 1
    forbidden = tuple(f for f in forbidden if f <= size)
    max_length = None if extra is None else min_length + extra
    kw = dict(min_length=min_length, max_length=max_length, forbidden=forbidden,
              overshoot=overshoot, chain=chain, dice=dice, start=start)
    goal = {"target": 2.0 * size / 7} if objective == "target" else {"objective": objective}
    k = snakes + ladders
    if 2 * k > size + 1 - len(forbidden) or k > len(set(range(1, size)) - {start, *forbidden}):
        with pytest.raises(ValueError, match=f"cannot place {k} jumps"):  # too few squares
            design_board(size, snakes=snakes, ladders=ladders, method=method, iterations=60,
                         chains=2, rng=seed, **goal, **kw)
        return
    res = design_board(size, snakes=snakes, ladders=ladders, method=method, iterations=60,
                       chains=2, rng=seed, **goal, **kw)
    assert_feasible(res, size, snakes, ladders, **kw)
    # the kernel's evaluation of the layout it returns: the naive twin's dense solve
    mean, var = naive.naive_expected_dense(res.board)
    assert res.mean == pytest.approx(mean[start], rel=1e-10)
    assert res.variance == pytest.approx(var[start], rel=1e-8, abs=1e-9)
    if objective == "target":
        assert res.value == pytest.approx(abs(mean[start] - goal["target"]), abs=1e-9)
    else:
        assert res.value == res.mean


def test_result_str_and_dict():
    res = design_board(20, snakes=1, ladders=2, objective="min", iterations=50, chains=2, rng=0)
    text = str(res)
    assert "  expected throws   " in text and "  ladders           " in text
    d = res.to_dict()
    assert Board.from_dict(d["board"]) == res.board
    assert d["mean"] == res.mean and d["evaluations"] == res.evaluations


def test_cli(tmp_path, capsys):
    out = tmp_path / "board.json"
    code = main(["design", "--size", "30", "--snakes", "2", "--ladders", "2", "--min",
                 "--iterations", "200", "--chains", "2", "--seed", "4", "--json",
                 "-o", str(out), "--no-progress"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    board = Board.from_json(str(out))
    assert data["mean"] == pytest.approx(expected_throws(board), rel=1e-10)
    assert len(board.snakes) == 2 and len(board.ladders) == 2
    same = design_board(30, snakes=2, ladders=2, objective="min", iterations=200, chains=2,
                        rng=4)
    assert same.board.jumps == board.jumps
    code = main(["design", "--size", "30", "--snakes", "1", "--ladders", "1", "--target",
                 "8", "--iterations", "200", "--seed", "4", "--progress"])
    captured = capsys.readouterr()
    assert code == 0 and "closest to 8 (off by" in captured.out
    assert "design (anneal)" in captured.err
    assert main(["design", "--size", "5", "--snakes", "4", "--ladders", "4", "--max"]) == 2
    assert "cannot place 8 jumps" in capsys.readouterr().err


@pytest.mark.parametrize("kw,exc,match", [
    (dict(snakes=10, ladders=10, size=20), ValueError, "cannot place 20 jumps"),
    (dict(snakes=6, ladders=5, size=20), ValueError, "22 distinct squares"),
    (dict(snakes=1, ladders=1, size=20, forbidden=range(2, 20)), ValueError, "only 1 squares"),
    (dict(snakes=0, ladders=0, size=20), ValueError, "nothing to design"),
    (dict(snakes=1, ladders=1, size=20, min_length=5, max_length=4), ValueError,
     "min_length 5 is larger than max_length 4"),
    (dict(snakes=1, ladders=0, size=20, min_length=20), ValueError, "cannot place 1 snakes"),
    (dict(snakes=1, ladders=1, size=20, forbidden=[21]), ValueError, "forbidden square 21"),
    (dict(snakes=1, ladders=1, size=20, forbidden=[1.5]), TypeError, "forbidden squares"),
    (dict(snakes=1.0, ladders=1, size=20), TypeError, "snakes must be an integer"),
    (dict(snakes=-1, ladders=1, size=20), ValueError, "snakes must be at least 0"),
    (dict(snakes=1, ladders=1, size=20, start=20), ValueError, "below the goal"),
    (dict(snakes=1, ladders=1, size=20, overshoot="wrap"), ValueError, "overshoot"),
    (dict(snakes=1, ladders=1, size=20, method="ga"), ValueError, "method must be"),
    (dict(snakes=1, ladders=1, size=20, iterations=0), ValueError, "iterations"),
    # every throw overshoots and exact landing keeps the token: E = inf for every layout
    (dict(snakes=0, ladders=1, size=6, overshoot="exact", dice={7: 1.0}, chains=1), ValueError,
     "infinite expected length"),
    # 3 snakes need sources with a destination 4..5 below: only 4 squares, but 6 endpoints
    (dict(snakes=3, ladders=0, size=6, min_length=4), ValueError, "cannot place 3 snakes"),
])
def test_errors(kw, exc, match):
    kw.setdefault("objective", "max")
    size = kw.pop("size")
    with pytest.raises(exc, match=match):
        design_board(size, **kw)


def test_objective_errors():
    with pytest.raises(ValueError, match="exactly one of objective"):
        design_board(20, snakes=1, ladders=1)
    with pytest.raises(ValueError, match="exactly one of objective"):
        design_board(20, snakes=1, ladders=1, objective="max", target=5.0)
    with pytest.raises(ValueError, match="^objective must be one of 'max', 'min', 'fair', "
                                         "got 'longest'$"):
        design_board(20, snakes=1, ladders=1, objective="longest")
    with pytest.raises(TypeError, match="^objective must be one of 'max', 'min', 'fair', got 1$"):
        design_board(20, snakes=1, ladders=1, objective=1)
    with pytest.raises(TypeError, match="^method must be one of 'anneal', 'local', got b'local'$"):
        design_board(20, snakes=1, ladders=1, objective="max", method=b"local")
    with pytest.raises(ValueError, match="target must be a finite"):
        design_board(20, snakes=1, ladders=1, target=math.inf)
    with pytest.raises(TypeError, match="target must be a number"):
        design_board(20, snakes=1, ladders=1, target="5")


def test_greedy_failure_is_reported():
    # 2 snakes of length exactly 2 on squares 1..4 with ends 0..4: of the pairs (2,0), (3,1),
    # (4,2) only (2,0)+(3,1) and (3,1)+(4,2) use four distinct squares, both with E = 49/23
    # (an exact tie); 3 such snakes are not feasible.
    res = design_board(5, snakes=2, ladders=0, objective="max", min_length=2, max_length=2,
                       iterations=50, chains=2, rng=0)
    assert sorted(res.board.jumps.items()) in ([(2, 0), (3, 1)], [(3, 1), (4, 2)])
    assert res.mean == pytest.approx(49 / 23, rel=1e-14)
    with pytest.raises(ValueError, match="constraints look infeasible"):
        design_board(6, snakes=3, ladders=0, objective="max", min_length=2, max_length=2,
                     iterations=50, chains=2, rng=0)


def test_renamed_expected_is_mean():
    res = design_board(20, snakes=1, ladders=1, objective="max", iterations=20, chains=2, rng=1)
    with pytest.warns(DeprecationWarning, match="DesignResult.expected is now DesignResult.mean"):
        assert res.expected == res.mean
    assert res.to_dict()["mean"] == res.mean and "expected" not in res.to_dict()


# -- the search's random stream (issue 49: the simulation's, one per chain) -------------
def test_a_chain_stream_is_xoshiro256ss_as_published():
    # row_uniform: the top 53 bits of each word; row_below(n): Lemire's multiply-shift on
    # the top 32 bits (no rejection: n = 4 divides 2**32)
    state = np.stack([stream_words(np.random.SeedSequence(s)) for s in (5, 6)])
    ref = naive.xoshiro256ss(state[1].tolist())  # (a copy: the row advances)
    for _ in range(50):
        assert row_uniform(state, 1) == (next(ref) >> 11) * 2.0**-53
        assert row_below(state, 1, 4) == (next(ref) >> 32) * 4 >> 32
    assert state[0].tolist() == stream_words(np.random.SeedSequence(5)).tolist()  # untouched


def test_a_chain_stream_is_uniform():
    # integers exactly uniform over 0..n-1 for an n that does not divide 2**32;
    # floats with the mean and variance of U(0, 1), within 5 standard errors
    state = stream_words(np.random.SeedSequence(2024))[None, :].copy()
    n, draws = 7, 70_000
    counts = np.bincount([row_below(state, 0, n) for _ in range(draws)], minlength=n)
    assert len(counts) == n
    assert chisquare(counts).pvalue > 1e-3
    u = np.array([row_uniform(state, 0) for _ in range(draws)])
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 5 * math.sqrt(1 / 12 / draws)
    assert abs(u.var() - 1 / 12) < 5 * math.sqrt(1 / 180 / draws)  # Var of (U - 1/2)^2


# -- objective="fair": the smallest first-player edge -------------------------------------
def fast_edges(boards_, players, **rules):
    """fair_edges (the vectorised push) of layouts given as boards of one size and rules."""
    from snl_numeric._core.table import OVERSHOOT_CODES
    from snl_numeric.design.fair import fair_edges
    from snl_numeric.design.kernels import Space

    b0 = boards_[0]
    k = len(b0.jumps)
    n_snakes = len(b0.snakes)
    src = np.array([sorted(b.snakes) + sorted(b.ladders) for b in boards_], dtype=np.int64)
    dst = np.array([[b.jumps[s] for s in row] for b, row in zip(boards_, src.tolist())],
                   dtype=np.int64).reshape(len(boards_), k)
    space = Space(b0.size, n_snakes, np.ones(b0.size + 1, bool), np.ones(b0.size + 1, bool), 1,
                  b0.size, b0.start, OVERSHOOT_CODES[b0.overshoot], False, b0.dice.faces,
                  b0.dice.probs.reshape(1, -1))
    return fair_edges(space, src, dst, players, 1e-13, 100_000)


@pytest.mark.parametrize("rules", [{}, {"overshoot": "exact"},
                                   {"overshoot": "bounce", "dice": {1: 0.5, 2: 0.3, 3: 0.2}},
                                   {"start": 2, "dice": {1: 0.5, 2: 0.5}}])
def test_fair_edges_equal_the_players_formula_and_a_naive_push(rules):
    from snl_numeric import expected_throws, first_player_advantage

    layouts = [b for b in naive.design_layouts(9, 1, 1, **rules)][::23]
    layouts = [b for b in layouts if math.isfinite(expected_throws(b))]
    assert len(layouts) >= 10
    for k in (2, 3):
        fast = fast_edges(layouts, k)
        for b, edge in zip(layouts, fast.tolist(), strict=True):
            assert edge == pytest.approx(first_player_advantage(b, k), abs=1e-12)
            pmf = np.array(naive.naive_distribution(b, throws=3000))
            surv = 1.0 - np.cumsum(pmf)  # S(n) = P(T > n), from the naive push
            prev = np.concatenate([[1.0], surv[:-1]])
            assert edge == pytest.approx(float(pmf @ prev ** (k - 1)) - 1 / k, abs=1e-10)
            if k == 2:  # the closed form: the edge of two alike players is sum(p^2) / 2
                assert edge == pytest.approx(0.5 * float(pmf @ pmf), abs=1e-12)
    # a layout whose goal may never be reached is rejected (inf), not pushed forever
    trap = Board(6, {3: 1}, overshoot="exact", dice={3: 1.0})
    assert math.isinf(expected_throws(trap)) and fast_edges([trap], 2).tolist() == [math.inf]


def _design_like(b):
    """Whether a board is a layout design_board could return (the push's precondition):
    no jump from the start or square 0, none ending where another starts, the goal ahead."""
    return (b.start < b.size and b.start not in b.jumps and 0 not in b.jumps
            and not set(b.jumps.values()) & set(b.jumps))


@settings(deadline=None, max_examples=40)
@given(b=board_strategy(min_size=6, max_size=30).filter(_design_like), k=st.integers(2, 4))
def test_fair_edges_on_random_boards(b, k):
    from snl_numeric import expected_throws, first_player_advantage

    edge = float(fast_edges([b], k)[0])
    if not math.isfinite(expected_throws(b)):
        assert math.isinf(edge)
    else:
        assert edge == pytest.approx(first_player_advantage(b, k), abs=1e-12)
        assert edge >= -1e-15  # alike independent players: the first is never behind


def test_fair_finds_the_brute_force_optimum():
    from snl_numeric import expected_throws, first_player_advantage

    edges = [first_player_advantage(b, 2) for b in naive.design_layouts(10, 1, 1)
             if math.isfinite(expected_throws(b))]
    start_edge = None
    for method in ("anneal", "local"):
        res = design_board(10, snakes=1, ladders=1, objective="fair", players=2, method=method,
                           iterations=600, chains=4, rng=3)
        assert_feasible(res, 10, 1, 1)
        assert res.objective == "fair" and res.players == 2 and res.method == "local"
        assert res.value == first_player_advantage(res.board, 2)  # a fresh call
        assert res.value == pytest.approx(min(edges), rel=1e-10)
        assert res.value > 0.0  # never fair: 0.5 * sum(p^2) > 0
        start_edge = res.trace[0] if start_edge is None else start_edge
        assert res.trace[0] == start_edge  # method plays no part
    assert res.to_dict()["players"] == 2 and "first-player edge of 2 players" in str(res)


def test_fair_improves_on_the_start_layout():
    from snl_numeric import expected_throws, first_player_advantage

    for k in (2, 3):
        res = design_board(40, snakes=3, ladders=3, objective="fair", players=k, iterations=150,
                           chains=2, rng=7, overshoot="exact")
        assert_feasible(res, 40, 3, 3, overshoot="exact")
        assert res.value == first_player_advantage(res.board, k)
        assert res.trace[-1] == pytest.approx(res.value, abs=1e-12)
        assert np.all(np.diff(res.trace) <= 0) and res.trace[-1] < 0.8 * res.trace[0]
        assert res.mean == pytest.approx(expected_throws(res.board), rel=1e-10)
        assert res.evaluations <= 150 * 2 + 2 * 200 + 2


def test_fair_under_capture():
    from snl_numeric import first_player_advantage

    res = design_board(16, snakes=1, ladders=2, objective="fair", players=2, capture="start",
                       safe=[8], iterations=40, chains=2, rng=2)
    assert res.board.capture == "start" and res.board.safe == (8,)
    assert_feasible(res, 16, 1, 2, capture="start")
    assert res.value == first_player_advantage(res.board, 2)
    assert abs(res.value) == pytest.approx(res.trace[-1], abs=1e-12)
    assert abs(res.value) <= res.trace[0]


@pytest.mark.parametrize(("kw", "exc", "match"), [
    (dict(objective="fair"), ValueError, "needs players=k"),
    (dict(objective="fair", players=1), ValueError, "players must be at least 2, got 1"),
    (dict(objective="fair", players=2.0), TypeError, "players"),
    (dict(objective="max", players=2), ValueError, "players is for objective='fair'"),
    (dict(objective="min", capture="start"), ValueError, "capture is for objective='fair'"),
    (dict(target=5.0, safe=[3]), ValueError, "safe is for objective='fair'"),
    (dict(objective="fair", players=3, capture="start"), ValueError,
     r"2 players on boards of at most 2,601 joint states .* got players=3"),
    (dict(objective="fair", players=2, capture="start", size=60), ValueError,
     r"up to 50 squares\), got players=2, size=60"),
    (dict(objective="fair", players=2, capture="sideways"), ValueError, "capture"),
    (dict(objective="fair", players=2, safe=[3]), ValueError, "safe"),
])
def test_fair_errors(kw, exc, match):
    size = kw.pop("size", 20)
    with pytest.raises(exc, match=match):
        design_board(size, snakes=1, ladders=1, iterations=5, chains=1, **kw)
