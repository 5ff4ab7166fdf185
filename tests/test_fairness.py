"""Fair games: snl_numeric.fairness and snl_numeric.handicaps against brute force."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from naive import (
    export_matrix,
    fair_brute_force,
    fair_extra_throws_wins,
    meet_joint,
    naive_distribution,
    naive_min_throws,
    players_joint_solve,
)

from snl_numeric import (
    Board,
    Dice,
    FairStarts,
    boards,
    expected_game_length,
    fair_starts,
    first_player_advantage,
    length_distribution,
    options,
    win_probabilities,
)
from snl_numeric import fairness, handicaps
from snl_numeric.dice import as_dice
from snl_numeric.handicaps import lengths_from_every_square, race_wins

MB = boards.get("milton-bradley")


def _finishes(board):
    """Whether the goal can be reached from the board's start (and it is not the goal)."""
    return board.start < board.size and naive_min_throws(board) >= 0


# -- the first player's edge ---------------------------------------------------------------
def test_edge_is_half_the_squared_length_probabilities_on_milton_bradley():
    pmf = length_distribution(MB)
    edge = first_player_advantage(MB)
    assert edge == pytest.approx(0.5 * float(pmf @ pmf), abs=1e-12)
    assert 0.0079 < edge < 0.0080  # 0.5079 for the first player
    assert first_player_advantage(MB, 2) == pytest.approx(win_probabilities(MB)[0] - 0.5,
                                                          abs=0)


@settings(deadline=None, max_examples=40)
@given(board=board_strategy(max_size=25))
def test_first_minus_second_is_the_sum_of_squared_probabilities(board):
    """P(0 wins) - P(1 wins) = sum_n p_n^2 on every board (also where nobody may finish);
    where the game surely ends, P(0 wins) = (1 + sum_n p_n^2) / 2."""
    pmf = length_distribution(board)
    w = win_probabilities(board, 2)
    assert w[0] - w[1] == pytest.approx(float(pmf @ pmf), abs=1e-11)
    if expected_game_length(board, 2).no_winner == 0.0:
        assert first_player_advantage(board) == pytest.approx(0.5 * float(pmf @ pmf),
                                                              abs=1e-11)


@settings(deadline=None, max_examples=40)
@given(board=board_strategy(max_size=10), k=st.integers(2, 3),
       capture=st.sampled_from([None, "start", 1]))
def test_edge_on_random_boards_is_the_joint_chains(board, k, capture):
    """The first player's edge, with or without capture, is the chance to win of the joint
    chain built from the rules in words (naive.meet_joint) minus 1/k."""
    board = board.replace(capture=capture)
    try:
        edge = first_player_advantage(board, k)
    except ValueError as exc:
        assume("max_throws" not in str(exc))  # a game whose tail decays too slowly
        raise
    wins = meet_joint(board, k)[0]
    assert edge == pytest.approx(wins[0] - 1.0 / k, abs=1e-11)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_edge_passes_options_to_win_probabilities(k):
    starts = [0] + [10] * (k - 1)
    assert first_player_advantage(MB, k, starts=starts) == (
        win_probabilities(MB, k, starts=starts)[0] - 1.0 / k)
    dice = ["1-5"] + [None] * (k - 1)
    assert first_player_advantage(MB, k, dice=dice) == (
        win_probabilities(MB, k, dice=dice)[0] - 1.0 / k)


# -- the vectorised pieces -------------------------------------------------------------------
@settings(deadline=None, max_examples=40)
@given(board=board_strategy(max_size=25))
def test_lengths_from_every_square_match_the_step_by_step_push(board):
    pmf, surv = lengths_from_every_square(board)
    n = min(pmf.shape[1], 150)  # (the first 150 throws: the naive push is slow)
    for x in range(board.size + 1):
        slow = np.array(naive_distribution(board, x, throws=n - 1))
        np.testing.assert_allclose(pmf[x, :n], slow, rtol=0, atol=1e-13)
        # the survival: not finished within t throws, from the same step-by-step masses
        np.testing.assert_allclose(surv[x, :n], 1.0 - np.cumsum(slow), rtol=0, atol=1e-12)
        if x < board.size and naive_min_throws(board, x) >= 0:  # every tail is cut below 1e-12
            fast = length_distribution(board, x)
            assert len(fast) <= pmf.shape[1]
            assert pmf[x, len(fast):].sum() < 1e-12


