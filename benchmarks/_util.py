"""Timing helpers shared by the benchmark modules.

Every benchmark module ``bench_*.py`` defines ``run(repeats=5) -> list[dict]``
returning rows with the keys ``benchmark``, ``ours_s``, ``baseline``,
``baseline_s``, ``ratio`` (``baseline_s / ours_s``) and ``note``, and where measured
``ours_cpu_s``, ``baseline_cpu_s`` (process CPU time, every thread's) and ``method``
(the code each side runs, as the performance page quotes it). Times are medians over
``repeats`` runs, measured in the same process and run as the baseline they are
compared with.
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


def median_times(fn: Callable[[], Any], repeats: int = 5,
                 number: int = 1) -> tuple[float, float]:
    """Median wall and CPU time of ``number`` calls of ``fn`` over ``repeats`` runs."""
    return interleaved_times({"fn": (fn, number)}, repeats)["fn"]


def interleaved(contenders: dict[str, tuple[Callable[[], Any], int]],
                rounds: int = 5) -> dict[str, float]:
    """Median wall time per call of each contender (see :func:`interleaved_times`)."""
    return {name: wall for name, (wall, _) in interleaved_times(contenders, rounds).items()}


def interleaved_times(contenders: dict[str, tuple[Callable[[], Any], int]],
                      rounds: int = 5) -> dict[str, tuple[float, float]]:
    """Median wall and CPU time per call of each contender ``name: (fn, number)``
    (``(wall, cpu)``; CPU time is the process's, every thread's), timed in turn
    in every round (``number`` calls each, the order rotating from round to round). A
    drift of the machine's speed during the run then slows every contender alike, so
    their ratios hold where medians timed one after the other would not (on a shared
    host, the same code timed back to back moved by up to 1.4x)."""
    names = list(contenders)
    times: dict[str, list[float]] = {name: [] for name in names}
    cpus: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            fn, number = contenders[name]
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(number):
                fn()
            cpus[name].append((time.process_time() - c0) / number)
            times[name].append((time.perf_counter() - t0) / number)
    return {name: (statistics.median(times[name]), statistics.median(cpus[name]))
            for name in names}


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
        baseline_s: float | None = None, note: str = "", *, ours_cpu_s: float | None = None,
        baseline_cpu_s: float | None = None, method: str = "") -> dict[str, Any]:
    """One result row; ``ratio`` is of wall times, ``cpu_ratio`` of CPU times."""
    ratio = baseline_s / ours_s if baseline_s is not None and ours_s > 0 else None
    out = {"benchmark": benchmark, "ours_s": ours_s, "baseline": baseline,
           "baseline_s": baseline_s, "ratio": ratio, "note": note}
    if ours_cpu_s is not None:
        out["ours_cpu_s"] = ours_cpu_s
        out["baseline_cpu_s"] = baseline_cpu_s
        out["cpu_ratio"] = (baseline_cpu_s / ours_cpu_s
                            if baseline_cpu_s is not None and ours_cpu_s > 0 else None)
    if method:
        out["method"] = method
    return out


def pair_times(ours, base, reps: int) -> dict:
    """Wall and CPU times of ``ours`` and ``base`` (one call each a round, in turn) as
    :func:`pair_row` takes them."""
    t = interleaved_times({"base": (base, 1), "ours": (ours, 1)}, reps)
    return {"ours_s": t["ours"][0], "baseline_s": t["base"][0], "ours_cpu_s": t["ours"][1],
            "baseline_cpu_s": t["base"][1]}


def pair_row(name: str, t: dict, baseline: str, note: str, method: str) -> dict:
    """A :func:`row` from :func:`pair_times`."""
    return row(name, t["ours_s"], baseline, t["baseline_s"], note,
               ours_cpu_s=t["ours_cpu_s"], baseline_cpu_s=t["baseline_cpu_s"], method=method)
