"""Board families (issue 15): every family within 3x of the random board, linear in size.

For each size (10^4, 10^5, 10^6) and family of :mod:`benchmarks._families`, a child
process builds the board, warms the kernels up and times ``expected_throws_all`` (the
median of three fresh boards); the note gives the solver's method, its certified
relative error, its CPU time (median of three) against the random family's at the same
size in the same run (issue 53: every family within 3x) and the peak memory of the
child. The baseline, in its own child and the same run: SciPy's
``splu`` on ``I - Q`` restricted to the sure squares, stopped after ``SPLU_TIMEOUT``
seconds; ``I - Q`` built from the board's public description as a SciPy user builds it
(``benchmarks/_baselines.py``, timed apart and given in the note), as ours is timed on a
board already compiled.

Usage: ``PYTHONPATH=. python -m benchmarks --only families [--quick]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from benchmarks._ab import HERE
from benchmarks._util import row

SIZES = (10**4, 10**5, 10**6)
QUICK_SIZES = (10**4,)
SPLU_TIMEOUT = 60

_OURS = """
import json, resource, statistics, sys, time, warnings
from benchmarks._families import FAMILIES
from snl_numeric import Board, expected_throws_all, solver_report
name, n = sys.argv[1], int(sys.argv[2])
expected_throws_all(FAMILIES[name](3000))  # compile the kernels
board = FAMILIES[name](n)
times, cpu = [], []
for _ in range(3):
    b = Board.from_dict(board.to_dict()); b.compiled
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t, c = time.perf_counter(), time.process_time()
        e = expected_throws_all(b)
        times.append(time.perf_counter() - t); cpu.append(time.process_time() - c)
r = solver_report(b)
print(json.dumps({"time": statistics.median(times), "cpu": statistics.median(cpu),
                  "method": r.method, "k": r.backward_targets, "sweeps": r.iterations,
                  "error": r.error_estimate, "e0": float(e[b.start]), "warned": len(caught),
                  "peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""

_SPLU = """
import json, sys, time
import numpy as np, scipy.sparse.linalg as spla
from benchmarks._baselines import board_system, sure_squares
from benchmarks._families import FAMILIES
name, n = sys.argv[1], int(sys.argv[2])
board = FAMILIES[name](n)
t = time.perf_counter()
a, land = board_system(board)
st = sure_squares(land)
if len(st) < n:
    a = a[st][:, st].tocsc()
build = time.perf_counter() - t
t = time.perf_counter()
x = spla.splu(a).solve(np.ones(len(st)))
print(json.dumps({"time": time.perf_counter() - t, "build": build, "e0": float(x[0])}))
"""


def _child(code: str, *args: object, timeout: float | None = None) -> dict | None:
    env = {**os.environ, "PYTHONPATH": HERE + os.pathsep + os.environ.get("PYTHONPATH", "")}
    try:
        proc = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=env, cwd=HERE,
                              capture_output=True, text=True, check=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(proc.stdout)


METHOD = ("ours: expected_throws_all(b) on a board already compiled (b.compiled); "
          "baseline: splu(I - Q).solve(1) on the sure squares, I - Q built beforehand from the "
          "board's public description (_baselines.board_system: NumPy successor table, "
          "coo_array) and the sure set by two csgraph.breadth_first_order searches")


def run(repeats: int = 3, quick: bool = False) -> list[dict]:
    from benchmarks._families import FAMILIES

    rows = []
    for n in QUICK_SIZES if quick else SIZES:
        random_cpu = None
        for name in FAMILIES:
            ours = _child(_OURS, name, n)
            if name == "random":
                random_cpu = ours["cpu"]
            splu = _child(_SPLU, name, n, timeout=SPLU_TIMEOUT)
            note = (f"{ours['method']}, k={ours['k']}, {ours['sweeps']} sweeps, certified rel. "
                    f"error {ours['error']:.1e}, CPU {ours['cpu']:.3g} s = "
                    f"{ours['cpu'] / random_cpu:.1f}x random's (same run), "
                    f"peak RSS {ours['peak_gib']:.2f} GiB"
                    + (f", {ours['warned']} warning(s)" if ours["warned"] else ""))
            if splu is None:
                rows.append(row(f"{name}, n={n:.0e}", ours["time"], "splu on I - Q", None,
                                note + f"; splu: > {SPLU_TIMEOUT} s"))
            else:
                diff = abs(splu["e0"] - ours["e0"]) / abs(ours["e0"])
                rows.append(row(f"{name}, n={n:.0e}", ours["time"], "splu on I - Q",
                                splu["time"], note + f"; rel. diff vs splu {diff:.0e}; "
                                f"the baseline's vectorised build {splu['build']:.3g} s",
                                method=METHOD))
    return rows


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv):
        print(r)