def test_pair_blocks_give_the_same_answer(monkeypatch):
    whole = fair_starts(MB)
    monkeypatch.setattr(handicaps, "PAIR_BYTES", 1)  # one row of player 0 at a time
    assert fair_starts(MB) == whole


def test_lengths_from_every_square_sparse_path_matches():
    """Milton Bradley's 100 squares are pushed back densely by default (up to
    ``BACKWARD_PUSH_DENSE_MAX`` = 1,024); ``options(push="sparse")`` forces one sparse
    product per throw."""
    dense = lengths_from_every_square(MB)
    with options(push="dense"):
        assert all(np.array_equal(a, b) for a, b in zip(lengths_from_every_square(MB), dense,
                                                          strict=True))
    with options(push="sparse"):
        sparse = lengths_from_every_square(MB)
    assert sparse[0].shape == dense[0].shape
    assert not np.array_equal(sparse[0], dense[0])  # (the other form: rounding differs)
    for a, b in zip(dense, sparse, strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-14)


@settings(deadline=None, max_examples=25)
@given(board=board_strategy(max_size=8), data=st.data())
def test_race_wins_match_the_joint_chain(board, data):
    k = data.draw(st.integers(2, 3))
    starts = data.draw(st.lists(st.integers(0, board.size - 1) if board.size > 1 else
                                st.just(0), min_size=k, max_size=k))
    pmf, surv = lengths_from_every_square(board)
    got = race_wins(pmf[starts], surv[starts])
    np.testing.assert_allclose(got, players_joint_solve([board] * k, starts), atol=1e-11)


# -- the search against brute force ------------------------------------------------------------
def _brute_best(table):
    return min(table.values())


@pytest.mark.parametrize("move_first", [True, False])
@pytest.mark.parametrize("k", [2, 3])
def test_fair_starts_finds_the_brute_force_optimum(k, move_first):
    board = Board(9, {2: 7, 8: 1, 4: 3}, overshoot="exact", dice="1-3")
    table = fair_brute_force(board, k, move_first=move_first)
    f = fair_starts(board, k, move_first=move_first)
    assert f.deviation == pytest.approx(_brute_best(table), abs=1e-11)
    assert table[f.starts] == pytest.approx(f.deviation, abs=1e-11)
    assert f.evaluated == len(table)
    if not move_first:
        assert f.starts[0] == board.start


def test_fair_dice_finds_the_brute_force_optimum():
    board = Board(12, {3: 9, 11: 2}, dice="1-4")
    dice = ["1-4", "1-3", {1: 0.5, 3: 0.5}, "2-4"]
    for k in (2, 3):
        table = fair_brute_force(board, k, "dice", dice=dice)
        f = fair_starts(board, k, handicap="dice", dice=dice)
        assert f.deviation == pytest.approx(_brute_best(table), abs=1e-11)
        candidates = [as_dice(d) for d in dice]
        picked = tuple(candidates.index(d) for d in f.dice)
        assert table[picked] == pytest.approx(f.deviation, abs=1e-11)


def test_fair_dice_none_is_the_boards_own_die():
    """A ``None`` candidate is the board's dice, as a ``None`` entry of ``dice=`` is in
    ``win_probabilities`` (the naive twin passes it there): it was read as a fair d6."""
    board = Board(12, {3: 9, 11: 2}, dice="1-4")
    dice = [None, "1-3", {1: 0.5, 3: 0.5}]
    table = fair_brute_force(board, 2, "dice", dice=dice)
    f = fair_starts(board, 2, handicap="dice", dice=dice)
    assert f.deviation == pytest.approx(_brute_best(table), abs=1e-11)
    assert all(d in (board.dice, as_dice("1-3"), as_dice({1: 0.5, 3: 0.5})) for d in f.dice)


