"""Stress check: every public function called from 8 threads at once on shared objects
gives the serial answers. Run as a script (by tests/test_threads.py, in a subprocess with
a timeout, so that a crash fails a test instead of killing pytest).

``python tests/threads_check.py [ROUNDS] [all|repeat]`` prints one line per case and exits
1 on any mismatch (the lines say which call differed).
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import snl_numeric as snl
from snl_numeric import Board, boards, maze
from snl_numeric.batch import analyze_many, random_batch

THREADS = 8


def _canon(value):
    """Something == can compare, whatever the result type."""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, dict):
        return tuple(sorted((k, _canon(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_canon(v) for v in value)
    if hasattr(value, "__dataclass_fields__"):
        return tuple((name, _canon(getattr(value, name))) for name in value.__dataclass_fields__
                     if name not in ("elapsed", "threads", "board", "convergence"))
    if hasattr(value, "to_dict") and hasattr(value, "columns"):  # a DataFrame
        return _canon(value.to_dict("list"))
    if isinstance(value, float) and value != value:
        return "nan"
    return value


def fresh_boards():
    """New Board objects (nothing compiled or cached yet), shared by every thread."""
    return {
        "mb": boards.get("milton-bradley").replace(name="mb"),
        "dense": boards.random_board(300, 0.15, rng=3),
        "large": boards.random_board(6000, 0.05, rng=4),
        "bounce": Board(60, {7: 40, 33: 2, 55: 12, 20: 59}, overshoot="bounce", chain=True,
                        dice={1: 0.2, 2: 0.3, 5: 0.5}),
    }


def single_board_calls():
    """(name, board key, call(board, i)) for every single-board question."""
    return [
        ("analyze(jump_probability=True)", "mb",
         lambda b, i: snl.analyze(b, jump_probability=True)),
        ("analyze(jump_probability=True) dense", "dense",
         lambda b, i: snl.analyze(b, jump_probability=True)),
        ("analyze bounce", "bounce", lambda b, i: snl.analyze(b, jump_probability=True)),
        ("expected_throws_all large", "large", lambda b, i: snl.expected_throws_all(b)),
        ("throws_variance_all large", "large", lambda b, i: snl.throws_variance_all(b)),
        ("expected_throws_all dense", "dense", lambda b, i: snl.expected_throws_all(b)),
        ("length_distribution", "mb", lambda b, i: snl.length_distribution(b)),
        ("finish_probability", "bounce", lambda b, i: snl.finish_probability(b, 3)),
        ("throw_distances", "large", lambda b, i: snl.throw_distances(b)),
        ("shortest_path", "mb", lambda b, i: snl.shortest_path(b)),
        ("win_probabilities", "mb", lambda b, i: snl.win_probabilities(b, 3)),
        ("expected_game_length", "bounce", lambda b, i: snl.expected_game_length(b, 2)),
        ("simulate threads 1 or 2", "mb",
         lambda b, i: snl.simulate(b, 20_000, rng=7, threads=1 + i % 2)),
        ("simulate per_game", "bounce",
         lambda b, i: snl.simulate(b, 5_000, rng=8, threads=1 + i % 2, per_game=True)),
        ("optimal_policy", "mb", lambda b, i: snl.optimal_policy(b, ["1-3", "4-6"])),
        ("optimal_policy value", "bounce",
         lambda b, i: snl.optimal_policy(b, ["1-2", "d6"], method="value",
                                         optional_jumps=True)),
        ("finish_within", "mb", lambda b, i: snl.finish_within(b, ["1-3", "4-6"], 30)),
        ("optimal_race", "bounce", lambda b, i: snl.optimal_race(b, ["1-2", "d6"])),
        ("jump_impact", "bounce", lambda b, i: snl.jump_impact(b)),
        ("jump_candidates", "mb", lambda b, i: snl.jump_candidates(b)),
        ("race_value", "mb", lambda b, i: snl.race_value(b, ["1-3", "4-6"], [0] * 101,
                                                           [1] * 101)),
        # the rest of the public questions (the robust65 audit found them unchecked here)
        ("min_throws", "large", lambda b, i: snl.min_throws(b)),
        ("expected_throws", "dense", lambda b, i: snl.expected_throws(b, 5)),
        ("throws_variance", "bounce", lambda b, i: snl.throws_variance(b)),
        ("expected_throws exact", "bounce", lambda b, i: snl.expected_throws(b, exact=True)),
        ("solver_report", "dense", lambda b, i: snl.solver_report(b)),
        ("sensitivity dice", "mb", lambda b, i: snl.sensitivity(b)),
        ("sensitivity jumps", "bounce",
         lambda b, i: snl.sensitivity(b, wrt="jumps", of="variance")),
        ("fair_starts", "mb", lambda b, i: snl.fair_starts(b, 2)),
        ("first_player_advantage", "bounce", lambda b, i: snl.first_player_advantage(b, 3)),
        ("transition_matrix", "dense", lambda b, i: snl.transition_matrix(b).toarray()),
        ("jump_impact median players", "mb",
         lambda b, i: snl.jump_impact(b, median=True, players=2)),
        ("simulate players", "mb",
         lambda b, i: snl.simulate(b, 5_000, rng=3, players=3, threads=1 + i % 2)),
        ("to_chain expected_throws_all", "dense",
         lambda b, i: snl.expected_throws_all(b.to_chain())),
        ("report", "mb", lambda b, i: snl.report(b)),
        ("top_candidates", "mb", lambda b, i: snl.top_candidates(snl.jump_candidates(b), 5)),
    ]


def other_calls():
    """(name, shared object factory, call(shared, i)) for the batch, design and maze."""
    grid = np.ones((7, 7), dtype=np.int64)
    return [
        ("analyze_many", lambda: random_batch(300, 60, snakes=5, ladders=5, rng=5),
         lambda batch, i: analyze_many(batch, columns=["min_throws", "expected_throws",
                                                       "median", "mode"], chunk_size=64)),
        ("analyze_many dicts",
         lambda: [b.to_dict() for b in random_batch(50, 40, snakes=4, ladders=4, rng=6)],
         lambda rows, i: analyze_many(rows, columns=["expected_throws", "p90"])),
        ("design_board", lambda: None,
         lambda _, i: snl.design_board(40, snakes=3, ladders=3, objective="max", iterations=300, chains=2,
                                       rng=11 + i % 2).board.jumps),
        ("design_board local", lambda: None,
         lambda _, i: snl.design_board(30, snakes=2, ladders=2, target=12.0, method="local", iterations=20,
                                       chains=2, rng=5).mean),
        ("maze paths", lambda: grid, lambda m, i: maze.paths(m, (0, 0), (3, 3), limit=500)),
        ("maze count", lambda: grid, lambda m, i: maze.count_paths(m, (0, 6), (3, 3),
                                                                    bound=20_000)),
        ("maze shortest", lambda: grid, lambda m, i: maze.shortest_path(m, (6, 6), (3, 3))),
        ("maze corner_paths", lambda: grid, lambda m, i: maze.corner_paths(m, limit=300)),
        ("maze iter_paths", lambda: grid,
         lambda m, i: [p for _, p in zip(range(200), maze.iter_paths(m, (0, 0), (3, 3)))]),
        ("exact win_probabilities", lambda: Board(12, {3: 9, 10: 2}),
         lambda b, i: snl.win_probabilities(b, 2, exact=True)),
        ("design_board fair", lambda: None,
         lambda _, i: snl.design_board(30, snakes=2, ladders=2, objective="fair", players=2,
                                       iterations=40, chains=2, rng=3).board.jumps),
        # one Chain shared by every thread (its lazy caches filled in the race)
        ("chain expected_throws_all", _chain, lambda c, i: snl.expected_throws_all(c)),
        ("chain length_distribution", _chain, lambda c, i: snl.length_distribution(c)),
        ("chain absorption", _chain,
         lambda c, i: snl.absorption_probabilities(c, visit_probability=True).probabilities),
        ("chain analyze", _chain, lambda c, i: snl.analyze(c).mean),
        ("chain simulate", _chain, lambda c, i: snl.simulate(c, 3000, rng=2).mean),
        ("chain optimal_policy", lambda: [boards.get("milton-bradley").to_chain().P] * 2,
         lambda ps, i: snl.optimal_policy(ps, start=0).mean),
    ]


def _chain():
    return boards.random_board(300, 0.15, rng=3).to_chain()


def hammer(call, shared, rounds):
    """Results of ``call(shared, i)`` for ``i < THREADS * rounds``, from THREADS threads."""
    with ThreadPoolExecutor(THREADS) as pool:
        futures = [pool.submit(call, shared, i) for i in range(THREADS * rounds)]
        return [f.result() for f in futures]


#: Calls that solve the transposed system (expected visits, jump probabilities): the
#: dense LAPACK transposed solve once used there gave wrong numbers, or aborted the
#: process, when called from several threads (OpenBLAS 0.3.31); "repeat" hammers them.
TRANSPOSED = ("analyze",)


def main(rounds: int, which: str) -> int:
    """``which``: "all" (every call, ``rounds`` rounds), or "repeat" (the
    :data:`TRANSPOSED` calls alone, up to ``rounds`` rounds on fresh boards, stopping at the
    first wrong answer)."""
    bad = 0
    chosen = [c for c in single_board_calls()
              if which == "all" or c[0].startswith(TRANSPOSED)]
    others = other_calls() if which == "all" else []
    reference: dict[str, dict[int, object]] = {}
    # serial answers, on boards of their own
    own = fresh_boards()
    for name, key, call in chosen:
        reference[name] = {i: _canon(call(own[key], i)) for i in range(2)}
    for name, make, call in others:
        reference[name] = {i: _canon(call(make(), i)) for i in range(2)}

    def check(name, results):
        nonlocal bad
        ref = reference[name.removeprefix("mixed ")]
        wrong = [i for i, r in enumerate(results) if _canon(r) != ref[i % 2]]
        print(("MISMATCH " if wrong else "ok ") + f"{name}: {len(results)} calls"
              + (f", calls {wrong[:8]} differ from the serial answer" if wrong else ""),
              flush=True)
        bad += bool(wrong)

    if which == "repeat":
        for _ in range(rounds):
            for name, key, call in chosen:
                check(name, hammer(call, fresh_boards()[key], 2))
            if bad:
                return 1
        return 0
    # each question alone, on freshly built shared objects (lazy caches filled in the race)
    for name, key, call in chosen:
        check(name, hammer(call, fresh_boards()[key], rounds))
    for name, make, call in others:
        check(name, hammer(call, make(), rounds))
    # every single-board question at once on the same fresh boards
    shared = fresh_boards()
    with ThreadPoolExecutor(THREADS) as pool:
        futures = [(name, pool.submit(call, shared[key], i))
                   for i in range(rounds * 2) for name, key, call in chosen]
        mixed: dict[str, list] = {}
        for name, f in futures:
            mixed.setdefault(name, []).append(f.result())
    for name, results in mixed.items():
        check("mixed " + name, results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 3,
                  sys.argv[2] if len(sys.argv) > 2 else "all"))
