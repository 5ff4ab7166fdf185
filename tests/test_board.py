import functools
import json
import os
import re

import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import given, settings
from hypothesis import strategies as st

from snl_numeric import Board, Dice, boards


def test_defaults_and_views():
    b = Board(10, {3: 8, 9: 2})
    assert (b.start, b.overshoot, b.chain, b.dice) == (0, "win", False, Dice.fair(6))
    assert b.ladders == {3: 8} and b.snakes == {9: 2}
    assert list(b.jumps) == [3, 9]
    with pytest.raises(AttributeError, match="immutable"):
        b.size = 5
    with pytest.raises(TypeError):
        b.jumps[4] = 1  # read-only mapping


def test_jumps_as_pairs_and_array_are_the_same_board():
    a = Board(20, {5: 15, 12: 2})
    assert Board(20, [(12, 2), (5, 15)]) == a
    assert Board(20, np.array([[5, 15], [12, 2]])) == a
    assert hash(Board(20, [(12, 2), (5, 15)])) == hash(a)


@given(st.lists(st.tuples(st.integers(-3, 25), st.integers(-3, 25)), max_size=8))
@settings(max_examples=60, deadline=None)
def test_pairs_read_by_numpy_as_one_by_one(pairs):
    """Pairs of Python ints are read without a loop (fields.python_int_pairs); its twin, the loop
    over items, reads the same pairs as NumPy integers: the same board or the same error."""
    slow = [(np.int64(a), np.int64(b)) for a, b in pairs]

    def outcome(jumps):
        try:
            return Board(20, jumps)
        except (TypeError, ValueError) as exc:
            return type(exc), str(exc)

    assert outcome(pairs) == outcome(slow)
    assert outcome([list(p) for p in pairs]) == outcome(slow)


@pytest.mark.parametrize("jumps, error, match", [
    ([(True, 3)], TypeError, "jumps start must be an integer square, got True"),
    ([(2, 3.0)], TypeError, "jumps destination must be an integer square, got 3.0"),
    ([(2, 3, 4)], TypeError, r"each of the jumps must be a pair \(from, to\), got \(2, 3, 4\)"),
    ([(2, 2**70)], ValueError, "jumps destination"),
])
def test_pairs_the_numpy_reading_leaves_to_the_loop(jumps, error, match):
    with pytest.raises(error, match=match):
        Board(20, jumps)


def test_from_dict_shares_its_checked_dice():
    d = boards.get("milton-bradley").to_dict()
    a, b = Board.from_dict(d), Board.from_dict(d)
    assert a == b and a.dice is b.dice
    d["dice"] = {"faces": [1, 2], "probs": [0.5, 0.6]}
    for _ in range(2):  # (a refusal is not remembered as a die)
        with pytest.raises(ValueError, match="sum to 1"):
            Board.from_dict(d)


@pytest.mark.parametrize(("faces", "probs", "error", "match"), [
    ([2**70], [1.0], ValueError,
     r"dice faces must be integers in 1\.\.2147483647, got 1180591620717411303424$"),
    ([-2**63 - 1], [1.0], ValueError,
     r"dice faces must be integers in 1\.\.2147483647, got -9223372036854775809$"),
    ([True, 2], [0.5, 0.5], TypeError, "dice faces must be integers, got True"),
    ([1, 2], ["a", 0.5], TypeError, "dice probabilities must be numbers"),
    ([0, 2], [0.5, 0.5], ValueError, r"dice faces must be integers in 1\.\."),
])
def test_from_dict_names_a_bad_die_whatever_path_reads_it(faces, probs, error, match):
    with pytest.raises(error, match=match):
        Board.from_dict({"size": 10, "dice": {"faces": faces, "probs": probs}})


