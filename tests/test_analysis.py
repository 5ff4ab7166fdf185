"""Analysis fields not covered elsewhere: the chance of ever visiting each square."""

from __future__ import annotations

import math

import naive
import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import given, settings

from snl_numeric import (
    Board,
    analyze,
    analyze_many,
    boards,
    expected_throws,
    expected_throws_all,
    finish_probability,
    min_throws,
)


@settings(max_examples=60, deadline=None)
@given(board_strategy(max_size=20))
def test_visit_probability_matches_hitting_probabilities(board):
    a = analyze(board, visit_probability=True)
    if board.start not in naive.naive_sure(board):  # the twin says: may never finish
        assert a.mean == math.inf and a.visit_probability is None
        return
    ref = naive.naive_visit_probability(board)
    assert np.allclose(a.visit_probability, ref, rtol=1e-10, atol=1e-12)


def test_visit_probability_milton_bradley(monkeypatch):
    mb = boards.get("milton-bradley")
    assert analyze(mb).visit_probability is None  # not asked for
    a = analyze(mb, visit_probability=None)  # its squares on cycles: within the automatic limit
    h = a.visit_probability
    assert h[0] == 1.0 and h[100] == 1.0
    # never resting on a jump's square; a chute's use is the chance of resting after it fires
    assert (h[list(mb.jumps)] == 0.0).all()
    assert np.allclose(h, naive.naive_visit_probability(mb), rtol=1e-10, atol=1e-12)
    assert a.to_dict()["visit_probability"] == h.tolist()
    from snl_numeric import analysis

    monkeypatch.setattr(analysis, "AUTO_JUMP_SOLVES", 10)  # fewer than the squares on cycles
    assert analyze(mb, visit_probability=None).visit_probability is None
    assert analyze(mb, visit_probability=True).visit_probability.tolist() == h.tolist()


def test_visit_probability_option_is_checked():
    with pytest.raises(TypeError, match="visit_probability must be None, True or False"):
        analyze(Board(5), visit_probability="yes")


@settings(max_examples=60)
@given(board_strategy(max_size=25))
def test_analyze_against_naive(board):
    a = analyze(board)
    assert a.min_throws == min_throws(board)
    assert a.mean == expected_throws(board)
    assert a.cdf[-1] == pytest.approx(a.finish_probability, abs=1e-9)
    if board.start not in naive.naive_sure(board):  # the twin says: may never finish
        assert a.mean == math.inf and a.expected_visits is None
        return
    assert a.expected_visits.sum() == pytest.approx(a.mean, rel=1e-9)
    np.testing.assert_allclose(a.expected_visits, naive.naive_visits(board), rtol=1e-9, atol=1e-12)
    uses, prob = naive.naive_jump_use(board)
    for key in board.jumps.items():
        assert a.jump_uses[key] == pytest.approx(uses[key], rel=1e-8, abs=1e-12)
        assert a.jump_probability[key] == pytest.approx(prob[key], rel=1e-8, abs=1e-12)
        assert 0.0 <= a.jump_probability[key] <= 1.0 + 1e-12
    assert a.std == pytest.approx(math.sqrt(a.variance))
    qs = [v for v in a.percentiles.values()]
    assert qs == sorted(qs)
    assert a.cdf[a.median] >= 0.5 - 1e-9 and (a.median == 0 or a.cdf[a.median - 1] < 0.5)
    assert a.pmf[a.mode] == a.pmf.max()


def test_analyze_milton_bradley_reads_well():
    a = analyze(boards.get("milton-bradley"))
    text = str(a)
    for part in ("fewest throws", "expected throws", "median", "p90", "ladder", "snake"):
        assert part in text
    assert "pmf" not in repr(a)
    d = a.to_dict()
    assert d["min_throws"] == 7 and d["mean"] == a.mean and len(d["pmf"]) == len(a.pmf)
    for bad in (0, 100):  # the tail is cut at the tolerance: the 100th percentile is undefined
        with pytest.raises(ValueError, match="percentiles"):
            analyze(boards.get("milton-bradley"), percentiles=(bad,))


