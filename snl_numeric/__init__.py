"""snl_numeric: exact and fast analysis of Snakes-and-Ladders race games.

Examples
--------
>>> from snl_numeric import analyze, boards
>>> a = analyze(boards.get("milton-bradley"))
>>> a.min_throws, round(a.mean, 2)
(7, 39.23)
"""

from __future__ import annotations

from . import boards
from .analysis import Analysis, analyze
from .board import Board
from .chain import (
    expected_throws,
    expected_throws_all,
    finish_probability,
    length_distribution,
    throws_variance,
    throws_variance_all,
)
from .dice import Dice
from .policy import FinishWithinResult, PolicyResult, finish_within, optimal_policy
from .shortest import min_throws, shortest_path, throw_distances

__version__ = "0.1.0"

__all__ = [
    "Analysis",
    "Board",
    "Dice",
    "FinishWithinResult",
    "PolicyResult",
    "analyze",
    "boards",
    "expected_throws",
    "expected_throws_all",
    "finish_probability",
    "finish_within",
    "length_distribution",
    "min_throws",
    "optimal_policy",
    "shortest_path",
    "throw_distances",
    "throws_variance",
    "throws_variance_all",
]
