"""``snl_numeric.shortest``: the fewest throws, a shortest play and the distances from
every square, against the seed's and the naive breadth-first searches (the search kernels
themselves: ``test_reach.py``)."""

import math

import naive
import numpy as np
from conftest import boards as board_strategy
from hypothesis import given, settings

from snl_numeric import (
    Board,
    boards,
    expected_throws,
    length_distribution,
    min_throws,
    shortest_path,
    throw_distances,
)


def test_seed_30_needs_three_throws():
    b = boards.get("seed-30")
    assert min_throws(b) == 3
    path = shortest_path(b)
    assert len(path) == 3 and path[-1][2] == b.size
    for square, face, landing in path:
        assert naive.naive_move(b, square, face) == landing


def test_seed_bfs_agrees_on_random_move_arrays():
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(200):
        cell = int(rng.integers(8, 60))
        move = [-1] * cell
        for j in rng.choice(np.arange(1, cell - 1), size=cell // 5, replace=False):
            move[int(j)] = int(rng.integers(0, cell - 1))
            if move[int(j)] == j:
                move[int(j)] = -1
        b = Board.from_moves(move)
        if min_throws(b) < 0:
            continue  # the seed returns garbage there; ours says -1 (tested below)
        assert min_throws(b) == naive.seed_min_dice_throw(move)
        checked += 1
    assert checked > 100


def test_bounce_reflects():
    b = Board(10, overshoot="bounce", dice={4: 1.0})
    # 0 -> 4 -> 8 -> (12 bounces to) 8 -> ... never finishes
    assert min_throws(b) == -1
    assert expected_throws(b) == math.inf
    b2 = Board(10, overshoot="bounce", dice={3: 0.5, 4: 0.5})
    assert naive.naive_move(b2, 9, 3) == 8
    assert throw_distances(b2).tolist() == [naive.naive_min_throws(b2, x) for x in range(11)]


def test_start_on_goal():
    b = Board(10, start=10)
    assert min_throws(b) == 0 and shortest_path(b) == [] and expected_throws(b) == 0.0
    assert length_distribution(b).tolist() == [1.0]


@settings(max_examples=100)
@given(board_strategy())
def test_shortest_path_is_a_real_play(board):
    path = shortest_path(board)
    m = naive.naive_min_throws(board)
    assert min_throws(board) == m
    if m < 0:
        assert path is None
        return
    assert len(path) == m
    x = board.start
    for square, face, landing in path:
        assert square == x and face in board.dice.faces
        assert naive.naive_move(board, square, face) == landing
        x = landing
    assert x == board.size


@settings(max_examples=100)
@given(board_strategy())
def test_min_throws_from_every_start_before_and_after_the_distances(board):
    # on a fresh board min_throws and shortest_path search forward from the start and keep
    # nothing; once the distances of every square are built they read them: the same
    # answers, the naive ones
    want = [naive.naive_min_throws(board, x) for x in range(board.size + 1)]
    for x in range(board.size + 1):
        fresh = board.replace()
        assert min_throws(fresh, x) == want[x]
        assert "reach" not in fresh.compiled.cache
    plays = [shortest_path(board.replace(), x) for x in range(board.size + 1)]
    assert throw_distances(board).tolist() == want
    assert [min_throws(board, x) for x in range(board.size + 1)] == want
    assert [shortest_path(board, x) for x in range(board.size + 1)] == plays


@settings(max_examples=100)
@given(board_strategy())
def test_shortest_path_takes_the_smallest_face_that_keeps_it_shortest(board):
    path = shortest_path(board)
    if path is None:
        assert naive.naive_min_throws(board) == -1
        return
    for i, (square, face, landing) in enumerate(path):
        left = len(path) - i - 1
        assert naive.naive_min_throws(board, landing) == left
        for smaller in board.dice.faces[board.dice.faces < face].tolist():
            assert naive.naive_min_throws(board, naive.naive_move(board, square, smaller)) != left
