"""Tests of ``simulate(..., players=k)``: races of several players, with and without capture
(``snl_numeric.simulate.multi``)."""

from __future__ import annotations

import dataclasses
import random
import warnings

import naive
import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import given, settings
from hypothesis import strategies as st

from snl_numeric import (
    Board,
    Chain,
    GameSimulationResult,
    boards,
    expected_game_length,
    simulate,
    win_probabilities,
)

#: Monte Carlo tolerance, in standard errors.
Z = 4.0


def race(board, games, players, rule, *, rng=0, starts=None, dice=None, threads=1,
         max_throws=10**7):
    """``simulate(players=...)`` on ``board`` with the capture rule ``rule = (mode, back,
    safe squares)`` put on it (:func:`capture_board`)."""
    return simulate(capture_board(board, rule), games, players=players, starts=starts,
                    dice=dice, rng=np.random.SeedSequence(rng), max_throws=max_throws,
                    threads=threads)


def capture_board(board, rule):
    """``board`` with the capture rule ``(mode, back, safe squares)`` of
    ``snl_numeric.board.capture_rule``."""
    mode, back, safe = rule
    capture = {0: None, 1: "start", 2: back}[mode]
    return board.replace(capture=capture, safe=safe if capture is not None else ())


def check_exact(result: GameSimulationResult, board, players, **kw) -> None:
    """Win shares, mean rounds and mean throws within Z standard errors of the exact answer
    (independent players, or the joint chain under the board's capture rule)."""
    exact = expected_game_length(board, players, **kw)
    assert result.censored == 0 and result.finished == result.games
    assert np.all(np.abs(result.win_shares - exact.win_probabilities)
                  < Z * result.win_stderr), (result.win_shares, exact.win_probabilities)
    assert abs(result.mean_rounds - exact.mean_rounds) < Z * result.rounds_stderr
    assert abs(result.mean_throws - exact.mean_throws) < Z * result.throws_stderr
    # the distribution of rounds: each bin within Z binomial standard errors
    n = min(len(result.rounds_pmf), len(exact.rounds_pmf))
    p = exact.rounds_pmf[:n]
    se = np.sqrt(p * (1 - p) / result.games) + 1.0 / result.games
    assert np.all(np.abs(result.rounds_pmf[:n] - p) < Z * se)


# -- no capture: the twin of win_probabilities / expected_game_length -----------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_milton_bradley_matches_exact(players):
    board = boards.get("milton-bradley")
    result = simulate(board, 100_000, players=players, rng=players)
    assert isinstance(result, GameSimulationResult) and result.players == players
    assert result.starts == (0,) * players and result.capture == (0, 0, (0, 100))
    check_exact(result, board, players)
    assert result.wins.sum() == result.finished
    assert result.rounds_histogram.sum() == result.throws_histogram.sum() == result.finished


