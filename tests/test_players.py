"""Multi-player races: snl_numeric.players against the joint chain and simulation."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import players_joint_length, players_joint_solve, players_simulate

from snl_numeric import (
    Board,
    Dice,
    boards,
    expected_game_length,
    expected_throws,
    expected_throws_all,
    finish_probability,
    win_probabilities,
)
from snl_numeric.cli import main
from snl_numeric.dice import as_dice

DICE = [
    None,
    {1: 0.5, 2: 0.5},
    {1: 0.1, 2: 0.2, 3: 0.3, 4: 0.4},
    Dice.sum_of(2, 6),
    {3: 0.5, 4: 0.5},  # with exact landing, often strands the token
]


def _fitting(board):
    """The dice a board's rules accept (bounce limits the largest face)."""
    return [d for d in DICE if board.overshoot != "bounce" or as_dice(d).max_face <= board.size + 1]


@st.composite
def board_strategy(draw, max_size=20):
    size = draw(st.integers(6, max_size))
    dice = draw(st.sampled_from(DICE))
    overshoot = draw(st.sampled_from(["win", "exact", "bounce"]))
    if overshoot == "bounce" and as_dice(dice).max_face > size + 1:
        overshoot = "exact"  # such dice could bounce a token off the board
    return boards.random_board(
        size,
        draw(st.sampled_from([0.0, 0.15, 0.3, 0.45])),
        rng=draw(st.integers(0, 2**32 - 1)),
        overshoot=overshoot,
        chain=draw(st.booleans()),
        dice=dice,
    )


# -- against the joint (pair-state) chain -----------------------------------------
@settings(deadline=None, max_examples=40)
@given(board=board_strategy())
def test_two_players_match_pair_state(board):
    expected = players_joint_solve([board, board])
    got = win_probabilities(board, 2)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)


@settings(deadline=None, max_examples=30)
@given(board=board_strategy(), data=st.data())
def test_different_starts_and_dice_match_pair_state(board, data):
    starts = [data.draw(st.integers(0, board.size)) for _ in range(2)]
    dice = [data.draw(st.sampled_from(_fitting(board))) for _ in range(2)]
    per_player = [board if d is None else board.replace(dice=d) for d in dice]
    expected = players_joint_solve(per_player, starts)
    got = win_probabilities(board, starts=starts, dice=dice)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    # a list of boards means the same thing
    np.testing.assert_allclose(win_probabilities(per_player, starts=starts), got, atol=0)


@settings(deadline=None, max_examples=15)
@given(board=board_strategy(max_size=8), data=st.data())
def test_three_players_match_joint_chain(board, data):
    starts = [data.draw(st.integers(0, board.size - 1)) for _ in range(3)]
    expected = players_joint_solve([board] * 3, starts)
    got = win_probabilities(board, 3, starts=starts)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_unsure_boards_match_pair_state(seed):
    # exact landing with faces 3 and 4 strands tokens: nobody may ever win
    board = boards.random_board(15, 0.2, rng=seed, overshoot="exact", dice={3: 0.5, 4: 0.5})
    assert finish_probability(board) < 1.0
    starts = [0, seed]
    g = expected_game_length(board, starts=starts)
    np.testing.assert_allclose(g.win_probabilities, players_joint_solve([board] * 2, starts),
                               rtol=0, atol=1e-9)
    assert g.no_winner > 0.0 and g.mean_rounds == math.inf


@settings(deadline=None, max_examples=15)
@given(board=board_strategy(), data=st.data())
def test_benchmark_pair_state_baseline(board, data):
    # the vectorised pair-state solve timed in benchmarks/bench_players.py
    from benchmarks.bench_players import pair_state_win_probabilities

    other = board.replace(dice=data.draw(st.sampled_from(_fitting(board))))
    starts = [data.draw(st.integers(0, board.size)) for _ in range(2)]
    np.testing.assert_allclose(pair_state_win_probabilities(board, other, starts),
                               players_joint_solve([board, other], starts), rtol=0, atol=1e-12)


def test_milton_bradley_two_players_match_pair_state():
    mb = boards.get("milton-bradley")
    np.testing.assert_allclose(win_probabilities(mb, 2), players_joint_solve([mb, mb]),
                               rtol=0, atol=1e-9)