def test_from_dict_reads_plain_and_numpy_dice_alike():
    # plain ints and floats (a file's) are taken as they are; anything else value by value
    want = Board(10, {3: 7}, dice={1: 0.25, 3: 0.75})
    for faces, probs in (([1, 3], [0.25, 0.75]), ([np.int64(1), 3], [0.25, 0.75]),
                         ([1, 3], [np.float64(0.25), 0.75]), ((1, 3), (0.25, 0.75))):
        got = Board.from_dict({"size": 10, "jumps": [[3, 7]],
                               "dice": {"faces": faces, "probs": probs}})
        assert got == want and type(got.dice.faces[0]) is np.int64


def test_from_dict_reads_snakes_and_ladders_as_objects_as_it_reads_jumps():
    """A JSON object's keys are strings: ``{"16": 6}`` is read as a jump from square 16,
    for ``snakes`` and ``ladders`` as for ``jumps`` (only ``jumps`` took one before)."""
    mb = boards.get("milton-bradley")
    want = mb.to_dict()
    del want["jumps"]
    objects = {**want, "snakes": {str(s): d for s, d in mb.snakes.items()},
               "ladders": {str(s): d for s, d in mb.ladders.items()}}
    pairs = {**want, "snakes": [list(p) for p in mb.snakes.items()],
             "ladders": [list(p) for p in mb.ladders.items()]}
    assert Board.from_dict(objects) == Board.from_dict(pairs) == mb
    assert Board.from_json(json.dumps(objects)) == mb
    jumps = {**want, "jumps": {str(s): d for s, d in mb.jumps.items()}}
    assert Board.from_dict(jumps) == mb
    with pytest.raises(ValueError, match="ladder 16->6 goes down; ladders must go up"):
        Board.from_dict({"size": 20, "ladders": {"16": 6}})
    with pytest.raises(ValueError, match="snake 3->9 goes up; snakes must go down"):
        Board.from_dict({"size": 20, "snakes": {"3": 9}})
    with pytest.raises(TypeError, match="snakes start must be an integer, got 'x'"):
        Board.from_dict({"size": 20, "snakes": {"x": 6}})
    with pytest.raises(TypeError, match="ladders start must be an integer, got ' '"):
        Board.from_dict({"size": 20, "ladders": {" ": 6}})


@pytest.mark.parametrize(("dice", "match"), [
    ({"faces": [1, 2]}, r"\{'faces': \[\.\.\.\], 'probs': \[\.\.\.\]\} .*missing 'probs'"),
    ({"probs": [0.5, 0.5]}, "missing 'faces'"),
    ({"faces": [1, 2], "probs": [0.5, 0.5], "name": "coin"}, "with other keys 'name'"),
])
def test_from_dict_says_what_dice_as_lists_lack(dice, match):
    with pytest.raises(ValueError, match=match):
        Board.from_dict({"size": 10, "dice": dice})
    # the constructor takes a mapping face -> probability, not the file's lists
    with pytest.raises(TypeError, match=r"board file's form \(Board\.from_dict\); here give "
                                        r"Dice\(faces, probs\)"):
        Board(10, dice=dice)


def test_from_pairs():
    b = Board.from_pairs(30, snakes={26: 0, 20: 8}, ladders=[(2, 21)], overshoot="exact")
    assert b.jumps == {2: 21, 20: 8, 26: 0}
    assert b.overshoot == "exact"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"snakes": {16: 26}}, "snake 16->26 goes up; snakes must go down"),
        ({"ladders": {47: 26}}, "ladder 47->26 goes down; ladders must go up"),
        ({"ladders": {4: 4}}, "ladder 4->4 goes nowhere"),
        ({"snakes": {9: 2}, "ladders": {9: 20}}, "two jumps start on square 9"),
    ],
)
def test_from_pairs_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Board.from_pairs(30, **kwargs)


def test_from_moves_seed_example():
    move = [-1] * 30
    for s, d in {2: 21, 4: 7, 10: 25, 19: 28, 26: 0, 20: 8, 16: 3, 18: 6}.items():
        move[s] = d
    b = Board.from_moves(move)
    assert (b.size, b.start, b.overshoot, b.chain) == (29, 0, "exact", False)
    assert b == boards.get("seed-30").replace(name=None)
    with pytest.raises(ValueError, match="at least 2"):
        Board.from_moves([-1])
    with pytest.raises(ValueError, match="move\\[3\\] = -4"):
        Board.from_moves([-1, -1, -1, -4, -1])


