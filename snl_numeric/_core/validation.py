"""One validator per rule, shared by every public function (private layer)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

#: Default tail mass left out of game-length distributions.
DEFAULT_TAIL = 1e-12
#: Default cap on the number of throws a distribution will follow.
DEFAULT_MAX_THROWS = 10_000_000


def check_tail(tail: float, max_throws: int = DEFAULT_MAX_THROWS) -> float:
    """Validate the ``tail`` and ``max_throws`` options of distribution calls."""
    if isinstance(tail, bool) or not isinstance(tail, numbers.Real):
        raise TypeError(f"tail must be a number, got {tail!r}")
    if not 0.0 < tail < 1.0:
        raise ValueError(f"tail must be a probability in (0, 1), got {tail!r}")
    if isinstance(max_throws, bool) or not isinstance(max_throws, (int, np.integer)):
        raise TypeError(f"max_throws must be an integer, got {max_throws!r}")
    if max_throws < 1:
        raise ValueError(f"max_throws must be at least 1, got {max_throws}")
    return float(tail)


def positive_int(value: Any, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be at least {low}, got {value}")
    return int(value)


def seed_sequence(rng: Any) -> np.random.SeedSequence:
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, (np.random.Generator, np.random.BitGenerator)):
        gen = np.random.default_rng(rng)
        return np.random.SeedSequence(int.from_bytes(gen.bytes(16), "little"))
    if isinstance(rng, bool):
        raise TypeError(f"rng must be None, an integer seed, a SeedSequence or a Generator, "
                        f"got {rng!r}")
    if rng is None or isinstance(rng, numbers.Integral):
        return np.random.SeedSequence(None if rng is None else int(rng))
    raise TypeError(f"rng must be None, an integer seed, a SeedSequence or a Generator, "
                    f"got {type(rng).__name__}")