# -- invariants ---------------------------------------------------------------
@settings(deadline=None, max_examples=40)
@given(board=board_strategy(max_size=40), k=st.integers(1, 6))
def test_sums_and_no_winner(board, k):
    g = expected_game_length(board, k)
    f = finish_probability(board)
    assert g.no_winner == pytest.approx((1.0 - f) ** k, abs=1e-12)
    assert g.win_probabilities.sum() == pytest.approx(1.0 - g.no_winner, abs=k * 1e-10)
    np.testing.assert_allclose(g.win_pmf.sum(axis=1), g.win_probabilities, atol=1e-15)
    assert g.throws_pmf.sum() == pytest.approx(g.rounds_pmf.sum(), abs=1e-14)
    if f == 1.0:
        assert g.win_probabilities.sum() == pytest.approx(1.0, abs=k * 1e-10)
        assert math.isfinite(g.mean_rounds)
        # same board, same start: an earlier seat never hurts
        assert np.all(np.diff(g.win_probabilities) <= 1e-12)
        # rounds relate to throws: E[throws] = k E[rounds] - sum_i (k - 1 - i) P(i wins)
        seats = np.arange(k)
        assert g.mean_throws == pytest.approx(
            k * g.mean_rounds - ((k - 1 - seats) * g.win_probabilities).sum(), rel=1e-9)
    else:
        assert g.mean_rounds == math.inf and g.mean_throws == math.inf


@settings(deadline=None, max_examples=30)
@given(board=board_strategy(max_size=40))
def test_one_player_is_the_single_player_game(board):
    g = expected_game_length(board, 1)
    assert g.win_probabilities[0] == pytest.approx(finish_probability(board), abs=1e-10)
    t = expected_throws(board)
    if math.isfinite(t):
        assert g.mean_rounds == pytest.approx(t, rel=1e-8)
        assert g.mean_throws == pytest.approx(t, rel=1e-8)
    else:
        assert g.mean_rounds == math.inf


def test_one_player_milton_bradley():
    mb = boards.get("milton-bradley")
    g = expected_game_length(mb, 1)
    assert g.mean_rounds == pytest.approx(expected_throws(mb), rel=1e-10)
    assert g.win_probabilities.tolist() == pytest.approx([1.0], abs=1e-11)


@pytest.mark.parametrize("k", [2, 3, 4, 10])
def test_first_player_advantage_milton_bradley(k):
    w = win_probabilities(boards.get("milton-bradley"), k)
    assert w[0] - w[1] > 1e-3
    assert np.all(np.diff(w) < 0)
    assert w.sum() == pytest.approx(1.0, abs=1e-10)


# -- hand-derived cases ---------------------------------------------------------
def test_coin_board_closed_form():
    # one throw: finish with p, else stay (exact landing): T is geometric
    p, q, k = 0.3, 0.7, 3
    g = expected_game_length(Board(1, overshoot="exact", dice={1: p, 2: q}), k)
    closed = p * q ** np.arange(k) / (1 - q**k)
    np.testing.assert_allclose(g.win_probabilities, closed, rtol=1e-10)
    assert g.mean_rounds == pytest.approx(1 / (1 - q**k), rel=1e-10)
    # the game ends at throw m with probability p q^(m-1)
    m = np.arange(1, 30)
    np.testing.assert_allclose(g.throws_pmf[1:30], p * q ** (m - 1), rtol=1e-12)
    assert g.mean_throws == pytest.approx(1 / p, rel=1e-10)


def test_two_square_board_by_hand():
    b = Board(2, dice={1: 0.5, 2: 0.5})  # T = 1 or 2, each with probability 1/2
    assert win_probabilities(b).tolist() == [0.75, 0.25]
    assert win_probabilities(b, 3).tolist() == [0.625, 0.25, 0.125]
    g = expected_game_length(b, 2)
    assert g.throws_pmf.tolist() == [0.0, 0.5, 0.25, 0.25, 0.0]
    assert (g.mean_rounds, g.mean_throws) == (1.25, 1.75)
    assert g.win_pmf.tolist() == [[0.0, 0.5, 0.25], [0.0, 0.25, 0.0]]


def test_nobody_may_win():
    b = Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5})  # a 3 strands the token on 3
    g = expected_game_length(b, 3)
    assert g.win_probabilities.tolist() == [0.5, 0.25, 0.125]
    assert g.no_winner == 0.125
    assert g.mean_rounds == math.inf and g.mean_throws == math.inf
    # a sure player makes the game end surely
    g = expected_game_length(b, dice=[None, {4: 1.0}])
    assert g.win_probabilities.tolist() == [0.5, 0.5]
    assert (g.no_winner, g.mean_rounds, g.mean_throws) == (0.0, 1.0, 1.5)
    # nobody can ever finish
    g = expected_game_length(b, starts=[3, 3])
    assert g.win_probabilities.tolist() == [0.0, 0.0]
    assert g.no_winner == 1.0