def test_from_grid_boustrophedon():
    # 4x4: bottom row squares 1..4 left to right, next row 8..5, ...
    grid = [[-1, -1, -1, -1],   # squares 16 15 14 13
            [-1, 15, -1, -1],   # squares  9 10 11 12  -> square 10 ladder to 15
            [-1, -1, -1, 2],    # squares  8  7  6  5  -> square 5 snake to 2
            [-1, -1, 3, -1]]    # squares  1  2  3  4  -> square 3 names itself: no jump
    b = Board.from_grid(grid)
    assert (b.size, b.start, b.overshoot, b.chain) == (16, 1, "win", False)
    assert b.jumps == {5: 2, 10: 15}


@pytest.mark.parametrize(
    ("grid", "error", "match"),
    [
        ([[-1, -1], [-1]], ValueError, "ragged"),
        ([[-1, -1, -1], [-1, -1, -1]], ValueError, "square"),
        ([[-1, 9], [-1, -1]], ValueError, "holds 9"),
        ([[-1.5, -1], [-1, -1]], TypeError, "integers"),
        ([], ValueError, "square"),
    ],
)
def test_from_grid_errors(grid, error, match):
    with pytest.raises(error, match=match):
        Board.from_grid(grid)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((0,), {}, ValueError, "size must be at least 1"),
        ((10.0,), {}, TypeError, "size must be an integer"),
        ((10, {10: 3}), {}, ValueError, "jump 10->3 leaves the goal"),
        ((10, {12: 3}), {}, ValueError, "jump 12->3 starts outside"),
        ((10, {-1: 3}), {}, ValueError, "jump -1->3 starts outside"),
        ((10, {3: 11}), {}, ValueError, "jump 3->11 ends outside"),
        ((10, {3: 3}), {}, ValueError, "goes nowhere"),
        ((10, [(3, 5), (3, 7)]), {}, ValueError, "two jumps start on square 3"),
        ((10, {3.0: 5}), {}, TypeError, "integer square"),
        ((10, {3: "5"}), {}, TypeError, "integer square"),
        ((10, "3:5"), {}, TypeError, "mapping"),
        ((10, [(3,)]), {}, TypeError, "pair"),
        ((10, {3: 5, 5: 3}), {"chain": True}, ValueError, "cycle under chain=True: 3->5->3"),
        ((10,), {"start": 11}, ValueError, "start must be a square"),
        ((10,), {"overshoot": "wrap"}, ValueError, "overshoot must be one of"),
        ((10,), {"chain": 1}, TypeError, "chain must be True or False"),
        ((2,), {"overshoot": "bounce"}, ValueError, "too large for a bounce"),
        ((3,), {"overshoot": "bounce", "dice": {1: 0.5, 5: 0.5}}, ValueError, "faces must be <= 4"),
        ((10,), {"dice": {1: float("nan")}}, ValueError, "finite"),
        ((10,), {"dice": [1, 2]}, TypeError, "mapping"),
    ],
)
def test_bad_boards(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        Board(*args, **kwargs)



def test_overshoot_is_refused_in_the_words_of_every_string_choice():
    """One wording for a bad string choice (``validation.choice``): the board, its file,
    a batch's arrays and random boards say the same; NumPy strings are taken."""
    from snl_numeric.batch import BoardBatch, random_batch

    rules = "'win', 'exact', 'bounce'"
    for bad, error in (("wrap", ValueError), (1, TypeError), (None, TypeError)):
        message = f"^overshoot must be one of {rules}, got {bad!r}$"
        for make in (lambda: Board(10, overshoot=bad),
                     lambda: Board.from_dict({"size": 10, "overshoot": bad}),
                     lambda: random_batch(2, 20, snakes=1, ladders=1, overshoot=bad)):
            with pytest.raises(error, match=message):
                make()
    with pytest.raises(ValueError, match=f"^overshoot must be one of {rules}, got 'wins'$"):
        BoardBatch.from_arrays([10], overshoot=["wins"])
    board = Board(10, overshoot=np.str_("exact"))  # taken, and kept as a plain str
    assert type(board.overshoot) is str and board == Board(10, overshoot="exact")


def test_string_choices_given_numpy_strings_are_kept_as_plain_str():
    """A result keeps the option as the str it names: a NumPy string read from an array is
    no ``np.str_('mean')`` in its repr (NumPy 2 writes it so)."""
    from snl_numeric import optimal_policy
    from snl_numeric.sensitivity import sensitivity

    board = Board(20, {3: 15, 17: 4})
    s = sensitivity(board, of=np.str_("mean"), wrt=np.str_("transitions"))
    assert (type(s.of), type(s.wrt)) == (str, str) and "np.str_" not in repr(s)
    r = optimal_policy(board, [None, {1: 0.5, 2: 0.5}], objective=np.str_("max"))
    assert type(r.objective) is str


def test_cycle_is_fine_without_chain():
    b = Board(10, {3: 5, 5: 3})
    assert b.jumps == {3: 5, 5: 3}


@settings(max_examples=60)
@given(board_strategy())
def test_json_round_trip(board):
    text = board.to_json()
    again = Board.from_json(text)
    assert again == board
    assert Board.from_dict(json.loads(text)) == board
    assert again.dice.probs.tolist() == board.dice.probs.tolist()


def test_json_file_and_alternative_keys(tmp_path):
    path = tmp_path / "b.json"
    b = boards.get("milton-bradley")
    b.to_json(path, indent=2)
    assert Board.from_json(path) == b
    assert Board.from_json(str(path)).name == "milton-bradley"
    data = {"size": 30, "snakes": [[26, 0]], "ladders": [[2, 21]], "dice": {"1": 0.5, "2": 0.5}}
    c = Board.from_dict(data)
    assert c.jumps == {2: 21, 26: 0} and c.dice == Dice.fair(2)


def test_one_size_limit_for_every_way_of_building_a_board():
    # Board(2**31 + 5) was built, though nothing can analyse it, while from_dict of its
    # own to_dict refused it: every constructor now refuses a board whose successor table
    # passes the one limit (size + 1 squares x faces), with one message
    from snl_numeric._core.sizes import MAX_TABLE_ENTRIES

    size = 2**31 + 5
    said = (f"board too large to compile: {size + 1:,} squares x 6 faces = {6 * (size + 1):,} "
            f"table entries; the limit is {MAX_TABLE_ENTRIES:,}")
    d6 = Dice.fair(6).to_dict()
    for build in (lambda: Board(size), lambda: Board(size, dice="d6"),
                  lambda: Board(size, {3: 9}, overshoot="exact"),
                  lambda: Board.from_dict({"size": size}),
                  lambda: Board.from_dict({"size": size, "dice": d6}),
                  lambda: Board.from_pairs(size, ladders={3: 9}),
                  lambda: Board.from_json('{"size": %d}' % size),
                  lambda: Board(10).replace(size=size)):
        with pytest.raises(ValueError, match="^" + re.escape(said) + "$"):
            build()
    # the limit counts table entries: one face on the largest board there can be
    top = Board(MAX_TABLE_ENTRIES - 1, {3: 9}, dice={1: 1.0})
    assert Board.from_dict(top.to_dict()) == top and Board.from_json(top.to_json()) == top
    with pytest.raises(ValueError, match="500,000,001 table entries"):
        Board(MAX_TABLE_ENTRIES, dice={1: 1.0})
    # a broken rule is named first, as batch analysis names it
    with pytest.raises(ValueError, match="jump cycle under chain=True: 3->9->3"):
        Board(size, {9: 3, 3: 9}, chain=True)


def test_json_text_or_file_starting_with_a_byte_order_mark(tmp_path):
    # text copied from a file saved by a Windows editor starts with U+FEFF: it is JSON
    # text, not the name of a file
    b = Board(30, {2: 21, 26: 0}, overshoot="exact", dice={1: 0.5, 2: 0.5})
    for text in ("\ufeff" + b.to_json(), "\ufeff" + b.to_json(indent=2),
                 "\ufeff  " + b.to_json()):
        assert Board.from_json(text) == b
        assert Board.from_json(text.encode()) == b
    assert Board.from_json('\ufeff{"size": 5}') == Board(5)
    path = tmp_path / "bom.json"
    path.write_text(b.to_json(), encoding="utf-8-sig")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    assert Board.from_json(path) == b and Board.from_json(str(path)) == b
    from snl_numeric.batch import read_boards  # board files of many boards too

    lines = tmp_path / "bom.jsonl"
    lines.write_text(b.to_json() + "\n" + Board(5).to_json() + "\n", encoding="utf-8-sig")
    assert list(read_boards(lines)) == [b, Board(5)]
    # a path is still a path, and what is neither is still said as before
    name = "\ufeffnone.json"
    with pytest.raises(ValueError, match=re.escape(f"no such board file: {name!r}")):
        Board.from_json(name)
    with pytest.raises(TypeError, match="got null"):
        Board.from_json("\ufeffnull")


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"size": 10, "jumps": [], "colour": "red"}, "unknown board keys"),
        ({"size": 10, "version": 2}, "unsupported board format version"),
        ({"size": 10, "format": "other"}, "format must be"),
        ({"jumps": []}, "needs a 'size'"),
        ({"size": 10, "jumps": [[1, 2]], "snakes": []}, "either 'jumps'"),
    ],
)
def test_bad_json(data, match):
    with pytest.raises(ValueError, match=match):
        Board.from_dict(data)
    with pytest.raises(ValueError, match="invalid board JSON"):
        Board.from_json("{not json")