@pytest.mark.parametrize("board", [Board(6, {2: 5}, dice="1-3"),
                                   Board(7, {3: 1}, overshoot="exact", dice={1: 0.5, 2: 0.5})])
def test_fair_throws_match_face_by_face_enumeration(board):
    table = fair_brute_force(board, 2, "throws", max_extra=2)
    f = fair_starts(board, 2, handicap="throws", max_extra=2)
    assert f.deviation == pytest.approx(_brute_best(table), abs=1e-11)
    np.testing.assert_allclose(f.win_probabilities,
                               fair_extra_throws_wins(board, f.extra_throws), atol=1e-11)
    assert f.starts == (board.start, board.start)


def test_extra_throws_model_for_three_players():
    board = Board(8, {5: 2}, dice="1-3")
    f = fair_starts(board, 3, handicap="throws", max_extra=1)
    np.testing.assert_allclose(f.win_probabilities,
                               fair_extra_throws_wins(board, f.extra_throws), atol=1e-11)
    table = fair_brute_force(board, 3, "throws", max_extra=1)
    assert f.deviation == pytest.approx(_brute_best(table), abs=1e-11)


def test_exhaustive_and_coordinate_searches():
    """``search="exhaustive"`` finds the brute-force optimum (and is what ``"auto"`` does
    on a board this small); ``search="coordinate"`` stops where no pair of players improves,
    never better than the optimum and never worse than no handicap."""
    board = Board(10, {3: 8, 9: 2})
    exhaustive = fair_starts(board, 4, move_first=False, search="exhaustive")
    assert exhaustive == fair_starts(board, 4, move_first=False)
    table = fair_brute_force(board, 4, move_first=False)
    assert exhaustive.deviation == pytest.approx(_brute_best(table), abs=1e-11)
    assert exhaustive.evaluated == len(table)
    coord = fair_starts(board, 4, move_first=False, search="coordinate")
    n = round(len(table) ** (1 / 3))  # options of players 1 .. 3 (player 0 stays)
    assert coord.evaluated % (3 * n + 3 * n * n) == 0  # rounds over the 6 pairs of players
    assert coord.starts[0] == board.start
    # no better than the exhaustive optimum, and better than no handicap
    assert coord.deviation >= exhaustive.deviation - 1e-12
    assert coord.deviation <= np.abs(coord.unhandicapped - 0.25).max()
    np.testing.assert_array_equal(coord.win_probabilities,
                                  win_probabilities(board, 4, starts=list(coord.starts)))


def test_auto_search_turns_coordinate_past_its_limits(monkeypatch):
    """``"auto"`` loops exhaustively over at most ``LOOP_MAX`` = 2,000 combinations of the
    first ``k - 2`` players' options: 4 players on squares 0-46, each of them free, have
    47**2 = 2,209; and over at most ``WORK_MAX`` multiply-adds (lowered here)."""
    board = Board(47, {3: 30, 40: 12}, dice="1-4")
    auto = fair_starts(board, 4)
    assert auto == fair_starts(board, 4, search="coordinate")
    small = Board(10, {3: 8, 9: 2})
    assert fair_starts(small, 4).evaluated > fair_starts(small, 4, search="coordinate").evaluated
    monkeypatch.setattr(handicaps, "WORK_MAX", 0)
    assert fair_starts(small, 4) == fair_starts(small, 4, search="coordinate")


def test_two_players_are_one_exhaustive_pass_whatever_the_search(monkeypatch):
    """Two players' one pair of options is the whole search: ``"coordinate"``, or ``"auto"``
    past ``WORK_MAX``, evaluates every assignment once, as ``"exhaustive"`` does (a second
    coordinate round would evaluate them all again)."""
    board = Board(10, {3: 8, 9: 2})
    table = fair_brute_force(board, 2)
    exhaustive = fair_starts(board, search="exhaustive")
    assert exhaustive.evaluated == len(table)
    assert exhaustive.deviation == pytest.approx(_brute_best(table), abs=1e-11)
    assert fair_starts(board, search="coordinate") == exhaustive
    monkeypatch.setattr(handicaps, "WORK_MAX", 0)
    assert fair_starts(board) == exhaustive


