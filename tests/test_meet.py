"""Players who meet (issue 51): the joint chain under a capture rule against an independent
brute-force chain (tests/naive.py), the game without capture, and refusals."""

import math

import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from naive import export_matrix, meet_joint

from snl_numeric import Board, boards, expected_game_length, simulate, win_probabilities
from snl_numeric._core.memory import MemoryLimitError

TAIL = 1e-14  # the mass left racing: each win chance is exact within it


def check(board, k, starts=None, dice=None):
    wins, nobody, throws, rounds = meet_joint(board, k, starts, dice)
    g = expected_game_length(board, k, starts=starts, dice=dice, tail=TAIL)
    np.testing.assert_allclose(g.win_probabilities, wins, rtol=0, atol=1e-12)
    np.testing.assert_allclose(win_probabilities(board, k, starts=starts, dice=dice, tail=TAIL),
                               wins, rtol=0, atol=1e-12)
    assert g.no_winner == pytest.approx(nobody, abs=1e-12)
    if math.isinf(throws):
        assert math.isinf(g.mean_throws) and math.isinf(g.mean_rounds)
    else:
        assert g.mean_throws == pytest.approx(throws, rel=1e-10)
        assert g.mean_rounds == pytest.approx(rounds, rel=1e-10)
        assert g.rounds_pmf.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(g.win_pmf.sum(axis=1), g.win_probabilities, atol=1e-15)
    return g


BASE = {10: 3, 6: 2, 8: 1, 4: 9}  # ladders 4->9, 10 is a snake to 3, ...
VARIANTS = [
    {"overshoot": "win", "capture": "start"},
    {"overshoot": "exact", "capture": "start"},
    {"overshoot": "bounce", "capture": "start"},
    {"overshoot": "exact", "capture": 1},
    {"overshoot": "win", "capture": 3},
    {"overshoot": "bounce", "capture": 2, "chain": True, "jumps": {10: 3, 3: 5, 8: 1, 4: 9}},
    {"overshoot": "exact", "capture": "start", "chain": True, "jumps": {10: 3, 3: 5, 6: 2}},
    {"overshoot": "win", "capture": "start", "safe": [5, 7]},
    {"overshoot": "exact", "capture": 2, "safe": [1, 9], "start": 1},
    {"overshoot": "win", "capture": "start", "dice": "1-3"},
]


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("rules", VARIANTS)
def test_joint_chain_matches_brute_force(rules, k):
    rules = dict(rules)
    jumps = rules.pop("jumps", BASE)
    board = Board(12 if k < 4 else 10, {s: d for s, d in jumps.items() if s < (12 if k < 4
                                                                              else 10)}, **rules)
    check(board, k)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_captured_home_matches_brute_force(k):
    """capture=k onto a square whose jump (or chain of jumps) leads to the goal: the captured
    player wins at once (the first after the mover in turn order)."""
    size = 12 if k < 4 else 9
    board = Board(size, {3: size, 7: 2, size - 1: 4}, overshoot="exact", capture=2)
    g = check(board, k)
    assert g.throws_pmf.sum() == pytest.approx(1.0, abs=1e-12)
    check(board.replace(capture=1, safe=[5]), k)
    chained = Board(size, {2: 6, 6: size, size - 2: 1}, chain=True, capture=1, dice="1-4")
    check(chained, k)
    check(board, k, starts=[0, 4, 1, 5][:k], dice=[None, "1-3", "2-4", None][:k])


def test_captured_home_by_hand():
    """One face, 3: players 0 and 1 on square 4 cannot move ("exact" overshoot on 6); player
    2 comes from 1 onto 4 and captures both, back 1 to square 3, whose ladder leads to the
    goal: player 0, the first after the mover, wins after 3 throws in round 1. On the
    simulation's rule too."""
    board = Board(6, {3: 6}, overshoot="exact", dice={3: 1.0}, capture=1)
    g = expected_game_length(board, 3, starts=[4, 4, 1])
    assert g.win_probabilities.tolist() == [1.0, 0.0, 0.0]
    assert (g.mean_throws, g.mean_rounds) == (3.0, 1.0)
    assert g.throws_pmf.tolist() == [0.0, 0.0, 0.0, 1.0] and g.win_pmf[0].tolist() == [0, 1]
    r = simulate(board, 50, players=3, starts=[4, 4, 1], rng=0)
    assert r.wins.tolist() == [50, 0, 0] and r.throws_histogram.tolist() == [0, 0, 0, 50]
    assert r.rounds_histogram.tolist() == [0, 50]
    # player 0 moves from 0 onto 3? no: its ladder wins. From 1 onto 4, over players 1, 2
    g = expected_game_length(board, 3, starts=[1, 4, 4])
    assert g.win_probabilities.tolist() == [0.0, 1.0, 0.0] and g.mean_throws == 1.0


def test_milton_bradley_capture_back_is_answered():
    """Every capture=k with k <= 19 on Milton Bradley sends some captured token onto the
    ladder 80 -> 100; the exact answer exists (and simulate agrees: test_simulate_players)."""
    mb = boards.get("milton-bradley")
    g = expected_game_length(mb.replace(capture=3), 2)
    assert g.win_probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    assert g.throws_pmf.sum() == pytest.approx(1.0, abs=1e-12)
    # the wins on another's throw: the throws are not those of the winner's own turn
    w = g.win_pmf[:, 1:]
    assert not np.allclose(g.throws_pmf[1:], w.T.ravel()[: len(g.throws_pmf) - 1], atol=1e-9)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_per_player_starts_and_dice(k):
    board = Board(11 if k < 4 else 8, {3: 8, 9: 2, 5: 1} if k < 4 else {3: 7, 5: 1},
                  overshoot="exact", capture="start", safe=[7])
    starts = [0, 2, 4, 6][:k]
    dice = ["1-3", None, {1: 0.5, 2: 0.25, 4: 0.25}, "1-4"][:k]
    check(board, k, starts=starts, dice=dice)
    check(board.replace(capture=2), k, starts=starts[::-1], dice=dice)


