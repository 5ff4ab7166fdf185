"""Board design: candidate evaluation throughput and best-found layouts.

- Throughput of exact candidate evaluation for 100-square boards with 10
  snakes and 10 ladders: the private batch kernel of ``snl_numeric.design``
  (parallel over candidates) against evaluating candidates one at a time
  with the core ``expected_throws`` on fresh ``Board`` objects, and with
  ``scipy.sparse.linalg.spsolve`` on ``I - Q``.
- The annealing search's own evaluation rate.
- Best expected lengths found for max and min at a fixed budget and seed, by
  simulated annealing and by iterated local search (same budget), so later
  versions can be compared.
"""

from __future__ import annotations

import importlib
import time

import numba
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from benchmarks._util import median_time, row
from snl_numeric import Board, expected_throws
from snl_numeric import design as D

S = importlib.import_module("snl_numeric.design.search")  # the search's private helpers

SIZE, SNAKES, LADDERS = 100, 10, 10


def _layouts(n: int):
    p = S._problem(SIZE, SNAKES, LADDERS, 1, None, (), "win", False, None, 0)
    src = np.empty((n, p.k), dtype=np.int64)
    dst = np.empty((n, p.k), dtype=np.int64)
    gen = np.random.default_rng(0)
    for i in range(n):
        src[i], dst[i] = S._random_layout(p, gen)
    return p, src, dst


def _core_one_at_a_time(src, dst):
    return [expected_throws(Board(SIZE, zip(s.tolist(), d.tolist(), strict=True)))
            for s, d in zip(src, dst, strict=True)]


def _spsolve_one_at_a_time(src, dst):
    out = []
    for s, d in zip(src, dst, strict=True):
        cb = Board(SIZE, zip(s.tolist(), d.tolist(), strict=True)).compiled
        q = cb.matrix[:SIZE, :SIZE]
        a = (sp.identity(SIZE, format="csc") - q).tocsc()
        out.append(spla.spsolve(a, np.ones(SIZE))[0])
    return out


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    n = 500 if quick else 8000
    n_base = 50 if quick else 500
    p, src, dst = _layouts(n)
    S._batch(p, src[:4], dst[:4])  # compile / load
    mean, _ = S._batch(p, src, dst)
    ref = np.array(_core_one_at_a_time(src[:20], dst[:20]))
    assert np.allclose(mean[:20], ref, rtol=1e-10)
    assert np.allclose(np.array(_spsolve_one_at_a_time(src[:20], dst[:20])), ref, rtol=1e-8)
    threads = numba.get_num_threads()
    ours = median_time(lambda: S._batch(p, src, dst), repeats) / n
    core = median_time(lambda: _core_one_at_a_time(src[:n_base], dst[:n_base]),
                       max(1, repeats // 2)) / n_base
    spl = median_time(lambda: _spsolve_one_at_a_time(src[:n_base], dst[:n_base]),
                      max(1, repeats // 2)) / n_base
    rows = [
        row("design eval 100sq 10+10 (per candidate)", ours, "core expected_throws, fresh Board",
            core, note=f"{1 / ours:,.0f} evals/s on {threads} threads"),
        row("design eval 100sq 10+10 (per candidate)", ours, "scipy spsolve, fresh Board", spl,
            note=f"baseline {1 / spl:,.0f} evals/s"),
    ]
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