def test_search_and_handicap_are_checked():
    with pytest.raises(ValueError, match="^search must be one of 'auto', 'exhaustive', "
                                         "'coordinate', got 'greedy'$"):
        fair_starts(MB, 3, search="greedy")
    with pytest.raises(TypeError, match="^search must be one of .*, got 2$"):
        fair_starts(MB, 3, search=2)
    with pytest.raises(ValueError, match="^handicap must be one of 'starts', 'throws', 'dice', "
                                         "got 'moves'$"):
        fair_starts(MB, handicap="moves")
    for bad in (1, None, ["dice"]):  # no string: a TypeError (was a ValueError)
        with pytest.raises(TypeError, match=f"^handicap must be one of .*, got {re.escape(str(bad))}$"):
            fair_starts(MB, handicap=bad)


def _bars(err):
    """The final line of each progress bar: the frames that reached 100%."""
    return [f.strip() for f in err.replace("\r", "\n").split("\n") if "100%" in f]


def test_progress_bars_count_the_assignments(capsys):
    """``progress="always"`` shows the assignments evaluated on stderr; True in a pipe and
    False show nothing; the answer is the same. Two players on Board(10): every square
    0-9 for each, 10 x 10 pairs in one bar. Four players, player 0 staying: a round of the
    coordinate search is 3 pairs of 1 x 10 and 3 of 10 x 10 options, one bar a round."""
    board = Board(10, {3: 8, 9: 2})
    quiet = fair_starts(board)
    assert capsys.readouterr().err == ""
    assert fair_starts(board, progress=True) == quiet
    assert fair_starts(board, progress=False) == quiet
    assert capsys.readouterr().err == ""
    assert fair_starts(board, progress="always") == quiet
    bars = _bars(capsys.readouterr().err)
    assert len(bars) == 1 and bars[0].startswith("fair_starts (exhaustive): 100%")
    assert "100/100" in bars[0] and quiet.evaluated == 100
    coord = fair_starts(board, 4, move_first=False, search="coordinate", progress="always")
    assert coord == fair_starts(board, 4, move_first=False, search="coordinate")
    bars = _bars(capsys.readouterr().err)
    rounds = coord.evaluated // 330
    assert rounds >= 1 and coord.evaluated == 330 * rounds and len(bars) == rounds
    for r, bar in enumerate(bars, 1):
        assert bar.startswith(f"fair_starts (coordinate, round {r}): 100%") and "330/330" in bar


def test_progress_bar_of_the_search_under_capture(capsys):
    """Under a capture rule with a cheap search, one bar over every assignment: squares 0-7
    for each of two players (square 7 reaches the goal with a 1)."""
    board = Board(8, {2: 6, 7: 1}, dice="1-3", capture="start")
    f = fair_starts(board, progress="always")
    assert f.searched_under_capture and f.evaluated == 64
    assert f == fair_starts(board)
    bars = _bars(capsys.readouterr().err)
    assert len(bars) == 1 and bars[0].startswith("fair_starts (under capture): 100%")
    done, total = re.search(r"([\d.]+)/([\d.]+)", bars[0]).groups()  # (tqdm may scale: 64.0)
    assert float(done) == float(total) == 64


def test_too_many_players_are_refused_before_the_search(monkeypatch):
    """A pair block holds every player's win chance for at least one row of player ``i``
    against all of player ``j``'s: 20,000 players x 100 squares x 8 bytes, 15 MiB, and
    player j's three tables over 690 throws: about 17 MiB."""
    monkeypatch.setenv("SNL_NUMERIC_MAX_MEMORY", "10M")
    with pytest.raises(MemoryError, match="20,000 players' win chances over 100 options "
                                          r"needs about 1\d\.\d MiB"):
        fair_starts(MB, 20_000)


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_progress_is_checked(bad):
    with pytest.raises(TypeError, match="progress must be True, False or 'always'"):
        fair_starts(MB, progress=bad)


