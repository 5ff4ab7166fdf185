"""One input vocabulary (issue 27): a die as a Dice, a mapping or a string wherever a die is
taken; ``to_dict`` holds Python numbers and JSON spells infinity in one place."""

import json
import math

import pytest

from snl_numeric import (
    Board,
    Dice,
    analyze,
    boards,
    design_board,
    expected_game_length,
    optimal_policy,
    simulate,
    win_probabilities,
)
from snl_numeric.cli import main

SPELLINGS = [
    ("d6", Dice.fair(6)),
    ("2d6", Dice.sum_of(2, 6)),
    ("1-3", Dice.fair(3)),
    ("1:0.5,2:0.5", Dice.from_probs({1: 0.5, 2: 0.5})),
]


@pytest.mark.parametrize(("text", "die"), SPELLINGS)
def test_board_takes_a_die_as_dice_mapping_or_string(text, die):
    assert Board(100, {}, dice=text).dice == die
    assert Board(100, {}, dice=die.to_dict()).dice == die
    assert boards.get("milton-bradley").replace(dice=text).dice == die
    assert Board.from_dict({"size": 100, "dice": text}).dice == die


def test_strings_reach_every_function_taking_a_die():
    mb = boards.get("milton-bradley")
    slow = mb.replace(dice="1-3")
    assert win_probabilities(mb, dice=["d6", "1-3"]).tolist() == win_probabilities(
        [mb, slow]).tolist()
    assert expected_game_length(mb, dice="1-3").mean_rounds == expected_game_length(
        slow).mean_rounds
    assert optimal_policy(mb, ["1-3", {4: 0.5, 5: 0.25, 6: 0.25}]).actions[1].faces.tolist() \
        == [4, 5, 6]
    r = design_board(30, snakes=1, ladders=1, dice="1-3", objective="max", iterations=50, chains=1,
                     rng=1)
    assert r.board.dice == Dice.fair(3)


@pytest.mark.parametrize(("dice", "error", "match"), [
    ("3d", ValueError, "cannot read dice '3d'"),
    ("0-2", ValueError, "cannot read dice '0-2'"),
    ([1, 2], TypeError, "a string such as '2d6' or '1-3', got list"),
])
def test_bad_dice_say_what_was_expected(dice, error, match):
    with pytest.raises(error, match=match):
        Board(10, dice=dice)


def test_to_dict_holds_python_numbers_and_json_spells_infinity():
    stuck = Board(4, overshoot="exact", dice={3: 1.0})
    d = analyze(stuck).to_dict()
    assert d["mean"] == math.inf and type(d["mean"]) is float
    assert d["mean"] > 40  # comparable: a number, not the string 'inf'
    g = expected_game_length(stuck).to_dict()
    assert g["mean_rounds"] == math.inf
    with pytest.warns(RuntimeWarning, match="10 of 10 games did not finish"):
        s = simulate(stuck, 10, rng=1, max_throws=20).to_dict()
    assert math.isnan(s["mean"]) and math.isnan(s["ci"][0])


def test_cli_json_is_strict_and_spells_inf_as_a_string(capsys, tmp_path):
    path = tmp_path / "stuck.json"
    Board(4, overshoot="exact", dice={3: 1.0}).to_json(path)
    assert main(["analyze", str(path), "--json"]) == 0
    text = capsys.readouterr().out
    assert "Infinity" not in text
    assert json.loads(text)["mean"] == "inf"
