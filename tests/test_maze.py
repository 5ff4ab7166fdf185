"""Tests for snl_numeric.maze: seed 003, the naive twin, limits and errors."""

from __future__ import annotations

import argparse
import json
import time
from itertools import islice

import naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snl_numeric import maze as mz
from snl_numeric.cli.maze import add_parser as add_maze_parser

SEED_003 = [
    [3, 4, 4, 4, 7, 3, 4, 6, 3],
    [6, 7, 5, 6, 6, 2, 6, 6, 2],
    [3, 3, 4, 3, 2, 5, 4, 7, 2],
    [6, 5, 5, 1, 2, 3, 6, 5, 6],
    [3, 3, 4, 3, 0, 1, 4, 3, 4],
    [3, 5, 4, 3, 2, 1, 3, 3, 5],
    [3, 5, 4, 3, 2, 6, 4, 4, 3],
    [3, 5, 1, 3, 7, 5, 3, 6, 3],
    [6, 2, 4, 3, 4, 5, 4, 5, 1],
]

SEED_003_OUTPUT = """\
(0, 0)->(0, 3)->(0, 7)->(6, 7)->(6, 3)->(3, 3)->(3, 4)->(5, 4)->(5, 2)->(1, 2)->(1, 7)->(7, 7)->(7, 1)->(2, 1)->(5, 1)->(0, 1)->(4, 1)->(4, 4)->MIDDLE
(0, 0)->(0, 3)->(0, 7)->(6, 7)->(6, 3)->(3, 3)->(3, 4)->(5, 4)->(5, 2)->(1, 2)->(1, 7)->(7, 7)->(7, 1)->(2, 1)->(2, 4)->(4, 4)->MIDDLE
(0, 0)->(0, 3)->(0, 7)->(0, 1)->(4, 1)->(7, 1)->(2, 1)->(2, 4)->(4, 4)->MIDDLE
(0, 0)->(0, 3)->(0, 7)->(0, 1)->(4, 1)->(4, 4)->MIDDLE
(8, 8)->(7, 8)->(4, 8)->(4, 4)->MIDDLE
"""  # noqa: E501

# Mazes with astronomically many paths: every cell moves one step; and the
# first benchmark maze (more than 100,000 paths from (0, 0) to (6, 6), found
# at a steady pace).
ONES = np.ones((12, 12), dtype=np.int64)
RANDOM = np.random.default_rng(2024).integers(1, 5, size=(12, 12))


def as_tuples(found):
    return [[tuple(cell) for cell in p.tolist()] for p in found]


# --- seed 003 -------------------------------------------------------------


def test_seed_003_corner_paths():
    found = mz.corner_paths(SEED_003)
    assert len(found) == 5
    assert "".join(mz.format_path(p) + "\n" for p in found) == SEED_003_OUTPUT
    assert as_tuples(found) == naive.maze_corner_paths(SEED_003)
    assert all(p.dtype == np.int64 and p.shape[1] == 2 for p in found)


def test_seed_003_other_questions():
    assert mz.middle(SEED_003) == (4, 4)
    assert mz.count_paths(SEED_003, (0, 0), (4, 4)).count == 4
    assert mz.count_paths(SEED_003, (8, 8), (4, 4)).count == 1
    assert mz.shortest_path(SEED_003, (8, 8), (4, 4)).tolist() == [
        [8, 8], [7, 8], [4, 8], [4, 4]
    ]
    assert len(mz.corner_paths(SEED_003, limit=2)) == 2
    assert len(list(mz.iter_paths(SEED_003, (0, 0), (4, 4)))) == 4


