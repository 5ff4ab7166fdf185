"""Calls that once hung: each runs in a subprocess with a timeout, so a hang fails the test."""

from __future__ import annotations

from subproc import run_ok


def test_worst_play_witness_walk_cannot_circle():
    # _trap_witness used to follow any doomed target and could circle between
    # squares 5 and 7 forever; it now walks one BFS level down per step
    out = run_ok("""
        from snl_numeric import Board, optimal_policy
        board = Board(9, {7: 6, 8: 0, 5: 9}, overshoot="exact")
        for method in ("policy", "value"):
            try:
                optimal_policy(board, [{1: .25, 4: .75}, {1: 1.0}], objective="max",
                               method=method)
            except ValueError as exc:
                print(exc)
    """, timeout=120)
    lines = out.splitlines()
    assert len(lines) == 2
    for line in lines:
        assert "from square 0 is infinite" in line
        assert "on square 6, die A (1:0.25,4:0.75) only leads to squares 6, 7," in line


def test_worst_play_on_random_small_boards_always_answers():
    # the family of the hang: ~1 in 1,000 random small boards used to circle forever
    out = run_ok("""
        import numpy as np
        from snl_numeric import Board, optimal_policy
        rng = np.random.default_rng(14)
        refused = answered = 0
        for _ in range(1500):
            size = int(rng.integers(2, 14))
            jumps = {}
            for s in rng.choice(np.arange(1, size), size=int(rng.integers(0, size)),
                                replace=False).tolist():
                d = int(rng.integers(0, size + 1))
                if d != s:
                    jumps[s] = d
            dice = []
            for _ in range(int(rng.integers(1, 3))):
                faces = rng.choice(np.arange(1, 6), size=int(rng.integers(1, 3)), replace=False)
                w = rng.random(len(faces)) + 0.05
                dice.append(dict(zip(faces.tolist(), (w / w.sum()).tolist())))
            try:
                board = Board(size, jumps, overshoot=["win", "exact", "bounce"][_ % 3],
                              chain=bool(rng.integers(2)))
            except ValueError:
                continue
            try:
                optimal_policy(board, dice, objective="max",
                               optional_jumps=bool(rng.integers(2)))
                answered += 1
            except ValueError as exc:
                assert "square" in str(exc), str(exc)
                refused += 1
            except RuntimeError:
                answered += 1
        print(refused, answered)
    """, timeout=300)
    refused, answered = map(int, out.split())
    assert refused > 100 and answered > 100
