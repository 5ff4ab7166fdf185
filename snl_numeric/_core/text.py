"""Small text helpers shared by results, displays and plots."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .grid import grid_rows


def label(i: int) -> str:
    return chr(ord("A") + i) if 0 <= i < 26 else str(i)


def dice_text(d: Any) -> str:
    """Dice as people write them (and ``--dice`` reads them): ``d6``, ranges of fair
    faces such as ``1-3``, sums such as ``2d6``, else ``face:probability`` pairs.

    Examples
    --------
    >>> from snl_numeric import Dice
    >>> [dice_text(d) for d in (Dice.fair(6), Dice.fair(3), Dice.from_probs({4: .5, 5: .5}),
    ...                         Dice.sum_of(2, 6), Dice.from_probs({1: .2, 3: .8}))]
    ['d6', '1-3', '4-5', '2d6', '1:0.2,3:0.8']
    """
    f = d.faces
    k = len(f)
    if np.all(np.diff(f) == 1) and np.all(d.probs == d.probs[0]):  # a fair range
        if k == 6 and f[0] == 1:
            return "d6"  # the die
        return f"{f[0]}-{f[-1]}" if k > 1 else f"{f[0]}:1"
    n, sides = sum_of_dice(f, d.probs)
    if n:
        return f"{n}d{sides}"
    return ",".join(f"{int(a)}:{float(q):.4g}" for a, q in zip(f, d.probs, strict=True))


def sum_of_dice(faces: np.ndarray, probs: np.ndarray) -> tuple[int, int]:
    """``(n, sides)`` when the faces and probabilities are those of ``n`` fair ``sides``-sided
    dice summed (``n >= 2``, to 1e-12), else ``(0, 0)``."""
    n = int(faces[0])
    if n < 2 or len(faces) < 2 or int(faces[-1]) % n or np.any(np.diff(faces) != 1):
        return 0, 0
    sides = int(faces[-1]) // n
    counts = np.ones(1)
    for _ in range(n):
        counts = np.convolve(counts, np.ones(sides))
    if len(counts) != len(probs) or not np.allclose(probs, counts / counts.sum(), rtol=0,
                                                    atol=1e-12):
        return 0, 0
    return n, sides


def n_dice(actions: Sequence[Any]) -> str:
    return "1 die" if len(actions) == 1 else f"{len(actions)} dice"


def few(items: list[int], k: int = 8) -> str:
    head = ", ".join(map(str, items[:k]))
    return head + (f", ... ({len(items)} squares)" if len(items) > k else "")


def grid_text(size: int, cell: Callable[[int], str]) -> list[str]:
    """Squares ``1 .. size`` as text rows (indented by 2) laid out like the drawn board
    (boustrophedon from the bottom-left, see ``grid_rows``), ``cell(k)`` in each.

    Examples
    --------
    >>> grid_text(5, lambda k: f"[{k}]")
    ['       [5]  [4]', '  [1]  [2]  [3]']
    """
    width = len(cell(size))
    return ["  " + "  ".join(" " * width if k is None else cell(k) for k in row).rstrip()
            for row in grid_rows(size)]


def capture_words(board: Any) -> str:
    """The capture rule of a board in words ('' without one).

    Examples
    --------
    >>> from snl_numeric import Board
    >>> capture_words(Board(30, capture="start", safe=[5, 9])), capture_words(Board(30))
    (', capture to the start (safe 5, 9)', '')
    """
    capture = getattr(board, "capture", None)
    if capture is None:
        return ""
    words = "to the start" if capture == "start" else f"back {capture}"
    safe = getattr(board, "safe", ())
    return f", capture {words}" + (f" (safe {', '.join(map(str, safe))})" if safe else "")
