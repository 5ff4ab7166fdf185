"""Analysis fields not covered elsewhere: the chance of ever visiting each square."""

from __future__ import annotations

import math

import naive
import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import given, settings

from snl_numeric import Board, analyze, boards


@settings(max_examples=60, deadline=None)
@given(board_strategy(max_size=20))
def test_visit_probability_matches_hitting_probabilities(board):
    a = analyze(board, visit_probability=True)
    if not math.isfinite(a.mean):
        assert a.visit_probability is None
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
