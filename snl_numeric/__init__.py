"""snl_numeric: exact and fast analysis of Snakes-and-Ladders race games.

Every public name is imported on first use (:mod:`snl_numeric._core.lazy`): ``import
snl_numeric`` loads none of the questions' modules, nor SciPy's solvers, Numba or
matplotlib, and ``snl_numeric.analyze`` (or ``from snl_numeric import analyze``) imports
what :func:`analyze` needs, once.

Examples
--------
>>> from snl_numeric import analyze, boards
>>> a = analyze(boards.get("milton-bradley"))
>>> a.min_throws, round(a.mean, 2)
(7, 39.23)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._core.lazy import attach
from ._core.version import VERSION as __version__  # noqa: F401 - the one version

if TYPE_CHECKING:  # the same names for type checkers (tests/test_lazy.py checks they agree)
    from . import boards, maze, plot
    from ._core.sizes import options
    from .absorption import Absorption, absorption_probabilities
    from .analysis import Analysis, analyze
    from .batch import BoardBatch, analyze_many
    from .board import Board
    from .chain import (
        SolveReport,
        expected_throws,
        expected_throws_all,
        finish_probability,
        solver_report,
        throws_variance,
        throws_variance_all,
    )
    from .design import DesignResult, design_board
    from .dice import Dice
    from .distribution import length_distribution
    from .export import to_networkx, transition_matrix
    from .fairness import FairStarts, fair_starts, first_player_advantage
    from .impact import JumpImpact, jump_candidates, jump_impact, top_candidates
    from .markov import Chain
    from .players import GameLength, expected_game_length, win_probabilities
    from .policy import (
        ChainPolicyResult,
        FinishWithinResult,
        PolicyResult,
        finish_within,
        optimal_policy,
    )
    from .race import RaceResult, optimal_race, race_value
    from .report import report
    from .sensitivity import Sensitivity, sensitivity
    from .shortest import min_throws, shortest_path, throw_distances
    from .simulate import GameSimulationResult, SimulationResult, simulate
    from .warmup import cache_dir, warmup
    from .widget import BoardEditor, edit

__all__ = [
    "Absorption",
    "Analysis",
    "Board",
    "BoardBatch",
    "BoardEditor",
    "Chain",
    "DesignResult",
    "FairStarts",
    "Dice",
    "FinishWithinResult",
    "GameLength",
    "GameSimulationResult",
    "JumpImpact",
    "PolicyResult",
    "ChainPolicyResult",
    "RaceResult",
    "SimulationResult",
    "Sensitivity",
    "SolveReport",
    "absorption_probabilities",
    "analyze",
    "analyze_many",
    "boards",
    "cache_dir",
    "design_board",
    "edit",
    "expected_game_length",
    "expected_throws",
    "expected_throws_all",
    "fair_starts",
    "finish_probability",
    "finish_within",
    "first_player_advantage",
    "jump_candidates",
    "jump_impact",
    "length_distribution",
    "maze",
    "min_throws",
    "optimal_policy",
    "optimal_race",
    "options",
    "plot",
    "race_value",
    "report",
    "sensitivity",
    "shortest_path",
    "simulate",
    "solver_report",
    "throw_distances",
    "throws_variance",
    "throws_variance_all",
    "to_networkx",
    "top_candidates",
    "transition_matrix",
    "warmup",
    "win_probabilities",
]

if not TYPE_CHECKING:  # hidden from type checkers, which would accept any name through it
    # where each public name lives, imported from there on first use; then the public
    # submodules, imported on first use too
    __getattr__ = attach(__name__, {
        "._core.sizes": ("options",),
        ".absorption": ("Absorption", "absorption_probabilities"),
        ".analysis": ("Analysis", "analyze"),
        ".batch": ("BoardBatch", "analyze_many"),
        ".board": ("Board",),
        ".chain": ("SolveReport", "expected_throws", "expected_throws_all", "finish_probability",
                   "solver_report", "throws_variance", "throws_variance_all"),
        ".design": ("DesignResult", "design_board"),
        ".dice": ("Dice",),
        ".distribution": ("length_distribution",),
        ".export": ("to_networkx", "transition_matrix"),
        ".fairness": ("FairStarts", "fair_starts", "first_player_advantage"),
        ".impact": ("JumpImpact", "jump_candidates", "jump_impact", "top_candidates"),
        ".markov": ("Chain",),
        ".players": ("GameLength", "expected_game_length", "win_probabilities"),
        ".policy": ("ChainPolicyResult", "FinishWithinResult", "PolicyResult", "finish_within",
                    "optimal_policy"),
        ".race": ("RaceResult", "optimal_race", "race_value"),
        ".report": ("report",),
        ".sensitivity": ("Sensitivity", "sensitivity"),
        ".shortest": ("min_throws", "shortest_path", "throw_distances"),
        ".simulate": ("GameSimulationResult", "SimulationResult", "simulate"),
        ".warmup": ("cache_dir", "warmup"),
        ".widget": ("BoardEditor", "edit"),
    }, ("boards", "maze", "plot"))

del annotations, attach, TYPE_CHECKING  # not part of the namespace


def __dir__() -> list[str]:
    """The public names only (no private modules)."""
    return sorted([*__all__, "__version__"])