def test_starts_on_the_goal():
    b = boards.get("seed-30")
    assert win_probabilities(b, starts=[0, 29]).tolist() == pytest.approx([0.0, 1.0], abs=1e-15)
    assert win_probabilities(b, starts=[29, 29, 0]).tolist() == [1.0, 0.0, 0.0]
    g = expected_game_length(b, starts=[0, 29])
    assert (g.mean_rounds, g.mean_throws) == (0.0, 0.0)
    assert g.rounds_pmf[0] == pytest.approx(1.0, abs=1e-15)


def test_head_start_and_handicap():
    mb = boards.get("milton-bradley")
    w = win_probabilities(mb, starts=[0, 38])  # second player begins atop the first ladder
    assert w[1] > 0.55  # the head start outweighs throwing second
    np.testing.assert_allclose(w, players_joint_solve([mb, mb], [0, 38]), atol=1e-9)
    # a spinner 1-3 is a handicap
    assert win_probabilities(mb, dice=[Dice.fair(3), None])[0] < 0.5
    s30 = boards.get("seed-30")
    w = win_probabilities(s30, dice=[Dice.fair(3), None])
    assert w[0] < win_probabilities(s30)[0]
    np.testing.assert_allclose(
        w, players_joint_solve([s30.replace(dice=Dice.fair(3)), s30]), atol=1e-9)
    # the same dice for all: a plain mapping
    half = {1: 0.5, 2: 0.5}
    np.testing.assert_allclose(win_probabilities(mb, 3, dice=half),
                               win_probabilities(mb.replace(dice=half), 3), atol=0)


# -- against simulation ----------------------------------------------------------
def _check_against_simulation(boards_, starts, g, games, seed, max_rounds=100_000):
    winner, rounds = players_simulate(boards_, starts, games=games,
                                      rng=np.random.default_rng(seed), max_rounds=max_rounds)
    k = len(boards_)
    horizon = min(max_rounds + 1, g.win_pmf.shape[1])
    exact = np.clip(g.win_pmf[:, :horizon].sum(axis=1), 0.0, 1.0)
    freq = np.bincount(winner[winner >= 0], minlength=k) / games
    # binomial standard error; for tiny p the normal approximation fails, so the
    # variance is floored at that of one game in `games` (a Poisson count of 1)
    se = np.sqrt(np.maximum(exact * (1 - exact), 1.0 / games) / games)
    assert np.all(np.abs(freq - exact) <= 5 * se + 1e-12), (freq, exact, se)
    return winner, rounds


def test_simulation_milton_bradley_three_players():
    mb = boards.get("milton-bradley")
    g = expected_game_length(mb, 3)
    winner, rounds = _check_against_simulation([mb] * 3, None, g, 20_000, seed=5)
    assert np.all(winner >= 0)
    se = rounds.std(ddof=1) / np.sqrt(len(rounds))
    assert abs(rounds.mean() - g.mean_rounds) <= 5 * se
    throws = (rounds - 1) * 3 + winner + 1
    se = throws.std(ddof=1) / np.sqrt(len(throws))
    assert abs(throws.mean() - g.mean_throws) <= 5 * se


@settings(deadline=None, max_examples=20)
@given(board=board_strategy(max_size=30), data=st.data())
def test_simulation_random_boards(board, data):
    k = data.draw(st.integers(2, 4))
    starts = [data.draw(st.integers(0, board.size)) for _ in range(k)]
    dice = [data.draw(st.sampled_from(_fitting(board))) for _ in range(k)]
    per_player = [board if d is None else board.replace(dice=d) for d in dice]
    g = expected_game_length(per_player, starts=starts)
    _check_against_simulation(per_player, starts, g, 4_000, seed=data.draw(st.integers(0, 99)),
                              max_rounds=300)


