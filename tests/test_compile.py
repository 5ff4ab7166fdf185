"""``snl_numeric.compile``: a board compiled to its successor table (NumPy for ordinary
boards, the kernel for large ones) against the rules' naive moves, and a board too large
to compile refused before allocating."""

import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import given, settings

from snl_numeric import Board, expected_throws


def _kernel_table(board):
    """The successor table by the large boards' kernel (whatever the board's size)."""
    from snl_numeric._core.table import OVERSHOOT_CODES, succ_table_kernel

    size, faces = board.size, board.dice.faces.astype(np.intp)
    jump_to = np.full(size + 1, -1, dtype=np.intp)
    src, dst = board.jump_arrays
    jump_to[src] = dst
    succ = np.empty((size + 1, len(faces)), dtype=np.int32)
    landed = np.empty_like(succ)
    succ_table_kernel(size, jump_to, OVERSHOOT_CODES[board.overshoot], board.chain, faces,
                      succ, landed)
    return succ, landed


@settings(max_examples=150, deadline=None)
@given(board_strategy())
def test_kernel_table_matches_naive_moves(board):
    import naive

    succ, _ = _kernel_table(board)
    expected = [[naive.naive_move(board, x, int(f)) for f in board.dice.faces]
                for x in range(board.size + 1)]
    assert succ.tolist() == expected
    assert succ.tolist() == board.compiled.succ.tolist()  # the NumPy table of small boards


def test_a_long_chain_of_jumps_is_followed_once():
    """Every square of a 30,000-square chain of ladders leads to its end: the kernel follows
    each square once (it followed every throw's chain to the end: 4.7 s here, now ms)."""
    n = 30_000
    board = Board.from_arrays(n, np.arange(1, n - 1), np.arange(2, n), chain=True)
    succ, landed = _kernel_table(board)
    assert (succ[: n - 7] == n - 1).all()
    assert succ[n - 2].tolist() == [n - 1] + [n] * 5  # (a throw past the goal wins)
    assert (landed[0] == np.arange(1, 7)).all()


def test_absurd_board_is_refused_before_allocating():
    with pytest.raises(ValueError, match="board too large to compile"):
        expected_throws(Board(10**9))
