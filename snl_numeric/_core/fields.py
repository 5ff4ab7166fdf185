"""The parsers of a board's fields: squares, jumps, rule names and the capture rule.

Each takes a value as a user or a board file gives it and returns it checked for its type
(a ``TypeError`` naming the value) and, where no other field is needed, its value (a
``ValueError``); the rules that tie fields together (squares within ``size``, jump cycles)
are :func:`~snl_numeric._core.validation.board_problem`'s. :class:`~snl_numeric.Board`
and its file reader share them.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard

import numpy as np

from .validation import INT64_MAX, OVERSHOOT_RULES, choice, int_array, integer, shown

#: The capture rule's names: ``None`` (players never interact), ``"start"``, or an int k.
CAPTURE_START = "start"


_SEQUENCES = frozenset({tuple, list})
_INT = frozenset({int})
_TWO = frozenset({2})


def python_int_pairs(items: list[Any]) -> tuple[list[int], list[int]] | None:
    """``(src, dst)`` of pairs given as tuples or lists of two Python ints (a board dict's
    jumps, a mapping's items), or None for anything else (bools, NumPy integers, other
    shapes, integers beyond int64), which the caller reads one by one to name a bad one.

    Examples
    --------
    >>> python_int_pairs([(5, 15), [12, 2]])
    ([5, 12], [15, 2])
    >>> python_int_pairs([(True, 3)]) is None, python_int_pairs([(1, 2, 3)]) is None
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
    fast = python_int_pairs(items)
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


def directed_jumps(snakes: Any, ladders: Any) -> tuple[list[int], list[int]]:
    """Snakes (must go down) and ladders (must go up) as one list of jumps."""
    s_src, s_dst = jump_pairs(snakes, "snakes")
    l_src, l_dst = jump_pairs(ladders, "ladders")
    for s, d in zip(s_src, s_dst, strict=True):
        if d >= s:
            raise ValueError(f"snake {s}->{d} goes {'up' if d > s else 'nowhere'}; "
                             "snakes must go down")
    for s, d in zip(l_src, l_dst, strict=True):
        if d <= s:
            raise ValueError(f"ladder {s}->{d} goes {'down' if d < s else 'nowhere'}; "
                             "ladders must go up")
    return s_src + l_src, s_dst + l_dst


def json_int(key: Any, what: str) -> int:
    """An integer key of a JSON object (JSON keys are strings)."""
    if isinstance(key, str):
        text = key.strip()
        digits = text[1:] if text[:1] in "+-" else text
        if digits.isdigit() and digits.isascii():
            if len(digits) > 100:  # far beyond int64; never parse a huge number
                raise ValueError(f"{what} must fit in a 64-bit integer, got {shown(key)}")
            return square(int(text), what)
        raise TypeError(f"{what} must be an integer, got {shown(key)}")
    return square(key, what)


def file_jumps(jumps: Any, what: str) -> Any:
    """Jumps as a board file gives them (``jumps``, ``snakes`` or ``ladders``): a JSON
    object's keys, strings, read as squares; anything else as given, for
    :func:`jump_pairs`.

    Examples
    --------
    >>> file_jumps({"16": 6, "47": 26}, "snakes"), file_jumps([[16, 6]], "snakes")
    ([(16, 6), (47, 26)], [[16, 6]])
    """
    if isinstance(jumps, Mapping):  # JSON objects have string keys
        return [(json_int(s, f"{what} start"), d) for s, d in jumps.items()]
    return jumps


#: A board file's dice as two lists: ``{"faces": [...], "probs": [...]}``.
DICE_LISTS = frozenset({"faces", "probs"})


def dice_lists(dice: Any) -> TypeGuard[Mapping[str, Any]]:
    """Whether a board file's ``dice`` is ``{"faces": [...], "probs": [...]}``; a
    ``ValueError`` saying what is missing (or extra) when it names only one of the two
    lists, or either with other keys (read as faces, they made no sense).

    Examples
    --------
    >>> dice_lists({"faces": [1, 2], "probs": [0.5, 0.5]}), dice_lists({"1": 1.0})
    (True, False)
    """
    if not isinstance(dice, Mapping) or not any(k in dice for k in DICE_LISTS):
        return False
    keys = set(dice)
    if keys == DICE_LISTS:
        return True
    missing = sorted(DICE_LISTS - keys)
    other = sorted(map(repr, keys - DICE_LISTS))
    raise ValueError(
        "dice as lists must be {'faces': [...], 'probs': [...]} (a probability per face), "
        + (f"missing {' and '.join(map(repr, missing))}" if missing else "")
        + ("; " if missing and other else "") + (f"with other keys {', '.join(other)}"
                                                 if other else "")
        + "; or give a mapping face -> probability such as {\"1\": 0.5, \"2\": 0.5}")


def overshoot_rule(value: Any) -> str:
    return choice(value, "overshoot", OVERSHOOT_RULES)


def label(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"name must be a string, got {shown(value)}")
    return value


def capture_value(value: Any) -> str | int | None:
    """The capture rule: ``None``, ``"start"`` or a whole number ``k >= 1`` (back k squares).

    Examples
    --------
    >>> capture_value("start"), capture_value(3), capture_value(None)
    ('start', 3, None)
    >>> capture_value(0)
    Traceback (most recent call last):
    ...
    ValueError: capture must be None, 'start' or a number of squares k >= 1, got 0
    """
    if value is None or type(value) is str and value == CAPTURE_START:
        return value
    if isinstance(value, str):
        raise ValueError(f"capture must be None, 'start' or a number of squares k >= 1, "
                         f"got {shown(value)}")
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"capture must be None, 'start' or an integer k >= 1, got {shown(value)}")
    k = integer(value, "capture")
    if k < 1:
        raise ValueError(f"capture must be None, 'start' or a number of squares k >= 1, got {k}")
    return k


def safe_squares(value: Any, size: int, capture: str | int | None) -> tuple[int, ...]:
    """The safe squares as a sorted tuple of distinct squares in ``1 .. size - 1``; safe
    squares without a capture rule are an error.

    Examples
    --------
    >>> safe_squares([9, 4, 9], 10, "start")
    (4, 9)
    >>> safe_squares([4], 10, None)
    Traceback (most recent call last):
    ...
    ValueError: safe squares [4] need a capture rule (capture='start' or k); got capture=None
    """
    if value is None or type(value) is tuple and not value:  # (the common case, fast)
        return ()
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise TypeError(f"safe must be a collection of squares, got {shown(value)}")
    out = sorted({square(v, "safe square") for v in value})
    if out and capture is None:
        raise ValueError(f"safe squares {out} need a capture rule (capture='start' or k); "
                         "got capture=None")
    bad = [v for v in out if not 1 <= v <= size - 1]
    if bad:
        raise ValueError(f"safe square {bad[0]} is not a square in 1..{size - 1} (the start "
                         "square and the goal are always safe)" if size > 1 else
                         f"safe square {bad[0]}: a board of size {size} has no square between "
                         "the start and the goal")
    return tuple(out)
