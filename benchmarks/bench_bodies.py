"""The two bodies of the fundamental system on ordinary boards (issue 53): the direct
solver (SciPy's SuperLU, nothing compiled) against the structured solver (Numba sweeps and
a low-rank correction), forced by ``snl_numeric.options(path=...)``.

Each row times ``expected_throws`` on a fresh board (``Board.from_dict`` of the board's
description, every call, as a user's loop builds it) under each path, interleaved in one
process, CPU time, median over the repeats, the kernels already compiled ("ours" is the
structured body, the "baseline" the direct one: ``ratio`` > 1 where the structured body
is faster). The note gives the largest relative difference between the two bodies'
expected throws over the board's squares and each one's certified error
(``solver_report``): the size rule of ``snl_numeric._core.sizes`` may move only where
both the warm time and the answers allow it.

The SuperLU rows split the direct body's factorisation (``spla.splu`` of its ``I - Q``,
SciPy's default COLAMD ordering) into its column ordering and the rest: the same matrix
with its rows and columns permuted as that factorisation permuted them (``perm_r``,
``perm_c``) factorised with ``permc_spec="NATURAL"`` finds the same pivots and the same
fill without ordering anything; and ``panel_size=1, relax=1`` (branch ``lu53``). Neither
rounds as the direct body does: the note gives the largest relative difference of the
expected throws.

The cold rows run fresh processes: the first ``expected_throws`` on a 1,000-square board
through each body, with an empty Numba cache (every kernel compiled) and with the cache
the first run left (kernels loaded from disk), CPU seconds including nothing but that
call, and the compilations counted through ``numba.core.event``.

Usage: ``PYTHONPATH=. python -m benchmarks.bench_bodies [--quick]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from benchmarks._ab import HERE
from benchmarks._families import FAMILIES
from benchmarks._util import interleaved_times, row

#: The largest ordinary board of a d6: 5,000 states x 6 faces = 30,000 table entries.
ORDINARY_SQUARES = 4999

_COLD = r"""
import json, sys, time
from numba.core import event
from snl_numeric import Board, expected_throws, options
from snl_numeric.boards import random_board
d = random_board(1000, 0.1, rng=1).to_dict()
count = [0]
class Count(event.Listener):
    def on_start(self, ev): count[0] += 1
    def on_end(self, ev): pass
with event.install_listener("numba:compile", Count()), options(path=sys.argv[1]):
    board = Board.from_dict(d)
    c = time.process_time(); expected_throws(board); c = time.process_time() - c