def test_jump_probability_option():
    mb = boards.get("milton-bradley")
    full = analyze(mb)
    skipped = analyze(mb, jump_probability=False)
    assert skipped.jump_probability is None and skipped.jump_uses.keys() == full.jump_uses.keys()
    # the same uses to rounding: without probabilities the visits are solved alone, with
    # them in one multi-column solve with the jumps' rows (LAPACK blocks it differently)
    for key, uses in full.jump_uses.items():
        assert skipped.jump_uses[key] == pytest.approx(uses, rel=1e-14)
    assert "      -" in str(skipped)
    big = boards.random_board(3000, 0.2, rng=5)  # ~300 distinct landing squares: over the auto limit
    auto = analyze(big)
    assert auto.jump_probability is None and len(auto.jump_uses) == len(big.jumps)
    assert analyze(big, jump_probability=True).jump_probability is not None
    with pytest.raises(TypeError, match="jump_probability"):
        analyze(mb, jump_probability=1)


@settings(max_examples=40)
@given(board_strategy(rules=True))
def test_the_tiniest_percentile_is_the_fewest_throws(board):
    """A level of 1e-10 % is first met by the fewest throws (the quantile rule's slack is
    relative: a cdf of 0 never meets a positive level), in analyze and analyze_many."""
    fewest = min_throws(board)
    rep = analyze(board, percentiles=(1e-10, 1e-14))
    if finish_probability(board) == 0.0:
        assert rep.percentiles == {1e-10: None, 1e-14: None}
        return
    assert rep.percentiles == {1e-10: fewest, 1e-14: fewest}
    row = analyze_many([board], columns=["p0.0000000001", "min_throws"]).iloc[0]
    assert row["p0.0000000001"] == row["min_throws"] == fewest


@pytest.mark.parametrize("tail", [0.8, 0.01, 1e-12])
def test_quantiles_and_mode_past_the_tail_cut_are_still_found(tail):
    """The pmf is cut where the mass left is below ``tail``, but a level (or the mode)
    past the cut is still reached: it is found by pushing on, never given as missing."""
    # a throw finishes with probability 0.3, else stays: P(T <= k) = 1 - 0.7**k
    geometric = Board(2, overshoot="exact", dice={2: 0.3, 3: 0.7})
    # the 2 climbs square by square, the 10 jumps home: pmf .2, .16, .128, .1024, .4096
    late_mode = Board(10, dice={10: 0.2, 2: 0.8})
    expected = [(2, 20, 1), (4, 5, 5)]  # median, p99.9, mode (derived by hand)
    for board, (median, p999, mode) in zip([geometric, late_mode], expected, strict=True):
        rep = analyze(board, tail=tail, percentiles=(99.9,))
        assert (rep.median, rep.percentiles[99.9], rep.mode, rep.note) == (median, p999,
                                                                         mode, "")
    df = analyze_many([geometric, late_mode], columns=["median", "p99.9", "mode"], tail=tail)
    assert df.astype(int).values.tolist() == [list(e) for e in expected]


def test_quantiles_past_max_throws_are_missing_with_a_note():
    """Pushing past the tail cut stops at ``max_throws``: what it leaves undecided is
    None, and the note says so."""
    rep = analyze(Board(2, overshoot="exact", dice={2: 0.3, 3: 0.7}), tail=0.01,
                  max_throws=15, percentiles=(99.9,))
    assert (rep.median, rep.percentiles[99.9]) == (2, None)
    assert "not decided within max_throws=15" in rep.note
    assert rep.pmf is not None


@pytest.mark.parametrize("n, max_throws", [(10, 1000), (4, 300)])
def test_distribution_out_of_reach_is_not_pushed(n, max_throws):
    """Where P(T > max_throws) >= (E[T] - max_throws) / max t stays above the tail, analyze
    pushes nothing and says so; the mass it names is truly left (the naive push)."""
    board = naive.run_board(n)  # (6 (6**n - 1) / 5 expected throws: 7e7 and 1,555)
    r = analyze(board, max_throws=max_throws)
    assert r.pmf is None and r.median is None and "at least" in r.note
    left = (r.mean - max_throws) / expected_throws_all(board).max()
    assert f"(at least {left:.3g} of the mass is left" in r.note
    assert 1e-12 < left <= 1.0 - sum(naive.naive_distribution(board, throws=max_throws))
    assert r.mean == expected_throws(board)


def test_distribution_of_astronomical_length_answered_at_once():
    """100 snakes near the goal of 1,000 squares (1.6e16 throws): the mean and variance, no
    distribution, and no ten million throws pushed first (the bound decides at once)."""
    from benchmarks._families import snakes_near_goal

    r = analyze(snakes_near_goal(1000))
    assert r.pmf is None and r.percentiles == {5: None, 10: None, 25: None, 50: None,
                                               75: None, 90: None, 95: None, 99: None}
    assert "cannot fall below 1e-12 within max_throws=10000000 throws (at least 1 " in r.note
    assert r.mean > 1e16
