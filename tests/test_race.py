"""Tests of snl_numeric.race: optimal_race, race_value, RaceResult, ``snl race``, plot_race."""

from __future__ import annotations

import json
import threading
import warnings
from fractions import Fraction

import naive
import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from snl_numeric import (
    Board,
    RaceResult,
    boards,
    expected_game_length,
    finish_probability,
    optimal_policy,
    optimal_race,
    race_value,
    win_probabilities,
)
from snl_numeric.boards import random_board
from snl_numeric.cli import main
from snl_numeric.dice import as_dice, parse_dice
from snl_numeric.policy.problem import build_problem
from snl_numeric.race import bounds
from snl_numeric.race.graph import alive_squares, avoid_squares, trap_kernel
from snl_numeric.race.tables import from_diag, make_tables, to_diag

MB = boards.get("milton-bradley")
SMALL_BIG = ["1-3", "4-6"]
#: Dice pairs for the random boards: fair and loaded, long and short, some that strand.
DICE_SETS = [
    [{1: 0.5, 2: 0.5}, {3: 0.5, 4: 0.5}],
    [None, {1: 1.0}],
    [{1: 0.2, 4: 0.8}, {2: 0.25, 3: 0.25, 5: 0.5}],
    [{3: 0.5, 4: 0.5}, {2: 1.0}],
    [{1: 1 / 3, 2: 1 / 3, 3: 1 / 3}, {4: 1 / 3, 5: 1 / 3, 6: 1 / 3}],
    [{1: 0.5, 2: 0.5}],
]


@pytest.fixture(scope="module")
def mb_race():
    return optimal_race(MB, SMALL_BIG)


def _fit(board, dice):
    """Bounce boards need faces no larger than size + 1."""
    if board.overshoot == "bounce" and max(max(d.faces) for d in dice) > board.size + 1:
        return board.replace(overshoot="exact")
    return board


# -- the numbers ---------------------------------------------------------------------
# The Milton Bradley races below are too large for the naive twins in a test run (10,201
# pair states: plain value iteration takes 2-6 minutes, a dense solve 3 GB). Their numbers
# are regression values whose source is naive.race_value_iteration(MB, SMALL_BIG, tol=1e-14)
# run once outside the suite (its even and odd iterates, win and 1 - lose, met within 4e-14):
#   race                                                          0.5229930885241587
#   optional jumps                                                0.5339363490313747
#   best response to the fewest-throws policy (second=(that, take all))  0.5300157384425928
#   the fewest-throws policy against the race's (first=, second=) 0.5164203550919471,
#   so playing for the fewest throws costs 0.5229930885241587 - that = 0.006572733432211653
MB_RACE = 0.5229930885241587


def test_milton_bradley_small_and_big_die(mb_race):
    r = mb_race
    # between iterates 60 (0.52149) and 61 (0.52425) of plain value iteration (issue 17)
    assert r.win_probability == pytest.approx(MB_RACE, abs=1e-11)
    assert 0.52149 < r.win_probability < 0.52425
    assert r.bracket < 1e-12 and r.convergence.note == ""
    assert r.no_winner == 0.0
    assert r.win_probability + r.lose_probability == pytest.approx(1.0, abs=1e-12)
    assert r.win_probability_second == pytest.approx(r.lose_probability, abs=1e-12)
    s = MB.size
    assert np.all(r.value[s, :] == 1.0) and np.all(r.value[:s, s] == 0.0)
    assert np.all(r.policy[s, :] == -1) and np.all(r.policy[:, s] == -1)
    assert set(np.unique(r.policy[:s, :s]).tolist()) == {0, 1}
    # the die depends on the opponent: on 11 the big die, unless the opponent is on 64..69
    assert r.policy[11, 60:72].tolist() == [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1]


def test_optional_jumps_decline_every_snake_and_win_more():
    r = optimal_race(MB, SMALL_BIG, optional_jumps=True)
    assert r.win_probability == pytest.approx(0.5339363490313747, abs=1e-11)  # (see MB_RACE)
    assert r.bracket < 1e-12
    s = MB.size
    for (src, dst), take in zip(r.jumps, r.take, strict=True):
        assert bool(np.all(take[:s])) == (dst > src), (src, dst)
    # declining every snake, the 47/48 variant plays the same race
    r48 = optimal_race(boards.get("milton-bradley-48"), SMALL_BIG, optional_jumps=True)
    assert r48.win_probability == pytest.approx(r.win_probability, abs=1e-12)


@pytest.mark.parametrize("name", boards.names())
def test_one_die_is_the_plain_race(name):
    board = boards.get(name)
    r = optimal_race(board, [board.dice])
    assert r.win_probability == pytest.approx(win_probabilities(board, 2)[0], abs=1e-12)
    assert r.bracket < 1e-12


