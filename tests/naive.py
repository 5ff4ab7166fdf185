"""Slow, obvious reference implementations.

Every fast path in :mod:`snl_numeric` is compared with a twin in this file.
Nothing here is optimised; clarity is the point.
"""

from __future__ import annotations


# --- plot ---
def plot_square_cells_naive(size):
    """Walk the printed board square by square: ``{square: (column, row)}``.

    Square 1 bottom-left, the bottom row left to right, the next right to
    left, ... on ``n`` columns, the smallest ``n`` with ``n * n >= size``;
    square 0 just left of square 1.
    """
    n = 1
    while n * n < size:
        n += 1
    cells = {0: (-1, 0)}
    col, row, step = 0, 0, 1
    for k in range(1, size + 1):
        cells[k] = (col, row)
        if 0 <= col + step < n:
            col += step
        else:
            row += 1
            step = -step
    return cells