def test_replace_and_pickle():
    import pickle

    b = boards.get("milton-bradley")
    c = b.replace(overshoot="bounce", chain=True)
    assert (c.overshoot, c.chain, c.jumps) == ("bounce", True, b.jumps)
    assert pickle.loads(pickle.dumps(b)) == b
    with pytest.raises(TypeError, match="unknown Board fields"):
        b.replace(colour="red")


def test_registry():
    assert set(boards.names()) >= {"milton-bradley", "milton-bradley-48", "seed004", "seed-30"}
    mb = boards.get("milton-bradley")
    assert mb.ladders == {1: 38, 4: 14, 9: 31, 21: 42, 28: 84, 36: 44, 51: 67, 71: 91, 80: 100}
    assert mb.snakes == {16: 6, 47: 26, 49: 11, 56: 53, 62: 19, 64: 60, 87: 24, 93: 73,
                         95: 75, 98: 78}
    assert (mb.start, mb.overshoot, mb.chain) == (0, "exact", False)
    mb48 = boards.get("milton-bradley-48")
    assert 48 in mb48.snakes and 47 not in mb48.snakes
    s4 = boards.get("seed004")
    assert (s4.start, s4.overshoot) == (1, "win")
    assert 2 in s4.ladders and 1 not in s4.ladders and s4.snakes[48] == 26
    for name in boards.names():
        assert boards.describe(name)
    with pytest.raises(ValueError, match="unknown board 'nope'"):
        boards.get("nope")


