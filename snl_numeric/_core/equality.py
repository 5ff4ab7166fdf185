"""Value equality for the frozen result dataclasses (whose array fields ``==`` cannot
compare): two results are equal when they are of the same class and every field is equal,
arrays element by element (NaN equal to NaN, as the same answer computed twice), floats
likewise, nested results and tuples field by field; a field declared
``field(compare=False)`` (a wall time) is left out. Results are then unhashable (like the
arrays they hold): equal values with different hashes would break sets and dicts.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

__all__ = ["same_value", "value_eq"]


def same_value(a: Any, b: Any) -> bool:
    """Whether two field values are equal as answers.

    Examples
    --------
    >>> same_value(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
    True
    >>> same_value((1, float("nan")), (1, float("nan"))), same_value(1.0, 2.0)
    (True, False)
    """
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(
            same_value(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
            if f.compare)
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        return type(a) is type(b) and len(a) == len(b) and all(
            same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    return bool(a == b)


def value_eq(self: Any, other: object) -> bool:
    """``__eq__`` of a result dataclass: same class, every field :func:`same_value`."""
    if type(other) is not type(self):
        return NotImplemented
    return same_value(self, other)