@settings(deadline=None, max_examples=30)
@given(board=board_strategy(max_size=9), k=st.integers(2, 3))
def test_reported_chances_are_a_fresh_win_probabilities_call(board, k):
    assume(_finishes(board))
    f = fair_starts(board, k, move_first=k == 2)
    np.testing.assert_array_equal(f.win_probabilities,
                                  win_probabilities(board, k, starts=list(f.starts),
                                                    dice=list(f.dice)))
    np.testing.assert_array_equal(f.unhandicapped, win_probabilities(board, k))
    assert f.deviation == np.abs(f.win_probabilities - 1.0 / k).max()
    assert f.deviation <= np.abs(f.unhandicapped - 1.0 / k).max() + 1e-11
    table = fair_brute_force(board, k, move_first=k == 2)
    assert f.deviation == pytest.approx(_brute_best(table), abs=1e-10)


@settings(deadline=None, max_examples=20)
@given(board=board_strategy(min_size=2, max_size=7))
def test_throws_and_dice_handicaps_on_random_boards(board):
    f = fair_starts(board, handicap="throws", max_extra=1)
    np.testing.assert_allclose(f.win_probabilities,
                               fair_extra_throws_wins(board, f.extra_throws), atol=1e-11)
    table = fair_brute_force(board, 2, "throws", max_extra=1)
    assert f.deviation == pytest.approx(_brute_best(table), abs=1e-10)
    dice = [{1: 0.5, 2: 0.5}, "1-3", {1: 0.25, 3: 0.75}]
    g = fair_starts(board, handicap="dice", dice=dice)
    np.testing.assert_array_equal(g.win_probabilities,
                                  win_probabilities(board, 2, dice=list(g.dice)))
    table = fair_brute_force(board, 2, "dice", dice=dice)
    assert g.deviation == pytest.approx(_brute_best(table), abs=1e-10)


# -- Milton Bradley --------------------------------------------------------------------------
def _independent_pair_wins(board):
    """``w[a, b]``: the chance that a player starting on ``a`` and moving first beats one
    starting on ``b``, ``sum_n P(T_a = n) P(T_b >= n)``, with ``P(T_x > n)`` from every
    square ``x`` by ``n`` products with the rules' matrix (export_matrix) off the goal."""
    n = board.size
    q = export_matrix(board)[:n, :n]
    left = [np.ones(n)]  # left[k][x] = P(T_x > k)
    while left[-1].max() > 1e-16:
        left.append(q @ left[-1])
    left = np.array(left)
    return (left[:-1] - left[1:]).T @ left[:-1]


def test_milton_bradley_two_players():
    f = fair_starts(MB)
    assert isinstance(f, FairStarts)
    assert f.starts == (27, 39)
    assert f.deviation < 1e-5
    # independently: the fairest pair of the whole table of the pairs' chances
    dev = np.abs(_independent_pair_wins(MB) - 0.5)
    assert np.unravel_index(np.argmin(dev), dev.shape) == (27, 39)
    assert f.deviation == pytest.approx(dev[27, 39], abs=1e-12)
    assert int(np.argmin(dev[0])) == 10 and np.sort(dev.ravel())[1] > 5 * dev[27, 39]
    # independently: the joint chain of the pair of squares
    np.testing.assert_allclose(f.win_probabilities, players_joint_solve([MB, MB], [27, 39]),
                               atol=1e-10)
    kept = fair_starts(MB, move_first=False)
    assert kept.starts == (0, 10)
    assert kept.deviation == pytest.approx(dev[0, 10], abs=1e-12)
    assert 1e-4 < kept.deviation < 1.2e-4
    assert f.evaluated == 100 * 100 and kept.evaluated == 100