VARIANTS = {
    "seed-30 exact": (boards.get("seed-30"), {}),
    "bounce chain loaded": (Board(40, {7: 30, 33: 2, 25: 10, 30: 36}, overshoot="bounce",
                                  chain=True, dice={1: 0.3, 2: 0.3, 5: 0.4}), {}),
    "starts and dice": (Board(30, {3: 22, 27: 5, 12: 2}, overshoot="exact"),
                        {"starts": [0, 10, None], "dice": [None, "1-4", {1: 0.5, 6: 0.5}]}),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_rule_variants_match_exact(name):
    board, kw = VARIANTS[name]
    players = 3
    result = simulate(board, 100_000, players=players, rng=11, **kw)
    check_exact(result, board, players, **kw)


def test_players_from_lists_and_one_player():
    board = boards.get("seed-30")
    a = simulate(board, 2_000, starts=[0, 5], rng=3)
    assert a.players == 2 and a.starts == (0, 5)
    assert a == simulate(board, 2_000, players=2, starts=[0, 5], rng=3)
    one = simulate(board, 50_000, players=1, rng=4)  # one racer: its length distribution
    single = simulate(board, 50_000, rng=4)
    assert one.win_shares.tolist() == [1.0] and one.mean_rounds == one.mean_throws
    assert abs(one.mean_throws - single.mean) < Z * np.hypot(one.throws_stderr, single.stderr)


@settings(max_examples=15)
@given(board_strategy(max_size=20), st.integers(2, 3), st.integers(0, 2**32 - 1))
def test_random_boards_match_exact(board, players, seed):
    """Any rules, boards that may strand: the shares within 5 SE of the exact chances (which
    sum to 1 - no_winner; a stranded game is a game nobody won)."""
    games = 20_000
    exact = win_probabilities(board, players)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # stranded games are expected here
        r = simulate(board, games, players=players, rng=seed)
    tol = 5 * np.sqrt(exact * (1 - exact) / games) + 5 / games
    assert np.all(np.abs(r.win_shares - exact) < tol), (r.win_shares, exact)
    assert r.wins.sum() + r.censored == games and r.stranded == r.censored


def test_progress_bar(capsys):
    simulate(boards.get("milton-bradley"), 3_000, players=2, rng=1, progress="always")
    err = capsys.readouterr().err
    assert "simulate: 100%" in err and "3.00k/3.00k" in err


# -- reproducibility -----------------------------------------------------------------------
def test_seed_and_threads_reproduce():
    board = boards.get("milton-bradley")
    rule = (1, 0, (5, 50))
    one = race(board, 20_000, 3, rule, rng=9, threads=1)
    two = race(board, 20_000, 3, rule, rng=9, threads=2)
    assert two.threads == 2 and dataclasses.replace(two, threads=1) == one
    again = simulate(board, 20_000, players=3, rng=one.seed_sequence())  # (no capture)
    assert again == simulate(board, 20_000, players=3, rng=9)
    assert again != simulate(board, 20_000, players=3, rng=10)
    assert one.to_dict()["capture"] == {"mode": 1, "back": 0, "safe": [0, 5, 50, 100]}


# -- capture -------------------------------------------------------------------------------
def test_capture_by_hand():
    """Board(2), faces 1 or 2, overshoot wins: from square 1 every throw wins. With
    capture, a mover on 0 facing an opponent on 1 wins with a = 1/2 + (1 - a)/2 = 2/3, so
    the first player wins 1/2 + (1/2)(1 - 2/3) = 2/3 (3/4 without capture)."""
    board = Board(2, dice={1: 0.5, 2: 0.5})
    for rule in [(1, 0, ()), (2, 1, ()), (2, 5, ())]:
        r = race(board, 100_000, 2, rule, rng=1)
        assert np.all(np.abs(r.win_shares - [2 / 3, 1 / 3]) < Z * r.win_stderr)
    safe = race(board, 100_000, 2, (1, 0, (1,)), rng=1)  # square 1 safe: no capture
    assert np.all(np.abs(safe.win_shares - [0.75, 0.25]) < Z * safe.win_stderr)
    assert naive.meet_joint(board.replace(capture="start"), 2)[0].tolist() == pytest.approx(
        [2 / 3, 1 / 3], abs=1e-14)


TINY = {  # (board, starts, capture, safe)
    "start": (Board(6, {2: 5, 4: 1}, overshoot="exact", dice="1-3"), [0, 0], "start", ()),
    "back 2, ladder to goal": (Board(6, {2: 6, 5: 3}, overshoot="bounce", dice="1-3"),
                               [0, 0, 0], 2, (3,)),
    "back 1 chained, starts": (Board(5, {1: 3, 3: 4}, chain=True, dice={1: 0.6, 2: 0.4}),
                               [0, 2], 1, ()),
    "start, per-player starts": (Board(5, {4: 2}, overshoot="exact", dice="1-2"),
                                 [1, 0, 3], "start", ()),
    "back 2, a throw that stays captures nobody": (Board(5, overshoot="exact", dice="1-2"),
                                                   [4, 4], 2, ()),
}


@pytest.mark.parametrize("name", list(TINY))
def test_capture_matches_dense_solve(name):
    board, starts, capture, safe = TINY[name]
    rule = (1, 0, safe) if capture == "start" else (2, capture, safe)
    result = race(board, 100_000, len(starts), rule, starts=starts, rng=5)
    wins, nobody, throws, rounds = naive.meet_joint(
        board.replace(capture=capture, safe=safe), len(starts), starts)
    assert nobody == 0.0
    assert result.censored == 0
    assert np.all(np.abs(result.win_shares - wins) < Z * result.win_stderr), (
        result.win_shares, wins)
    assert abs(result.mean_throws - throws) < Z * result.throws_stderr
    assert abs(result.mean_rounds - rounds) < Z * result.rounds_stderr


@pytest.mark.parametrize("capture, safe", [("start", (8, 20)), (3, ()), (5, (12,))])
def test_capture_matches_naive_game(capture, safe):
    """A board too large for the dense solve with three players: the kernel against the
    plain-Python game, two samples compared by their standard errors."""
    board = Board(24, {3: 14, 9: 20, 17: 4, 22: 11, 19: 23}, overshoot="exact", chain=True,
                  dice="1-4")
    starts = [0, 0, 0]
    rule = (1, 0, safe) if capture == "start" else (2, capture, safe)
    fast = race(board, 100_000, 3, rule, rng=2)
    rnd = random.Random(8)
    games = 10_000
    slow_board = board.replace(capture=capture, safe=safe)
    plays = [naive.capture_race_play(slow_board, rnd, starts) for _ in range(games)]
    winners = np.array([w for w, _ in plays])
    throws = np.array([t for _, t in plays], dtype=float)
    slow = np.bincount(winners, minlength=3) / games
    se = np.hypot(fast.win_stderr, np.sqrt(slow * (1 - slow) / games))
    assert np.all(np.abs(fast.win_shares - slow) < Z * se), (fast.win_shares, slow)
    se_t = np.hypot(fast.throws_stderr, throws.std(ddof=1) / np.sqrt(games))
    assert abs(fast.mean_throws - throws.mean()) < Z * se_t
    assert fast.mean_rounds > 0 and fast.censored == 0


MB = boards.get("milton-bradley")


@pytest.mark.parametrize("board, players", [
    (MB.replace(capture="start"), 2),
    (MB.replace(capture="start"), 3),
    (MB.replace(capture=3), 2),  # (a token caught on 83 goes to the ladder 80 -> 100: wins)
    (MB.replace(capture="start", safe=[10, 20, 30, 40, 50, 60, 70, 90]), 2),
], ids=["start-2", "start-3", "back3-2", "start-safe-2"])
def test_milton_bradley_capture_matches_the_joint_chain(board, players):
    """A million games within Z standard errors of the exact joint chain (snl_numeric.meet):
    win chances, mean rounds and throws, the distribution of rounds."""
    result = simulate(board, 1_000_000, players=players, rng=51 + players)
    check_exact(result, board, players)


def test_capture_lengthens_the_game():
    board = boards.get("milton-bradley")
    plain = race(board, 50_000, 2, (0, 0, ()), rng=3)
    bumped = race(board, 50_000, 2, (1, 0, ()), rng=3)
    assert bumped.mean_rounds - plain.mean_rounds > Z * np.hypot(bumped.rounds_stderr,
                                                                 plain.rounds_stderr)


# -- ends decided early, censoring ---------------------------------------------------------
def test_start_on_goal_and_stranded():
    board = Board(6, {4: 1}, overshoot="exact", dice={3: 0.5, 4: 0.5})
    home = simulate(board, 100, players=3, starts=[0, 6, 6], rng=0)
    assert home.wins.tolist() == [0, 100, 0] and home.rounds_histogram.tolist() == [100]
    assert home.mean_rounds == 0.0 and home.total_throws == 0
    dead = Board(4, overshoot="exact", dice={3: 1.0})  # from 0 to 3, then never 4
    with pytest.warns(RuntimeWarning, match="50 of 50 games had no winner"):
        r = simulate(dead, 50, players=2, rng=0)
    assert (r.censored, r.stranded, r.finished, r.total_throws) == (50, 50, 0, 0)
    assert r.win_shares.tolist() == [0.0, 0.0] and np.isnan(r.mean_rounds)
    # capture to the start, which is dead too: no capture can help, stranded before a throw
    with pytest.warns(RuntimeWarning, match="50 stranded"):
        capped = race(dead, 50, 2, (1, 0, ()), rng=0, max_throws=7)
    assert (capped.censored, capped.stranded, capped.total_throws) == (50, 50, 0)
    # capture back 1 from 3 lands on 2, alive (2 + 2 wins): such games run to the cap
    two = Board(4, overshoot="exact", dice={2: 0.5, 3: 0.5})
    with pytest.warns(RuntimeWarning, match="stopped at max_throws=9"):
        back = race(two, 4_000, 2, (2, 1, ()), rng=0, max_throws=9)
    assert back.stranded == 0 and back.censored > 0
    # a 3 strands a token on 3, a 4 wins: P0 wins 1/2, P1 1/4, a quarter is stranded
    half = Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5})
    with pytest.warns(RuntimeWarning, match="stranded"):
        r = simulate(half, 40_000, players=2, rng=1)
    assert np.all(np.abs(r.win_shares - [0.5, 0.25]) < Z * r.win_stderr)
    assert r.stranded == r.censored == r.games - r.finished
    assert r.total_throws == r.wins[0] + 2 * (r.games - r.wins[0])
    assert r.mean_rounds == 1.0 and r.throws_histogram.tolist() == [0, *r.wins]