def test_hand_checked_cases():
    # Start on the goal: the one-cell path.
    assert as_tuples(mz.paths([[0]], (0, 0), (0, 0))) == [[(0, 0)]]
    assert mz.count_paths([[0]], (0, 0), (0, 0)) == mz.PathCount(1, False, 1)
    assert mz.shortest_path([[0]], (0, 0), (0, 0)).tolist() == [[0, 0]]
    # 1 x 1: the four corners are one corner and the middle.
    assert as_tuples(mz.corner_paths([[5]])) == [[(0, 0)]]
    # Zero cells are dead ends but may be goals.
    assert mz.paths([[1, 0], [0, 0]], (0, 0), (1, 1)) == []
    assert as_tuples(mz.paths([[1, 0]], (0, 0), (0, 1))) == [[(0, 0), (0, 1)]]
    assert mz.shortest_path([[0, 1]], (0, 0), (0, 1)) is None
    # A path stops at the goal and never passes through it.
    assert as_tuples(mz.paths([[1, 1, 1]], (0, 0), (0, 1))) == [[(0, 0), (0, 1)]]
    # Even sides: the middle is (R // 2, C // 2).
    assert mz.middle(np.ones((4, 6), dtype=int)) == (2, 3)
    # Huge values move nowhere (and do not overflow).
    assert mz.paths(np.array([[2**62, 1]]), (0, 0), (0, 1)) == []
    assert mz.paths([[2**70, 1]], (0, 0), (0, 1)) == []
    assert mz.count_paths(np.array([[1, 1]], dtype=np.uint64), (0, 0), (0, 1)).count == 1
    # Narrow dtypes on a side longer than they can hold (was OverflowError): a column of
    # ones with a 2 on top has one path down and one up to the cell it skips.
    for dtype in (np.int8, np.uint8):
        column = np.ones((300, 1), dtype=dtype)
        column[0, 0] = 2
        assert mz.count_paths(column, (0, 0), (299, 0)).count == 1
        assert len(mz.shortest_path(column, (0, 0), (299, 0))) == 299
        assert as_tuples(mz.paths(column, (0, 0), (1, 0))) == [[(0, 0), (2, 0), (1, 0)]]
    # Integral floats are accepted.
    assert mz.count_paths(np.ones((2, 2)), (0, 0), (1, 1)).count == 2


# --- against the naive twin -----------------------------------------------


@st.composite
def mazes(draw, max_side=6, max_value=4):
    rows = draw(st.integers(1, max_side))
    cols = draw(st.integers(1, max_side))
    cells = st.integers(0, max_value)
    return [[draw(cells) for _ in range(cols)] for _ in range(rows)]


@st.composite
def mazes_with_cells(draw):
    m = draw(mazes())
    rows, cols = len(m), len(m[0])
    cell = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    return m, draw(cell), draw(cell)


@settings(max_examples=150, deadline=None)
@given(mazes())
def test_corner_paths_match_naive(m):
    assert as_tuples(mz.corner_paths(m)) == naive.maze_corner_paths(m)


@settings(max_examples=200, deadline=None)
@given(mazes_with_cells())
def test_paths_count_and_shortest_match_naive(case):
    m, start, goal = case
    expected = naive.maze_paths(m, start, goal)
    assert as_tuples(mz.paths(m, start, goal)) == expected
    assert as_tuples(mz.iter_paths(m, start, goal)) == expected
    res = mz.count_paths(m, start, goal)
    assert res.count == len(expected) and not res.exceeded
    assert (res.count, res.steps) == naive.maze_count(m, start, goal)

    best = mz.shortest_path(m, start, goal)
    moves = naive.maze_shortest_moves(m, start, goal)
    if moves < 0:
        assert best is None and expected == []
    else:
        assert len(best) - 1 == moves == min(len(p) for p in expected) - 1
        cells = [tuple(c) for c in best.tolist()]
        assert cells[0] == start and cells[-1] == goal
        assert all(b in naive.maze_moves(m, a) for a, b in zip(cells[:-1], cells[1:], strict=True))


@settings(max_examples=100, deadline=None)
@given(mazes_with_cells(), st.integers(0, 8))
def test_limit_and_bound_match_naive(case, k):
    m, start, goal = case
    expected = naive.maze_paths(m, start, goal)
    assert as_tuples(mz.paths(m, start, goal, limit=k)) == expected[:k]
    res = mz.count_paths(m, start, goal, bound=k)
    assert res.exceeded == (len(expected) > k)
    assert res.count == min(len(expected), k + 1)
    assert (res.count, res.steps) == naive.maze_count(m, start, goal, bound=k)
    assert as_tuples(mz.corner_paths(m, limit=k)) == naive.maze_corner_paths(m)[:k]


# --- limits, bounds and laziness on huge path counts -----------------------


