"""Value equality of the result dataclasses (issue 54: ``analyze(mb) == analyze(mb)`` was
False, results compared by identity)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from snl_numeric import (
    analyze,
    boards,
    expected_game_length,
    jump_impact,
    optimal_policy,
    simulate,
)
from snl_numeric._core.equality import same_value
from snl_numeric.impact import candidates

MB = boards.get("milton-bradley")

CASES = {
    "analysis": lambda board: analyze(board),
    "simulation": lambda board: simulate(board, 2000, rng=7),
    "game length": lambda board: expected_game_length(board, 2),
    "impact": lambda board: jump_impact(board),
    "candidates": lambda board: candidates(board, kind="snake"),
    "policy": lambda board: optimal_policy(board, ["1-3", "4-6"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_results_equal_by_value(name):
    make = CASES[name]
    a, b = make(MB), make(MB)
    assert a is not b and a == b and not (a != b)
    other = make(MB.replace(start=1))
    assert a != other
    # the difference is in the numbers themselves, found field by field
    assert any(not same_value(getattr(a, f.name), getattr(other, f.name))
               for f in dataclasses.fields(a))
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)
    assert a != "not a result"


def test_a_changed_array_entry_breaks_equality():
    a = analyze(MB)
    visits = a.expected_visits.copy()
    visits[5] += 1e-12
    assert a != dataclasses.replace(a, expected_visits=visits)
    assert a == dataclasses.replace(a, expected_visits=a.expected_visits.copy())


def test_same_value_rules():
    nan = np.array([np.nan, 1.0])
    assert same_value(nan, nan.copy())
    assert not same_value(np.array([1, 2]), np.array([1.0, 2.0]))  # dtypes differ
    assert not same_value(np.zeros(2), np.zeros(3))
    assert not same_value(np.zeros(2), [0.0, 0.0])
    assert same_value(float("nan"), float("nan")) and not same_value(0.0, 1e-300)
    assert same_value({"a": (1, 2.0)}, {"a": (1, 2.0)}) and not same_value((1,), [1])


def test_simulation_wall_time_is_not_compared():
    a = simulate(MB, 500, rng=3)
    assert a == dataclasses.replace(a, elapsed=a.elapsed + 10.0)
