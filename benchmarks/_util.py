"""Timing helpers shared by the benchmark modules.

Every benchmark module ``bench_*.py`` defines ``run(repeats=5) -> list[dict]``
returning rows with the keys ``benchmark``, ``ours_s``, ``baseline``,
``baseline_s``, ``ratio`` (``baseline_s / ours_s``) and ``note``. Times are
medians over ``repeats`` runs, measured in the same process and run as the
baseline they are compared with.
"""

from __future__ import annotations

import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any


def median_time(fn: Callable[[], Any], repeats: int = 5, number: int = 1) -> float:
    """Median wall time of ``number`` calls of ``fn`` over ``repeats`` runs, per call."""
    return interleaved({"fn": (fn, number)}, repeats)["fn"]


def interleaved(contenders: dict[str, tuple[Callable[[], Any], int]],
                rounds: int = 5) -> dict[str, float]:
    """Median wall time per call of each contender ``name: (fn, number)``, timed in turn
    in every round (``number`` calls each, the order rotating from round to round). A
    drift of the machine's speed during the run then slows every contender alike, so
    their ratios hold where medians timed one after the other would not (on a shared
    host, the same code timed back to back moved by up to 1.4x)."""
    names = list(contenders)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            fn, number = contenders[name]
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            times[name].append((time.perf_counter() - t0) / number)
    return {name: statistics.median(ts) for name, ts in times.items()}


def peak_python_memory(fn: Callable[[], Any]) -> tuple[Any, int]:
    """Result of ``fn()`` and the peak bytes allocated through Python/NumPy meanwhile."""
    tracemalloc.start()
    try:
        out = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, peak


def row(benchmark: str, ours_s: float, baseline: str | None = None,
        baseline_s: float | None = None, note: str = "") -> dict[str, Any]:
    """One result row."""
    ratio = baseline_s / ours_s if baseline_s is not None and ours_s > 0 else None
    return {"benchmark": benchmark, "ours_s": ours_s, "baseline": baseline,
            "baseline_s": baseline_s, "ratio": ratio, "note": note}