def test_hand_solved_gamble():
    """Size 2, exact landing: S moves one square, G throws 2 or 3 (half each).

    On 1, S wins at once. On 0 against 1, S loses (the opponent finishes next), G wins
    half the time: 1/2. On 0 against 0, G gives x = 1/2 + (1 - x)/2 = 2/3 (S: 1/2).
    """
    board = Board(2, overshoot="exact")
    r = optimal_race(board, [{1: 1.0}, {2: 0.5, 3: 0.5}])
    assert Fraction(r.value[0, 0]).limit_denominator(100) == Fraction(2, 3)
    assert r.value[0, 0] == pytest.approx(2 / 3, abs=1e-15)
    assert r.value[0, 1] == pytest.approx(0.5, abs=1e-15)
    assert r.value[1, 0] == r.value[1, 1] == 1.0
    assert r.policy[:2, :2].tolist() == [[1, 1], [0, 0]]
    # the lost throws are solved as a two-state game: the estimate's second sweep
    # changes nothing, one bracket sweep certifies it
    assert r.convergence.sweeps <= 3


def test_empty_board_first_player_wins_with_a_long_enough_die():
    r = optimal_race(Board(3), [{1: 1.0}, {3: 1.0}])
    assert r.win_probability == 1.0 and r.policy[0, 0] == 1


def test_start_on_the_goal():
    r = optimal_race(Board(4, start=4), SMALL_BIG)
    assert r.win_probability == 1.0 and r.lose_probability == 0.0
    assert win_probabilities(Board(4, start=4), 2)[0] == 1.0


# -- nobody may win --------------------------------------------------------------------
def test_no_winner_single_die():
    """One throw of 4 wins, a 3 strands the token (issue: never folded into a win)."""
    board = Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5})
    r = optimal_race(board, [board.dice])
    g = expected_game_length(board, 2)
    assert (r.win_probability, r.lose_probability) == pytest.approx((0.5, 0.25), abs=1e-12)
    assert r.no_winner == pytest.approx(g.no_winner, abs=1e-12)
    assert r.bracket < 1e-12 and r.convergence.draw_bounds
    assert r.no_winner_table[0, 0] == pytest.approx(0.25)


def test_no_winner_with_a_choice():
    """Both dice strand the token or win: the better gamble, then a draw if both strand."""
    board = Board(4, overshoot="exact")
    r = optimal_race(board, [{3: 0.5, 4: 0.5}, {3: 0.75, 4: 0.25}])
    assert r.policy[0, 0] == 0
    assert (r.win_probability, r.lose_probability, r.no_winner) == pytest.approx(
        (0.5, 0.25, 0.25), abs=1e-12)
    assert r.bracket < 1e-12


def test_no_winner_loop_of_fixed_players_is_certified():
    board = Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5})
    p = race_value(board, [board.dice], np.zeros(5, dtype=int), np.zeros(5, dtype=int))
    assert p == pytest.approx(0.5, abs=1e-12)


# -- against the naive twin (plain pair-state value iteration) ---------------------------
def _follow(r):
    """``take(s, j)`` of a result's jump decisions (for the naive twin)."""
    take = {s: r.take[k] for k, (s, _) in enumerate(r.jumps)}
    return lambda s, j: bool(take[s][j])


def _played(r):
    """A result's way of playing, as the naive twin takes it."""
    return np.where(r.policy < 0, 0, r.policy), _follow(r)


def _check_against_twin(board, dice, optional, r, *, second=None):
    """The contract of a result (issue 17, review of the race): the policy guarantees
    the value of the game, the tables are the policy played out, and ``race_value`` of
    the result against itself (or its fixed opponent) is its ``win_probability``."""
    n, s = board.size, board.start
    fixed = None if second is None else (second, lambda q, j: True)
    # the game's value: plain pair-state value iteration
    win, lose, win1, lose1 = naive.race_value_iteration(board, dice, optional_jumps=optional,
                                                        second=fixed, both=True)
    me = _played(r)
    # 1. the policy guarantees the game's value whatever the opponent does (or against it)
    guaranteed, _ = naive.race_value_iteration(board, dice, optional_jumps=optional, first=me,
                                               second=fixed)
    np.testing.assert_allclose(guaranteed, win, atol=1e-9)
    # 2. value and opponent_wins are the policy played out (against itself or the opponent)
    w_c, l_c = naive.race_value_iteration(board, dice, optional_jumps=optional, first=me,
                                          second=me if fixed is None else fixed)
    np.testing.assert_allclose(r.value[:n, :n], w_c, atol=1e-10)
    np.testing.assert_allclose(r.opponent_wins[:n, :n], l_c, atol=1e-10)
    # 3. where somebody surely wins, that is the game's value
    ends = np.abs(win + lose - 1.0) < 1e-12
    np.testing.assert_allclose(r.value[:n, :n][ends], win[ends], atol=1e-10)
    if s < n:
        assert r.no_winner == pytest.approx(max(0.0, 1 - w_c[s, s] - l_c[s, s]), abs=1e-10)
    # 4. the same read-out, slowly (ties: within the naive values' own error)
    pol, take = naive.race_policy(board, dice, win, win if fixed is None else win1,
                                  1 - lose if fixed is None else 1 - lose1,
                                  optional_jumps=optional, second=fixed,
                                  tie=2 * r.bracket + 1e-12)
    g2, _ = naive.race_value_iteration(board, dice, optional_jumps=optional,
                                       first=(pol, lambda q, j: take.get((q, j), True)),
                                       second=fixed)
    np.testing.assert_allclose(g2, win, atol=1e-9)
    return win, w_c