def test_iter_paths_is_lazy_and_resumes():
    mz.count_paths(ONES, (0, 0), (0, 1), bound=1)  # compile outside the timing
    t0 = time.process_time()  # CPU time: a busy machine does not stretch it
    first = list(islice(mz.iter_paths(ONES, (0, 0), (6, 6)), 3))
    assert time.process_time() - t0 < 1.0  # the 4th path costs 36 million steps
    assert len(first) == 3
    # Chunks resume the same search: 5000 lazy paths == paths(limit=5000).
    lazy = list(islice(mz.iter_paths(RANDOM, (0, 0), (6, 6)), 5000))
    eager = mz.paths(RANDOM, (0, 0), (6, 6), limit=5000)
    assert len(lazy) == 5000
    assert all(np.array_equal(a, b) for a, b in zip(lazy, eager, strict=True))
    assert len({tuple(map(tuple, p.tolist())) for p in lazy}) == 5000


def test_count_bound_stops_early():
    res = mz.count_paths(RANDOM, (0, 0), (6, 6), bound=1000)
    assert res == mz.PathCount(1001, True, res.steps)
    assert (1001, res.steps) == naive.maze_count(RANDOM.tolist(), (0, 0), (6, 6), bound=1000)
    again = mz.count_paths(RANDOM, (0, 0), (6, 6), bound=1000)
    assert again == res  # deterministic
    assert mz.count_paths(ONES, (0, 0), (6, 6), bound=0) == mz.PathCount(1, True, 79)


def test_paths_without_limit_is_capped(monkeypatch):
    monkeypatch.setattr(mz, "MAX_PATHS", 100)
    with pytest.raises(ValueError, match=r"more than MAX_PATHS = 100 paths; pass an explicit"):
        mz.paths(RANDOM, (0, 0), (6, 6))
    with pytest.raises(ValueError, match="MAX_PATHS"):
        mz.corner_paths(RANDOM)
    assert len(mz.paths(RANDOM, (0, 0), (6, 6), limit=150)) == 150


# --- bad input ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("maze", "exc", "match"),
    [
        ([[1, 2], [3]], ValueError, r"row 0 has 2 cells but row 1 has 1"),
        ([[1, -2]], ValueError, r"non-negative; got -2 at row 0, column 1"),
        (np.array([[1, 0], [0, -3]]), ValueError, r"got -3 at row 1, column 1"),
        ([[1, 2.5]], TypeError, r"got 2\.5 \(float\) at row 0, column 1"),
        (np.array([[1.0, np.nan]]), TypeError, r"got nan .* at row 0, column 1"),
        ([[1, True]], TypeError, r"got True \(bool\) at row 0, column 1"),
        (np.array([[True]]), TypeError, r"boolean array"),
        ([["1"]], TypeError, r"got '1' \(str\) at row 0, column 0"),
        ([[1, [2]]], TypeError, r"got \[2\] \(list\) at row 0, column 1"),
        (np.array([["a"]]), TypeError, r"dtype <U1"),
        ([], ValueError, r"maze is empty"),
        ([[]], ValueError, r"maze is empty"),
        (np.zeros((3, 0), dtype=int), ValueError, r"maze is empty \(shape \(3, 0\)\)"),
        ([1, 2, 3], ValueError, r"2-D .* row 0 is 1"),
        (np.ones(3, dtype=int), ValueError, r"2-D; got 1-D"),
        ("123", TypeError, r"got str"),
        (None, TypeError, r"got NoneType"),
    ],
)
def test_bad_maze(maze, exc, match):
    with pytest.raises(exc, match=match):
        mz.paths(maze, (0, 0), (0, 0))
    with pytest.raises(exc, match=match):
        mz.corner_paths(maze)


@pytest.mark.parametrize("fn", [mz.paths, mz.iter_paths, mz.count_paths, mz.shortest_path])
@pytest.mark.parametrize(
    ("start", "goal", "exc", "match"),
    [
        ((3, 0), (0, 0), ValueError, r"start \(3, 0\) is outside the 3x2 maze"),
        ((0, 0), (0, 2), ValueError, r"goal \(0, 2\) is outside the 3x2 maze"),
        ((-1, 0), (0, 0), ValueError, r"start \(-1, 0\) is outside"),
        ((0, 0, 0), (0, 0), ValueError, r"start must be a \(row, col\) pair; got \(0, 0, 0\)"),
        ((0, 0.5), (0, 0), TypeError, r"start must be .* integers; got \(0, 0\.5\)"),
        ((0, 0), (True, 0), TypeError, r"goal must be .* integers; got \(True, 0\)"),
        (7, (0, 0), TypeError, r"start must be .* integers; got 7"),
    ],
)
def test_bad_cells(fn, start, goal, exc, match):
    with pytest.raises(exc, match=match):
        fn([[1, 1], [1, 1], [1, 1]], start, goal)


