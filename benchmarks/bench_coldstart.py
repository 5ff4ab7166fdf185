"""Cold start (issue 16): every entry point's first call in a fresh process.

Each row runs one entry point in new Python processes:

- *cold*: an empty Numba cache directory (``NUMBA_CACHE_DIR`` set to a new
  temporary directory), so the first call compiles every kernel it needs;
  the time runs from after ``import snl_numeric`` to the answer (building
  the board included);
- *cached*: a fresh process again, with the cache the cold run filled: what
  every later process pays (kernels loaded from disk);
- *warm*: the second call in the cold process (nothing compiled or loaded).

Times are medians over ``repeats`` fresh processes (each cold one with its own
empty cache). The goal: every cold first call under 5 s on 2 cores (design
under 8 s), with no loss of warm speed. ``python -m benchmarks.bench_coldstart
[--quick] [NAME ...]`` runs it alone.

With ``SNL_BENCH_BASE`` naming an older tree (a ``git worktree`` of a commit), the
Numba entry points (:data:`AB_ENTRY_POINTS`) are also timed cold in that tree, the
two trees alternating process by process, and compared (issue 24: at most 1.25x).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Any

from benchmarks._ab import HERE, label, tree
from benchmarks._util import row

_MAZE = ("[[3,4,4,4,7,3,4,6,3],[6,7,5,6,6,2,6,6,2],[3,3,4,3,2,5,4,7,2],[6,5,5,1,2,3,6,5,6],"
         "[3,3,4,3,0,1,4,3,4],[3,5,4,3,2,1,3,3,5],[3,5,4,3,2,6,4,4,3],[3,5,1,3,7,5,3,6,3],"
         "[6,2,4,3,4,5,4,5,1]]")

#: name -> (setup, call): ``call`` is timed twice (cold, then warm); ``setup`` runs
#: before the first call and is counted in the cold time (it may compile too).
ENTRY_POINTS: dict[str, tuple[str, str]] = {
    "analyze": ("from snl_numeric import analyze, boards",
                "analyze(boards.get('milton-bradley'))"),
    "min_throws": ("from snl_numeric import min_throws, boards",
                   "min_throws(boards.get('milton-bradley'))"),
    "win_probabilities": ("from snl_numeric import win_probabilities, boards",
                          "win_probabilities(boards.get('milton-bradley'), 2)"),
    "simulate": ("from snl_numeric import simulate, boards",
                 "simulate(boards.get('milton-bradley'), 10**6, rng=42)"),
    "analyze_many": (
        "from snl_numeric import analyze_many\n"
        "from snl_numeric.batch import random_batch",
        "analyze_many(random_batch(1000, 100, snakes=10, ladders=10, rng=0),"
        " columns=['min_throws', 'mean', 'variance', 'median'])"),
    "optimal_policy": ("from snl_numeric import optimal_policy, boards",
                       "optimal_policy(boards.get('milton-bradley'), ['1-3', '4-6'])"),
    "finish_within": ("from snl_numeric import finish_within, boards",
                      "finish_within(boards.get('milton-bradley'), ['1-3', '4-6'], 30)"),
    "design_board": ("from snl_numeric import design_board",
                     "design_board(100, snakes=10, ladders=10, objective='max',"
                     " iterations=2000, chains=8, rng=3)"),
    "maze": ("from snl_numeric import maze",
             f"maze.corner_paths({_MAZE})"),
    "optimal_race": ("from snl_numeric import optimal_race, boards",
                     "optimal_race(boards.get('milton-bradley'), ['1-3', '4-6'])"),
    "large-board solve": (
        "from snl_numeric import expected_throws_all\n"
        "from snl_numeric.boards import random_board\n"
        "b = random_board(10**5, 0.1, rng=1)",
        "expected_throws_all(b.replace())"),
}

#: The entry points whose cold first calls are compared with an older tree.
AB_ENTRY_POINTS = ("analyze_many", "design_board", "simulate", "optimal_race",
                   "large-board solve")

_CHILD = """
import json, sys, time
t0 = time.perf_counter()
import snl_numeric
t1 = time.perf_counter()
{setup}
r = {call}
t2 = time.perf_counter()
r = {call}
t3 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "first": t2 - t1, "second": t3 - t2}}))
"""


def time_entry_point(name: str, cache_dir: str, env: dict[str, str] | None = None,
                     tree: str | None = None) -> dict[str, float]:
    """``{"import", "first", "second"}`` seconds of ``name`` in a fresh process importing
    ``snl_numeric`` from ``tree`` (default: this tree). The process starts in the home
    directory, as :func:`benchmarks._ab.run_in`'s do: ``python -c`` puts its working
    directory first on the path, so started from a worktree it would import that
    worktree's package whatever ``PYTHONPATH`` says."""
    setup, call = ENTRY_POINTS[name]
    code = _CHILD.format(setup=setup, call=call)
    child_env = {**os.environ, **(env or {}), "NUMBA_CACHE_DIR": cache_dir,
                 "PYTHONPATH": tree or HERE}
    out = subprocess.run([sys.executable, "-c", code], env=child_env, capture_output=True,
                         text=True, check=True, timeout=900, cwd=os.path.expanduser("~"))
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(name: str, repeats: int = 3) -> dict[str, Any]:
    """Medians over ``repeats`` fresh processes: cold first call, cached first call, warm."""
    cold, cached, warm, imports = [], [], [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="snl-cold-") as cache:
            t = time_entry_point(name, cache)
            cold.append(t["first"])
            warm.append(t["second"])
            imports.append(t["import"])
            cached.append(time_entry_point(name, cache)["first"])
    med = statistics.median
    return {"name": name, "cold": med(cold), "cached": med(cached), "warm": med(warm),
            "import": med(imports), "cold_all": cold}