def _certified_race(board, dice, optional, opponent=None):
    """``optimal_race``, or None when it is not certified. That happens in a game that may
    never end where the players can keep it going (loops of lost throws): the sweeps from
    above then need not meet those from below. It must say so, and its values must be the
    limits from below, those of plain value iteration."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = optimal_race(board, dice, optional_jumps=optional, opponent=opponent)
    if r.bracket < 1e-12:
        assert not caught
        return r
    assert "not certified" in str(caught[-1].message) and r.convergence.draw_bounds
    second = None if opponent is None else (opponent, lambda s, j: True)
    win, _ = naive.race_value_iteration(board, dice, optional_jumps=optional, second=second)
    n = board.size
    np.testing.assert_allclose(r.value[:n, :n], win, atol=1e-10)
    return None


@settings(max_examples=40)
@given(board_strategy(max_size=7), st.sampled_from(DICE_SETS), st.booleans())
def test_matches_plain_value_iteration(board, dice_list, optional):
    dice = [as_dice(d) for d in dice_list]
    board = _fit(board, dice)
    r = _certified_race(board, dice, optional)
    if r is None:
        return
    _check_against_twin(board, dice, optional, r)
    if board.start < board.size:
        v = race_value(board, dice, r, r, optional_jumps=optional)
        assert v == pytest.approx(r.win_probability, abs=r.bracket + 1e-12)


@settings(max_examples=30)
@given(board_strategy(max_size=6), st.sampled_from(DICE_SETS[:5]), st.booleans(), st.data())
def test_best_response_and_race_value_match_plain_value_iteration(board, dice_list, optional,
                                                                  data):
    dice = [as_dice(d) for d in dice_list]
    board = _fit(board, dice)
    n = board.size
    opp = np.array(data.draw(st.lists(st.integers(0, 1), min_size=(n + 1) ** 2,
                                      max_size=(n + 1) ** 2))).reshape(n + 1, n + 1)
    r = _certified_race(board, dice, optional, opponent=opp)
    if r is None:
        return
    win, _ = _check_against_twin(board, dice, optional, r, second=opp)
    np.testing.assert_allclose(r.value[:n, :n], win, atol=1e-10)  # a best response
    # both fixed: a Markov chain, always certified
    v = race_value(board, dice, opp, r, optional_jumps=optional)
    w2, _ = naive.race_value_iteration(board, dice, optional_jumps=optional,
                                       first=(opp, lambda s, j: True), second=_played(r))
    if board.start < n:
        assert v == pytest.approx(w2[board.start, board.start], abs=1e-10)
        v = race_value(board, dice, r, opp, optional_jumps=optional)
        assert v == pytest.approx(r.win_probability, abs=r.bracket + 1e-12)


@settings(max_examples=25)
@given(board_strategy(max_size=25))
# a race that mixes too slowly for the sweeps and is solved as a linear system, whose
# certified error must be a quarter of tol, not the solver's default 1e-11 (was 1e-12 wide)
@example(Board(11, {10: 0}, overshoot="exact", dice={1: 0.2, 4: 0.8}))
@example(Board(11, {10: 4}, overshoot="exact", dice={1: 0.2, 4: 0.8}))
def test_one_die_identity_random_boards(board):
    r = optimal_race(board, [board.dice])
    assert r.win_probability == pytest.approx(win_probabilities(board, 2, tail=1e-15)[0],
                                              abs=1e-12)
    assert r.bracket < 1e-12


# -- the review of the race: policies that attain their value, rounding, slow races ------------
@pytest.mark.parametrize("dice, win, lose", [
    # (the docstring's derivation: win = b2 * a3, lose = b2 * a4 + b3 * b2, where a3 is die
    # A's chance of a 3 and b2 die B's of a 2)
    ([{3: 0.7, 4: 0.3}, {2: 0.5, 3: 0.5}], 0.5 * 0.7, 0.5 * 0.3 + 0.5 * 0.5),
    ([{3: 0.712, 4: 0.288}, {2: 0.486, 3: 0.514}], 0.486 * 0.712, 0.486 * 0.288 + 0.514 * 0.486),
])
def test_the_policy_attains_the_reported_chances(dice, win, lose):
    """Square 3 is a dead end (the goal needs a 1); on 2 die A never moves. With the
    opponent stranded on 3, A "wins" as much as B one step ahead, but only B ever wins.

    By hand: A on 0 throws B: half the time it reaches 2, the opponent then throws A
    (B would give it less: 0.5 * 1/3 against 0.3) and loses 0.7 of the time to the
    player on 2; else A is stranded and the opponent wins with B, half the time.
    """
    board = Board(4, overshoot="exact")
    r = optimal_race(board, dice)
    assert r.policy[2, 3] == 1 and r.value[2, 3] == pytest.approx(1.0, abs=1e-12)
    assert r.policy[0, 0] == 1
    assert r.win_probability == pytest.approx(win, abs=1e-12)
    assert r.lose_probability == pytest.approx(lose, abs=1e-12)
    assert r.no_winner == pytest.approx(1 - win - lose, abs=1e-12)
    assert race_value(board, dice, r, r) == pytest.approx(r.win_probability, abs=1e-12)
    assert r.bracket < 1e-12 and r.convergence.draw_bounds


def test_rounding_stays_inside_the_bracket():
    """A die that almost always stays put: the two-state game of lost throws divides by
    ``1 - s t``, about 2e-8 here, and used to amplify the rounding of ``1 - t - d``."""
    board = Board(2, overshoot="exact")
    die = as_dice({1: 1e-8, 2: 1 - 1e-8})
    r = optimal_race(board, [die])
    zero = [[0, 0], [0, 0]]
    win, lose = naive.race_chain(board, [die], zero, zero, exact=True)
    for i in range(2):
        for j in range(2):
            assert abs(Fraction(r.value[i, j]) - win[i][j]) <= Fraction(r.bracket)
            assert abs(Fraction(r.opponent_wins[i, j]) - lose[i][j]) <= Fraction(r.bracket)
    assert r.value[1, 1] == pytest.approx(0.5000000025, abs=r.bracket) and r.bracket < 1e-13
    # two such dice: the players choose, the exact values of the policy played out
    dice = [die, as_dice({1: 3e-9, 2: 1 - 3e-9})]
    r = optimal_race(board, dice)
    pol = np.where(r.policy < 0, 0, r.policy)[:2, :2].tolist()
    win, _ = naive.race_chain(board, dice, pol, pol, exact=True)
    assert all(abs(Fraction(r.value[i, j]) - win[i][j]) <= Fraction(r.bracket)
               for i in range(2) for j in range(2))


def test_squares_that_cannot_reach_the_goal_win_nothing():
    board = Board(23, {4: 7, 6: 13, 8: 14, 10: 1, 11: 8, 12: 20, 15: 6, 16: 14, 20: 10},
                  overshoot="exact", chain=True, dice={1: 1e-6, 2: 0.999999})
    r = optimal_race(board, [board.dice])
    assert finish_probability(board) == 0.0 and win_probabilities(board, 2)[0] == 0.0
    assert r.win_probability == 0.0 and r.bracket < 1e-12
    n = board.size
    for i in range(n):
        if naive.naive_min_throws(board, start=i) < 0:
            assert np.all(r.value[i, :n] == 0.0), i


SLOW = Board(20, {2: 10, 4: 1, 6: 16, 7: 17, 9: 5, 11: 5, 16: 12, 18: 17}, overshoot="exact",
             dice={1: 1e-6, 2: 0.999999})


def test_a_slow_chain_is_solved_as_a_linear_system():
    """About 2e6 throws per game: a million sweeps would not close the bracket."""
    r = optimal_race(SLOW, [SLOW.dice])
    c = r.convergence
    assert "linear system" in c.note and c.sweeps < 2_000 and not c.draw_bounds
    assert r.bracket < 1e-12
    zero = [[0] * 20 for _ in range(20)]
    win, lose = naive.race_chain(SLOW, [SLOW.dice], zero, zero)
    np.testing.assert_allclose(r.value[:20, :20], win, atol=1e-8)  # a dense float solve
    np.testing.assert_allclose(r.opponent_wins[:20, :20], lose, atol=1e-8)
    assert r.value[0, 0] + r.opponent_wins[0, 0] == pytest.approx(1.0, abs=1e-12)
    v = race_value(SLOW, [SLOW.dice, "d6"], np.zeros(21, int), np.zeros(21, int))
    assert v == pytest.approx(r.win_probability, abs=1e-12)


def test_a_slow_game_stops_with_a_warning():
    """Choosing between two such dice: no sweep count certifies it; say so at once."""
    with pytest.warns(RuntimeWarning, match="mixes too slowly for the sweeps"):
        r = optimal_race(SLOW, [SLOW.dice, {1: 2e-6, 2: 1 - 2e-6}])
    c = r.convergence
    assert c.sweeps < 1_000 and c.bracket > 0.5 and "stopped after" in c.note
    assert "certified only within the bracket" in str(r)


@pytest.mark.parametrize("board", [random_board(40, 0.2, snake_fraction=0.8, rng=1),
                                   random_board(40, 0.2, snake_fraction=0.8, rng=2),
                                   Board(30, {12: 3, 25: 9, 28: 2}, overshoot="exact"),
                                   Board(30, {12: 3, 25: 9, 28: 2}, overshoot="bounce")])
def test_the_estimated_box_agrees_with_plain_sweeps(monkeypatch, board):
    """The estimate and its certified box (counted) give the values of the bracket swept
    from (0, 1) and of the naive twin; ``exact`` certifies through the estimate's policy
    (tokens can be stranded), which the result returns."""
    boxes = []
    estimated = bounds._estimated_pair

    def counted(*args):
        out = estimated(*args)
        boxes.append(out[0] is not None)
        return out

    monkeypatch.setattr(bounds, "_estimated_pair", counted)
    fast = optimal_race(board, SMALL_BIG)
    assert boxes == [True] and fast.bracket < 1e-12
    monkeypatch.setattr(bounds, "_estimated_pair", lambda *args: (None, None, 0))
    plain = optimal_race(board, SMALL_BIG)
    assert plain.bracket < 1e-12 and plain.convergence.sweeps > 0
    np.testing.assert_allclose(fast.value, plain.value, atol=fast.bracket + plain.bracket)
    if board.size <= 30:
        win, _ = naive.race_value_iteration(board, [parse_dice(d) for d in SMALL_BIG])
        np.testing.assert_allclose(fast.value[:-1, :-1], win, atol=1e-10)
    # the policy attains the value: its game against the optimal opponent is worth it
    assert race_value(board, SMALL_BIG, fast, plain) == pytest.approx(
        fast.win_probability, abs=1e-10)


@settings(max_examples=30)
@given(board_strategy(max_size=6), st.sampled_from(DICE_SETS), st.booleans(), st.data())
def test_graph_analyses_match_their_twins(board, dice_list, optional, data):
    dice = [as_dice(d) for d in dice_list]
    board = _fit(board, dice)
    n = board.size
    t = make_tables(build_problem(board, tuple(dice), optional))
    assert set(np.flatnonzero(avoid_squares(t)).tolist()) == naive.race_avoid(
        board, dice, optional_jumps=optional)
    used = np.array(data.draw(st.lists(st.booleans(), min_size=len(dice) * (n + 1),
                                       max_size=len(dice) * (n + 1)))).reshape(-1, n + 1)
    assert set(np.flatnonzero(avoid_squares(t, used)).tolist()) == naive.race_avoid(
        board, dice, optional_jumps=optional, used=used.tolist())
    assert set(np.flatnonzero(alive_squares(t)).tolist()) == naive.race_alive(
        board, dice, optional_jumps=optional)
    k = len(dice)
    pol = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n * n,
                                      max_size=n * n))).reshape(n, n)
    take = np.array(data.draw(st.lists(st.booleans(), min_size=t.n_jumps * n,
                                       max_size=t.n_jumps * n)), dtype=bool).reshape(-1, n)
    take = take if optional and t.n_jumps else np.ones((max(t.n_jumps, 1), n), dtype=bool)
    fixed = data.draw(st.booleans())
    other = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n * n,
                                        max_size=n * n))).reshape(n, n)
    diag = np.empty(n * n, dtype=np.int64)
    to_diag(pol, diag)
    odiag = np.empty(n * n, dtype=np.int32)
    to_diag(other.astype(np.int32), odiag)
    in_a = np.ones(n * n, dtype=np.bool_)
    in_b = np.ones(n * n, dtype=np.bool_)
    while trap_kernel(t.moves, t.jumps, t.optional, t.base, diag, take, fixed, odiag,
                      np.ones((max(t.n_jumps, 1), n), dtype=bool), in_a, in_b):
        pass
    table = np.empty((n, n), dtype=np.bool_)
    from_diag(in_a, table)
    jumps = sorted(board.jumps)
    follow = (lambda s, j: bool(take[jumps.index(s), j])) if optional else (lambda s, j: True)
    expect = naive.race_trapped(board, dice, pol.tolist(), follow, optional_jumps=optional,
                                second=(other.tolist(), lambda s, j: True) if fixed else None)
    assert set(map(tuple, np.argwhere(table).tolist())) == expect


# -- fixed opponents and race_value -------------------------------------------------------
def test_race_value_of_optimal_play_is_the_win_probability(mb_race):
    assert race_value(MB, SMALL_BIG, mb_race, mb_race) == pytest.approx(
        mb_race.win_probability, abs=1e-12)


def test_best_response_to_the_optimal_player_is_the_game_value(mb_race):
    br = optimal_race(MB, SMALL_BIG, opponent=mb_race)
    assert br.win_probability == pytest.approx(mb_race.win_probability, abs=1e-11)
    assert br.opponent == "race-optimal"


def test_best_response_beats_every_fixed_way_of_playing(mb_race):
    fewest = optimal_policy(MB, SMALL_BIG)
    br = optimal_race(MB, SMALL_BIG, opponent=fewest)
    assert br.bracket < 1e-12 and "fewest" in br.opponent
    for mine in (mb_race, fewest, np.zeros(MB.size + 1, dtype=int), np.ones(MB.size + 1, int)):
        assert race_value(MB, SMALL_BIG, mine, fewest) <= br.win_probability + 1e-12
    assert race_value(MB, SMALL_BIG, br, fewest) == pytest.approx(br.win_probability, abs=1e-11)
    # playing for the fewest expected throws costs the first player against an optimal one
    cost = mb_race.win_probability - race_value(MB, SMALL_BIG, fewest, mb_race)
    assert cost == pytest.approx(MB_RACE - 0.5164203550919471, abs=1e-9)  # (see MB_RACE)


def test_opponent_forms_agree(mb_race):
    fewest = optimal_policy(MB, SMALL_BIG)
    a = optimal_race(MB, SMALL_BIG, opponent=fewest)
    b = optimal_race(MB, SMALL_BIG, opponent=fewest.policy)
    table = np.repeat(np.where(fewest.policy < 0, 0, fewest.policy)[:, None], MB.size + 1, 1)
    c = optimal_race(MB, SMALL_BIG, opponent=table)
    assert a.win_probability == b.win_probability == c.win_probability
    # a PolicyResult over the same dice in another order is mapped onto ours
    flipped = optimal_policy(MB, ["4-6", "1-3"])
    assert optimal_race(MB, SMALL_BIG, opponent=flipped).win_probability == pytest.approx(
        a.win_probability, abs=1e-12)
    assert race_value(MB, SMALL_BIG, mb_race, mb_race.policy) == pytest.approx(
        mb_race.win_probability, abs=1e-12)


def test_race_value_takes_jump_decisions_when_they_were_optional():
    r = optimal_race(MB, SMALL_BIG, optional_jumps=True)
    assert race_value(MB, SMALL_BIG, r, r) == pytest.approx(r.win_probability, abs=1e-12)
    compulsory = race_value(MB, SMALL_BIG, r, r, optional_jumps=False)
    assert compulsory < r.win_probability - 1e-3 or compulsory > r.win_probability + 1e-3 or \
        compulsory == pytest.approx(race_value(MB, SMALL_BIG, r.policy, r.policy), abs=1e-12)
    fewest = optimal_policy(MB, SMALL_BIG, optional_jumps=True)
    assert not fewest.take.all()
    v = race_value(MB, SMALL_BIG, fewest, r)
    br = optimal_race(MB, SMALL_BIG, opponent=r, optional_jumps=True)
    assert v <= br.win_probability + 1e-12


# -- the result object ----------------------------------------------------------------------
def test_result_is_frozen_and_readable(mb_race):
    r = mb_race
    assert isinstance(r, RaceResult)
    with pytest.raises(AttributeError):
        r.win_probability = 0.0  # type: ignore[misc]
    for arr in (r.value, r.opponent_wins, r.policy, r.take):
        assert not arr.flags.writeable
    text = str(r)
    assert f"first player      wins {MB_RACE:.12f}" in text
    assert "A = 1-3  B = 4-6" in text and "11 B*" in text
    html = r._repr_html_()
    assert "Race on milton-bradley" in html and f"{MB_RACE:.12f}" in html
    data = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert data["win_probability"] == r.win_probability
    assert np.array_equal(np.array(data["policy"]), r.policy)
    assert "value" not in r.to_dict(tables=False)
    assert np.allclose(r.value + r.opponent_wins + r.no_winner_table, 1.0)


def test_results_are_the_same_from_several_threads(mb_race):
    out = [None] * 4

    def work(k):
        out[k] = optimal_race(MB, SMALL_BIG).value

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for v in out:
        assert np.array_equal(v, mb_race.value)


def test_max_sweeps_is_reported():
    with pytest.warns(RuntimeWarning, match=r"not certified to tol=1e-12: the proven "
                      r"bracket is \S+ wide \(max_sweeps=2 reached\)") as caught:
        r = optimal_race(MB, SMALL_BIG, max_sweeps=2)
    assert caught[0].filename == __file__
    assert r.convergence.sweeps == 2 and "max_sweeps=2" in r.convergence.note
    assert r.bracket > 1e-6


# -- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize("call, exc, match", [
    (lambda: optimal_race("milton-bradley", SMALL_BIG), TypeError, "expected a Board"),
    (lambda: optimal_race(MB, []), ValueError, "dice must hold at least one die"),
    (lambda: optimal_race(MB, "1-3"), TypeError, "dice must be a list of dice"),
    (lambda: optimal_race(MB, ["1-3", 7]), TypeError, r"dice\[1\] must be a Dice"),
    (lambda: optimal_race(MB, ["0-3"]), ValueError, "cannot read dice"),
    (lambda: optimal_race(MB, SMALL_BIG, optional_jumps=1), TypeError, "optional_jumps"),
    (lambda: optimal_race(MB, SMALL_BIG, tol=0), ValueError, r"^tol must be a number in \(0, 1\)"),
    (lambda: optimal_race(MB, SMALL_BIG, tol="1e-9"), TypeError, "^tol must be a number, got '1e-9'$"),
    (lambda: race_value(MB, SMALL_BIG, np.zeros(101, int), np.zeros(101, int), tol=True),
     TypeError, "^tol must be a number, got True$"),
    (lambda: optimal_race(MB, SMALL_BIG, max_sweeps=0), ValueError, "max_sweeps must be"),
    (lambda: optimal_race(Board(3, overshoot="bounce", dice={1: 1.0}), [{5: 1.0}]), ValueError,
     r"dice\[0\]: face 5 is too large"),
    (lambda: optimal_race(MB, SMALL_BIG, opponent="fewest"), TypeError,
     "opponent must be a PolicyResult"),
    (lambda: optimal_race(MB, SMALL_BIG, opponent=np.zeros(7, int)), ValueError,
     r"shape \(101,\)"),
    (lambda: optimal_race(MB, SMALL_BIG, opponent=np.full(101, 2)), ValueError,
     "die indices 0..1 off the goal; got 2 on square 0"),
    (lambda: optimal_race(MB, SMALL_BIG, opponent=np.full(101, 0.5)), TypeError, "integers"),
    (lambda: optimal_race(MB, SMALL_BIG, opponent=optimal_policy(Board(100), SMALL_BIG)),
     ValueError, "computed for another board"),
    (lambda: optimal_race(MB, SMALL_BIG, opponent=optimal_policy(MB, ["d6"])),
     ValueError, "throws die d6, which is not among the dice"),
    (lambda: race_value(MB, SMALL_BIG, None, np.zeros(101, int)), TypeError, "first must be"),
    (lambda: race_value(MB, SMALL_BIG, np.zeros(101, int), [[0]]), ValueError, "second must"),
    (lambda: race_value(MB, SMALL_BIG, np.zeros(101, int), np.zeros(101, int),
                        optional_jumps="yes"), TypeError, "optional_jumps"),
    (lambda: optimal_race(Board(20_000), SMALL_BIG), ValueError,
     r"400,000,000 pair states, dice of up to 3 faces\) needs about \d+\.\d GiB"),
    # players who meet: the pair states know no captures (the rule was ignored, silently)
    (lambda: optimal_race(MB.replace(capture="start"), SMALL_BIG), ValueError,
     r"between players who never meet; this board has capture='start': race on "
     r"board\.replace\(capture=None\)"),
    (lambda: race_value(MB.replace(capture=3, safe=[50]), SMALL_BIG, np.zeros(101, int),
                        np.zeros(101, int)), ValueError, "this board has capture=3"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_memory_is_estimated_before_allocating(monkeypatch):
    monkeypatch.setattr(bounds, "MAX_BYTES", 10_000)
    with pytest.raises(ValueError, match="pair states, dice of up to 3 faces.* needs about"):
        optimal_race(Board(30), SMALL_BIG)


def test_a_die_of_a_million_faces_is_refused_at_once():
    """Issue 29: the per-face tables (and a best response's chain) are counted before
    anything is allocated; the refusal names the size."""
    big = as_dice({f: 1e-6 for f in range(1, 10**6 + 1)})
    for call in (lambda: optimal_race(MB, [big, "1-3"]),
                 lambda: optimal_race(Board(30), [big, "1-3"], opponent=np.zeros(31, int)),
                 lambda: race_value(Board(30), [big], np.zeros(31, int), np.zeros(31, int))):
        with pytest.raises(ValueError, match=r"dice of up to 1,000,000 faces\) needs about "
                                             r"\d+\.\d GiB of memory; the limit is 2 GiB"):
            call()


def test_a_die_of_many_faces_is_certified():
    """Faces landing on one square are summed with compensation, and the rounding
    allowances count the distinct squares: 100,000 faces on 12 squares close the bracket."""
    die = as_dice({f: 1e-5 for f in range(1, 10**5 + 1)})
    r = optimal_race(Board(12), [die, "1-3"])
    same = as_dice({**{f: 1e-5 for f in range(1, 12)}, 12: 1 - 11e-5})  # faces >= 12 win
    s = optimal_race(Board(12), [same, "1-3"])
    assert r.bracket < 1e-12 and r.win_probability == pytest.approx(s.win_probability,
                                                                    abs=1e-13)


# -- command line -----------------------------------------------------------------------------
def test_cli_race(capsys, mb_race):
    code = main(["race", "milton-bradley", "--dice", "1-3", "--dice", "4-6"])
    out, err = capsys.readouterr()
    assert code == 0, err  # (a failure's one line, for a failure seen once in CI)
    assert f"first player      wins {MB_RACE:.12f}" in out
    # --action: the spelling of a choice in every other subcommand (snl policy)
    assert main(["race", "milton-bradley", "--action", "1-3", "--action", "4-6"]) == 0
    assert capsys.readouterr()[0] == out
    code = main(["race", "milton-bradley", "--dice", "1-3", "--dice", "4-6", "--json",
                 "--vs-fewest-throws"])
    data = json.loads(capsys.readouterr()[0])
    assert data["win_probability"] == pytest.approx(mb_race.win_probability, abs=1e-12)
    vs = data["vs_fewest_throws"]
    assert vs["cost_first"] == pytest.approx(MB_RACE - 0.5164203550919471, abs=1e-9)
    assert vs["win_probability_first_exploited"] <= vs["win_probability_first"] + 1e-12
    assert "value" not in data


def test_cli_race_text_and_defaults(capsys):
    code = main(["race", "seed-30", "--optional-jumps", "--vs-fewest-throws"])
    out, _ = capsys.readouterr()
    assert code == 0 and "1 die, optional jumps" in out and "jumps declined" in out
    assert "moving first against a player who knows it" in out


@pytest.mark.parametrize("argv, match", [
    (["race", "milton-bradley", "--dice", "0-3"], "cannot read dice"),
    (["race", "no-such-board"], "board 'no-such-board' not found"),
    (["race", "seed-30", "--overshoot", "bounce", "--dice", "40"], "dice[0]: face 40"),
])
def test_cli_race_errors(capsys, argv, match):
    assert main(argv) == 2
    err = capsys.readouterr()[1]
    assert err.startswith("snl race: error:") and match in err, err
    assert err.count("\n") == 1


# -- plot -------------------------------------------------------------------------------------
def test_plot_race(mb_race):
    import matplotlib as mpl

    mpl.use("Agg")
    import matplotlib.pyplot as plt

    from snl_numeric.plot import plot_race

    v = plot_race(mb_race)  # one map, one Axes (issue 27)
    assert isinstance(v, mpl.axes.Axes) and v.get_images()[0].get_cmap().name == "cividis"
    v, p = plot_race(mb_race, which="both")
    assert v.get_title() == "Chance to win" and p.get_title() == "Die to throw"
    img = v.get_images()[0].get_array()
    assert img.shape == (100, 100) and img[0, 0] == pytest.approx(mb_race.win_probability)
    assert "0.5230" in v.figure.texts[0].get_text() if v.figure.texts else True
    _, axs = plt.subplots(1, 2)
    assert plot_race(mb_race, which="both", ax=axs)[0] is axs[0]
    one = plot_race(optimal_race(MB, ["d6"]), which="policy", title="one die")
    assert one.get_title() == "one die"
    with pytest.raises(TypeError, match="race_result must be a RaceResult"):
        plot_race(optimal_policy(MB, SMALL_BIG))
    with pytest.raises(ValueError, match="^which must be one of 'value', 'policy', 'both', "
                                         "got 'heat'$"):
        plot_race(mb_race, which="heat")
    with pytest.raises(TypeError, match="^which must be one of .*, got None$"):
        plot_race(mb_race, which=None)
    with pytest.raises(ValueError, match="draws on two Axes"):
        plot_race(mb_race, which="both", ax=axs[:1])
    plt.close("all")


# -- best responses: the one-player problem solved exactly (issue 28) ----------------------
def _random_response_case(rng):
    """A small board of any rule (jumps, chains), two or three random dice, a fixed
    opponent per position and, sometimes, optional jumps."""
    n = rng.randint(3, 7)
    jumps = {}
    for s in rng.sample(range(1, n), rng.randint(0, min(3, n - 1))):
        d = rng.randint(0, n)
        if d != s and d not in jumps and s not in jumps.values():
            jumps[s] = d
    dice = []
    for _ in range(rng.randint(2, 3)):
        faces = rng.sample(range(1, min(n + 1, 6) + 1), rng.randint(1, 4))  # bounce: <= n+1
        w = [rng.random() + 0.05 for _ in faces]
        dice.append(as_dice({f: x / sum(w) for f, x in zip(faces, w, strict=True)}))
    board = Board(n, jumps, overshoot=rng.choice(["bounce", "exact", "win"]),
                  chain=rng.random() < 0.3, dice=dice[0])
    opp = [[rng.randrange(len(dice)) for _ in range(n + 1)] for _ in range(n + 1)]
    return board, dice, opp, rng.random() < 0.4


def _check_response(board, dice, opp, optional):
    """The value is the exact best response (policy iteration with dense solves), the
    returned policy delivers it, and it is certified unless a warning says why not."""
    n = board.size
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = optimal_race(board, dice, opponent=np.array(opp), optional_jumps=optional)
    win, win2, _ = naive.race_best_response(board, dice, opp, optional_jumps=optional)
    np.testing.assert_allclose(r.value[:n, :n], win, atol=1e-10)
    idx = {s: k for k, (s, _) in enumerate(r.jumps)}
    delivered = naive.race_policy_value(board, dice, np.maximum(r.policy, 0).tolist(),
                                        lambda s, j: bool(r.take[idx[s], j]), opp)
    np.testing.assert_allclose(r.value[:n, :n], delivered, atol=1e-10)
    if board.start < n:
        s = board.start
        assert r.win_probability_second == pytest.approx(win2[s][s], abs=1e-10)
    if caught:
        assert r.bracket > 1e-12 and "keep a game going for ever" in str(caught[0].message)
    else:
        assert r.bracket < 1e-12
    return r


def test_a_best_response_with_loops_is_exact_and_delivered():
    """A 7-square bounce board where the die that always throws 6 bounces between 2 and 6
    for ever, against an opponent fixed per position. The sweeps of c035537 reported the
    value right but returned a policy that wins 0.1759 instead of 0.8335 (with a warning);
    the issue's example was of this kind. Policy iteration returns the best response,
    0.833456666773 (dense solves of the pair chain), and a policy that delivers it."""
    board = Board(7, {3: 7}, overshoot="bounce")
    dice = [as_dice({6: 1.0}),
            as_dice({1: 0.4025236122578804, 3: 0.23522741739177794, 6: 0.3622489703503416}),
            as_dice({1: 0.21954956801248404, 2: 0.46036692212362046,
                     3: 0.05190950607734339, 5: 0.268174003786552})]
    opp = [[1, 0, 2, 0, 2, 1, 1, 0], [0, 2, 2, 1, 0, 2, 0, 1], [2, 2, 1, 0, 0, 2, 2, 1],
           [1, 2, 0, 1, 0, 0, 2, 1], [0, 1, 2, 0, 1, 2, 1, 1], [2, 2, 0, 0, 2, 2, 2, 1],
           [1, 1, 2, 1, 0, 1, 1, 1], [2, 0, 1, 2, 1, 0, 0, 2]]
    r = _check_response(board, dice, opp, False)
    assert r.win_probability == pytest.approx(0.8334566667729673, abs=1e-12)


def test_best_responses_match_the_exact_twin():
    """A derandomised, fast version of the audit's search: random small boards of every
    rule, random dice, opponents fixed per position, optional jumps: no silent miss."""
    import random

    rng = random.Random(2028)
    for _ in range(40):
        _check_response(*_random_response_case(rng))


def test_a_best_response_without_loops_is_certified():
    r = optimal_race(MB, SMALL_BIG, opponent=optimal_policy(MB, SMALL_BIG))
    assert r.bracket < 1e-12 and "policy iteration" in r.convergence.note
    assert r.win_probability == pytest.approx(0.5300157384425928, abs=1e-12)  # (see MB_RACE)
    assert race_value(MB, SMALL_BIG, r, optimal_policy(MB, SMALL_BIG)) == pytest.approx(
        r.win_probability, abs=1e-12)
