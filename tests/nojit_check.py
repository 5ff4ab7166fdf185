"""Results of a fast subset of every kernel, printed as JSON (run by tests/integration/test_nojit.py).

Run once with Numba and once with ``NUMBA_DISABLE_JIT=1``: the jitted kernels then run
as plain Python, so their code is covered and must give the same numbers.
"""

from __future__ import annotations

import json
import warnings

import numpy as np

from snl_numeric import (
    Board,
    analyze,
    analyze_many,
    boards,
    design_board,
    expected_throws_all,
    finish_within,
    length_distribution,
    optimal_policy,
    optimal_race,
    race_value,
    simulate,
    throw_distances,
    throws_variance_all,
)
from snl_numeric import maze as mz
from snl_numeric.boards import random_board
from snl_numeric.race import bounds as race_bounds


def results() -> dict:
    out = {}
    seed30 = boards.get("seed-30")
    bounce = Board(40, {7: 30, 33: 2, 25: 10}, overshoot="bounce", chain=True,
                   dice={1: 0.3, 2: 0.3, 5: 0.4})
    big = random_board(600, 0.1, rng=3)  # above DENSE_MAX: the structured solver
    for name, b in (("seed30", seed30), ("bounce", bounce), ("big", big)):
        out[f"{name}_dist"] = throw_distances(b).tolist()
        out[f"{name}_mean"] = expected_throws_all(b).tolist()
        out[f"{name}_var"] = throws_variance_all(b).tolist()
    out["pmf"] = length_distribution(bounce, tail=1e-9).tolist()
    a = analyze(seed30)
    out["analyze"] = [a.median, a.mode, list(a.percentiles.values()),
                      list(a.jump_probability.values())]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        r = simulate(seed30, 300, rng=5)
        g = simulate(seed30, 50, rng=6, per_game=True)
        walk = simulate(bounce.to_chain(), 200, rng=7)  # a chain's rows: an alias table each
        three = simulate(seed30, 200, players=3, dice=[None, "1-4", None], rng=8)
        # races with capture: back 3, square 12 safe
        bump = simulate(bounce.replace(capture=3, safe=[12]), 200, players=2, rng=9,
                        max_throws=10**6, threads=1)
    out["simulate"] = [r.mean, r.histogram.tolist(), g.throws.tolist(),
                       g.jump_used.sum(axis=0).tolist(), walk.histogram.tolist(),
                       three.wins.tolist(), three.rounds_histogram.tolist(), bump.wins.tolist(),
                       bump.throws_histogram.tolist()]
    df = analyze_many([seed30.to_dict(), bounce.to_dict(), {"size": 5, "jumps": [[3, 9]]}],
                      errors="coerce",
                      columns=["min_throws", "mean", "variance", "median", "mode"])
    out["batch"] = df.astype(object).where(df.notna(), None).to_dict("list")
    d = design_board(20, snakes=2, ladders=1, objective="max", iterations=30, chains=2, rng=1)
    out["design"] = [d.board.to_dict(), d.mean]
    p = optimal_policy(boards.get("milton-bradley"), ["1-3", "4-6"], optional_jumps=True)
    out["policy"] = [p.policy.tolist(), p.take.tolist(), p.expected.tolist()]
    v = optimal_policy(seed30, ["1-2", "d6"], method="value")
    out["policy_value"] = v.expected.tolist()
    out["finish_within"] = finish_within(seed30, ["1-3", "4-6"], 4).values.tolist()
    # races: compulsory and optional jumps (both sweep kernels, the two-state game of lost
    # throws under "exact", the read-out), a best response, a chain with stranded tokens
    small = Board(30, {3: 22, 8: 4, 17: 9, 25: 12, 27: 29}, overshoot="exact", chain=True)
    for opt in (False, True):
        r = optimal_race(small, ["1-3", "4-6"], optional_jumps=opt)
        out[f"race_{opt}"] = [r.value.tolist(), r.policy.tolist(), r.take.tolist(),
                              r.convergence.sweeps]
    br = optimal_race(small, ["1-3", "4-6"], opponent=optimal_policy(small, ["1-3", "4-6"]),
                      optional_jumps=True)
    out["race_br"] = [br.value.tolist(), br.policy.tolist()]
    stuck = Board(6, {2: 1}, overshoot="exact", dice={3: 0.5, 4: 0.5})
    out["race_draw"] = [optimal_race(stuck, [stuck.dice]).value.tolist(),  # a chain
                        optimal_race(stuck, [stuck.dice, {3: 0.75, 4: 0.25}],
                                     optional_jumps=True).value.tolist(),
                        race_value(stuck, [stuck.dice, "1-2"], [1] * 7, [0] * 7)]
    # the accelerated finish (many snakes) and a chain too slow for sweeps (linear solve)
    race_bounds.ACCEL_AFTER, race_bounds.ACCEL_SWEEPS = 4, 0  # try it on a small board
    acc = optimal_race(random_board(30, 0.2, snake_fraction=0.8, rng=1), ["1-3", "4-6"])
    slow = Board(20, {2: 10, 4: 1, 6: 16, 7: 17, 9: 5, 11: 5, 16: 12, 18: 17},
                 overshoot="exact", dice={1: 1e-6, 2: 0.999999})
    out["race_fast"] = [acc.value.tolist(), acc.policy.tolist(),
                        optimal_race(slow, [slow.dice]).value.tolist()]
    grid = [[3, 4, 4, 4, 7, 3, 4, 6, 3], [6, 7, 5, 6, 6, 2, 6, 6, 2],
            [3, 3, 4, 3, 2, 5, 4, 7, 2], [6, 5, 5, 1, 2, 3, 6, 5, 6],
            [3, 3, 4, 3, 0, 1, 4, 3, 4], [3, 5, 4, 3, 2, 1, 3, 3, 5],
            [3, 5, 4, 3, 2, 6, 4, 4, 3], [3, 5, 1, 3, 7, 5, 3, 6, 3],
            [6, 2, 4, 3, 4, 5, 4, 5, 1]]
    out["maze"] = [[p.tolist() for p in mz.corner_paths(grid)],
                   mz.count_paths(grid, (0, 0), (4, 4)).count]
    out["errors"] = []
    for bad in ({3: 5, 5: 3}, {9: 1, 3: 3}):
        try:
            Board(10, bad, chain=True)
        except ValueError as exc:
            out["errors"].append(str(exc))
    return out


def _plain(x):
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


if __name__ == "__main__":
    print(json.dumps(_plain(results())))