def test_random_board():
    b = boards.random_board(1000, 0.1, rng=7)
    assert len(b.jumps) == 100
    assert b == boards.random_board(1000, 0.1, rng=7)
    dests = set(b.jumps.values())
    assert not dests & set(b.jumps)  # destinations never start a jump
    assert 30 < len(b.snakes) < 70
    chained = boards.random_board(500, 0.3, rng=1, chain=True, overshoot="bounce")
    assert chained.chain
    with pytest.raises(ValueError, match="jump_fraction"):
        boards.random_board(100, 1.5)


def test_json_dice_probabilities_must_be_numbers():
    with pytest.raises(TypeError, match="dice probabilities must be numbers"):
        Board.from_json('{"size": 10, "dice": {"faces": [1, 2], "probs": ["0.5", 0.5]}}')


@pytest.mark.parametrize("dice", ["1-100000000", "1000000d6"])
def test_board_table_entries_checked_before_a_string_die_is_built(dice):
    """Issue 54: a 100-square board with a die of 10^8 (or 5 x 10^6) faces is refused for its
    table at once, from a file or the constructor, before the die is built."""
    import time

    faces = 100_000_000 if dice.startswith("1-") else 5_000_001
    began = time.process_time()
    for build in (lambda: Board.from_dict({"size": 100, "dice": dice}),
                  lambda: Board(100, dice=dice),
                  lambda: Board.from_json('{"size": 100, "dice": "%s"}' % dice)):
        with pytest.raises(ValueError, match=f"101 squares x {faces:,} faces = "
                                             f"{101 * faces:,} table entries"):
            build()
    assert time.process_time() - began < 1.0


