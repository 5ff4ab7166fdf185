"""Where each square sits when a board is drawn (shared by plots and HTML reprs).

Squares ``1 .. size`` are laid out boustrophedon on a grid of
``n = ceil(sqrt(size))`` columns and ``ceil(size / n)`` rows: square 1 in the
bottom-left cell, the bottom row running left to right, the next right to
left, and so on (the printed 10 x 10 board). Square 0, off the board, sits
just left of square 1. Cell ``(column x, row y)`` is centred on ``(x, y)``,
row 0 at the bottom.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from .validation import int_array, positive_int, shown

__all__ = ["grid_rows", "grid_shape", "square_xy"]


def grid_shape(size: int) -> tuple[int, int]:
    """``(rows, columns)`` of the grid drawing a board of ``size`` squares.

    Examples
    --------
    >>> grid_shape(100), grid_shape(29), grid_shape(1)
    ((10, 10), (5, 6), (1, 1))
    """
    size = positive_int(size, "size")  # (NaN, -1 and True were laid out)
    n = math.isqrt(size - 1) + 1 if size > 1 else 1
    return -(-size // n), n


def square_xy(squares: npt.ArrayLike, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Column and row of each square (square 0 at column -1, row 0).

    Examples
    --------
    >>> x, y = square_xy([0, 1, 10, 11, 20, 100], 100)
    >>> x.tolist(), y.tolist()
    ([-1, 0, 9, 9, 0, 0], [0, 0, 0, 1, 1, 9])
    """
    _, n = grid_shape(size)
    k = int_array(squares, "squares")  # (2.5 was drawn on square 2)
    if k.size and (k.min() < 0 or k.max() > size):
        bad = k[(k < 0) | (k > size)][0].item()
        raise ValueError(f"squares must be in 0..{size}, got {shown(bad)}")
    r, c = np.divmod(np.maximum(k, 1) - 1, n)
    x = np.where(r % 2 == 0, c, n - 1 - c)
    x = np.where(k == 0, -1, x)
    y = np.where(k == 0, 0, r)
    return x, y


def grid_rows(size: int) -> list[list[int | None]]:
    """Squares ``1 .. size`` as printed rows, top row first, in the layout of
    :func:`square_xy` (``None`` in the cells past the last square).

    Examples
    --------
    >>> grid_rows(7)
    [[7, None, None], [6, 5, 4], [1, 2, 3]]
    """
    rows, n = grid_shape(size)
    out: list[list[int | None]] = [[None] * n for _ in range(rows)]
    x, y = square_xy(np.arange(1, size + 1), size)
    for k, (xk, yk) in enumerate(zip(x.tolist(), y.tolist(), strict=True), start=1):
        out[rows - 1 - yk][xk] = k
    return out