def test_capture_games_strand_when_no_capture_can_help():
    # 5 is dead (2 and 3 overshoot 6 under exact landing) and safe: once both tokens stand
    # there nobody can win, nor be captured back to the start; the game is stranded (it ran
    # on to max_throws, so to 10**7 throws by default, before)
    board = Board(6, overshoot="exact", dice={2: 0.5, 3: 0.5}, capture="start", safe=(5,))
    exact = expected_game_length(board, 2)
    assert exact.no_winner == pytest.approx(0.25, abs=1e-12)
    games = 20_000
    with pytest.warns(RuntimeWarning, match="stranded"):
        r = simulate(board, games, players=2, rng=1, max_throws=1_000)
    assert r.stranded == r.censored == games - r.wins.sum()
    tol = Z * np.sqrt(exact.win_probabilities * (1 - exact.win_probabilities) / games)
    assert np.all(np.abs(r.win_shares - exact.win_probabilities) < tol)
    assert abs(r.censored / games - 0.25) < Z * np.sqrt(0.25 * 0.75 / games)
    assert r.total_throws < 10 * games  # no game played on to the cap
    # every player dead from the start under capture="start": decided before any throw
    loop = Board(18, {2: 15, 8: 12, 14: 5, 17: 12}, start=9, overshoot="exact",
                 dice={1: 1.0}, capture="start")
    with pytest.warns(RuntimeWarning, match="1000 stranded"):
        r = simulate(loop, 1_000, players=2, rng=1)
    assert (r.censored, r.stranded, r.total_throws) == (1_000, 1_000, 0)


