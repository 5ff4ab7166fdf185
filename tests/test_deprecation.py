"""Deprecations (issue 27): each names the release it goes in, points at the caller's line,
and renamed attributes carry PEP 702 ``@deprecated`` so type checkers flag them."""

import pytest

from snl_numeric import Board, analyze_many, boards, design_board, finish_within, optimal_policy
from snl_numeric._core.deprecation import REMOVED_IN


def _deprecated_uses():
    mb = boards.get("milton-bradley")
    small = Board(4, overshoot="exact")
    policy = optimal_policy(small, ["1-3", "4-6"])
    design = design_board(20, snakes=1, ladders=1, objective="max", iterations=20, chains=1,
                          rng=1)
    return [
        ("PolicyResult.expected_start", lambda: policy.expected_start),
        ("DesignResult.expected", lambda: design.expected),
        ("finish_within(..., k=...)", lambda: finish_within(small, ["1-3"], k=1)),
        ("column 'expected_throws'", lambda: analyze_many([mb], columns=["expected_throws"])),
    ]


def test_each_deprecation_names_its_release_and_points_at_the_callers_line():
    assert REMOVED_IN == "0.2.0"
    for old, use in _deprecated_uses():
        with pytest.warns(DeprecationWarning) as caught:
            use()
        assert len(caught) == 1
        w = caught[0]
        assert str(w.message).startswith(f"{old} is now ")
        assert str(w.message).endswith(f"will be removed in snl_numeric {REMOVED_IN}")
        assert w.filename == __file__, (old, w.filename)


def test_renamed_attributes_are_pep_702_deprecated():
    from snl_numeric import DesignResult, PolicyResult

    for cls, name in ((PolicyResult, "expected_start"), (DesignResult, "expected")):
        getter = getattr(cls, name).fget
        assert REMOVED_IN in getter.__deprecated__  # what type checkers read (PEP 702)