@pytest.mark.slow
def test_milton_bradley_three_players_within_a_thousandth():
    f = fair_starts(MB, 3)
    assert f.deviation < 1e-3
    assert np.all(np.abs(f.win_probabilities - 1 / 3) < 1e-3)
    np.testing.assert_array_equal(f.win_probabilities,
                                  win_probabilities(MB, 3, starts=list(f.starts)))


# -- capture ------------------------------------------------------------------------------
@pytest.mark.parametrize("handicap", ["starts", "dice", "throws"])
def test_capture_search_matches_brute_force(handicap):
    """A small board with capture to the start: the search under capture finds the
    assignment that every candidate's own win_probabilities call (the brute force) rates
    best, and reports the independent chances of that assignment beside it."""
    plain_board = Board(8, {2: 6, 7: 1}, dice="1-3")
    board = plain_board.replace(capture="start")
    kw = {"dice": ["1-3", "1-2", "2-3"]} if handicap == "dice" else {}
    plain = fair_starts(plain_board, handicap=handicap, **kw)
    assert plain.capture_win_probabilities is None and not plain.searched_under_capture
    f = fair_starts(board, handicap=handicap, **kw)
    if handicap == "throws":  # (no search under capture: the independent answer)
        assert f.capture_win_probabilities is None and not f.searched_under_capture
        assert f.deviation == plain.deviation and f.starts == plain.starts
        return
    assert f.searched_under_capture
    cw = win_probabilities(board, 2, starts=list(f.starts), dice=list(f.dice))
    np.testing.assert_array_equal(f.capture_win_probabilities, cw)
    assert f.capture_deviation == float(np.abs(cw - 0.5).max())
    np.testing.assert_array_equal(
        f.win_probabilities, win_probabilities(plain_board, 2, starts=list(f.starts),
                                               dice=list(f.dice)))
    choices = [as_dice(d) for d in kw["dice"]] if kw else None
    brute = fair_brute_force(board, 2, handicap, dice=choices)
    assert f.capture_deviation == pytest.approx(min(brute.values()), abs=1e-12)


def test_capture_search_limit(monkeypatch):
    """Past CAPTURE_SEARCH_WORK the search is the independent one; the chances under capture
    of what it found are still reported."""
    board = Board(8, {2: 6, 7: 1}, dice="1-3", capture="start")
    monkeypatch.setattr(fairness, "CAPTURE_SEARCH_WORK", 0)
    g = fair_starts(board)
    assert not g.searched_under_capture
    assert g == dataclasses.replace(fair_starts(board.replace(capture=None)),
                                    capture_win_probabilities=g.capture_win_probabilities,
                                    capture_deviation=g.capture_deviation)
    np.testing.assert_array_equal(g.capture_win_probabilities,
                                  win_probabilities(board, 2, starts=list(g.starts)))


def test_fairness_under_capture_is_the_exact_answer():
    """first_player_advantage and fair_starts' chances under capture equal fresh exact
    win_probabilities calls, on a small board with capture to the start; those are the
    joint chain's of the rules in words (meet_joint)."""
    board = Board(12, {3: 9, 10: 2, 6: 11}, dice="1-4", capture="start", safe=[5])
    for k in (2, 3):
        w = win_probabilities(board, k)
        np.testing.assert_allclose(w, meet_joint(board, k)[0], rtol=0, atol=1e-12)
        assert first_player_advantage(board, k) == w[0] - 1.0 / k
    assert first_player_advantage(board, 2) != first_player_advantage(
        board.replace(capture=None), 2)
    f = fair_starts(board, 2)
    np.testing.assert_array_equal(f.capture_win_probabilities,
                                  win_probabilities(board, 2, starts=list(f.starts)))


def test_independent_board_reads_no_rule():
    assert fairness._independent(MB) is MB
    bumped = MB.replace(capture=3, safe=[50])
    assert fairness._independent(bumped) == MB


