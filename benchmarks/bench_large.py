"""Huge boards: expected throws and fewest throws from 10^3 to 10^7 squares.

Random boards (``random_board(size, 0.1)``: 10% of squares start a jump, half
of them snakes, fair d6, overshoot wins), three repeats a size, each timed in CSR
mat-vecs of its own board measured right after it. Each size runs in its own
subprocess, so the peak resident memory (``ru_maxrss`` of the child) is that
size's alone (reported through the solve, and again once the benchmark has built the CSR
matrix of its unit, the mat-vec); Numba kernels are warmed up on a small board first. Baselines,
in their own subprocesses: SciPy's ``splu`` on ``I - Q`` and unpreconditioned
``bicgstab`` (rtol 1e-12), up to the sizes where they finish within a minute, given
``I - Q`` built from the board's public description (``benchmarks/_baselines.py``), as
ours is timed on a board already compiled.

Usage: ``PYTHONPATH=. python -m benchmarks.bench_large [--quick]``.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np

from benchmarks._ab import HERE
from benchmarks._util import row

SIZES = (10**3, 10**4, 10**5, 10**6, 10**7)
QUICK_SIZES = (10**3, 10**4, 10**5)
#: splu and bicgstab are run up to this size (splu took ~50 s at 10^5).
BASELINE_MAX = 10**5
QUICK_BASELINE_MAX = 10**4

_OURS = """
import json, sys, time
import numpy as np
from snl_numeric import expected_throws_all, throw_distances, solver_report
from snl_numeric.boards import random_board
w = random_board(60_000, 0.1, rng=2)  # large enough for the Numba path (3000: NumPy's)
expected_throws_all(w); throw_distances(w); random_board(60_000, 0.1, rng=2).compiled
del w
import resource
n, repeats = int(sys.argv[1]), int(sys.argv[2])
out = {"build": [], "mean": [], "dist": [], "matvec": []}
for r in range(repeats):
    b = None  # one board at a time: the peak is one board's
    t = time.perf_counter(); b = random_board(n, 0.1, rng=1); b.compiled
    out["build"].append(time.perf_counter() - t)
    t = time.perf_counter(); throw_distances(b)
    out["dist"].append(time.perf_counter() - t)
    b = None
    b = random_board(n, 0.1, rng=1); b.compiled
    t = time.perf_counter(); e = expected_throws_all(b)
    out["mean"].append(time.perf_counter() - t)
    if r == 0:  # before any CSR matrix is built
        rep = solver_report(b)
        out["report"] = [rep.method, rep.backward_targets, rep.iterations, rep.error_estimate]
        out["solve_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    q, x = b.compiled.matrix, np.ones(n + 1)  # the unit of issue 25: one CSR mat-vec,
    mv = []  # timed after each repeat's solve (the machine's speed drifts)
    for _ in range(7):
        t = time.perf_counter(); q @ x; mv.append(time.perf_counter() - t)
    out["matvec"].append(sorted(mv)[3])
    q = None
out["e0"] = float(e[0])
out["peak_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(json.dumps(out))
"""

_BASE = """
import json, sys, time
import numpy as np, scipy.sparse.linalg as spla
from benchmarks._baselines import board_system, sure_squares
from snl_numeric.boards import random_board
n, which = int(sys.argv[1]), sys.argv[2]
b = random_board(n, 0.1, rng=1)
a, land = board_system(b)  # I - Q from the board's public description, vectorised
st = sure_squares(land)
if len(st) < n:
    a = a[st][:, st].tocsc()
ones = np.ones(len(st))
t = time.perf_counter()
if which == "splu":
    x = spla.splu(a).solve(ones)
else:
    x, info = spla.bicgstab(a, ones, rtol=1e-12, maxiter=100000)
print(json.dumps({"time": time.perf_counter() - t, "e0": float(x[0])}))
"""


def _child(code: str, *args: object) -> dict:
    """Run ``code`` in a fresh interpreter; its JSON output (peak RSS: the child's own
    ``getrusage(RUSAGE_SELF).ru_maxrss``, so one size's memory is never mixed with
    another child's)."""
    env = {**os.environ, "PYTHONPATH": HERE + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                          text=True, check=True, env=env, cwd=HERE)
    return json.loads(proc.stdout)


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    sizes = QUICK_SIZES if quick else SIZES
    base_max = QUICK_BASELINE_MAX if quick else BASELINE_MAX
    rows, times = [], []
    for n in sizes:
        reps = 1 if quick else max(1, min(repeats, 3))
        ours = _child(_OURS, n, reps)
        peak, solve_peak = ours["peak_gib"], ours["solve_gib"]
        t_mean = float(np.median(ours["mean"]))
        times.append((n, t_mean))
        method, k, its, res = ours["report"]
        # in mat-vecs: each repeat against the mat-vec timed after it, the median
        mvs = np.array(ours["matvec"])
        mv = float(np.median(mvs))
        t_build, t_dist = float(np.median(ours["build"])), float(np.median(ours["dist"]))
        in_mv = np.median(np.array(ours["mean"]) / mvs)
        with_build = np.median((np.array(ours["build"]) + np.array(ours["mean"])) / mvs)
        dist_mv = np.median(np.array(ours["dist"]) / mvs)
        note = (f"peak RSS {solve_peak:.2f} GiB (with the CSR matrix of the mat-vec unit "
                f"{peak:.2f}); {method}, k={k}, {its} sweeps, "
                f"certified rel. error {res:.1e}; build+compile {t_build:.2f} s; in mat-vecs "
                f"({mv * 1e3:.3g} ms; median of {len(mvs)} run{'s' * (len(mvs) > 1)}): solve {in_mv:.0f}, "
                f"build + solve {with_build:.0f}")
        if n <= base_max:
            splu = _child(_BASE, n, "splu")
            bicg = _child(_BASE, n, "bicgstab")
            agree = abs(splu["e0"] - ours["e0"]) / abs(splu["e0"])
            how = ("ours: expected_throws_all(b) on random_board(n, 0.1, rng=1) already "
                   "compiled; baseline: I - Q built beforehand from the board's public "
                   "description (_baselines.board_system, sure_squares), then ")
            rows.append(row(f"expected_throws_all n={n:.0e}", t_mean, "splu on I-Q",
                            splu["time"], note + f"; rel. diff vs splu {agree:.1e}",
                            method=how + "splu(I - Q).solve(1)"))
            rows.append(row(f"expected_throws_all n={n:.0e}", t_mean, "bicgstab (no precond.)",
                            bicg["time"], "",
                            method=how + "bicgstab(I - Q, 1, rtol=1e-12)"))
        else:
            rows.append(row(f"expected_throws_all n={n:.0e}", t_mean, None, None,
                            note + "; baselines skipped (splu ~50 s at 1e5, >10 min at 1e6)"))
        rows.append(row(f"throw_distances n={n:.0e}", t_dist, None, None,
                        f"BFS from the goal, table reversed in place; {dist_mv:.1f} mat-vecs"))
    if len(times) >= 2:
        x = np.log([n for n, _ in times[1:]])
        y = np.log([t for _, t in times[1:]])
        slope = float(np.polyfit(x, y, 1)[0])
        rows.append(row("scaling exponent (log t vs log n, n>=1e4)", math.nan, None, None,
                        f"time ~ n^{slope:.2f}"))
    return rows


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv):
        print(r)