# -- errors -----------------------------------------------------------------------
def test_errors():
    mb = boards.get("milton-bradley")
    with pytest.raises(ValueError, match="players must be at least 1, got 0"):
        win_probabilities(mb, 0)
    with pytest.raises(TypeError, match="players must be an integer, got 2.5"):
        win_probabilities(mb, 2.5)
    with pytest.raises(TypeError, match="players must be an integer, got True"):
        win_probabilities(mb, True)
    with pytest.raises(ValueError, match="starts has 2 entries but players=3"):
        win_probabilities(mb, 3, starts=[0, 0])
    with pytest.raises(ValueError, match="dice has 3 entries but starts has 2"):
        win_probabilities(mb, starts=[0, 0], dice=[None] * 3)
    with pytest.raises(ValueError, match=r"start of player 1: start must be a square in 0\.\.100"):
        win_probabilities(mb, starts=[0, 101])
    with pytest.raises(TypeError, match="start of player 0: start must be an integer square"):
        win_probabilities(mb, starts=["a", 0])
    with pytest.raises(TypeError, match="starts must be a list"):
        win_probabilities(mb, starts=5)
    with pytest.raises(TypeError, match="dice must be a Dice"):
        win_probabilities(mb, dice=6)
    with pytest.raises(TypeError, match="dice for player 1"):
        win_probabilities(mb, dice=[None, 6])
    with pytest.raises(ValueError, match="dice for player 0: probability of face 1 must be "):
        win_probabilities(mb, dice=[{1: -0.5, 2: 1.5}, None])
    bounce = Board(2, overshoot="bounce", dice="1-3")  # a face 4 could bounce below 0
    for ask in (win_probabilities, expected_game_length):
        for board in (bounce, bounce.replace(capture="start")):
            with pytest.raises(ValueError, match="dice for player 1: face 4 is too large for a "
                                                 "bounce on a board of size 2"):
                ask(board, dice=[None, {1: 0.5, 4: 0.5}])
    with pytest.raises(TypeError, match=r"board\[1\] must be a Board, got str"):
        win_probabilities([mb, "milton-bradley"])
    with pytest.raises(TypeError, match="board must be a Board or a list of Boards, got str"):
        win_probabilities("milton-bradley")
    with pytest.raises(ValueError, match="board list is empty"):
        win_probabilities([])
    with pytest.raises(ValueError, match="board has 2 entries but players=4"):
        expected_game_length([mb, mb], 4)
    with pytest.raises(ValueError, match="tail must be a probability"):
        win_probabilities(mb, tail=0.0)
    with pytest.raises(ValueError, match="too large for a bounce"):
        win_probabilities(Board(3, overshoot="bounce"), dice=[None, {7: 1.0}])
    with pytest.raises(TypeError, match="capture"):
        win_probabilities(mb, capture=True)


def test_players_inferred_from_lists():
    # the players counted from starts= or from a list of boards, each answer the joint
    # chain's for that many players (a small board: the chain has size**k states)
    small = Board(9, {2: 7, 8: 3}, dice="1-3")
    w2, w3, w4 = (win_probabilities(small), win_probabilities(small, starts=[0, 0, 0]),
                  win_probabilities([small] * 4))
    assert (len(w2), len(w3), len(w4)) == (2, 3, 4)
    for k, w in ((2, w2), (3, w3), (4, w4)):
        np.testing.assert_allclose(w, players_joint_solve([small] * k), rtol=0, atol=1e-12)
    assert w2[0] > w2[1] and w3[0] > w3[1] > w3[2]


# -- command line ------------------------------------------------------------------
def test_cli_players(capsys):
    assert main(["analyze", "milton-bradley", "--players", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    g = expected_game_length(boards.get("milton-bradley"), 3)
    assert out["players"]["win_probabilities"] == pytest.approx(g.win_probabilities.tolist())
    assert out["players"]["mean_rounds"] == pytest.approx(g.mean_rounds)
    assert out["players"]["mean_throws"] == pytest.approx(g.mean_throws)
    assert "mean" in out  # the single-player analysis is still there
    assert main(["analyze", "seed-30", "--players", "2"]) == 0
    text = capsys.readouterr().out
    assert "player 1" in text and "expected rounds" in text and "fewest throws" in text
    assert main(["analyze", "seed-30", "--players", "0"]) == 2
    assert "players must be at least 1" in capsys.readouterr().err


def test_game_length_means_within_their_documented_tolerance():
    """Issue 54: a long game (a lopsided die, snake 7->0) leaves the means low by the cut
    tail's share: within k * tail * max(t) of the joint chain's exact answer (and a
    smaller tail closes most of the gap)."""
    board = Board(9, {2: 6, 7: 0, 1: 2}, overshoot="bounce", dice={1: 0.999, 2: 0.001})
    exact = players_joint_length([board, board], [7, 1])
    worst = float(expected_throws_all(board).max())
    assert 5_000 < worst < 7_000  # the long game of the docstring
    for tail in (1e-12, 1e-14):
        g = expected_game_length(board, 2, starts=[7, 1], tail=tail)
        assert -1e-14 * exact <= exact - g.mean_throws <= 2 * tail * worst + 1e-14 * exact
        assert g.mean_rounds <= g.mean_throws
