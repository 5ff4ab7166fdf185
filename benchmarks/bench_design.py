"""Board design: candidate evaluations per second end to end, and best-found layouts.

- Evaluations per second of ``design_board`` (100 squares, 10 snakes and 10 ladders,
  objective ``"max"``, 8 chains, seed 3), through the public call: its
  ``evaluations`` over the call's wall (and CPU) time, warm. Against evaluating
  candidates one at a time, each a fresh board, in a Python loop: the core
  ``expected_throws`` on ``Board(size, jumps)``, and the vectorised SciPy build of
  ``I - Q`` from the layout's arrays with ``spsolve`` (``benchmarks/_baselines.py``).
  Candidates for the baselines are ``random_board(100, 0.2, rng=i)`` layouts (10 + 10).
  One thread each side (``numba.set_num_threads(1)``, ``threadpoolctl.threadpool_limits(1)``);
  ours on every Numba thread is in the note.
- Best expected lengths found for max and min at a fixed budget and seed, by
  simulated annealing and by iterated local search (same budget), so later
  versions can be compared.
"""

from __future__ import annotations

import time

import numba
import numpy as np
import scipy.sparse.linalg as spla
from threadpoolctl import threadpool_limits

from benchmarks._baselines import system
from benchmarks._util import interleaved_times, row
from snl_numeric import Board, expected_throws
from snl_numeric import design as D
from snl_numeric.boards import random_board

SIZE, SNAKES, LADDERS = 100, 10, 10
FACES, PROBS = np.arange(1, 7), np.full(6, 1 / 6)
DESIGN = dict(snakes=SNAKES, ladders=LADDERS, objective="max", chains=8, rng=3)


def _layouts(n: int) -> list[tuple[list[int], list[int]]]:
    out = []
    for i in range(n):
        jumps = random_board(SIZE, 0.2, rng=i).jumps
        out.append((list(jumps), list(jumps.values())))
    return out


def _core_one_at_a_time(layouts):
    return [expected_throws(Board(SIZE, dict(zip(s, d, strict=True)))) for s, d in layouts]


def _spsolve_one_at_a_time(layouts):
    return [spla.spsolve(system(SIZE, s, d, FACES, PROBS)[0], np.ones(SIZE))[0]
            for s, d in layouts]


def _design(iterations: int):
    def once():
        t0, c0 = time.perf_counter(), time.process_time()
        res = D.design_board(SIZE, iterations=iterations, **DESIGN)
        return res.evaluations, time.perf_counter() - t0, time.process_time() - c0
    return once


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    its = 250 if quick else 2000
    n_base = 50 if quick else 500
    layouts = _layouts(n_base)
    assert len(layouts[0][0]) == SNAKES + LADDERS
    ref = np.array(_core_one_at_a_time(layouts[:20]))
    assert np.allclose(np.array(_spsolve_one_at_a_time(layouts[:20])), ref, rtol=1e-10)
    once = _design(its)
    D.design_board(SIZE, iterations=10, **DESIGN)  # compile / load
    threads = numba.get_num_threads()
    runs = [once() for _ in range(max(1, repeats // 2))]
    e_all = float(np.median([e / w for e, w, _ in runs]))
    evals = runs[0][0]
    numba.set_num_threads(1)
    try:
        with threadpool_limits(1):
            t = interleaved_times({"ours": (lambda: D.design_board(SIZE, iterations=its,
                                                                   **DESIGN), 1),
                                   "core": (lambda: _core_one_at_a_time(layouts), 1),
                                   "scipy": (lambda: _spsolve_one_at_a_time(layouts), 1)},
                                  max(3, repeats // 2))
    finally:
        numba.set_num_threads(threads)
    ours, ours_cpu = t["ours"][0] / evals, t["ours"][1] / evals
    ours_how = (f"ours: design_board(100, snakes=10, ladders=10, objective='max', "
              f"iterations={its}, chains=8, rng=3), its evaluations over the call's time; ")
    rows = []
    for key, what, how in (
            ("core", "core expected_throws, fresh Board",
             "expected_throws(Board(100, dict(zip(src, dst)))) per layout"),
            ("scipy", "vectorised SciPy spsolve per layout",
             "_baselines.system(100, src, dst, d6) (NumPy successor table, coo_array "
             "I - Q) then spsolve, per layout")):
        base, base_cpu = t[key][0] / n_base, t[key][1] / n_base
        rows.append(row("design_board evaluations, 100sq 10+10, 1 thread", ours, what, base,
                        note=f"{1 / ours:,.0f} vs {1 / base:,.0f} evaluations/s wall, one "
                             f"thread each; ours on {threads} threads {e_all:,.0f}/s",
                        ours_cpu_s=ours_cpu, baseline_cpu_s=base_cpu,
                        method=ours_how + f"baseline: {how}, random_board(100, 0.2, rng=i) "
                                        "layouts; numba.set_num_threads(1) and "
                                        "threadpool_limits(1) around both"))
    iterations, chains = (250, 4) if quick else (5000, 8)
    best = {}
    for objective in ("max", "min"):
        for method in ("anneal", "local"):
            kw = dict(snakes=SNAKES, ladders=LADDERS, objective=objective, method=method,
                      iterations=iterations, chains=chains, rng=2024)
            D.design_board(SIZE, **{**kw, "iterations": 10})  # warm up
            t0 = time.perf_counter()
            res = D.design_board(SIZE, **kw)
            best[objective, method] = (res, time.perf_counter() - t0)
        (ra, ta), (rl, tl) = best[objective, "anneal"], best[objective, "local"]
        better = "anneal" if (ra.value > rl.value) == (objective == "max") else "local"
        if ra.value == rl.value:
            better = "tie"
        rows.append(row(
            f"design {objective} 100sq 10+10, {iterations * chains} evals", ta,
            "local search, same budget", tl,
            note=f"best E: anneal {ra.expected:.6g} ({ra.evaluations} evals, "
                 f"{ra.evaluations / ta:,.0f}/s), local {rl.expected:.6g} "
                 f"({rl.evaluations} evals, {rl.evaluations / tl:,.0f}/s); better: {better}; "
                 f"seed 2024"))
    return rows


if __name__ == "__main__":
    for r in run():
        print(r)
