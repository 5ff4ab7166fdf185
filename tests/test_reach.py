"""``reach_kernel`` (issues 25, 49): fewest throws and the sure mask by breadth-first
search over the reversed moves, the moves that are their face's usual step reversed in
place and only the others tabulated; from one start, the same answers (a forward search
when every square has a move up). The kernel, from every square and from many starts,
and its NumPy twin ``vectorised.reach``, against their naive twins on every rule
variant, on boards whose moves are mostly irregular (the reversed table's second pass),
on bare successor tables whose steps mislead the guess, and on boards whose shortest
plays take snake after snake."""

from __future__ import annotations

import itertools

import naive
import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from snl_numeric import (
    Board,
    Dice,
    length_distribution,
    min_throws,
    shortest_path,
    throw_distances,
)
from snl_numeric._core.table import moves_up_kernel, reach_kernel
from snl_numeric._core.vectorised import reach as numpy_reach
from snl_numeric._core.vectorised import (fired_table, play_from, search_from, squares_in,
                                         stable_order)
from snl_numeric.boards import random_board

RULES = ("win", "exact", "bounce")
#: a d6, two faces that strand tokens under "exact", 2d6 (11 faces: two bytes of move
#: bits) and a d20 (three bytes)
DICE = (None, {2: 0.5, 4: 0.5}, Dice.sum_of(2), Dice.fair(20))