def test_board_table_entries_checked_for_listed_faces():
    with pytest.raises(ValueError, match="1,000,001 squares x 1,000 faces"):
        Board.from_dict({"size": 10**6, "dice": {"faces": list(range(1, 1001)),
                                                 "probs": [0.001] * 1000}})


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_board_file_that_is_a_fifo_is_refused_not_waited_on(tmp_path, capsys):
    """Issue 54: a FIFO with no writer blocked `snl analyze` forever (snl batch refuses
    pipes); now both refuse at once."""
    from snl_numeric.cli import main

    fifo = tmp_path / "board.json"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file \\(a pipe or device\\)"):
        Board.from_json(fifo)
    assert main(["analyze", str(fifo)]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_gzipped_board_file_says_gzip_is_for_json_lines(tmp_path, capsys):
    import gzip

    from snl_numeric.cli import main

    path = tmp_path / "board.json.gz"
    path.write_bytes(gzip.compress(Board(10, {3: 7}).to_json().encode()))
    with pytest.raises(ValueError, match="gzip-compressed: gzip is read for JSON Lines only"):
        Board.from_json(str(path))
    assert main(["analyze", str(path)]) == 2
    assert "gzip is read for JSON Lines only" in capsys.readouterr().err


def test_huge_integer_in_board_json_gets_our_message():
    """Issue 54: Python's advice (sys.set_int_max_str_digits) is not ours to give."""
    text = '{"size": ' + "9" * 5000 + "}"
    with pytest.raises(ValueError, match="an integer of 5,000 digits") as info:
        Board.from_json(text)
    assert "set_int_max_str_digits" not in str(info.value)
    with pytest.raises(ValueError) as info:  # as long as Python reads: the board's own range
        Board.from_json('{"size": ' + "9" * 4000 + "}")
    assert "digits" not in str(info.value) and "size" in str(info.value)


# --- the written-out sort and search of the board checks ---------------------------------
@functools.cache
def _compiled_sort_and_search():
    import numba

    from snl_numeric._core.numba_config import make_kernels
    from snl_numeric._core.validation import lower_bound, stable_order

    make_kernels()  # the package's overloads are registered with Numba
    return numba.njit(lambda v: stable_order(v)), numba.njit(lambda v, x: lower_bound(v, x))


@functools.cache
def _compiled_board_problem():
    import numba

    from snl_numeric._core.numba_config import make_kernels
    from snl_numeric._core.validation import board_problem

    make_kernels()
    return numba.njit(lambda *args: board_problem(*args))


@given(st.lists(st.integers(-5, 5), max_size=40))
@settings(max_examples=200)
def test_stable_order_and_lower_bound_match_numpy(values):
    """From Python (``sorted``/``bisect``) and compiled (merge sort/binary search)."""
    from snl_numeric._core.validation import lower_bound, stable_order

    compiled_order, compiled_bound = _compiled_sort_and_search()
    arr = np.array(values, dtype=np.int64)
    expect = np.argsort(arr, kind="stable").tolist()
    assert list(stable_order(arr)) == expect
    assert compiled_order(arr).tolist() == expect
    ordered = arr[expect]
    for x in range(-6, 7):
        want = int(np.searchsorted(ordered, x, side="left"))
        assert lower_bound(ordered, x) == want
        assert compiled_bound(ordered, x) == want


@given(size=st.integers(-1, 12), start=st.integers(-1, 13), code=st.integers(-1, 3),
       chain=st.booleans(), pairs=st.lists(st.tuples(st.integers(-1, 13), st.integers(-1, 13)),
                                           max_size=8),
       dice=st.lists(st.tuples(st.integers(-1, 14),
                               st.sampled_from([0.0, 0.25, 0.5, 1.0, -0.5, np.nan, np.inf])),
                     max_size=4))
@settings(max_examples=300, deadline=None)
def test_board_rules_same_in_python_and_compiled(size, start, code, chain, pairs, dice):
    """Board checks its rules as plain Python, huge boards and batch rows compiled: the
    same rule code, so the same first problem and indices."""
    from snl_numeric._core.validation import SUM_TOL, board_problem

    src = np.array([a for a, _ in pairs], dtype=np.int64)
    dst = np.array([b for _, b in pairs], dtype=np.int64)
    faces = np.array([f for f, _ in dice], dtype=np.int64)
    probs = np.array([p for _, p in dice], dtype=np.float64)
    args = (size, start, code, chain, src, dst, faces, probs, SUM_TOL)
    in_python = board_problem(size, start, code, chain, src.tolist(), dst.tolist(),
                              faces.tolist(), probs.tolist(), SUM_TOL)
    assert tuple(in_python) == tuple(_compiled_board_problem()(*args))


@pytest.mark.parametrize("faces", [[1, 2, 3], [3, 1, 2], [1, 2, 2], [2, 1, 2]])
@pytest.mark.parametrize("excess", [-1.5, -0.9, 0.0, 0.9, 1.5])
def test_board_rules_at_the_edge_of_the_dice_sum(faces, excess):
    """Sums just inside and just outside the tolerance, sorted or not, distinct or not:
    the same verdict in Python and compiled (as batch rows are checked)."""
    from snl_numeric._core.validation import SUM_TOL, board_problem

    probs = np.array([0.5, 0.25, 0.25 + excess * SUM_TOL])
    f = np.array(faces, dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    problem = board_problem(10, 0, 0, False, [], [], faces, probs.tolist(), SUM_TOL)[0]
    assert _compiled_board_problem()(10, 0, 0, False, none, none, f, probs,
                                     SUM_TOL)[0] == problem
    assert (problem == 0) == (abs(excess) < 1 and len(set(faces)) == 3)


def test_many_jumps_checked_compiled_with_the_same_message():
    """Above PYTHON_RULES_MAX jumps the rules run compiled: a cycle is still named."""
    from snl_numeric._core.sizes import PYTHON_RULES_MAX

    n = PYTHON_RULES_MAX + 5
    jumps = {x: x + 1 for x in range(1, n)} | {n: 1}  # one long chain closed into a loop
    with pytest.raises(ValueError, match="cycle"):
        Board(n + 10, jumps, chain=True)
    assert len(Board(2 * n + 10, {x: x + 1 for x in range(1, 2 * n, 2)}, chain=True).jumps) == n


# -- players who meet: the capture fields (issue 51) -----------------------------------------
def test_capture_fields_round_trip_and_compare():
    b = Board(30, {3: 20, 25: 4}, capture="start", safe=[12, 7, 12])
    assert (b.capture, b.safe) == ("start", (7, 12))
    assert Board.from_json(b.to_json()) == b and Board.from_dict(b.to_dict()) == b
    assert b.to_dict()["capture"] == "start" and b.to_dict()["safe"] == [7, 12]
    assert "capture" not in Board(30).to_dict()  # the game without capture: the old file
    plain = b.replace(capture=None)
    assert plain.safe == () and plain != b and plain == Board(30, {3: 20, 25: 4})
    assert b.replace(capture=3).capture == 3 and b.replace(capture=3).safe == (7, 12)
    assert hash(b) == hash(Board(30, {3: 20, 25: 4}, capture="start", safe=(7, 12)))
    assert hash(b) != hash(b.replace(safe=[7]))
    assert "capture='start', safe=(7, 12)" in repr(b) and "capture" not in repr(plain)
    import pickle
    assert pickle.loads(pickle.dumps(b)) == b
    assert Board.from_arrays(30, [3], [20], capture=2).capture == 2
    assert Board.from_dict({"size": 30, "capture": 4}).capture == 4


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"capture": 0}, ValueError, "capture must be None, 'start' or a number of squares k >= 1, got 0"),
    ({"capture": "home"}, ValueError, "got 'home'"),
    ({"capture": 2.0}, TypeError, "capture must be None, 'start' or an integer"),
    ({"capture": True}, TypeError, "got True"),
    ({"safe": [4]}, ValueError, r"safe squares \[4\] need a capture rule"),
    ({"capture": 1, "safe": [30]}, ValueError, r"safe square 30 is not a square in 1..29"),
    ({"capture": 1, "safe": [0]}, ValueError, "safe square 0 is not"),
    ({"capture": 1, "safe": "12"}, TypeError, "safe must be a collection of squares"),
    ({"capture": 1, "safe": [1.5]}, TypeError, "safe square must be an integer square, got 1.5"),
])
def test_capture_field_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        Board(30, **kwargs)
    with pytest.raises(error, match=match):
        Board.from_dict({"size": 30, **kwargs})