print(json.dumps({"cpu": c, "compiles": count[0]}))
"""


def _cold(path: str, cache: str) -> dict:
    env = {**os.environ, "PYTHONPATH": HERE, "NUMBA_CACHE_DIR": cache, "SNL_QUIET": "1"}
    out = subprocess.run([sys.executable, "-c", _COLD, path], env=env, capture_output=True,
                         text=True, check=True, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _warm(family: str, size: int, repeats: int) -> dict:
    from snl_numeric import Board, expected_throws, expected_throws_all, options, solver_report

    desc = FAMILIES[family](size).to_dict()
    number = max(1, 3000 // size)

    def timed(path: str):
        def call() -> None:
            with options(path=path):
                expected_throws(Board.from_dict(desc))
        call()  # (compiled once)
        return call, number

    t = interleaved_times({"direct": timed("direct"), "structured": timed("structured")},
                          repeats)
    answers, errors = {}, {}
    for path in ("direct", "structured"):
        with options(path=path):
            board = Board.from_dict(desc)
            answers[path] = np.asarray(expected_throws_all(board))
            errors[path] = solver_report(board).error_estimate
    x, y = answers["direct"], answers["structured"]
    finite = np.isfinite(x) & (x > 0.0)
    diff = float(np.max(np.abs(y[finite] - x[finite]) / x[finite]))
    return row(f"expected_throws, fresh board, {family}, {size:,} squares, structured body",
               t["structured"][0], "direct body (SuperLU)", t["direct"][0],
               f"bodies differ by {diff:.1e} relative; certified {errors['direct']:.1e} "
               f"(direct), {errors['structured']:.1e} (structured)",
               ours_cpu_s=t["structured"][1], baseline_cpu_s=t["direct"][1],
               method="expected_throws(Board.from_dict(d)) under options(path='structured') "
                      "against path='direct', kernels compiled")


def _superlu(size: int, repeats: int) -> list[dict]:
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla

    from snl_numeric.boards import random_board
    from snl_numeric.chain import fundamental

    solver = fundamental(random_board(size, 0.1, rng=1).compiled)
    a = solver._sparse().tocsc()  # (the table's rows; two faces that meet summed)
    a.sum_duplicates()
    n = a.shape[0]
    lu = spla.splu(a)
    rows = sp.csc_matrix((np.ones(n), (lu.perm_r, np.arange(n))))
    cols = sp.csc_matrix((np.ones(n), (np.arange(n), lu.perm_c)))
    b = (rows @ a @ cols).tocsc()
    b.sort_indices()
    ones = np.ones(n)
    x = lu.solve(ones)
    natural = spla.splu(b, permc_spec="NATURAL")
    panels = spla.splu(a, panel_size=1, relax=1)

    def differ(y: np.ndarray) -> float:
        return float(np.max(np.abs(y - x) / x))

    t = interleaved_times({"colamd": (lambda: spla.splu(a), 3),
                           "natural": (lambda: spla.splu(b, permc_spec="NATURAL"), 3),
                           "panels": (lambda: spla.splu(a, panel_size=1, relax=1), 3)},
                          repeats)
    fill = lu.L.nnz + lu.U.nnz
    return [
        row(f"SuperLU of I - Q, {size:,} squares: factorisation without the ordering",
            t["natural"][0], "splu, COLAMD (the direct body)", t["colamd"][0],
            f"fill {natural.L.nnz + natural.U.nnz:,} (COLAMD: {fill:,}); answers differ by "
            f"{differ(cols @ natural.solve(rows @ ones)):.1e}",
            ours_cpu_s=t["natural"][1], baseline_cpu_s=t["colamd"][1],
            method="splu(Pr A Pc, permc_spec='NATURAL') against splu(A)"),
        row(f"SuperLU of I - Q, {size:,} squares: panel_size=1, relax=1",
            t["panels"][0], "splu, COLAMD (the direct body)", t["colamd"][0],
            f"fill {panels.L.nnz + panels.U.nnz:,}; answers differ by "
            f"{differ(panels.solve(ones)):.1e}",
            ours_cpu_s=t["panels"][1], baseline_cpu_s=t["colamd"][1],
            method="splu(A, panel_size=1, relax=1) against splu(A)"),
    ]


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    cases = ([("random", 300), ("random", 1000)] if quick else
             [("random", 300), ("random", 1000), ("random", 3000), ("random", ORDINARY_SQUARES),
              ("short snakes", 1000), ("short snakes", ORDINARY_SQUARES)])
    rows = [_warm(family, size, repeats) for family, size in cases]
    for size in (300, 1000) if quick else (300, 1000, 3000):
        rows += _superlu(size, repeats)
    if not quick:
        with tempfile.TemporaryDirectory(prefix="snl-bodies-") as cache:
            direct = _cold("direct", cache)
            empty = _cold("structured", cache)
            loaded = _cold("structured", cache)
        rows.append(row("first expected_throws in a process, 1,000 squares, structured body",
                        loaded["cpu"], "direct body (SuperLU)", direct["cpu"],
                        f"empty Numba cache: {empty['cpu']:.2f} s CPU, {empty['compiles']} "
                        f"compilations; cache filled: {loaded['cpu']:.2f} s, "
                        f"{loaded['compiles']}; direct: {direct['compiles']}",
                        ours_cpu_s=loaded["cpu"], baseline_cpu_s=direct["cpu"],
                        method="one call in a fresh process (imports done), CPU seconds"))
    return rows


if __name__ == "__main__":
    for r in run(3, quick="--quick" in sys.argv):
        print(r["benchmark"], f"{r['ours_cpu_s'] * 1e3:.3f} ms vs "
              f"{r['baseline_cpu_s'] * 1e3:.3f} ms", r["note"])
