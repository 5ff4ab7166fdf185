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
