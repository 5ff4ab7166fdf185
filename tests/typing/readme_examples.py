"""The README's examples as a user script, checked with ``mypy --strict`` (issue 27).

Held out of the package: it sees snl_numeric as an installed library would be seen. It
also runs (``tests/integration/test_typing.py``), so it stays true to the API.
"""

from __future__ import annotations

import math

import numpy as np
from typing_extensions import assert_type

from snl_numeric import (
    Analysis,
    Board,
    Dice,
    GameLength,
    GameSimulationResult,
    JumpImpact,
    PolicyResult,
    RaceResult,
    SimulationResult,
    analyze,
    analyze_many,
    boards,
    expected_game_length,
    expected_throws,
    jump_candidates,
    jump_impact,
    maze,
    min_throws,
    optimal_policy,
    optimal_race,
    report,
    simulate,
    to_networkx,
    top_candidates,
    transition_matrix,
    win_probabilities,
)
from snl_numeric.batch import random_batch


def main() -> None:
    mb = boards.get("milton-bradley")
    assert_type(mb, Board)
    assert_type(mb.size, int)
    assert_type(mb.dice, Dice)
    assert_type(mb.name, "str | None")
    assert_type(min_throws(mb), int)
    assert_type(expected_throws(mb), float)
    a = analyze(mb)
    assert_type(a, Analysis)
    assert_type(a.mean, float)
    median: int | None = a.median
    assert median == 32 and a.percentiles[90] == 72

    mine = Board.from_pairs(30, snakes={26: 0}, ladders={2: 21}, overshoot="bounce",
                            dice="1-3")
    two = mb.replace(overshoot="win", dice="2d6")
    assert min_throws(mine) == 4 and two.dice == Dice.sum_of(2, 6)
    assert Board(100, {4: 14}, dice={1: 0.5, 2: 0.5}).dice.max_face == 2

    p = win_probabilities(mb, 2)
    assert_type(p, np.ndarray)
    g = expected_game_length(mb, 4)
    assert_type(g, GameLength)
    assert g.mean_rounds > 19
    r = simulate(mb, 10_000, rng=42)
    assert_type(r, SimulationResult)
    assert abs(r.mean - a.mean) < 5 * r.stderr
    three = simulate(mb, 10_000, players=3, rng=42)
    assert_type(three, GameSimulationResult)
    assert three.win_shares.sum() == 1.0 and three.mean_rounds > 19

    policy = optimal_policy(mb, ["1-3", "4-6"])
    assert_type(policy, PolicyResult)
    race = optimal_race(mb, ["1-3", {4: 1 / 3, 5: 1 / 3, 6: 1 / 3}])
    assert_type(race, RaceResult)
    assert race.win_probability > 0.5 and policy.mean < 18

    imp = jump_impact(mb)
    assert_type(imp, JumpImpact)
    change = jump_candidates(mb, kind="snake")
    assert_type(change, np.ndarray)
    assert [(a, b) for a, b, _ in top_candidates(change, 2)] == [(94, 1), (94, 2)]
    page = report(mb, actions=["1-3", "4-6"])
    assert_type(page, str)

    df = analyze_many(random_batch(100, 100, snakes=10, ladders=10, rng=0),
                      columns=["min_throws", "mean"])
    assert len(df) == 100

    matrix = transition_matrix(mb)
    assert matrix.shape == (101, 101)
    assert to_networkx(mb).number_of_nodes() == 101

    grid = [[3, 4, 4, 4, 7, 3, 4, 6, 3], [6, 7, 5, 6, 6, 2, 6, 6, 2],
            [3, 3, 4, 3, 2, 5, 4, 7, 2], [6, 5, 5, 1, 2, 3, 6, 5, 6],
            [3, 3, 4, 3, 0, 1, 4, 3, 4], [3, 5, 4, 3, 2, 1, 3, 3, 5],
            [3, 5, 4, 3, 2, 6, 4, 4, 3], [3, 5, 1, 3, 7, 5, 3, 6, 3],
            [6, 2, 4, 3, 4, 5, 4, 5, 1]]
    paths = maze.corner_paths(grid)
    assert len(paths) == 5 and maze.format_path(paths[-1]).endswith("MIDDLE")
    assert math.isfinite(a.mean)


if __name__ == "__main__":
    main()