def cold_ab(name: str, base: str, repeats: int = 3) -> tuple[list[float], list[float]]:
    """Cold first calls of ``name`` in this tree and in ``base``, alternating."""
    ours, theirs = [], []
    for r in range(repeats):
        order = [(HERE, ours), (base, theirs)]
        for path, sink in (order if r % 2 == 0 else order[::-1]):
            with tempfile.TemporaryDirectory(prefix="snl-cold-") as cache:
                sink.append(time_entry_point(name, cache, tree=path)["first"])
    return ours, theirs


def warmup_seconds(processes: int | None = None) -> float:
    """``snl_numeric.warmup()`` (every kernel) in a fresh process with an empty cache."""
    code = ("import json, time, snl_numeric\nt = time.perf_counter()\n"
            f"snl_numeric.warmup(processes={processes!r})\n"
            "print(json.dumps(time.perf_counter() - t))")
    with tempfile.TemporaryDirectory(prefix="snl-cold-") as cache:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "NUMBA_CACHE_DIR": cache}, check=True,
                             timeout=1800)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(repeats: int = 3, quick: bool = False, names: list[str] | None = None) -> list[dict]:
    rows = []
    for name in names or list(ENTRY_POINTS):
        m = measure(name, 1 if quick else repeats)
        goal = 8.0 if name == "design_board" else 5.0
        rows.append(row(
            f"cold first call: {name}", m["cold"], "goal (ratio >= 1: met)", goal,
            note=(f"warm {m['warm'] * 1e3:.3g} ms, cached (new process) {m['cached']:.3g} s, "
                  f"import {m['import']:.2f} s; cold runs "
                  f"{', '.join(f'{t:.2f}' for t in m['cold_all'])} s")))
    base = tree("SNL_BENCH_BASE")
    if base:
        for name in [n for n in AB_ENTRY_POINTS if names is None or n in names]:
            ours, theirs = cold_ab(name, base, 1 if quick else repeats)
            med = statistics.median
            rows.append(row(
                f"A/B cold first call: {name}", med(ours), f"same at {label(base)}",
                med(theirs), note=f"ours/base {med(ours) / med(theirs):.2f} (goal <= 1.25); "
                                  f"runs {', '.join(f'{t:.2f}' for t in ours)} s vs "
                                  f"{', '.join(f'{t:.2f}' for t in theirs)} s"))
    if names is None:
        serial = warmup_seconds(1)
        parallel = warmup_seconds()
        rows.append(row("snl warmup, every kernel, empty cache", parallel,
                        "the same in one process", serial,
                        note=f"{os.cpu_count()} processes vs 1"))
    return rows


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    for r in run(quick="--quick" in sys.argv, names=args or None):
        print(f"{r['benchmark']:<40} {r['ours_s']:7.2f} s (goal {r['baseline_s']:g} s)   "
              f"{r['note']}", flush=True)