def kernels_reach(succ: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(dist, sure)`` from :func:`reach_kernel` over every square (on an int32 table, as
    the library passes it), and the kernel from up to 40 starts, which must give their
    entries of ``dist`` and the same sure mask."""
    succ = np.ascontiguousarray(succ, dtype=np.int32)
    n = succ.shape[0]
    dist, sure = np.full(n, 7, dtype=np.int64), np.zeros(n, dtype=np.bool_)  # overwritten
    assert reach_kernel(succ, -1, dist, sure) == 0
    for start in np.unique(np.linspace(0, n - 1, min(n, 40)).astype(np.int64)):
        d, s = np.full(n, 7, dtype=np.int64), np.zeros(n, dtype=np.bool_)
        assert reach_kernel(succ, start, d, s) == dist[start]
        np.testing.assert_array_equal(s, sure)
    return dist, sure


def naive_board_reach(board: Board) -> tuple[np.ndarray, np.ndarray]:
    """``(dist, sure)`` from the rules: one forward BFS per square, reachable sets."""
    dist = np.array([naive.naive_min_throws(board, x) for x in range(board.size + 1)])
    sure = np.zeros(board.size + 1, dtype=np.bool_)
    sure[sorted(naive.naive_sure(board))] = True
    return dist, sure


def large_reach(board: Board) -> tuple[np.ndarray, np.ndarray]:
    """``(dist, sure)`` of a board too large for :func:`naive_board_reach`: a BFS over the
    transition matrix, then the squares with a path into a stuck one."""
    dist = naive.large_distances(board)
    stuck = np.flatnonzero(dist < 0).tolist()
    sure = np.ones(board.size + 1, dtype=np.bool_)
    if stuck:
        sure[sorted(naive.large_reach(naive.large_transitions(board), stuck))] = False
    return dist, sure


def assert_same(got, ref) -> None:
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])


def irregular_moves(board: Board) -> int:
    """Moves (of the squares but the goal) that are not their face's usual step."""
    cb = board.compiled
    usual = np.arange(cb.size)[:, None] + cb.faces[None, :]
    return int(np.count_nonzero(cb.succ[:-1] != usual))


# -- hand-derived --------------------------------------------------------------------
def test_a_square_one_throw_from_the_goal_is_not_sure_when_it_may_stick():
    # 0 -> 1 or the goal; 1 stays on 1 for ever; 2 -> the goal
    dist, sure = kernels_reach(np.array([[1, 3], [1, 1], [3, 3], [3, 3]]))
    assert dist.tolist() == [1, -1, 1, 0]
    assert sure.tolist() == [False, False, True, True]


def test_stranding_faces_under_exact():
    # faces 2 and 4 never move a token by an odd number: from the odd squares the goal
    # (12) cannot be reached; the even squares are 1, 2 or 3 throws away, and sure
    board = Board(12, dice={2: 0.5, 4: 0.5}, overshoot="exact")
    dist, sure = kernels_reach(board.compiled.succ)
    assert dist.tolist() == [3, -1, 3, -1, 2, -1, 2, -1, 1, -1, 1, -1, 0]
    assert sure.tolist() == [x % 2 == 0 for x in range(13)]


def zigzag(rungs: int) -> Board:
    """A one-face board whose only play climbs each ladder, then takes the snake at its
    top back down to the next ladder: with ``top = 2 rungs``, ladders
    ``2i + 1 -> top + 10 (i + 1)`` and snakes ``top + 10 (i + 1) + 1 -> 2i + 2``; the last
    ladder, from ``2 rungs - 1``, reaches the goal ``12 rungs``."""
    top = 2 * rungs
    jumps = {2 * i + 1: top + 10 * (i + 1) for i in range(rungs - 1)}
    jumps |= {top + 10 * (i + 1) + 1: 2 * i + 2 for i in range(rungs - 1)}
    jumps[2 * rungs - 1] = 12 * rungs
    return Board(12 * rungs, jumps, dice={1: 1.0})


@pytest.mark.parametrize("rungs", [3, 40, 2_600])
def test_a_play_that_takes_every_snake(rungs):
    # each snake on the play costs a min-plus sweep in decreasing order; the search needs none
    board = zigzag(rungs)
    assert min_throws(board) == 2 * rungs - 1  # one throw per ladder and per snake
    top = 2 * rungs
    assert [landing for _, _, landing in shortest_path(board)[:4]] == [top + 10, 2, top + 20, 4]
    assert board.compiled.ordinary == (rungs < 2_600)  # 2600 rungs: the Numba kernel
    assert_same(kernels_reach(board.compiled.succ), large_reach(board))
    assert_same(board.compiled.reach, large_reach(board))


# -- every rule variant, against the rules ----------------------------------------------
@pytest.mark.parametrize(("overshoot", "chain", "dice"),
                         list(itertools.product(RULES, (False, True), DICE)))
def test_rules_against_naive(overshoot, chain, dice):
    stuck = 0
    for seed in range(3):
        board = random_board(60, 0.35, snake_fraction=0.7, rng=seed, overshoot=overshoot,
                             chain=chain, dice=dice)
        ours = kernels_reach(board.compiled.succ)
        assert_same(ours, naive_board_reach(board))
        assert_same(ours, numpy_reach(board.compiled.succ))
        stuck += int(np.count_nonzero(ours[0] < 0))
    if overshoot == "exact" and dice == {2: 0.5, 4: 0.5}:
        assert stuck > 0  # the sure search ran


@pytest.mark.parametrize(("overshoot", "chain"), list(itertools.product(RULES, (False, True))))
def test_large_boards_through_the_public_api(overshoot, chain):
    # above ORDINARY_ENTRIES: throw_distances and CompiledBoard.reach run the kernel
    board = random_board(12_000, 0.1, rng=3, overshoot=overshoot, chain=chain,
                         dice={1: 0.3, 2: 0.3, 4: 0.4})
    assert not board.compiled.ordinary
    ref = large_reach(board)
    np.testing.assert_array_equal(throw_distances(board), ref[0])
    assert_same(board.compiled.reach, ref)
    assert_same(kernels_reach(board.compiled.succ), ref)  # and from 40 starts
    assert_same(numpy_reach(board.compiled.succ), ref)


def test_stuck_squares_on_a_large_board():
    # faces 2 and 4 keep a token's parity; the jump 9001 -> 50 turns odd to even, but
    # the odd squares above it never get there. 7000 -> 7001 sends an even token to the
    # odd squares: below 7000 the goal is in reach, yet not sure; above 7000 it is sure
    board = Board(16_000, {3: 10, 7000: 7001, 9001: 50}, dice={2: 0.5, 4: 0.5},
                  overshoot="exact")
    assert not board.compiled.ordinary
    dist, sure = board.compiled.reach
    assert dist[9003] == -1 and dist[7001] >= 0 and not sure[7001]
    assert dist[6998] == 2251 and not sure[6998] and sure[7002] and dist[15_998] == 1
    # stuck: the odd squares from 9001 up (9001's own moves, too, though no token rests there)
    assert np.count_nonzero(dist < 0) == len(range(9001, 16_000, 2))
    assert_same((dist, sure), large_reach(board))


@pytest.mark.parametrize("chain", [False, True])
def test_mostly_irregular_moves(chain):
    # half the squares start a jump: more irregular moves than the first pass has room
    # for (the larger of the squares and 4,096), recorded in a second pass over the table
    board = random_board(3_000, 0.5, rng=7, chain=chain, overshoot="bounce")
    assert irregular_moves(board) > max(board.size + 1, 4096)
    assert_same(kernels_reach(board.compiled.succ), large_reach(board))


# -- bare successor tables: the step is only a guess ------------------------------------
def test_steps_that_mislead_the_guess():
    rng = np.random.default_rng(11)
    n, k = 500, 5
    x = np.arange(n)[:, None]
    steps = np.array([3, -2, 0, 7, 1])
    succ = np.clip(x + steps, 0, n - 1)
    sampled = [i * (n - 2) // 6 for i in range(7)]  # the rows the kernel reads its guess off
    succ[sampled] = rng.integers(0, n, size=(7, k))  # ...all of them irregular
    noise = rng.random((n, k)) < 0.2  # and a fifth of the other moves
    succ[noise] = rng.integers(0, n, size=int(noise.sum()))
    assert_same(kernels_reach(succ), naive.table_reach(succ))
    assert_same(kernels_reach(succ), numpy_reach(succ))


def test_one_square_and_one_face():
    assert_same(kernels_reach(np.array([[0]])), (np.array([0]), np.array([True])))
    assert_same(kernels_reach(np.array([[1], [1]])), (np.array([1, 0]), np.array([True, True])))
    assert_same(kernels_reach(np.array([[0], [1]])),
                (np.array([-1, 0]), np.array([False, True])))


@st.composite
def tables(draw):
    """Successor tables whose rows mostly follow a step per face (of any sign), the rest
    anywhere on the board."""
    n = draw(st.integers(1, 40))
    k = draw(st.integers(1, 18))
    steps = draw(st.lists(st.integers(-3, 6), min_size=k, max_size=k))
    rows = []
    for x in range(n):
        row = [draw(st.integers(0, n - 1)) if draw(st.integers(0, 3)) == 0
               else min(max(x + s, 0), n - 1) for s in steps]
        rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(n, k)


@settings(max_examples=300, deadline=None)
@given(tables())
def test_property_tables_match_naive(succ):
    assert_same(kernels_reach(succ), naive.table_reach(succ))


@settings(max_examples=300, deadline=None)
@given(tables())
def test_property_numpy_twins_on_tables_match_naive(succ):
    # the NumPy search from the goal (its stuck squares merged for the sure mask), and the
    # one forward from each start
    ref = naive.table_reach(succ)
    assert_same(numpy_reach(succ), ref)
    dist = ref[0].tolist()
    for x in range(len(succ)):  # the play: at each throw the first face one throw closer
        want = None if dist[x] < 0 else [x]
        while want and dist[want[-1]] > 0:
            row = succ[want[-1]].tolist()
            want.append(next(y for y in row if dist[y] == dist[want[-1]] - 1))
        got = play_from(succ, x)
        assert (got if got is None else got.tolist()) == want  # (its length: the fewest throws)


def test_a_start_on_a_board_whose_squares_all_move_up():
    # Milton Bradley: every square has a face that moves it up, so every square is sure
    # and the kernel searches forward from the start (7 throws: 1 -> 38 ... 80 -> 100)
    from snl_numeric import boards

    succ = np.ascontiguousarray(boards.get("milton-bradley").compiled.succ, dtype=np.int32)
    assert moves_up_kernel(succ)
    dist, sure = np.full(101, 7, dtype=np.int64), np.zeros(101, dtype=np.bool_)
    assert reach_kernel(succ, 0, dist, sure) == 7 and sure.all()
    assert reach_kernel(succ, 100, dist, sure) == 0


@settings(max_examples=150, deadline=None)
@given(board_strategy())
def test_property_boards_match_naive(board):
    succ = board.compiled.succ
    ours = kernels_reach(succ)
    assert_same(ours, naive_board_reach(board))
    up = all(any(y > x for y in row) for x, row in enumerate(succ[:-1].tolist()))
    assert moves_up_kernel(np.ascontiguousarray(succ, dtype=np.int32)) == up
    if up:  # the start's search forward: every square reaches the goal by moving up
        assert ours[1].all()
    assert np.all(ours[1][ours[0] < 0] == False)  # noqa: E712 - a stuck square is not sure


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(board_strategy())
def test_property_kernel_paths_match_naive(structured, board):
    # every board through the Numba paths (the structured fixture): the search from every
    # square (CompiledBoard.reach), from the start (min_throws), and the mass push one
    # kernel call per throw, against the rules' naive twins
    cb = board.compiled
    assert not cb.ordinary
    ref = naive_board_reach(board)
    assert_same(cb.reach, ref)
    assert min_throws(board) == ref[0][board.start]
    if ref[1][board.start]:
        pmf = length_distribution(board)
        want = naive.naive_distribution(board, throws=len(pmf) - 1)
        np.testing.assert_allclose(pmf, want, rtol=1e-12, atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([1, 2, 300, 2**15 - 1, 2**15, 2**15 + 1, 2**20]), st.data())
def test_stable_order_is_numpys_stable_argsort(bound, data):
    """The fewest-throws search sorts the reversed moves by radix on 16-bit keys where they
    fit: the same order as NumPy's stable sort of the keys as given, on either side of the
    16-bit limit."""
    n = data.draw(st.integers(0, 400))
    seed = data.draw(st.integers(0, 2**32 - 1))
    keys = np.random.default_rng(seed).integers(0, bound, n)
    assert np.array_equal(stable_order(keys, bound), np.argsort(keys, kind="stable"))
    keys32 = keys.astype(np.int32)
    assert np.array_equal(stable_order(keys32, bound), np.argsort(keys32, kind="stable"))


@settings(max_examples=150, deadline=None)
@given(board_strategy())
def test_property_one_search_from_the_start_matches_naive(board):
    # search_from: the squares reached (naive_reachable) and predecessors whose play is
    # play_from's; CompiledBoard.live (from the sure mask, without the search from the
    # goal, when every square has a move up) is reach[0] > 0; min_throws,
    # shortest_path and the live squares the same before and after reach is built
    cb = board.compiled
    order, pred = search_from(cb.succ, board.start)
    want = np.zeros(board.size + 1, dtype=np.bool_)
    want[sorted(naive.naive_reachable(board, board.start))] = True
    assert order[0] == board.start and len(set(order.tolist())) == len(order)
    np.testing.assert_array_equal(squares_in(order, board.size + 1), want)
    play = play_from(cb.succ, board.start)
    got = play_from(cb.succ, board.start, pred)
    assert (got is None and play is None) or got.tolist() == play.tolist()
    before = (min_throws(board), shortest_path(board), cb.live.copy())
    np.testing.assert_array_equal(cb.reachable_from(board.start), want)
    dist, sure = naive_board_reach(board)
    np.testing.assert_array_equal(before[2], dist > 0)
    up = all(any(y > x for y, p in zip(row, board.dice.probs) if p > 0)
             for x, row in enumerate(cb.succ[:-1].tolist()))
    assert not up or "reach" not in cb.cache  # (every square moves up: sure, unsearched)
    assert before[0] == dist[board.start]
    cb.reach  # noqa: B018 - built now: the greedy play over the distances
    assert (min_throws(board), shortest_path(board)) == before[:2]


@settings(max_examples=150, deadline=None)
@given(board_strategy())
def test_property_fired_table_matches_naive(board):
    # the first jump each throw lands on (CompiledBoard.fired), from the landing squares
    # alone, against the rules
    fired = fired_table(board.size, board.compiled.jump_index, board.overshoot,
                        board.dice.faces)
    index = {s: j for j, s in enumerate(board.compiled.jump_src.tolist())}
    want = [[index.get(naive.naive_first_jump(board, x, int(f)), -1)
             for f in board.dice.faces] for x in range(board.size + 1)]
    assert fired.tolist() == want
    np.testing.assert_array_equal(board.compiled.fired, fired)
