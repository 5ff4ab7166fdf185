"""Jumps as two lists of squares, from a mapping, pairs or a ``(k, 2)`` array; pairs of Python
ints read by NumPy without a loop over them."""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from .validation import INT64_MAX, int_array, integer, shown

__all__ = ["int_pairs", "jump_pairs", "square"]

_SEQUENCES = frozenset({tuple, list})
_INT = frozenset({int})
_TWO = frozenset({2})


def int_pairs(items: list[Any]) -> tuple[list[int], list[int]] | None:
    """``(src, dst)`` of pairs given as tuples or lists of two Python ints (a board dict's
    jumps, a mapping's items), or None for anything else (bools, NumPy integers, other
    shapes, integers beyond int64), which the caller reads one by one to name a bad one.

    Examples
    --------
    >>> int_pairs([(5, 15), [12, 2]])
    ([5, 12], [15, 2])
    >>> int_pairs([(True, 3)]) is None, int_pairs([(1, 2, 3)]) is None
    (True, True)
    """
    if not items or not set(map(type, items)) <= _SEQUENCES or set(map(len, items)) != _TWO:
        return None
    flat = itertools.chain.from_iterable
    if set(map(type, flat(items))) != _INT:
        return None
    try:  # (flat: np.fromiter reads ints twice as fast as np.array reads nested lists)
        arr = np.fromiter(flat(items), dtype=np.int64, count=2 * len(items))
    except OverflowError:
        return None
    return arr[0::2].tolist(), arr[1::2].tolist()


def square(value: Any, what: str) -> int:
    """An integer square (``what`` names it in the error)."""
    if type(value) is int and -INT64_MAX - 1 <= value <= INT64_MAX:  # the common case, fast
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an integer square, got {shown(value)}")
    return integer(value, what)


def jump_pairs(jumps: Any, what: str) -> tuple[list[int], list[int]]:
    """Jumps given as a mapping, pairs or a (k, 2) integer array, as two lists.

    Examples
    --------
    >>> jump_pairs({5: 15, 12: 2}, "jumps")
    ([5, 12], [15, 2])
    """
    if jumps is None:
        return [], []
    if isinstance(jumps, np.ndarray):
        if jumps.size == 0 and jumps.ndim <= 2:
            return [], []
        if jumps.ndim != 2 or jumps.shape[1] != 2:
            raise ValueError(f"{what} array must have shape (k, 2), got {jumps.shape}")
        if jumps.dtype == bool or not np.issubdtype(jumps.dtype, np.integer):
            raise TypeError(f"{what} must hold integer squares, got dtype {jumps.dtype}")
        arr = int_array(jumps, what)
        return arr[:, 0].tolist(), arr[:, 1].tolist()
    if isinstance(jumps, Mapping):
        items: Iterable[Any] = jumps.items()
    elif isinstance(jumps, (str, bytes)) or not isinstance(jumps, Iterable):
        raise TypeError(
            f"{what} must be a mapping square -> destination or pairs, got {type(jumps).__name__}"
        )
    else:
        items = jumps
    items = list(items)
    fast = int_pairs(items)
    if fast is not None:
        return fast
    src, dst = [], []  # (something to report: the first bad item, in the order given)
    for item in items:
        try:
            a, b = item
        except (TypeError, ValueError):
            raise TypeError(f"each of the {what} must be a pair (from, to), got {shown(item)}"
                            ) from None
        src.append(square(a, f"{what} start"))
        dst.append(square(b, f"{what} destination"))
    return src, dst