# -- errors --------------------------------------------------------------------------------
def test_errors():
    board = boards.get("seed-30")
    with pytest.raises(ValueError, match="players must be at least 1, got 0"):
        simulate(board, 10, players=0)
    with pytest.raises(TypeError, match="players must be an integer, got True"):
        simulate(board, 10, players=True)
    with pytest.raises(ValueError, match="starts has 3 entries but players=2"):
        simulate(board, 10, players=2, starts=[0, 0, 0])
    with pytest.raises(ValueError, match="start=3 is the one-player start"):
        simulate(board, 10, players=2, start=3)
    with pytest.raises(ValueError, match="per_game=True records one-player games"):
        simulate(board, 10, players=2, per_game=True)
    with pytest.raises(ValueError, match="dice= without players="):
        simulate(board, 10, dice="1-4")
    with pytest.raises(ValueError, match="start of player 1: start must be a square"):
        simulate(board, 10, starts=[0, 99])
    with pytest.raises(ValueError, match="dice for player 0"):
        simulate(board, 10, players=2, dice=[{1: 2.0}, None])
    with pytest.raises(ValueError, match="dice for player 1: face 99 is too large for a bounce"):
        simulate(board.replace(overshoot="bounce", dice="1-3"), 10, players=2,
                 dice=[None, {99: 1.0}])
    with pytest.raises(TypeError, match="players= races on a Board, got Chain"):
        simulate(Chain(np.array([[0.5, 0.5], [0.0, 1.0]]), start=0), 10, players=2)


def test_long_games_count_in_the_means():
    """Games of 2**14 rounds or more leave the histograms but count in the means: one player
    needing two throws of probability 1e-4 (overshooting faces stay): 20,000 on average."""
    board = Board(2, overshoot="exact", dice={1: 1e-4, 6: 1 - 1e-4})
    r = simulate(board, 400, players=1, rng=3)
    assert r.long_games > 100 and r.rounds_histogram.sum() + r.long_games == r.finished == 400
    assert len(r.rounds_histogram) <= 1 << 14
    assert abs(r.mean_rounds - 20_000.0) < Z * r.rounds_stderr
    assert r.mean_throws == r.mean_rounds and r.throws_stderr == r.rounds_stderr
    assert r.total_throws == round(r.mean_throws * 400)


def test_pooled_moments_match_numpy():
    from snl_numeric.simulate.result import pooled_moments

    rng = np.random.default_rng(0)
    values = np.concatenate([rng.integers(0, 50, 300), rng.integers(10**6, 10**7, 7)])
    short = values[values < 50]
    hist = np.bincount(short)
    long = values[values >= 50].astype(float)
    mean, se = pooled_moments(hist, len(long), int(long.sum()), float((long**2).sum()))
    assert mean == pytest.approx(values.mean(), rel=1e-12)
    assert se == pytest.approx(values.std(ddof=1) / np.sqrt(len(values)), rel=1e-9)
    assert all(np.isnan(pooled_moments(np.zeros(3, np.int64), 0, 0, 0.0)))


def test_text_report():
    r = race(boards.get("milton-bradley"), 20_000, 3, (1, 0, (50,)), rng=4)
    text = str(r)
    assert text.startswith("milton-bradley: 20000 simulated races of 3 players")
    assert "capture to the start (safe 50)" in text
    for i in range(3):
        assert f"{i + 1}      0  {r.win_shares[i]:.6f}  {r.win_stderr[i]:.6f}" in text
    assert f"mean rounds       {r.mean_rounds:.4f} +/- {r.rounds_stderr:.4f}" in text
    assert "CENSORED" not in text
