"""Tests of the Monte Carlo engine (``snl_numeric.simulate``)."""

from __future__ import annotations

import importlib
import json
import math
import time
import warnings

import naive
import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from snl_numeric import (
    Board,
    Dice,
    SimulationResult,
    analyze,
    boards,
    expected_throws,
    finish_probability,
    length_distribution,
    min_throws,
    simulate,
    throws_variance,
)
from snl_numeric._core import rng as core_rng
from snl_numeric.boards import random_board
from snl_numeric.cli import main

simulate_kernel = importlib.import_module("snl_numeric.simulate.kernel")

DICE = {
    "d6": None,
    "loaded": {1: 0.1, 2: 0.15, 3: 0.05, 4: 0.3, 5: 0.25, 6: 0.15},
    "2d6": Dice.sum_of(2, 6),
    "coin": {1: 0.5, 2: 0.5},
}
VARIANTS = [(o, c) for o in ("win", "exact", "bounce") for c in (False, True)]


def quiet(*args, **kwargs) -> SimulationResult:
    """``simulate`` with its censoring warning silenced (checked elsewhere)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return simulate(*args, **kwargs)


def same(a: SimulationResult, b: SimulationResult) -> bool:
    """Bit-for-bit equal numbers."""
    return (np.array_equal(a.histogram, b.histogram) and a.total_throws == b.total_throws
            and (a.censored, a.stranded, a.min, a.max) == (b.censored, b.stranded, b.min, b.max)
            and np.array_equal([a.mean, a.variance, a.stderr], [b.mean, b.variance, b.stderr],
                               equal_nan=True))


def check_against_exact(board: Board, result: SimulationResult) -> None:
    """Mean within 5 SE of the exact expectation, or the stranded share within 5 SE."""
    exact = expected_throws(board, result.start)
    if math.isfinite(exact):
        assert result.censored == 0
        assert abs(result.mean - exact) <= 5 * result.stderr + 1e-12, (result.mean, exact)
    else:
        q = 1.0 - finish_probability(board, result.start)
        se = math.sqrt(q * (1 - q) / result.games)
        assert result.censored == result.stranded
        assert abs(result.stranded / result.games - q) <= 5 * se + 1e-12


# -- closed forms ---------------------------------------------------------------
def test_deterministic_board():
    r = simulate(Board(5, dice={1: 1.0}), 1000, rng=0)
    assert (r.mean, r.variance, r.stderr, r.min, r.max) == (5.0, 0.0, 0.0, 5, 5)
    assert r.histogram.tolist() == [0, 0, 0, 0, 0, 1000]
    assert r.total_throws == 5000 and r.finished == 1000 and r.censored == 0
    assert r.ci == (5.0, 5.0)


def test_two_point_board_matches_pmf():
    board = Board(3, dice={1: 0.5, 2: 0.5})  # pmf [0, 0, 0.75, 0.25]
    r = simulate(board, 200_000, rng=1)
    share = r.histogram[3] / r.games
    assert r.histogram.tolist()[:2] == [0, 0] and len(r.histogram) == 4
    assert abs(share - 0.25) <= 5 * math.sqrt(0.25 * 0.75 / r.games)
    assert abs(r.variance - throws_variance(board)) < 0.01


def test_start_on_goal_and_start_override():
    board = boards.get("milton-bradley")
    r = simulate(board, 10, start=100, rng=0)
    assert r.histogram.tolist() == [10] and r.mean == 0.0 and r.total_throws == 0
    r = simulate(board, 20_000, start=80, rng=0)  # 80 is a ladder foot: not taken at start
    check_against_exact(board, r)
    assert r.start == 80


# -- agreement with the exact answers, every variant ----------------------------
@pytest.mark.parametrize(("overshoot", "chain"), VARIANTS)
@pytest.mark.parametrize("dice", list(DICE))
def test_mean_within_5se_every_variant(overshoot, chain, dice):
    rng = np.random.default_rng([len(dice), VARIANTS.index((overshoot, chain))])
    board = random_board(60, 0.25, rng=rng, overshoot=overshoot, chain=chain, dice=DICE[dice])
    r = quiet(board, 20_000, rng=7)
    check_against_exact(board, r)


@settings(deadline=None, max_examples=15)
@given(size=st.integers(2, 80), frac=st.floats(0.0, 0.4), seed=st.integers(0, 2**32),
       overshoot=st.sampled_from(["win", "exact", "bounce"]), chain=st.booleans(),
       dice=st.sampled_from(list(DICE)))
def test_mean_within_5se_random_boards(size, frac, seed, overshoot, chain, dice):
    max_face = 12 if dice == "2d6" else 6
    if overshoot == "bounce" and max_face > size:
        overshoot = "win"
    board = random_board(size, frac, rng=seed, overshoot=overshoot, chain=chain,
                         dice=DICE[dice])
    r = quiet(board, 5_000, rng=seed)
    check_against_exact(board, r)
    assert r.finished + r.censored == r.games
    assert r.histogram.sum() == r.finished
    # the exact mean above is the library's: the naive twin's (a dense solve) is the same
    exact = naive.naive_expected_dense(board)[0][board.start]
    assert expected_throws(board) == pytest.approx(exact, rel=1e-9)
    if math.isfinite(exact):
        assert abs(r.mean - exact) <= 5 * r.stderr + 1e-12, (r.mean, exact)


def test_histogram_chi_square_against_exact_pmf():
    board = boards.get("milton-bradley")
    r = simulate(board, 200_000, rng=2024)
    pmf = length_distribution(board)
    n = max(len(pmf), len(r.histogram))
    expected = np.pad(pmf, (0, n - len(pmf))) * r.games
    observed = np.pad(r.histogram, (0, n - len(r.histogram))).astype(float)
    # pool bins with fewer than 5 expected games into their neighbours
    obs_pooled, exp_pooled, o, e = [], [], 0.0, 0.0
    for ob, ex in zip(observed, expected, strict=True):
        o, e = o + ob, e + ex
        if e >= 5:
            obs_pooled.append(o)
            exp_pooled.append(e)
            o = e = 0.0
    obs_pooled[-1] += o
    exp_pooled[-1] += e
    exp_pooled = np.array(exp_pooled) * (sum(obs_pooled) / sum(exp_pooled))
    stat, p = chisquare(obs_pooled, exp_pooled)
    assert len(obs_pooled) > 50
    assert p > 1e-3, (stat, p)


def test_loaded_dice_face_frequency():
    # one throw from square 0 on a jump-free board lands on the face: a test of the sampler
    dice = {1: 0.1, 2: 0.15, 3: 0.05, 4: 0.3, 5: 0.25, 6: 0.15}
    board = Board(7, start=0, overshoot="exact", dice=dice)
    r = simulate(board, 50_000, rng=3, start=1, max_throws=10**6)
    # from 1 the game lasts exactly one throw only with face 6
    assert abs(r.histogram[1] / r.games - 0.15) <= 5 * math.sqrt(0.15 * 0.85 / r.games)


def test_alias_table_reproduces_probabilities():
    for probs in ([0.1, 0.15, 0.05, 0.3, 0.25, 0.15], Dice.sum_of(3, 6).probs, [1e-9, 1 - 1e-9]):
        probs = np.asarray(probs, dtype=float)
        alias, thresh, fair = core_rng.alias_table(probs)
        assert not fair
        k = len(probs)
        keep = thresh.astype(float) / 2.0**64
        got = keep.copy()
        np.add.at(got, alias, 1.0 - keep)
        assert np.allclose(got / k, probs, rtol=0, atol=1e-15)
    alias, thresh, fair = core_rng.alias_table(np.full(6, 1 / 6))
    assert fair


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40).filter(lambda w: sum(w) > 0))
def test_alias_table_is_the_loop_bit_for_bit(weights):
    probs = np.array(weights) / sum(weights)
    alias, thresh, _ = core_rng.alias_table(probs)
    want_alias, want_thresh = naive.alias_table_loop(probs)
    assert alias.tolist() == want_alias.tolist() and thresh.tolist() == want_thresh.tolist()
    rows, _, _ = core_rng.alias_table(np.stack([probs, probs[::-1]]))  # rows: each its own
    assert rows[0].tolist() == want_alias.tolist()
    assert rows[1].tolist() == naive.alias_table_loop(probs[::-1])[0].tolist()


def test_alias_table_above_ordinary_size_is_the_loop_bit_for_bit():
    # 5,001 uneven rows of 7 columns (zeros too, as a chain's padded rows): 35,007 entries,
    # above ORDINARY_ENTRIES, so the rows pair in the Numba loop (``_alias_table_jit``)
    # unless a path is forced; the NumPy body (forced) and the plain loop agree with it
    from snl_numeric import options
    from snl_numeric._core.sizes import ORDINARY_ENTRIES, ordinary

    rng = np.random.default_rng(49)
    probs = rng.dirichlet(np.full(7, 0.5), size=5_001)
    probs[rng.random(probs.shape) < 0.2] = 0.0
    probs[probs.sum(axis=1) == 0, 0] = 1.0
    probs /= probs.sum(axis=1, keepdims=True)
    assert probs.size > ORDINARY_ENTRIES and not ordinary(*probs.shape)
    alias, thresh, fair = core_rng.alias_table(probs)
    want_alias, want_thresh = naive.alias_rows_loop(probs)
    assert not fair
    assert np.array_equal(alias, want_alias) and np.array_equal(thresh, want_thresh)
    with options(path="direct"):
        np_alias, np_thresh, _ = core_rng.alias_table(probs)
    assert np.array_equal(np_alias, alias) and np.array_equal(np_thresh, thresh)


# -- the naive twin -------------------------------------------------------------
@pytest.mark.parametrize(("overshoot", "chain"),
                         [("win", False), ("exact", True), ("bounce", False)])
def test_naive_simulator_agrees(overshoot, chain):
    board = random_board(40, 0.3, rng=11, overshoot=overshoot, chain=chain,
                         dice=DICE["loaded"])
    exact = expected_throws(board)
    assert math.isfinite(exact)
    ours = simulate(board, 20_000, rng=5)
    slow = np.array(naive.simulate_naive(board, 4_000, seed=5), dtype=float)
    slow_se = slow.std(ddof=1) / math.sqrt(len(slow))
    assert abs(slow.mean() - exact) <= 5 * slow_se
    assert abs(ours.mean - exact) <= 5 * ours.stderr
    assert abs(ours.mean - slow.mean()) <= 5 * math.hypot(ours.stderr, slow_se)
    assert ours.min >= min_throws(board) and slow.min() >= min_throws(board)


# -- reproducibility -------------------------------------------------------------
def test_bit_identical_across_thread_counts():
    board = boards.get("milton-bradley").replace(dice=DICE["loaded"])
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = simulate(board, 30_000, rng=99)
        numba.set_num_threads(2)
        two = simulate(board, 30_000, rng=99)
    finally:
        numba.set_num_threads(old)
    assert one.threads == 1 and two.threads == 2
    assert same(one, two)
    assert same(one, simulate(board, 30_000, rng=99, threads=2, progress=False))


@pytest.mark.parametrize("name", ["loaded", "exact-cap", "strand", "long"])
def test_rounds_of_any_length_give_the_same_games(monkeypatch, name):
    """Blocks save their state between rounds and resume exactly: a run cut into rounds of
    one to a few steps per block plays the same games as one long round."""
    board, kw = {
        "loaded": (boards.get("milton-bradley").replace(dice=DICE["loaded"]), {}),
        "exact-cap": (Board(30, {29: 0}, overshoot="exact"), {"max_throws": 60}),
        "strand": (Board(20, {10: 20}, overshoot="exact", dice={2: 1.0}), {}),
        "long": (random_board(400, 0.2, rng=5), {}),
    }[name]
    whole = quiet(board, 3_000, rng=7, per_game=True, threads=2, **kw)
    monkeypatch.setattr(simulate_kernel, "FIRST_BUDGET", 1)
    monkeypatch.setattr(simulate_kernel, "MIN_BUDGET", 1)
    monkeypatch.setattr(simulate_kernel, "ROUND_SECONDS", 0.0)
    monkeypatch.setattr(simulate_kernel, "HIST_BINS", 8)  # the long-game replay in rounds too
    cut = quiet(board, 3_000, rng=7, per_game=True, threads=2, **kw)
    assert same(whole, cut) and whole.total_throws > 0
    for a, b in ((whole.throws, cut.throws), (whole.final_square, cut.final_square),
                 (whole.jump_used, cut.jump_used)):
        assert np.array_equal(a, b)


def test_same_seed_same_result_different_seed_different():
    board = boards.get("seed004")
    a = simulate(board, 5_000, rng=1)
    b = simulate(board, 5_000, rng=1)
    c = simulate(board, 5_000, rng=2)
    assert same(a, b)
    assert not np.array_equal(a.histogram, c.histogram)
    ss = np.random.SeedSequence(12345, spawn_key=(3,))
    d = simulate(board, 5_000, rng=ss)
    assert (d.entropy, d.spawn_key) == (12345, (3,))
    assert same(d, simulate(board, 5_000, rng=ss))  # the SeedSequence is not consumed
    assert same(d, simulate(board, 5_000, rng=d.seed_sequence()))


def test_generator_and_fresh_entropy_are_recorded():
    board = boards.get("seed004")
    gen = np.random.default_rng(0)
    a = simulate(board, 3_000, rng=gen)
    b = simulate(board, 3_000, rng=gen)  # the generator advanced
    assert a.entropy != b.entropy
    assert same(a, simulate(board, 3_000, rng=a.seed_sequence()))
    c = simulate(board, 3_000)
    assert same(c, simulate(board, 3_000, rng=c.seed_sequence()))


def test_fewer_games_than_blocks():
    board = boards.get("seed-30")
    r = simulate(board, 7, rng=0, per_game=True)
    assert r.games == 7 and r.histogram.sum() == 7 and len(r.throws) == 7
    assert r.min >= 3


# -- max_throws, censoring -------------------------------------------------------
def test_board_that_never_finishes_returns_promptly():
    board = Board(4, overshoot="exact", dice={3: 1.0})  # 0 -> 3, then stuck on 3
    quiet(board, 10, rng=0)  # the kernel compiled (or loaded) outside the timing
    t0 = time.process_time()  # CPU time of every thread: a busy machine does not stretch it
    with pytest.warns(RuntimeWarning, match="did not finish"):
        r = simulate(board, 100_000, rng=0, max_throws=10**9)
    assert time.process_time() - t0 < 5.0
    assert r.censored == r.games == r.stranded and r.finished == 0
    assert math.isnan(r.mean) and r.min is None and r.histogram.sum() == 0
    assert "CENSORED" in str(r)
    assert r.total_throws == 0  # square 0 itself cannot reach the goal: stranded at once
    g = quiet(board, 10, rng=0, per_game=True)
    assert g.final_square.tolist() == [0] * 10 and g.throws.tolist() == [0] * 10
    # from square 2 a throw of 3 overshoots and stays: stranded on 2 before any throw
    assert quiet(board, 10, rng=0, start=2).stranded == 10
    # a board whose start can finish but one branch cannot: stranded inside the kernel
    half = Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5})
    h = quiet(half, 10_000, rng=0, max_throws=10**9, per_game=True)
    assert 0 < h.stranded == h.censored < h.games
    assert set(h.final_square[h.final_square != 4].tolist()) == {3}


def test_cap_counts_games_as_censored():
    board = Board(100, overshoot="exact")  # at least 17 throws
    with pytest.warns(RuntimeWarning, match="max_throws=5"):
        r = simulate(board, 1_000, rng=0, max_throws=5)
    assert r.censored == 1_000 and r.stranded == 0 and r.total_throws == 5_000
    assert r.histogram.sum() == 0 and math.isnan(r.stderr)


def test_game_finishing_on_the_last_allowed_throw_counts():
    board = Board(3, dice={1: 1.0})
    assert simulate(board, 10, rng=0, max_throws=3).finished == 10
    r = quiet(board, 10, rng=0, max_throws=2)
    assert r.censored == 10 and r.total_throws == 20


def test_snake_loop_partly_censored():
    # the snake 5->0 sends the token back; reaching 6 needs luck with the 1-2 coin
    board = Board(6, {5: 0}, overshoot="exact", dice={1: 0.5, 2: 0.5})
    with pytest.warns(RuntimeWarning):
        r = simulate(board, 20_000, rng=4, max_throws=4)
    pmf = length_distribution(board)
    p_done = pmf[:5].sum()
    assert r.max <= 4 and r.stranded == 0
    assert abs(r.finished / r.games - p_done) <= 5 * math.sqrt(p_done * (1 - p_done) / r.games)


def test_long_games_replayed_beyond_first_histogram(monkeypatch):
    board = boards.get("milton-bradley")
    full = simulate(board, 20_000, rng=8)
    monkeypatch.setattr(simulate_kernel, "HIST_BINS", 16)
    short = simulate(board, 20_000, rng=8)
    assert same(full, short) and full.max > 16


# -- per-game outputs ---------------------------------------------------------------
@pytest.mark.parametrize("chain", [False, True])
def test_per_game_consistent_with_summary(chain):
    board = boards.get("milton-bradley").replace(chain=chain)
    if chain:  # add a chain: ladder 1->38 then make 38 a snake to 20
        jumps = dict(board.jumps)
        jumps[38] = 20
        board = board.replace(jumps=jumps)
    plain = simulate(board, 40_000, rng=6)
    per = simulate(board, 40_000, rng=6, per_game=True)
    assert same(plain, per)
    assert plain.throws is None and per.throws.shape == (40_000,)
    assert np.array_equal(np.bincount(per.throws), per.histogram)
    assert (per.final_square == board.size).all() and per.throws.sum() == per.total_throws
    exact = analyze(board).jump_probability
    cb = board.compiled
    freq = per.jump_used.mean(axis=0)
    for j, (s, d) in enumerate(zip(cb.jump_src.tolist(), cb.jump_dst.tolist(), strict=True)):
        p = exact[(s, d)]
        assert abs(freq[j] - p) <= 5 * math.sqrt(p * (1 - p) / per.games) + 1e-12, (s, d)
    if chain:  # a game that takes 1->38 goes on to 20: both used together
        one, snake = cb.jump_index[1], cb.jump_index[38]
        assert (per.jump_used[per.jump_used[:, one], snake]).all()


@pytest.mark.parametrize("dice, per_game", [(None, False), (None, True),
                                             ({1: 0.3, 2: 0.7}, False), ({1: 0.3, 2: 0.7}, True)])
def test_kernel_compiled_before_the_clock_is_the_one_played(monkeypatch, dice, per_game):
    """Each of the four kernels (fair die or not, per-game records or not: None arguments
    switch them at compile time) is compiled by ``Run.compile`` before the clock starts,
    with the argument types the games are then played with."""
    real, types = simulate_kernel.simulate_kernel, []

    def spy(*args):
        types.append(tuple(numba.typeof(a) for a in args))
        return real(*args)

    monkeypatch.setattr(simulate_kernel, "simulate_kernel", spy)
    quiet(Board(20, {10: 2}, dice=dice), 500, rng=0, per_game=per_game)
    assert len(types) >= 2 and len(set(types)) == 1
    assert isinstance(types[0][2], numba.types.NoneType) == (dice is None)  # thresh
    assert isinstance(types[0][-3], numba.types.NoneType) == (not per_game)  # throws


def test_per_game_censored_games():
    board = Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5})
    r = quiet(board, 10_000, rng=1, per_game=True, max_throws=50)
    done = r.final_square == 4
    assert r.finished == done.sum() and r.stranded == (r.final_square == 3).sum()
    assert (r.throws[~done] == 1).all()
    q = 0.5
    assert abs(r.stranded / r.games - q) <= 5 * math.sqrt(q * q / r.games)


# -- result object, errors, CLI --------------------------------------------------------
def test_result_str_and_dict():
    r = simulate(boards.get("milton-bradley"), 1_000, rng=3)
    text = str(r)
    assert "1000 simulated games" in text and "95% interval" in text and "entropy=3" in text
    d = json.loads(json.dumps(r.to_dict()))
    assert d["mean"] == r.mean and d["histogram"] == r.histogram.tolist()
    assert d["entropy"] == "3" and d["ci"] == list(r.ci)
    lo, hi = r.ci
    assert lo < r.mean < hi and math.isclose(hi - r.mean, 1.959963984540054 * r.stderr)
    with pytest.raises(AttributeError):
        r.mean = 0.0
    assert math.isclose(r.pmf.sum(), 1.0)


@pytest.mark.parametrize(("kwargs", "exc", "match"), [
    ({"games": 0}, ValueError, "games must be at least 1, got 0"),
    ({"games": 2.5}, TypeError, "games must be an integer"),
    ({"games": 10, "max_throws": 0}, ValueError, "max_throws must be at least 1"),
    ({"games": 10, "rng": "seed"}, TypeError, "rng must be"),
    ({"games": 10, "rng": True}, TypeError, "rng must be"),
    ({"games": 10, "threads": 0}, ValueError, "threads must be at least 1"),
    ({"games": 10, "threads": 10**6}, ValueError, "NUMBA_NUM_THREADS"),
    ({"games": 10, "confidence": 1.5}, ValueError, r"^confidence must be in \(0, 1\), got 1.5$"),
    ({"games": 10, "confidence": "0.9"}, TypeError, "^confidence must be a number, got '0.9'$"),
    ({"games": 10, "confidence": "0.9", "players": 2}, TypeError, "confidence must be a number"),
    ({"games": 10, "start": 101}, ValueError, "start must be a square"),
])
def test_errors(kwargs, exc, match):
    board = boards.get("milton-bradley")
    games = kwargs.pop("games")
    with pytest.raises(exc, match=match):
        simulate(board, games, **kwargs)


def test_not_a_board():
    with pytest.raises(TypeError):
        simulate("milton-bradley", 10)


def test_cli_json(capsys):
    code = main(["simulate", "milton-bradley", "--games", "5000", "--seed", "4", "--json",
                 "--no-progress", "--overshoot", "bounce"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    r = simulate(boards.get("milton-bradley", overshoot="bounce"), 5_000, rng=4)
    assert out["mean"] == r.mean and out["games"] == 5000 and out["board"]["overshoot"] == "bounce"


def test_cli_text_and_progress(capsys):
    code = main(["simulate", "seed004", "--games", "3000", "--seed", "1", "--threads", "1",
                 "--max-throws", "20"])
    assert code == 0
    cap = capsys.readouterr()
    assert "CENSORED" in cap.out and cap.err == ""  # stderr is not a terminal: no bar
    assert main(["simulate", "seed004", "--games", "3000", "--seed", "1", "--progress"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("\rsimulate:") and err.count("100%") == 1 and "3.00k/3.00k" in err
    assert main(["simulate", "seed004", "--games", "0", "--no-progress"]) == 2


def test_games_that_do_not_finish_are_reported_without_swapping_warning_filters(
        monkeypatch, capsys):
    """``snl simulate`` and the warm-up report stranded games themselves: they call the
    simulation that does not warn rather than silence its warning with
    ``warnings.catch_warnings``, whose exit would put back the filters it found and so
    drop a filter another thread set meanwhile (here: set while the games are played)."""
    from snl_numeric.cli import build_parser
    from snl_numeric.simulate import run

    class Meanwhile(run.Progress):  # another thread sets a filter while the games run
        def __enter__(self):
            warnings.filterwarnings("ignore", message="set meanwhile", append=True)
            return super().__enter__()

    def kept() -> bool:
        found = [f for f in warnings.filters if f[1] is not None
                 and f[1].pattern == "set meanwhile"]
        for f in found:
            warnings.filters.remove(f)
        return bool(found)

    warmup = importlib.import_module("snl_numeric.warmup")
    monkeypatch.setattr(run, "Progress", Meanwhile)
    args = build_parser(only="simulate").parse_args(
        ["simulate", "seed-30", "--games", "20", "--seed", "1", "--max-throws", "5"])
    with warnings.catch_warnings(record=True) as caught:  # (the test's own: one thread)
        warnings.simplefilter("always")
        assert args.func(args) == 0  # the command without main's own filters
        assert kept()
        warmup._simulate()  # stranded games among its warm-up runs
        assert kept()
    assert caught == []  # and neither warned
    assert "14 games did not finish (0 stranded, 14 at --max-throws 5)" in capsys.readouterr().out
    board = Board(6, overshoot="exact", dice="2-3", capture="start", safe=[5])
    with pytest.warns(RuntimeWarning, match="of 100 games had no winner") as rec:
        simulate(board, 100, players=2, rng=0)  # the library still warns, at our line
    assert rec[0].filename == __file__
