import numpy as np
import pytest

from snl_numeric import Dice
from snl_numeric.dice import as_dice, parse_dice


def test_fair_and_spinner():
    d = Dice.fair(6)
    assert d.faces.tolist() == [1, 2, 3, 4, 5, 6]
    assert np.allclose(d.probs, 1 / 6)
    assert d.mean == pytest.approx(3.5)
    assert Dice.spinner(4) == Dice.fair(4)
    assert repr(Dice.fair(6)) == "Dice.fair(6)"


def test_sum_of_two_dice():
    d = Dice.sum_of(2, 6)
    assert d.faces.tolist() == list(range(2, 13))
    assert d.to_dict()[7] == pytest.approx(6 / 36)
    assert d.probs.sum() == pytest.approx(1.0)
    assert d.mean == pytest.approx(7.0)


def test_from_probs_drops_zero_and_sorts():
    d = Dice.from_probs({3: 0.25, 1: 0.75, 9: 0.0})
    assert d.faces.tolist() == [1, 3]
    assert d.probs.tolist() == [0.75, 0.25]
    assert as_dice({3: 0.25, 1: 0.75}) == d
    assert as_dice(None) == Dice.fair(6)
    assert hash(d) == hash(Dice.from_probs({1: 0.75, 3: 0.25}))


@pytest.mark.parametrize(
    ("probs", "error", "match"),
    [
        ({}, ValueError, "at least one face"),
        ({1: float("nan")}, ValueError, "finite"),
        ({1: -0.5, 2: 1.5}, ValueError, "non-negative"),
        ({1: 0.5, 2: 0.4}, ValueError, "sum to 1"),
        ({0: 1.0}, ValueError, "integers in 1..2147483647"),
        ({-2: 1.0}, ValueError, "integers in 1..2147483647"),
        ({2**64: 1.0}, ValueError, "integers in 1..2147483647"),
        ({1.5: 1.0}, TypeError, "integers"),
        ({True: 1.0}, TypeError, "integers"),
        ({1: "half", 2: 0.5}, TypeError, "number"),
        ([0.5, 0.5], TypeError, "mapping"),
    ],
)
def test_bad_dice(probs, error, match):
    with pytest.raises(error, match=match):
        Dice.from_probs(probs)


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="at least 1"):
        Dice.fair(0)
    with pytest.raises(TypeError, match="integer"):
        Dice.fair(2.5)
    with pytest.raises(ValueError, match="distinct"):
        Dice(np.array([1, 1]), np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="equal length"):
        Dice(np.array([1, 2]), np.array([1.0]))


def test_sum_tolerance_is_1e12():
    Dice.from_probs({1: 0.5, 2: 0.5 + 5e-13})
    with pytest.raises(ValueError, match="sum to 1"):
        Dice.from_probs({1: 0.5, 2: 0.5 + 1e-11})


@pytest.mark.parametrize(
    ("text", "expected"),
    [("d6", Dice.fair(6)), ("6", Dice.fair(6)), ("2d6", Dice.sum_of(2, 6)),
     ("1:0.5,2:0.5", Dice.fair(2)), ("1:1/4,3:3/4", Dice.from_probs({1: 0.25, 3: 0.75}))],
)
def test_parse_dice(text, expected):
    assert parse_dice(text) == expected


def test_parse_range_and_errors():
    d = parse_dice("4-6")
    assert d.faces.tolist() == [4, 5, 6]
    for bad in ["", "x", "3-1", "0-2", "1:0.2"]:
        with pytest.raises(ValueError, match="dice"):
            parse_dice(bad)


@pytest.mark.parametrize("text, twice", [("1:0.5,2:0.5,2:0.5", 2), ("1:0.5,1:0.5", 1),
                                         ("1:0.2, 3:0.3, 3:0.5", 3)])
def test_a_face_written_twice_is_refused(text, twice):
    # "1:0.5,2:0.5,2:0.5" (probabilities summing to 1.5) was read as {1: 0.5, 2: 0.5}: the
    # later face overwrote the earlier one; refused as Dice refuses repeated faces
    from snl_numeric import Board

    with pytest.raises(ValueError, match=rf"^dice faces must be distinct, .*\(face {twice} twice\)$"):
        parse_dice(text)
    with pytest.raises(ValueError, match="must be distinct"):
        Board(30, dice=text)
    with pytest.raises(ValueError, match="must be distinct"):
        Board.from_dict({"size": 30, "dice": text})


@pytest.mark.parametrize("text, match", [
    ("1:-0.5,2:1.5", r"^probability of face 1 must be non-negative, got -0.5$"),
    ("1:3/2, 2:-1/2", r"^probability of face 2 must be non-negative, got -0.5$"),
    ("1:0.5,2:0.25", r"^dice probabilities must sum to 1"),
    ("1:1/2,0:1/2", r"^dice faces must be integers in 1\.\.\d+, got 0$")])
def test_a_readable_die_with_bad_values_gets_the_dice_words(text, match):
    # the string was read; what is wrong is a value, which Dice names (a negative or
    # infinite probability was reported as a string of the wrong form: "expected 'd6', ...")
    with pytest.raises(ValueError, match=match):
        parse_dice(text)

@pytest.mark.parametrize("text, faces", [("1-100000000", 100_000_000), ("1000000d6", 5_000_001),
                                         ("d2000000", 2_000_000)])
def test_huge_dice_strings_refused_before_building(text, faces):
    """Issue 54: "1-100000000" took 34 s and 5.6 GB, "1000000d6" 27 s, before any refusal.
    The face count is read from the string (checked against the arithmetic here)."""
    import time

    from snl_numeric.dice import MAX_STRING_FACES, string_faces

    assert string_faces(text) == faces > MAX_STRING_FACES
    began = time.process_time()
    with pytest.raises(ValueError, match=f"would have {faces:,} faces; a die read from a string"):
        parse_dice(text)
    assert time.process_time() - began < 1.0


def test_string_faces_agree_with_the_built_die():
    from snl_numeric.dice import string_faces

    for text in ["d6", "6", "2d6", "3d4", "1-3", "4-6", "1:0.5,2:0.5", " 2D6 ", "d1"]:
        assert string_faces(text) == len(parse_dice(text).faces), text
    for text in ["x", "0", "3-1", "0d6", "", "1-", "d"]:
        assert string_faces(text) is None, text



@pytest.mark.parametrize("text, faces", [(" 7D5 ", 29), ("1-2001", 2001),
                                         ("1:0.5,2:0.5,", 2), ("1-100000000", 100_000_000)])
def test_parse_dice_counts_the_faces_once(monkeypatch, text, faces):
    """A string read afresh (not shared yet, or too big to share) has its faces counted
    once: the count of ``"1:0.5,..."`` is a pass over the whole string."""
    from snl_numeric import dice

    counted, count = [], dice.string_faces
    monkeypatch.setattr(dice, "string_faces", lambda t: counted.append(count(t)) or counted[-1])
    dice._shared_parse.cache_clear()
    try:
        assert len(parse_dice(text).faces) == faces
    except ValueError as exc:  # (the huge one: refused by its count)
        assert f"would have {faces:,} faces" in str(exc)
    assert counted == [faces]
