"""Input refused with our own words, and requests refused before they allocate memory the
machine does not have (``SNL_NUMERIC_MAX_MEMORY`` plays a small machine)."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from snl_numeric import (
    Board,
    Dice,
    analyze,
    expected_throws,
    finish_within,
    length_distribution,
    simulate,
)
from snl_numeric import maze as mz
from snl_numeric._core.memory import MemoryLimitError, available_memory, check_memory
from snl_numeric.batch import analyze_many
from snl_numeric.dice import parse_dice

BIG = 2**70


@pytest.fixture
def small_machine(monkeypatch):
    monkeypatch.setenv("SNL_NUMERIC_MAX_MEMORY", "256M")


# -- 7/8: input refused like every other malformed board ---------------------------------
@pytest.mark.parametrize(("text", "exc", "match"), [
    ('{"size": 10, "jumps": {"3": 5, "3": 7}}', ValueError, "duplicate key '3'"),
    ('{"size": 10, "dice": {"faces": [true, 2], "probs": [0.5, 0.5]}}', TypeError,
     "dice faces must be integers, got True"),
    ('{"size": 10, "version": 1.0}', ValueError, "unsupported board format version 1.0"),
    ('{"size": 10, "version": true}', ValueError, "unsupported board format version True"),
    ('{"size": 10, "name": 5}', TypeError, "name must be a string, got 5"),
    ('{"size": ' + str(BIG) + '}', ValueError, f"size must fit in a 64-bit integer, got {BIG}"),
    ('{"size": 10, "jumps": {"' + str(BIG) + '": 3}}', ValueError,
     f"jumps start must fit in a 64-bit integer, got {BIG}$"),
    ('{"size": 10, "dice": {"' + str(BIG) + '": 1.0}}', ValueError,
     "dice faces must fit in a 64-bit integer"),
    ('{"size": 10, "dice": {"1": 1' + "0" * 400 + "}}", ValueError,
     r"probability of face 1 is too large for a float, got 10+\.\.\.0+$"),
    ('{"size": 10, "jumps": ' + "[" * 5000 + "]" * 5000 + "}", ValueError,
     "nested 65 levels deep"),
    ("[1, 2]", TypeError, "^expected a JSON object describing a board, got an array$"),
    # valid JSON, no board: was "no such board file: 'null' (and not JSON text either)"
    ("null", TypeError, "^expected a JSON object describing a board, got null$"),
    (" true", TypeError, "^expected a JSON object describing a board, got true$"),
    ("3", TypeError, "^expected a JSON object describing a board, got a number$"),
    ("nul", ValueError, r"^no such board file: 'nul' \(and not JSON text either\)$"),
])
def test_bad_board_json(text, exc, match):
    with pytest.raises(exc, match=match):
        Board.from_json(text)


def test_python_values_beyond_int64_and_deep_nesting():
    with pytest.raises(ValueError, match="jumps destination must fit in a 64-bit integer"):
        Board(10, {3: BIG})
    with pytest.raises(ValueError, match="move must fit in a 64-bit integer, got 18446744073709551615"):
        Board.from_moves(np.array([2**64 - 1, 0], dtype=np.uint64))
    deep: list = []
    node = deep
    for _ in range(5000):
        node.append([])
        node = node[0]
    with pytest.raises(TypeError, match=r"must be a pair \(from, to\), got \[\[\[\[\.\.\.\]\]\]\]"):
        Board(10, deep)


def test_dice_in_our_own_words():
    with pytest.raises(ValueError, match=r"dice probabilities must be a 1-d array of numbers"):
        Dice([1, 2], [[0.5], [0.25, 0.25]])
    with pytest.raises(ValueError, match="dice faces must be a rectangular array of integers"):
        Dice([[1, 2], [3]], [0.5, 0.5])
    with pytest.raises(ValueError, match=r"dice faces must be integers in 1\.\.2,147,483,647, "
                                         r"got faces up to 1,099,511,627,776"):
        Dice.fair(2**40)
    with pytest.raises(ValueError, match="the sum of 1,000,000,000 dice with 6 sides reaches"):
        Dice.sum_of(10**9, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy warning on the way
        d = Dice.sum_of(10**4, 6)
    assert d.faces[0] >= 10**4 and d.faces[-1] <= 6 * 10**4
    assert math.isclose(math.fsum(d.probs), 1.0, abs_tol=1e-12)
    assert d.mean == pytest.approx(35_000.0, rel=1e-12)
    # small sums stay exact: counts / 6**n
    assert Dice.sum_of(3, 6).to_dict()[10] == 27 / 216


def test_percentiles_must_be_numbers():
    with pytest.raises(TypeError, match="percentiles must be numbers, got '50'"):
        analyze(Board(10), percentiles=("50",))
    with pytest.raises(TypeError, match="percentiles must be a sequence of numbers, got '50'"):
        analyze(Board(10), percentiles="50")


# -- 10: refuse before allocating ------------------------------------------------------
def test_available_memory_is_known_and_capped_by_the_environment(monkeypatch):
    from snl_numeric._core import memory

    assert available_memory() is None or available_memory() > 0
    # the machine's part stands still and above the cap (what a loaded machine has
    # available changes from one read to the next, and may be less than 1.5 GiB)
    monkeypatch.setattr(memory, "_meminfo", lambda: 64 * 2**30)
    monkeypatch.setattr(memory, "_sysconf", lambda: 64 * 2**30)
    monkeypatch.setattr(memory, "_cgroup", lambda: None)
    monkeypatch.setattr(memory, "_rlimits", lambda: None)
    monkeypatch.setenv("SNL_NUMERIC_MAX_MEMORY", "1.5G")
    assert available_memory() == 3 * 2**29
    monkeypatch.setattr(memory, "_cgroup", lambda: 2**30)  # a container's limit, lower
    assert available_memory() == 2**30
    monkeypatch.setattr(memory, "_cgroup", lambda: None)
    with pytest.raises(MemoryLimitError, match=r"^x needs about 2\.0 GiB of memory; 1\.5 GiB is "
                                               r"available$"):
        check_memory(2**31, "x")
    assert issubclass(MemoryLimitError, ValueError) and issubclass(MemoryLimitError, MemoryError)


def test_jump_cycle_check_is_o_jumps():
    # no square table: the rules of a board of 10**12 squares are checked at once (and
    # named before its size, which no kernel could take)
    with pytest.raises(ValueError, match="jump cycle under chain=True: 3->9->3"):
        Board(10**12, {9: 3, 3: 9}, chain=True)
    with pytest.raises(ValueError, match="board too large to compile: 1,000,000,000,001 squares"):
        Board(10**12, {5: 3, 3: 9}, chain=True)
    b = Board(4 * 10**8, {5: 3, 3: 9}, chain=True, dice={1: 1.0})  # at the limit: built
    assert b.jumps == {3: 9, 5: 3}


def test_compile_refused_before_allocating(small_machine):
    # int32 tables: (2 * 4 + 12) * 6 + 12 = 132 bytes a square, 80,000,001 x 132 = 9.8 GiB
    with pytest.raises(MemoryLimitError, match=r"compiling a board of 80,000,001 squares x 6 "
                                               r"faces needs about 9\.8 GiB of memory; "
                                               r"256\.0 MiB is available"):
        expected_throws(Board(80_000_000))


def test_dice_refused_before_allocating(small_machine):
    with pytest.raises(MemoryError, match="a fair die with 2,000,000,000 faces needs about "
                                          r"119\.2 GiB"):
        Dice.fair(2_000_000_000)  # (a string that long is refused by its face count first)
    with pytest.raises(ValueError, match="would have 2,000,000,000 faces"):
        parse_dice("1-2000000000")
    with pytest.raises(MemoryError, match="the sum of 100,000 dice with 100 sides"):
        Dice.sum_of(10**5, 100)


def test_batch_row_needing_too_much_memory_is_an_error_row(small_machine):
    df = analyze_many([{"size": 10}, {"size": 8_000_000}, {"size": 80_000_000}],
                      errors="coerce", columns=("min_throws",))
    assert df["min_throws"].iloc[0] == 2
    # 8,000,001 squares x (24 bytes a face of a d6: the table, its reverse and the moves of
    # the Woodbury columns; 256 of per-square arrays; 8 (k + 2), k = 0, of those columns)
    assert df["error"].iloc[1].startswith("size 8000000 needs about 3.1 GiB of memory for "
                                          "batch analysis, more than ")
    assert df["error"].iloc[2] == "size 80000000 is too large for batch analysis (at most 10000000)"


def test_simulate_memory_does_not_depend_on_games(small_machine):
    # games that end at once (start on the goal, or stranded) allocate nothing per game
    r = simulate(Board(10, start=10), 10**15, rng=1)
    assert (r.finished, r.histogram.tolist(), r.total_throws) == (10**15, [10**15], 0)
    # the blocks' bounds are exact for any number of games (256 * games overflowed int64)
    r = simulate(Board(10, start=10), 2**63 - 1, rng=1)
    assert (r.finished, r.histogram.tolist(), r.mean) == (2**63 - 1, [2**63 - 1], 0.0)
    stranded = Board(4, overshoot="exact", dice={3: 1.0}, start=2)
    with pytest.warns(RuntimeWarning, match="1000000000000000 of 1000000000000000 games"):
        r = simulate(stranded, 10**15, rng=1)
    assert (r.censored, r.stranded, r.throws) == (10**15, 10**15, None)
    with pytest.raises(MemoryLimitError, match=r"per_game=True for 100,000,000,000 games"):
        simulate(Board(10), 10**11, rng=1, per_game=True)
    # races too: a player on the goal wins every game, before any throw
    g = simulate(Board(10), 2**63 - 1, starts=[0, 10], rng=1)
    assert (g.wins.tolist(), g.rounds_histogram.tolist()) == ([0, 2**63 - 1], [2**63 - 1])
    with pytest.warns(RuntimeWarning, match="1000000000000000 of 1000000000000000 games had no"):
        g = simulate(stranded, 10**15, players=3, rng=1)
    assert (g.censored, g.stranded, g.wins.tolist()) == (10**15, 10**15, [0, 0, 0])


def test_distribution_growth_refused(small_machine):
    # a geometric game of mean 10**7 throws: the pmf would outgrow 256 MiB
    b = Board(1, overshoot="exact", dice={1: 1e-7, 2: 1 - 1e-7})
    with pytest.raises(MemoryLimitError, match="a distribution of .* throws needs about"):
        length_distribution(b, max_throws=10**12)


def test_horizon_refused_before_allocating(small_machine):
    with pytest.raises(MemoryLimitError, match="a horizon of 1,000,000 throws on 101 squares"):
        finish_within(Board(100), ["1-3", "4-6"], 10**6)


def test_maze_paths_refused_as_they_grow(monkeypatch):
    monkeypatch.setenv("SNL_NUMERIC_MAX_MEMORY", "2M")
    ones = np.ones((7, 7), dtype=np.int64)
    with pytest.raises(MemoryLimitError, match="keeping .* paths .*iterate with iter_paths"):
        mz.paths(ones, (0, 0), (3, 3), limit=10**6)
    assert len(mz.paths(ones, (0, 0), (3, 3), limit=10)) == 10


def test_simulate_memory_does_not_grow_with_game_length(monkeypatch):
    import importlib

    kernel = importlib.import_module("snl_numeric.simulate.kernel")
    # games of mean 10**5 throws: many beyond the first histogram (2**16 bins), some
    # beyond the dense one (here 2**17): those are listed sparsely, never as dense bins
    monkeypatch.setattr(kernel, "HIST_DENSE_MAX", 1 << 17)
    board = Board(1, overshoot="exact", dice={1: 1e-5, 2: 1 - 1e-5})
    r = simulate(board, 64, rng=3, max_throws=10**12)
    per = simulate(board, 64, rng=3, max_throws=10**12, per_game=True)
    assert len(r.histogram) <= 1 << 17 and r.long_games is not None
    counts = np.bincount(per.throws)
    assert np.array_equal(counts[: len(r.histogram)], r.histogram)
    assert np.array_equal(counts[r.long_games[:, 0]], r.long_games[:, 1])
    assert r.histogram.sum() + r.long_games[:, 1].sum() == r.finished == 64
    assert r.mean == pytest.approx(per.throws.mean(), rel=1e-12)
    assert r.variance == pytest.approx(per.throws.var(ddof=1), rel=1e-9)
    assert r.max == per.throws.max() and r.to_dict()["long_games"] == r.long_games.tolist()


def test_a_race_of_too_many_players_is_refused_before_any_per_player_work(small_machine):
    from snl_numeric import expected_game_length, win_probabilities

    board = Board(30, {3: 22, 27: 1}, overshoot="exact")
    rounds = len(length_distribution(board))
    with pytest.raises(MemoryLimitError, match=f"a race of 100,000,000 players over {rounds:,} "
                                               "rounds needs about"):
        win_probabilities(board, 10**8)
    with pytest.raises(MemoryLimitError, match="a race of 100,000,000 players"):
        expected_game_length(board, 10**8, dice={1: 0.5, 2: 0.5})
    # the fast path for identical players gives the same numbers as one board per player
    assert np.array_equal(win_probabilities(board, 3), win_probabilities([board] * 3))


def test_more_siblings_refused_in_our_words(small_machine):
    from snl_numeric import design_board
    from snl_numeric.batch import BoardBatch, random_batch
    from snl_numeric.boards import random_board

    with pytest.raises(TypeError, match="dice probabilities must be numbers"):
        Dice(np.array([1, 2]), np.array([0.5, 0.5j]))
    with pytest.raises(ValueError, match=f"sizes must fit in a 64-bit integer, got {BIG}"):
        BoardBatch.from_arrays([BIG])
    with pytest.raises(ValueError, match="sizes must fit in a 64-bit integer, got 18446744073709551615"):
        BoardBatch.from_arrays(np.array([2**64 - 1], dtype=np.uint64))
    with pytest.raises(MemoryLimitError, match="a random board of 10,000,000,000 squares"):
        random_board(10**10)
    with pytest.raises(MemoryLimitError, match=r"1,000,000 random boards of 10,000 squares "
                                               r"\(generate them in chunks\) needs about"):
        random_batch(10**6, 10**4)
    with pytest.raises(MemoryLimitError, match="on a board of 10,000,001 squares needs"):
        design_board(10**7, snakes=1, ladders=1, objective="max")
    with pytest.raises(ValueError, match="board too large to compile: 1,000,000,001 squares"):
        design_board(10**9, snakes=1, ladders=1, objective="max")


def test_board_rules_at_the_top_of_int64():
    # size + 1 overflowed in the bounce rule: a d6 was refused on the largest board (a
    # Board that large is refused for its size now, but batch rows still reach the rules)
    from snl_numeric._core.validation import find_board_problem

    d6 = Dice.fair(6)
    none = np.empty(0, np.int64)
    assert find_board_problem(2**63 - 1, 0, 2, False, none, none, d6.faces, d6.probs) == (0, 0, 0)
    with pytest.raises(ValueError, match="board too large to compile: 9,223,372,036,854,775,808 "):
        Board(2**63 - 1, overshoot="bounce")
    with pytest.raises(ValueError, match="face 7 is too large for a bounce on a board of size 5"):
        Board(5, overshoot="bounce", dice={7: 1.0})
    assert Board(5, overshoot="bounce", dice={6: 1.0}).size == 5


@pytest.mark.parametrize("games", [2_000, 200_000])  # few games per block: recorded; many: binned
def test_long_game_replays_agree_with_per_game_counts(monkeypatch, games):
    import importlib

    from snl_numeric import boards

    kernel = importlib.import_module("snl_numeric.simulate.kernel")
    board = boards.get("milton-bradley")
    per = simulate(board, games, rng=21, per_game=True)
    monkeypatch.setattr(kernel, "HIST_BINS", 16)
    monkeypatch.setattr(kernel, "HIST_DENSE_MAX", 128)
    r = simulate(board, games, rng=21)
    counts = np.bincount(per.throws)
    assert np.array_equal(counts[: len(r.histogram)], r.histogram)
    assert np.array_equal(counts[r.long_games[:, 0]], r.long_games[:, 1])
    assert counts[128:].sum() == r.long_games[:, 1].sum()
    assert (r.mean, r.max) == (pytest.approx(per.throws.mean(), rel=1e-12), per.throws.max())


def test_arguments_of_the_wrong_kind_are_refused_in_our_words(tmp_path):
    from snl_numeric import report, warmup

    board = Board(10, {3: 8})
    with pytest.raises(TypeError, match="per_game must be True or False, got 'no'"):
        simulate(board, 10, rng=0, per_game="no")
    assert simulate(board, 10, rng=0, per_game=np.True_).throws.shape == (10,)
    with pytest.raises(TypeError, match="path must be a file name .* got 3"):
        report(board, 3)  # (not written to file descriptor 3)
    with pytest.raises(TypeError, match="got the string 'maze' \\(write \\['maze'\\]\\)"):
        warmup("maze")
    assert sorted(warmup(["maze"], processes=np.int64(1))) == ["maze", "total"]
    for kwargs in ({"limit": 10**30}, {"limit": -1}):
        with pytest.raises(ValueError, match="limit must be between 0 and 2\\*\\*63 - 1"):
            mz.paths([[1, 1], [1, 1]], (0, 0), (1, 1), **kwargs)
    with pytest.raises(ValueError, match="bound must be between 0 and 2\\*\\*63 - 1"):
        mz.count_paths([[1, 1], [1, 1]], (0, 0), (1, 1), bound=10**30)


def test_more_arguments_refused_in_our_words_and_numpy_bools_taken(tmp_path):
    from snl_numeric import design_board, report
    from snl_numeric.batch import analyze_to_parquet
    from snl_numeric.cli import main

    board = Board(10, {3: 8})
    for bad in ((1,), 5, ("a", "b")):
        with pytest.raises(TypeError, match="temperature must be a pair of numbers"):
            design_board(20, snakes=1, ladders=1, objective="max", temperature=bad)
    for bad in ((math.inf, 1.0), (0.1, 1.0), (1.0, 0.0)):
        with pytest.raises(ValueError, match="0 < final <= initial, both finite"):
            design_board(20, snakes=1, ladders=1, objective="max", temperature=bad)
    a = design_board(20, snakes=1, ladders=1, objective="max", temperature=(1.0, 0.01),
                     iterations=40, rng=3)
    b = design_board(20, snakes=1, ladders=1, objective="max",
                     temperature=np.array([1.0, 0.01]), iterations=40, rng=3)
    assert a.board == b.board and a.mean == b.mean
    for run in (lambda **k: analyze_many([board], **k),
                lambda **k: analyze_to_parquet([board], tmp_path / "out", **k)):
        with pytest.raises(TypeError, match="client must be a dask.distributed Client or None"):
            run(client="x")
        with pytest.raises(TypeError, match="allow_mixed_versions must be True or False"):
            run(allow_mixed_versions="x")
    assert not (tmp_path / "out").exists()
    with pytest.raises(ValueError, match="cannot read board file .*: Is a directory"):
        Board.from_json(str(tmp_path))
    assert main(["analyze", "seed-30", "--dice", ""]) == 2  # refused, not ignored
    assert analyze(board, jump_probability=np.True_).jump_probability is not None
    assert simulate(board, 10, rng=0, progress=np.False_).games == 10
    assert "<html" in report(board, race=np.False_)


# -- bad-input review: refused in our words, nothing left behind --------------------------
@pytest.mark.parametrize("chunk_size", ["1", "100"])  # a part written before the bad row, or none
def test_snl_batch_of_a_bad_file_leaves_nothing_behind(tmp_path, capsys, chunk_size):
    from snl_numeric.batch import analyze_to_parquet
    from snl_numeric.cli import main

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"size": 10}\n{"size": -3}\n')
    out = tmp_path / "new" / "dir" / "out"
    assert main(["batch", str(bad), "-o", str(out), "--chunk-size", chunk_size]) == 2
    assert "board 1: size must be at least 1, got -3 (line 2)" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
    (tmp_path / "mine").mkdir()  # a folder the run did not create stays, empty
    with pytest.raises(ValueError, match=r"board 1: size must be at least 1, got -3 \(line 2\)"):
        analyze_to_parquet(str(bad), tmp_path / "mine", chunk_size=int(chunk_size))
    assert list((tmp_path / "mine").iterdir()) == []


def test_a_file_that_is_not_parquet_is_refused_in_our_words(tmp_path):
    from snl_numeric.batch import read_boards, read_results

    garbage = tmp_path / "boards.parquet"
    garbage.write_bytes(b"not a parquet file at all")
    for read in (read_boards, analyze_many):
        with pytest.raises(ValueError, match="boards.parquet': it is not a Parquet file") as exc:
            read(str(garbage))
        assert type(exc.value) is ValueError and exc.value.__cause__ is not None
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "part-000000.parquet").write_bytes(b"")
    with pytest.raises(ValueError, match="part-000000.parquet': it is not a Parquet file"):
        read_results(tmp_path / "out")


def test_format_path_refuses_what_is_not_a_path_in_our_words():
    with pytest.raises(ValueError, match=r"path must be pairs of integers, shape \(L, 2\), got "
                                         r"shape \(3,\)"):
        mz.format_path([0, 1, 2])
    with pytest.raises(ValueError, match=r"got shape \(2, 2, 2\)"):
        mz.format_path(np.zeros((2, 2, 2), dtype=np.int64))  # was read as four cells
    with pytest.raises(TypeError, match="path must hold integers, got dtype float64"):
        mz.format_path([(0, 1.5)])  # was shown as (0, 1)
    with pytest.raises(TypeError, match="goal_label must be a string or None; got 5"):
        mz.format_path([(0, 0)], goal_label=5)
    assert mz.format_path(np.array([(0, 0), (0, 1)], dtype=np.uint8)) == "(0, 0)->(0, 1)->MIDDLE"
    assert mz.format_path([(2, 3)], goal_label="END") == "(2, 3)->END"


def test_none_where_an_array_is_expected_says_none():
    # was ValueError "... must be a rectangular array of integers (ragged rows?)"
    for make, name in ((lambda: Dice(None, None), "dice faces"),
                       (lambda: Board.from_grid(None), "grid"),
                       (lambda: Board.from_moves(None), "move"),
                       (lambda: mz.format_path(None), "path")):
        with pytest.raises(TypeError, match=f"^{name} must be an array of integers, got None$"):
            make()
    with pytest.raises(TypeError, match=r"^move must be an array of integers, got \[1, None\]$"):
        Board.from_moves([1, None])
    with pytest.raises(TypeError, match="^dice probabilities must be a 1-d array of numbers, "
                                        "got None$"):
        Dice([1, 2], None)


def test_dice_from_probs_describes_its_own_arguments():
    from snl_numeric.dice import as_dice

    # was "dice must be a Dice, a mapping ... or a string such as '2d6'" (from_probs takes no string)
    with pytest.raises(TypeError, match=r"^Dice.from_probs takes a mapping face -> probability "
                                        r"such as \{1: 0.5, 2: 0.5\}, got list \(for faces and "
                                        r"probabilities as two arrays: Dice\(faces, probs\)\)$"):
        Dice.from_probs([0.5, 0.5])
    with pytest.raises(TypeError, match="^dice must be a Dice, a mapping face -> probability or a "
                                        "string such as '2d6' or '1-3', got list$"):
        as_dice([0.5, 0.5])
    assert Dice.from_probs({2: 1.0}).faces.tolist() == [2]


def test_random_board_arguments_refused_in_our_words():
    from snl_numeric.batch import random_batch
    from snl_numeric.boards import random_board

    rng_types = "rng must be None, an integer seed, a SeedSequence or a Generator"
    for bad in ("x", 1.5, True):  # True was taken as the seed 1
        with pytest.raises(TypeError, match=f"^{rng_types}, got {bad!r}$"):
            random_board(20, rng=bad)
        with pytest.raises(TypeError, match=f"^{rng_types}, got {bad!r}$"):
            random_batch(2, 20, snakes=1, ladders=1, rng=bad)
    with pytest.raises(ValueError, match="^rng must be a non-negative integer seed, got -1$"):
        random_board(20, rng=-1)
    for kwargs, message in (({"n": 2.5}, "n must be an integer, got 2.5"),
                            ({"size": "20"}, "size must be an integer, got '20'"),
                            ({"snakes": 1.5}, "snakes must be an integer, got 1.5"),
                            ({"chain": 1}, "chain must be True or False, got 1"),
                            ({"overshoot": 1}, "overshoot must be one of 'win', 'exact', 'bounce', got 1")):
        args = {"n": 2, "size": 20, "snakes": 1, "ladders": 1, **kwargs}
        with pytest.raises(TypeError, match=f"^{message}$"):  # (Python's words, or taken)
            random_batch(args.pop("n"), **args)
    with pytest.raises(ValueError, match="^overshoot must be one of .*, got 'wrap'$"):
        random_batch(2, 20, snakes=1, ladders=1, overshoot="wrap")
    with pytest.raises(TypeError, match="^jump_fraction must be a number, got '0.1'$"):
        random_board(20, "0.1")
    with pytest.raises(TypeError, match="^jump_fraction must be a number, got True$"):
        random_board(20, True)  # was taken as 1.0
    with pytest.raises(TypeError, match="^snake_fraction must be a number, got np.True_$"):
        random_board(20, snake_fraction=np.True_)
    with pytest.raises(TypeError, match=r"^random_board\(\) got an unexpected keyword argument "
                                        r"'snake_fractoin' \(the board's rules are start, "
                                        "overshoot, chain, dice, name\\)$"):
        random_board(20, snake_fractoin=0.5)  # was Board.from_arrays()'s words
    # what worked still works, the same boards for the same seed
    b = random_board(100, 0.2, rng=1)
    for rng in (np.int64(1), np.random.default_rng(1), np.random.PCG64(1),
                np.random.SeedSequence(1)):
        assert random_board(100, 0.2, rng=rng) == b
    assert random_board(100, np.float32(0.2), rng=1, overshoot="exact").overshoot == "exact"


def test_top_candidates_rank_finite_changes_only():
    from snl_numeric import jump_candidates, top_candidates

    # was [(0, 0, inf), (0, 1, inf)]: endless jumps ranked as if they lengthened the game
    assert top_candidates(np.full((3, 3), np.inf), 2) == []
    assert top_candidates(np.full((3, 3), np.inf), 2, longer=False) == []
    # one face: every snake from an inner square makes the game endless (inf)
    change = jump_candidates(Board(6, dice={1: 1.0}))
    assert np.isposinf(change).sum() == 15
    finite = int(np.isfinite(change).sum())
    for longer in (True, False):
        top = top_candidates(change, 100, longer=longer)
        assert len(top) == finite and all(math.isfinite(x) for _, _, x in top)
    # the longest is no change at all (nobody lands on square 0), not an endless snake
    assert top_candidates(change, 1) == [(0, 1, 0.0)]
    assert top_candidates(change, 1, longer=False) == [(1, 6, -5.0)]


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc (Linux)")
def test_ulimit_v_gets_the_clean_refusal():
    """Issue 54: under ``ulimit -v`` a big board died inside NumPy; the memory check now
    counts what RLIMIT_AS leaves beside the address space in use (at most that). The board
    needs more than the whole limit (a smaller one passed the check on a run where the
    address space in use grew after it, compiling kernels, and died inside one)."""
    limit_kib = 800_000
    code = textwrap.dedent("""
        import re
        from snl_numeric import Board, expected_throws
        used = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read()).group(1))
        print(used * 1024)
        try:
            expected_throws(Board(10**7, {5: 6_000_000, 8_000_000: 3}))
        except MemoryError as exc:
            print(type(exc).__name__, exc)
    """)
    proc = subprocess.run(["bash", "-c", f'ulimit -v {limit_kib}; exec "$0" -c "$1"',
                           sys.executable, code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "SNL_NUMERIC_MAX_MEMORY": ""})
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stderr
    assert lines[1].startswith("MemoryLimitError compiling a board of 10,000,001 squares")
    left = re.search(r"; ([\d.]+) MiB is available", lines[1])
    # (shown to 0.1 MiB)
    assert left is not None and (float(left.group(1)) - 0.05) * 2**20 <= limit_kib * 1024 - int(lines[0])


def test_rlimits_counted_in_process(monkeypatch):
    """The same in this process: a soft RLIMIT_AS just above the address space in use caps
    ``available_memory`` at the difference."""
    import resource

    from snl_numeric._core import memory

    # the limit follows the address space in use when it is read: read once beforehand,
    # a large array freed meanwhile (a garbage collection) would leave more than 5 MiB
    monkeypatch.setattr(resource, "getrlimit", lambda which: (
        (memory._status()[b"VmSize"] + 5 * 2**20, resource.RLIM_INFINITY)
        if which == resource.RLIMIT_AS else (resource.RLIM_INFINITY, resource.RLIM_INFINITY)))
    monkeypatch.delenv("SNL_NUMERIC_MAX_MEMORY", raising=False)
    avail = available_memory()
    assert avail is not None and avail <= 5 * 2**20 + 2**20
    with pytest.raises(MemoryLimitError, match="is available"):
        check_memory(64 * 2**20, "a table")


# -- audit of every public function (robust65): hostile values, memory, files ---------------
def test_board_json_indent_is_checked_and_its_memory_estimated(small_machine):
    board = Board(10, {3: 8})
    assert board.to_json(indent=np.int64(1)) == board.to_json(indent=1)
    for bad, exc, match in ((2.5, TypeError, "^indent must be an integer, got 2.5$"),
                            ("x", TypeError, "^indent must be an integer, got 'x'$"),
                            (True, TypeError, "^indent must be an integer, got True$"),
                            (-1, ValueError, "^indent must be at least 0, got -1$"),
                            (2**63, ValueError, "^indent must fit in a 64-bit integer")):
        with pytest.raises(exc, match=match):  # was json's TypeError, or OverflowError
            board.to_json(indent=bad)
    # (json.dumps allocated the text: a bare MemoryError, or the machine's memory)
    with pytest.raises(MemoryLimitError, match="JSON indented by 4,611,686,018,427,"):
        board.to_json(indent=2**62)


def test_files_named_by_nothing_are_refused_in_our_words(tmp_path, monkeypatch):
    from snl_numeric import report
    from snl_numeric.batch import analyze_to_parquet, read_results, write_jsonl

    monkeypatch.chdir(tmp_path)
    board = Board(10, {3: 8})
    # was FileNotFoundError: "No such file or directory: './..3f2a.tmp' -> ''"
    for write in (lambda p: board.to_json(p), lambda p: report(board, p),
                  lambda p: write_jsonl([board], p)):
        with pytest.raises(ValueError, match="^path must name a file, got ''$"):
            write("")
        with pytest.raises(TypeError, match=r"^path must be a file name \(str or path-like\)"
                                            "( or None)?, got 3.5$"):
            write(3.5)  # was "expected str, bytes or os.PathLike object, not float"
    from snl_numeric.batch import read_boards
    with pytest.raises(ValueError, match="^path must name a file, got ''$"):
        read_boards("")  # was "cannot tell the format of ''"
    for bad in (float("nan"), None):  # was os.fspath's "expected str, bytes or ..."
        with pytest.raises(TypeError, match=r"^path must be a file name \(str or path-like\), "
                                            f"got {bad}$"):
            read_boards(bad)
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    for run in (lambda out: analyze_to_parquet([board], out), read_results):
        with pytest.raises(ValueError, match="^out must name a folder, got ''$"):
            run("")
        with pytest.raises(ValueError, match="a_file' is a file, not a folder$"):
            run(a_file)  # was FileExistsError / NotADirectoryError
        with pytest.raises(TypeError, match="^out must be a folder name"):
            run(3)
    with pytest.raises(ValueError, match="^no results folder '.*nowhere': run analyze_to_par"):
        read_results(tmp_path / "nowhere")  # was FileNotFoundError
    with pytest.raises(TypeError, match="^overwrite must be True or False, got 'no'$"):
        analyze_to_parquet([board], tmp_path / "out", overwrite="no")  # was taken as True
    assert sorted(os.listdir(tmp_path)) == ["a_file"]  # nothing written on the way


def test_per_player_work_refused_before_its_lists(small_machine):
    from snl_numeric import fair_starts, jump_impact

    mb = Board(20, {3: 10, 15: 4})
    # were bare MemoryErrors from lists of 2**62 entries (or minutes building 10**8 of them)
    with pytest.raises(MemoryLimitError, match="^a race of 4,611,686,018,427,387,904 players"):
        fair_starts(mb, 2**62)
    with pytest.raises(MemoryLimitError, match="^a race of 4,611,686,018,427,387,904 players"):
        jump_impact(mb, players=2**62)
    with pytest.raises(MemoryLimitError, match="^a race of 100,000,000 players on a board of 21"):
        simulate(mb, 10, rng=1, players=10**8)


def test_design_lengths_beyond_int64_or_the_board():
    from snl_numeric import design_board

    kw = dict(snakes=1, ladders=1, objective="max", iterations=20, chains=1, rng=4)
    with pytest.raises(ValueError, match="^max_length must fit in a 64-bit integer"):
        design_board(20, max_length=2**63, **kw)  # was OverflowError inside NumPy
    with pytest.raises(ValueError, match="cannot place 1 snakes with lengths 20..20"):
        design_board(20, min_length=2**62, max_length=2**63 - 1, **kw)
    # a bound beyond the board is the board's: the same design
    a = design_board(20, max_length=2**63 - 1, **kw)
    b = design_board(20, **kw)
    assert a.board == b.board and a.mean == b.mean


def test_rule_chains_and_large_mazes_refused_before_numpy_allocates(small_machine):
    from snl_numeric import Chain

    # were NumPy's MemoryError ("Unable to allocate 745. GiB for an array ...")
    with pytest.raises(MemoryLimitError, match="^a chain of 100,000,000,000 states x 1 faces"):
        Chain.from_rule(10**11, [1], [1.0], lambda s, f: np.minimum(s + f, 10**11 - 1),
                        absorbing=[10**11 - 1])
    huge = np.broadcast_to(np.int64(1), (10**5, 10**5))  # a view: no memory of its own
    for call in (lambda: mz.shortest_path(huge, (0, 0), (5, 5)),
                 lambda: mz.paths(huge, (0, 0), (5, 5), limit=3),
                 lambda: mz.count_paths(huge, (0, 0), (5, 5), bound=3)):
        with pytest.raises(MemoryLimitError, match="^a 100,000 x 100,000 maze needs about"):
            call()
    # (a view that fits is read as before: two moves from a corner to the middle)
    path = mz.shortest_path(np.broadcast_to(np.int64(1), (3, 3)), (0, 0), (1, 1))
    assert len(path) == 3 and path[0].tolist() == [0, 0] and path[-1].tolist() == [1, 1]


def test_what_is_no_list_is_refused_in_our_words(tmp_path):
    from snl_numeric import Chain, warmup
    from snl_numeric.batch import write_jsonl, write_parquet

    # each was Python's "'float' object is not iterable" or os.fspath's unnamed words
    for write in (write_jsonl, write_parquet):
        for bad in (math.nan, Board(10), "boards.jsonl"):
            with pytest.raises(TypeError, match="^boards must be a BoardBatch or an iterable of "
                                                "Boards and BoardBatches, got "):
                write(bad, tmp_path / "b.jsonl")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(TypeError, match="^groups must be a list of group names or None, got 5$"):
        warmup(5)
    step = lambda s, f: np.minimum(s + f, 4)  # noqa: E731
    with pytest.raises(TypeError, match="^faces must be a list of faces, got nan$"):
        Chain.from_rule(5, math.nan, [1.0], step)
    with pytest.raises(TypeError, match="^probs must be numbers, got 'x'$"):
        Chain.from_rule(5, [1], "x", step)  # was "could not convert string to float: 'x'"


def test_progress_and_players_that_are_arrays_are_refused_in_our_words():
    board = Board(10, {3: 8})
    empty = np.array([])
    # were NumPy's "The truth value of an empty array is ambiguous"
    for call in (lambda: simulate(board, 10, rng=0, progress=empty),
                 lambda: analyze_many([board], progress=empty),
                 lambda: mz.count_paths([[1, 1], [1, 1]], (0, 0), (1, 1), progress=empty)):
        with pytest.raises(TypeError, match=r"^progress must be True, False or 'always', got "
                                            r"array\(\[\], dtype=float64\)$"):
            call()
    assert simulate(board, 10, rng=0, progress=np.str_("always")).games == 10


def test_small_boards_are_not_refused_memory_they_do_not_need(monkeypatch):
    from snl_numeric import jump_candidates

    # was "the jump candidates of a board of 21 squares (arrays of 21 x 21) needs about
    # 384.0 MiB": six blocks of 64 MiB counted whatever the board
    monkeypatch.setenv("SNL_NUMERIC_MAX_MEMORY", "64M")
    change = jump_candidates(Board(20, {3: 10, 15: 4}))
    assert change.shape == (21, 21)
    with pytest.raises(MemoryLimitError, match="the jump candidates of a board of 5,001 squares"):
        jump_candidates(Board(5000))  # 10 n^2 bytes: 250 MB
