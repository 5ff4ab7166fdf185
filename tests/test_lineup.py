"""Tests for snl_numeric.lineup: how many players race, and each one's board and start."""

import pytest

from snl_numeric import Board, Dice
from snl_numeric.lineup import player_boards, player_count

QUARTER = {1: 0.25, 2: 0.25, 3: 0.25, 4: 0.25}


# -- player_count ------------------------------------------------------------------------
def test_count_from_players_then_the_first_list_then_the_default():
    b = Board(10)
    assert player_count(None, 2) == 2
    assert player_count(None, 7) == 7
    assert player_count(5, 2) == 5
    assert player_count(None, 2, board=[b] * 4) == 4
    assert player_count(None, None, starts=[0, 1, 2]) == 3
    assert player_count(None, None, dice=[None, "1-4"]) == 2
    assert player_count(3, None, board=b, starts=[0, 0, 0], dice=["1-4"] * 3) == 3
    assert player_count(None, 2, board=b, dice="1-4") == 2  # one board and one die: not lists


def test_count_disagreements_name_both_sides():
    b = Board(10)
    with pytest.raises(ValueError, match="^starts has 2 entries but players=3; give one entry "
                                         "per player$"):
        player_count(3, 2, starts=[0, 0])
    with pytest.raises(ValueError, match="^dice has 3 entries but starts has 2"):
        player_count(None, 2, starts=[0, 0], dice=[None] * 3)
    with pytest.raises(ValueError, match="^starts has 3 entries but board has 2"):
        player_count(None, 2, board=[b, b], starts=[0, 0, 0])


def test_count_refusals():
    with pytest.raises(ValueError, match=r"^dice= without players=: say how many players race "
                                         r"\(players=k\)$"):
        player_count(None, None, dice="1-4")
    with pytest.raises(ValueError, match="^nothing without players="):
        player_count(None, None)
    with pytest.raises(ValueError, match="players must be at least 1, got 0"):
        player_count(0, 2)
    with pytest.raises(TypeError, match="players must be an integer, got True"):
        player_count(True, 2)
    with pytest.raises(TypeError, match="^starts must be a list of squares"):
        player_count(2, 2, starts=5)
    with pytest.raises(TypeError, match="^dice must be a Dice"):
        player_count(2, 2, dice=6)


# -- player_boards -----------------------------------------------------------------------
def test_each_player_gets_the_board_with_its_own_die_and_its_start():
    b = Board(10, {3: 8}, start=2)
    boards, starts = player_boards(b, 4, None, [None, "1-4", QUARTER, {1: 1.0}])
    assert starts == [2, 2, 2, 2]  # the board's own start
    assert boards[0] is b
    assert boards[1].dice == Dice.from_probs(QUARTER) and boards[1].jumps == b.jumps
    assert boards[1] is boards[2]  # the same die, however written: one board
    assert boards[3].dice == Dice.from_probs({1: 1.0}) and boards[3] is not boards[1]
    assert [x.replace(dice=b.dice) == b for x in boards] == [True] * 4


def test_a_die_equal_to_the_boards_own_keeps_the_board():
    b = Board(10)
    boards, _ = player_boards(b, 2, None, [{f: 1 / 6 for f in range(1, 7)}, None])
    assert boards[0] is b and boards[1] is b


def test_one_die_for_all_and_a_board_per_player():
    b, c = Board(10), Board(12, start=4)
    boards, starts = player_boards([b, c], 2, [None, 5], "1-4")
    assert starts == [0, 5]
    assert [x.size for x in boards] == [10, 12]
    assert all(x.dice == Dice.from_probs(QUARTER) for x in boards)


def test_bad_die_or_start_names_the_player():
    b = Board(10)
    with pytest.raises(ValueError, match="^start of player 1: start must be a square in "
                                         r"0\.\.10, got 11$"):
        player_boards(b, 2, [0, 11], None)
    with pytest.raises(TypeError, match="^start of player 0: start must be an integer square"):
        player_boards(b, 2, ["a", 0], None)
    with pytest.raises(ValueError, match="^dice for player 0: probability of face 1 must be "):
        player_boards(b, 2, None, [{1: -0.5, 2: 1.5}, None])
    with pytest.raises(TypeError, match="^dice for player 1: "):
        player_boards(b, 2, None, [None, 6])
    bounce = Board(2, overshoot="bounce", dice="1-3")
    with pytest.raises(ValueError, match="^dice for player 1: face 4 is too large for a bounce "
                                         "on a board of size 2"):
        player_boards(bounce, 2, None, [None, QUARTER])