def test_bad_limit_and_bound():
    m = [[1, 1], [1, 1]]
    with pytest.raises(ValueError, match="limit must be between 0 and 2\\*\\*63 - 1; got -1"):
        mz.paths(m, (0, 0), (1, 1), limit=-1)
    with pytest.raises(TypeError, match=r"limit must be a non-negative integer or None; got 2\.0"):
        mz.corner_paths(m, limit=2.0)
    with pytest.raises(ValueError, match="bound must be between 0 and 2\\*\\*63 - 1; got -5"):
        mz.count_paths(m, (0, 0), (1, 1), bound=-5)
    with pytest.raises(TypeError, match="bound must be .* got True"):
        mz.count_paths(m, (0, 0), (1, 1), bound=True)


def test_largest_bound_and_limit_are_accepted():
    # the largest value the checks accept: bound + 1 must not overflow the kernel's int64
    top = 2**63 - 1
    m = [[1, 1], [1, 0]]  # two paths from (0, 0) to (1, 1): down-right and right-down
    assert mz.count_paths(m, (0, 0), (1, 1), bound=top) == mz.PathCount(2, False, 5)
    assert len(mz.paths(m, (0, 0), (1, 1), limit=top)) == 2
    assert len(mz.corner_paths(m, limit=top)) == 7


# --- command line --------------------------------------------------------------


def run_cli(argv, capsys):
    parser = argparse.ArgumentParser(prog="snl")
    add_maze_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["maze", *map(str, argv)])
    code = args.func(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def seed_file(tmp_path):
    path = tmp_path / "seed003.txt"
    path.write_text("# seed 003\n" + "\n".join(", ".join(map(str, r)) for r in SEED_003))
    return path


def test_cli_corner_paths(seed_file, capsys):
    assert run_cli([seed_file], capsys) == (0, SEED_003_OUTPUT, "")
    code, out, _ = run_cli([seed_file, "--limit", 2], capsys)
    assert out.splitlines() == SEED_003_OUTPUT.splitlines()[:2]


def test_cli_json_file_and_modes(tmp_path, seed_file, capsys):
    jpath = tmp_path / "m.json"
    jpath.write_text(json.dumps(SEED_003))
    code, out, _ = run_cli([jpath, "--json"], capsys)
    assert code == 0
    assert json.loads(out)["paths"][-1] == [[8, 8], [7, 8], [4, 8], [4, 4]]

    assert run_cli([seed_file, "--count"], capsys)[1] == "5\n"
    assert run_cli([seed_file, "--count", "--limit", 3], capsys)[1] == "more than 3\n"
    code, out, _ = run_cli([seed_file, "--count", "--json"], capsys)
    assert json.loads(out)["count"] == 5 and not json.loads(out)["exceeded"]

    code, out, _ = run_cli([seed_file, "--shortest"], capsys)
    assert (code, out) == (0, "(8, 8)->(7, 8)->(4, 8)->(4, 4)->MIDDLE\n")
    code, out, _ = run_cli([seed_file, "--start", 8, 8, "--goal", 7, 8], capsys)
    assert (code, out) == (0, "(8, 8)->(7, 8)\n")
    code, out, _ = run_cli([seed_file, "--shortest", "--start", 4, 4, "--goal", 0, 0], capsys)
    assert (code, out) == (1, "no path\n")  # (4, 4) holds 0


def test_cli_bad_input(tmp_path, seed_file, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2\n3 x\n")
    code, out, err = run_cli([bad], capsys)
    assert code == 2 and out == ""
    assert "line 2: 'x' is not an integer" in err
    bad.write_text("1 2\n3\n")
    assert "row 0 has 2 cells but row 1 has 1" in run_cli([bad], capsys)[2]
    code, _, err = run_cli([seed_file, "--start", 9, 0], capsys)
    assert code == 2 and "start (9, 0) is outside the 9x9 maze" in err
    code, _, err = run_cli([tmp_path / "missing.txt"], capsys)
    assert code == 2 and "missing.txt" in err
