"""Small products (issue 49): ``_core/blas.py`` against NumPy's ``@`` with SciPy's
``lu_solve``, bare and inside ``threadpoolctl`` limits.

One pair is what a single-board answer alternates: an 81 x 81 product and an 18-column
LU solve of an 81-unknown system. Each row: CPU time per pair (the spinning threads of
the two OpenBLAS pools count), median of rounds that run every variant in turn. The
baselines: NumPy's ``@`` and ``scipy.linalg.lu_solve`` bare; inside
``threadpool_limits(1, user_api="blas")`` entered per pair; inside ``.limit()`` of one
``ThreadpoolController`` made once (the fastest, but it sets the libraries' process-wide
thread counts, which the library never does). Needs the ``bench`` extra (threadpoolctl).

``python -m benchmarks.bench_blas``
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import scipy.linalg as sl
from threadpoolctl import ThreadpoolController, threadpool_limits

from benchmarks._util import row
from snl_numeric._core.blas import columns, matmul


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    rng = np.random.default_rng(0)
    a, b = rng.random((81, 81)), rng.random((81, 81))
    lu = sl.lu_factor(81 * np.eye(81) + rng.random((81, 81)))
    rhs = rng.random((81, 18))
    controller = ThreadpoolController()

    def bare():
        a @ b
        sl.lu_solve(lu, rhs)

    def limited():
        with threadpool_limits(1, user_api="blas"):
            bare()

    def controlled():
        with controller.limit(limits=1, user_api="blas"):
            bare()

    def ours():
        matmul(a, b)
        columns(lambda c: sl.lu_solve(lu, c), rhs)

    variants = {"ours": ours, "numpy @ + lu_solve": bare,
                "threadpool_limits per pair": limited, "ThreadpoolController.limit": controlled}
    pairs = 20 if quick else 200
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(2 if quick else repeats):
        for name, fn in variants.items():
            fn()
            t0 = time.process_time()
            for _ in range(pairs):
                fn()
            cpu[name].append((time.process_time() - t0) / pairs)
    mine = statistics.median(cpu.pop("ours"))
    return [row("81 x 81 product + 18-column LU solve", mine, name, statistics.median(t),
                "CPU time per pair", ours_cpu_s=mine, baseline_cpu_s=statistics.median(t),
                method="ours: _core.blas.matmul and columns(lu_solve)")
            for name, t in cpu.items()]


if __name__ == "__main__":
    for r in run():
        print(f"{r['baseline']:<28} ours {r['ours_s'] * 1e3:.3f} ms, baseline "
              f"{r['baseline_s'] * 1e3:.3f} ms, {r['ratio']:.2f}x")
