"""One input vocabulary (issue 27): a die as a Dice, a mapping or a string wherever a die is
taken; ``to_dict`` holds Python numbers and JSON spells infinity in one place."""

import json
import math

import numpy as np
import pytest

from snl_numeric import (
    Board,
    Dice,
    analyze,
    boards,
    design_board,
    expected_game_length,
    expected_throws,
    fair_starts,
    finish_within,
    first_player_advantage,
    length_distribution,
    optimal_policy,
    optimal_race,
    race_value,
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


def test_none_as_a_die_means_what_each_docstring_says():
    # SPEC names dice=None only as the Board's default (a fair d6); the docstrings say the
    # rest. Where a function ignores the board's die (it is given the dice to choose from:
    # optimal_policy, finish_within, optimal_race, race_value, report's actions) a None
    # among them is a fair d6; where a player throws the board's die unless told otherwise
    # (win_probabilities, expected_game_length, first_player_advantage, simulate with
    # players, fair_starts' candidates) None is the board's own die.
    d6 = Dice.fair(6)
    slow = boards.get("seed-30").replace(dice="1-3")  # its own die is no d6
    fair = slow.replace(dice=None)
    assert Board(10, dice=None).dice == d6 and fair.dice == d6
    assert design_board(30, snakes=1, ladders=1, dice=None, objective="max", iterations=20,
                        chains=1, rng=1).board.dice == d6
    # a fair d6
    assert optimal_policy(slow, [None]).actions == (d6,)
    assert optimal_policy(slow, [None]).mean == pytest.approx(expected_throws(fair), rel=1e-12)
    assert finish_within(slow, [None], 4).probability_start == pytest.approx(
        length_distribution(fair)[:5].sum(), rel=1e-12)
    first = win_probabilities(fair)[0]
    assert optimal_race(slow, [None]).win_probability == pytest.approx(first, rel=1e-12)
    zeros = np.zeros(slow.size + 1, dtype=np.int64)
    assert race_value(slow, [None], zeros, zeros) == pytest.approx(first, rel=1e-12)
    # the board's own die
    own = win_probabilities(slow)
    assert abs(own[0] - first) > 1e-3  # (so the two meanings differ here)
    assert win_probabilities(slow, dice=[None, None]).tolist() == own.tolist()
    assert win_probabilities(slow, dice=[None, "1-3"]).tolist() == own.tolist()
    assert expected_game_length(slow, dice=[None, None]).mean_rounds == \
        expected_game_length(slow).mean_rounds
    assert first_player_advantage(slow, dice=[None, None]) == first_player_advantage(slow)
    assert simulate(slow, 200, players=2, dice=[None, None], rng=1).wins.tolist() == \
        simulate(slow, 200, players=2, dice=["1-3", "1-3"], rng=1).wins.tolist()
    assert fair_starts(slow, 2, handicap="dice", dice=[None]).dice == (Dice.fair(3),) * 2


@pytest.mark.parametrize(("dice", "error", "match"), [
    ("3d", ValueError, "cannot read dice '3d'"),
    ("0-2", ValueError, "cannot read dice '0-2': the range starts at 0; faces are positive"),
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


# -- one spelling per idea (issue 55, item 7) --------------------------------------------
def test_jump_impact_frame_columns_are_its_attribute_names():
    from snl_numeric import jump_impact

    imp = jump_impact(boards.get("milton-bradley"))
    df = imp.to_frame()
    for name in ("source", "destination", "probability", "mean_without", "mean_change",
                 "std_without", "std_change"):
        assert df[name].tolist() == getattr(imp, name).tolist(), name
    assert "from" not in df and "to" not in df
    assert imp.ranked()[0] == (80, 100)  # jumps, not positions
    assert imp.ranked() == [(int(imp.source[j]), int(imp.destination[j])) for j in imp.order()]


def test_columns_lists_the_percentile_spelling():
    from snl_numeric.batch import COLUMNS, analyze_many

    assert "p90" in COLUMNS
    df = analyze_many([Board(10)], columns=list(COLUMNS))
    assert df.columns.tolist() == list(COLUMNS)
    assert df["p90"].iloc[0] == analyze(Board(10), percentiles=(90,)).percentiles[90]


def test_random_batch_takes_a_seed_sequence_as_design_board_does():
    import numpy as np

    from snl_numeric.batch import random_batch

    a = random_batch(4, 30, snakes=2, ladders=2, rng=np.random.SeedSequence(5))
    b = random_batch(4, 30, snakes=2, ladders=2, rng=np.random.default_rng(
        np.random.SeedSequence(5)))
    assert a.fingerprint() == b.fingerprint()
    design_board(30, snakes=2, ladders=2, objective="max", iterations=5, chains=1,
                 rng=np.random.SeedSequence(5))  # the same kinds of seed


def test_a_board_name_where_a_board_goes_says_how():
    with pytest.raises(TypeError, match=r"got the string 'milton-bradley': use "
                                        r"snl_numeric\.boards\.get\('milton-bradley'\)"):
        analyze("milton-bradley")


@pytest.mark.parametrize("typed", ["milton bradley", "Milton-Bradley", "milton_bradley",
                                   "milton-bradly"])
def test_registry_suggests_the_name_as_the_cli_does(typed, capsys):
    with pytest.raises(ValueError, match=f"unknown board '{typed}'; did you mean "
                                         "'milton-bradley'\\?"):
        boards.get(typed)
    assert main(["analyze", typed]) == 2
    assert "did you mean 'milton-bradley'?" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"unknown board 'zzz' \(known boards: "):
        boards.get("zzz")


@pytest.mark.parametrize(("text", "why"), [
    ("0-3", r"cannot read dice '0-3': the range starts at 0; faces are positive, the smallest is 1"),
    ("3-1", r"cannot read dice '3-1': the range goes down; the smaller face comes first \('1-3'\)"),
])
def test_a_bad_dice_range_says_what_is_wrong(text, why):
    from snl_numeric.dice import as_dice, parse_dice

    with pytest.raises(ValueError, match=why):
        parse_dice(text)
    with pytest.raises(ValueError, match=why):
        Board(10, dice=text)
    with pytest.raises(ValueError, match=why):
        as_dice(text)


def test_refused_percentiles_say_why():
    mb = boards.get("milton-bradley")
    with pytest.raises(ValueError, match=r"below 100, got 100: the 100th percentile is the "
                                         "longest game"):
        analyze(mb, percentiles=(50, 100))
    with pytest.raises(ValueError, match=r"above 0, got 0: .* min_throws"):
        analyze(mb, percentiles=(0,))
