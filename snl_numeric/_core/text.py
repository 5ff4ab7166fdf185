"""Small text helpers shared by results, displays and plots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def label(i: int) -> str:
    return chr(ord("A") + i) if 0 <= i < 26 else str(i)


def dice_text(d: Any) -> str:
    f = d.faces
    if len(f) > 1 and np.all(np.diff(f) == 1) and np.all(d.probs == d.probs[0]):
        return f"{f[0]}-{f[-1]}"
    if d.is_fair():
        return f"{f[0]}-{f[-1]}" if len(f) > 1 else "1"
    return ",".join(f"{int(a)}:{float(q):.4g}" for a, q in zip(f, d.probs, strict=True))


def n_dice(actions: Sequence[Any]) -> str:
    return "1 die" if len(actions) == 1 else f"{len(actions)} dice"


def few(items: list[int], k: int = 8) -> str:
    head = ", ".join(map(str, items[:k]))
    return head + (f", ... ({len(items)} squares)" if len(items) > k else "")