# -- results and errors -----------------------------------------------------------------------
def test_result_is_frozen_and_summarised():
    f = fair_starts(Board(10), handicap="dice", dice=["1-4", "1-5", "1-6"])
    with pytest.raises(AttributeError):
        f.players = 3
    d = f.to_dict()
    assert d["players"] == 2 and d["handicap"] == "dice"
    assert d["dice"] == [{1: 0.2, 2: 0.2, 3: 0.2, 4: 0.2, 5: 0.2}, Dice.fair(6).to_dict()]
    assert d["win_probabilities"] == f.win_probabilities.tolist()
    assert f == fair_starts(Board(10), handicap="dice", dice=["1-4", "1-5", "1-6"])


@pytest.mark.parametrize("call, exc, match", [
    (lambda: first_player_advantage(MB, 1), ValueError, "k must be at least 2"),
    (lambda: first_player_advantage(MB, 2.0), TypeError, "k must be an integer"),
    (lambda: first_player_advantage(MB, players=3), TypeError, "not players="),
    (lambda: fair_starts(MB, 1), ValueError, "k must be at least 2"),
    (lambda: fair_starts(MB, True), TypeError, "k must be an integer"),
    (lambda: fair_starts("milton-bradley"), TypeError, "boards.get"),
    (lambda: fair_starts(MB, handicap="coins"), ValueError, "handicap must be"),
    (lambda: fair_starts(MB, handicap="dice"), TypeError, "candidate dice"),
    (lambda: fair_starts(MB, handicap="dice", dice=[]), ValueError, "dice is an empty list"),
    (lambda: fair_starts(MB, handicap="dice", dice=["1-6", {1: 0.7}]), ValueError, r"dice\[1\]"),
    (lambda: fair_starts(MB, dice=["1-6"]), ValueError, "handicap='dice'"),
    (lambda: fair_starts(MB, handicap="throws", squares=[3]), ValueError, "squares= is for"),
    (lambda: fair_starts(MB, squares=[100]), ValueError, "would win at once"),
    (lambda: fair_starts(MB, squares=[]), ValueError, "squares is empty"),
    (lambda: fair_starts(MB, squares=5), TypeError, "squares must be a list"),
    (lambda: fair_starts(Board(5, {3: 1}, start=2, overshoot="exact", dice={3: 1.0}),
                         squares=[1]),
     ValueError, "cannot be reached from square 1"),
    (lambda: fair_starts(Board(5, {3: 1}, overshoot="exact", dice={3: 1.0})), ValueError,
     "cannot be reached from the board's start"),
    (lambda: fair_starts(MB, handicap="throws", max_extra=0), ValueError, "max_extra"),
    (lambda: fair_starts(MB, move_first="yes"), TypeError, "move_first"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_given_squares_restrict_the_search():
    f = fair_starts(MB, squares=[5, 10, 20], move_first=False)
    assert f.starts[0] == 0 and f.starts[1] in (0, 5, 10, 20)
    assert f.evaluated == 4
    table = {b: abs(win_probabilities(MB, starts=[0, b])[0] - 0.5) for b in (0, 5, 10, 20)}
    assert f.starts[1] == min(table, key=table.get)


def test_cli_analyze_prints_the_edge(capsys):
    import json

    from snl_numeric.cli import main

    assert main(["analyze", "milton-bradley", "--players", "3"]) == 0
    text = capsys.readouterr().out
    edge = first_player_advantage(MB, 3)
    assert f"player 1's edge   {edge:.6f}   (its win chance - 1/3)" in text
    assert main(["analyze", "milton-bradley", "--players", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["players"]["first_player_advantage"] == first_player_advantage(MB)
    assert main(["analyze", "milton-bradley", "--players", "1", "--json"]) == 0
    assert "first_player_advantage" not in json.loads(capsys.readouterr().out)["players"]


def test_numpy_string_choices_are_kept_as_plain_strings():
    f = fair_starts(Board(10, {3: 8, 9: 2}), handicap=np.str_("starts"),
                    search=np.str_("exhaustive"))
    assert type(f.handicap) is str and "handicap='starts'" in repr(f)