def test_stranded_players_are_no_winner_not_a_loop():
    # dice {3, 4} under "exact": square 7 of 8 strands a token, unless a capture frees it
    stuck = Board(8, overshoot="exact", dice={3: 0.5, 4: 0.5}, capture="start")
    g = check(stuck, 2)
    assert 0.0 < g.no_winner < 1.0 and math.isinf(g.mean_rounds)
    check(stuck.replace(capture=3), 3)  # a capture may free a stranded token
    # nobody can ever win: every start stranded
    g = expected_game_length(Board(5, overshoot="exact", dice={4: 1.0}, capture="start",
                                   start=2), 2)
    assert g.no_winner == 1.0 and g.win_probabilities.tolist() == [0.0, 0.0]


def test_a_player_on_the_goal_wins_at_once():
    board = Board(10, capture="start")
    g = expected_game_length(board, 3, starts=[0, 10, 10])
    assert g.win_probabilities.tolist() == [0.0, 1.0, 0.0] and g.mean_throws == 0.0


def test_all_squares_safe_is_the_game_without_capture():
    mb = boards.get("milton-bradley")
    safe = mb.replace(capture="start", safe=range(1, 100))
    for k in (2, 3):
        np.testing.assert_allclose(win_probabilities(safe, k), win_probabilities(mb, k),
                                   atol=2e-12)
    a, b = expected_game_length(safe, 2), expected_game_length(mb, 2)
    assert a.mean_rounds == pytest.approx(b.mean_rounds, rel=1e-10)


def test_without_capture_the_answers_are_unchanged():
    mb = boards.get("milton-bradley")
    w = win_probabilities(mb, 2)
    # the first player wins (1 + sum_n p_n^2) / 2 (issue 51), p_n = P(T = n) pushed throw by
    # throw through the rules' matrix (naive.export_matrix) until under 1e-15 is left on the board
    p, mass, pmf = export_matrix(mb), np.eye(mb.size + 1)[mb.start], []
    while mass[: mb.size].sum() > 1e-15:
        done = mass[mb.size]
        mass = mass @ p
        pmf.append(mass[mb.size] - done)
    first = (1.0 + float(np.dot(pmf, pmf))) / 2
    np.testing.assert_allclose(w, [first, 1.0 - first], rtol=0, atol=1e-12)
    assert w.round(5).tolist() == [0.50791, 0.49209]
    assert win_probabilities(mb.replace(capture="start").replace(capture=None), 2).tolist() \
        == w.tolist()


def test_one_player_ignores_the_capture_rule():
    board = Board(12, {4: 9, 10: 3}, capture="start")
    assert expected_game_length(board, 1).mean_throws == \
        expected_game_length(board.replace(capture=None), 1).mean_throws


def test_refusals(monkeypatch):
    board = Board(20, {3: 19}, capture="start")
    with pytest.raises(ValueError, match="differs from player 0's in more than its dice"):
        win_probabilities([board, board.replace(overshoot="exact")])
    with pytest.raises(ValueError, match="exact=True answers players who never meet"):
        win_probabilities(board, 2, exact=True)
    mb = boards.get("milton-bradley").replace(capture="start")
    with pytest.raises(ValueError, match=r"joint chain of 4 players on 81 squares "
                                         r"\(43,046,721 states\) is too large .* 1.6 GiB"):
        win_probabilities(mb, 4)
    monkeypatch.setenv("SNL_NUMERIC_MAX_MEMORY", "16M")
    with pytest.raises(MemoryLimitError, match=r"joint chain of 3 players on 81 squares "
                                               r"\(531,441 states\) needs about 20.3 MiB"):
        win_probabilities(mb, 3)


def test_a_game_longer_than_max_throws_is_refused_before_the_push():
    """No throw ends these games with a chance above ``e`` (face 1 onto the ladder into the
    goal), so ``max_throws`` throws leave at least ``(1 - e)**max_throws`` of the mass
    racing: refused from that bound at once (the push of 10 million throws took 110 s and
    1.7 GB of per-throw wins before it refused), answered where the push can finish."""
    rare = Board(2, {1: 2}, overshoot="exact", dice={1: 1e-6, 4: 1 - 1e-6}, capture="start")
    with pytest.raises(ValueError, match=r"cannot fall below 1e-12 within max_throws=10000000 "
                                         r"throws \(at least 4.54e-05 is left"):
        win_probabilities(rare, 2)
    even = rare.replace(dice={1: 0.5, 4: 0.5})  # half the mass ends at each throw
    with pytest.raises(ValueError, match=r"at least 9.31e-10 is left"):
        win_probabilities(even, 2, max_throws=30)
    np.testing.assert_allclose(win_probabilities(even, 2, max_throws=60), [2 / 3, 1 / 3],
                               rtol=1e-11)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=board_strategy(max_size=10), k=st.integers(2, 3),
       capture=st.sampled_from(["start", 1, 2, 4]), data=st.data())
def test_random_boards_match_brute_force(board, k, capture, data):
    safe = data.draw(st.lists(st.integers(1, max(board.size - 1, 1)), max_size=2)) \
        if board.size > 1 else []
    board = board.replace(capture=capture, safe=safe)
    try:
        win_probabilities(board, k)
    except ValueError as exc:
        assume("max_throws" not in str(exc))  # a game whose tail decays too slowly
        raise
    check(board, k)