def test_capture_rule_reads_the_fields():
    from snl_numeric.board import capture_rule

    mode, back, mask = capture_rule(Board(10, start=2, capture=3, safe=[5]))
    assert (mode, back) == (2, 3) and mask.nonzero()[0].tolist() == [2, 5, 10]
    assert not mask.flags.writeable
    assert capture_rule(Board(10, capture="start"))[:2] == (1, 0)
    mode, back, mask = capture_rule(Board(10))
    assert (mode, back, mask.nonzero()[0].tolist()) == (0, 0, [0, 10])
    with pytest.raises(TypeError, match="expected a Board"):
        capture_rule("milton-bradley")


def test_cli_capture_flags(capsys):
    from snl_numeric.cli import main

    assert main(["analyze", "seed-30", "--capture", "start", "--safe", "5,9", "--json"]) == 0
    board = Board.from_dict(json.loads(capsys.readouterr().out)["board"])
    assert (board.capture, board.safe) == ("start", (5, 9))
    assert main(["analyze", "seed-30", "--capture", "2", "--json"]) == 0
    assert Board.from_dict(json.loads(capsys.readouterr().out)["board"]).capture == 2
    with pytest.raises(SystemExit):
        main(["analyze", "seed-30", "--capture", "0"])
    assert "expected 'start', 'none' or a number" in capsys.readouterr().err
    assert main(["analyze", "seed-30", "--safe", "5"]) == 2
    assert "need a capture rule" in capsys.readouterr().err


def test_every_board_constructor_takes_any_die_and_its_type_says_so():
    """The rules page: a die may be a Dice, a mapping or a string wherever one is taken;
    the signatures a type checker reads say the same (``DiceLike``)."""
    import inspect

    for build in (Board.__init__, Board.from_arrays):
        annotation = inspect.signature(build).parameters["dice"].annotation
        assert annotation == "DiceLike | None", (build.__name__, annotation)
    for die in ("2d6", {2: 1 / 36, 7: 35 / 36}, Dice.sum_of(2, 6)):
        expect = Board(50, {5: 30}, dice=die).dice
        assert Board.from_arrays(50, [5], [30], dice=die).dice == expect
        assert Board.from_pairs(50, ladders={5: 30}, dice=die).dice == expect
