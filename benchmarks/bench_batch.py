"""Batch analysis: boards per second against a per-board SciPy loop, and streamed memory.

Boards: 100 squares, 10 snakes and 10 ladders, fair d6, overshoot wins
(``snl_numeric.batch.random_batch``). Ours: ``analyze_many`` with the columns
min throws, mean (expected throws) and variance (one Numba kernel over the boards).
Baseline, the same three columns per board in a Python loop over the batch's arrays
(``benchmarks/_baselines.py`` ``scipy_columns``): the successor table by NumPy fancy
indexing, ``I - Q`` as a ``scipy.sparse.coo_array``, one ``splu`` for ``t = N 1`` and
``u = N t`` (variance ``2 u - t - t**2``), and a BFS
(``scipy.sparse.csgraph.shortest_path``, unweighted).

One thread each side: the ratio row runs with ``numba.set_num_threads(1)`` and
``threadpoolctl.threadpool_limits(1)`` (BLAS/OpenMP pools, which SuperLU's dense kernels
could use) around both; ours on every Numba thread is in the note. Wall and CPU time
(the process's, every thread's) are both recorded.

Streaming: a subprocess analyses 10^6 boards (10^5 in quick
mode) generated chunk by chunk into a Parquet directory and reports its peak
resident memory (``ru_maxrss``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import numba
import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks._baselines import scipy_columns
from benchmarks._util import interleaved_times, median_time, median_times, row
from snl_numeric.batch import analyze_many, random_batch, write_parquet

COLUMNS = ("min_throws", "mean", "variance")
#: ``BoardBatch.overshoot`` codes (``snl_numeric.board``'s order).
OVERSHOOT = ("win", "exact", "bounce")


def scipy_loop(batch, count: int) -> list[tuple[int, float, float]]:
    """The plain per-board baseline over the batch's arrays (the same columns)."""
    out = []
    for b in range(count):
        j0, j1 = batch.jump_ptr[b], batch.jump_ptr[b + 1]
        d0, d1 = batch.dice_ptr[b], batch.dice_ptr[b + 1]
        out.append(scipy_columns(int(batch.sizes[b]), batch.jump_src[j0:j1],
                                 batch.jump_dst[j0:j1], batch.faces[d0:d1],
                                 batch.probs[d0:d1], OVERSHOOT[int(batch.overshoot[b])],
                                 bool(batch.chain[b]), int(batch.starts[b])))
    return out


_STREAM = r"""
import json, resource, sys, time
from snl_numeric.batch import analyze_to_parquet
src, out, chunk = sys.argv[1], sys.argv[2], int(sys.argv[3])
COLUMNS = sys.argv[4].split(",")
t0 = time.perf_counter()
run = analyze_to_parquet(src, out, columns=COLUMNS, chunk_size=chunk)
dt = time.perf_counter() - t0
use = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"rows": run.rows, "seconds": dt, "cpu_seconds": use.ru_utime + use.ru_stime,
                  "peak_rss_mb": use.ru_maxrss / 1024}))
"""


def stream_run(n: int, chunk: int = 20_000) -> dict:
    """Write ``n`` random boards to Parquet, then analyse the file into a Parquet
    directory in a fresh process: rows, time, CPU time and peak RSS of that process."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "boards.parquet")
        write_parquet((random_batch(min(chunk, n - i), 100, rng=i)
                       for i in range(0, n, chunk)), src)
        cmd = [sys.executable, "-c", _STREAM, src, os.path.join(tmp, "out"), str(chunk),
               ",".join(COLUMNS)]
        proc = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    n = 4_000 if quick else 50_000
    m = 40 if quick else 400
    batch = random_batch(n, 100, snakes=10, ladders=10, rng=42)
    analyze_many(batch[:10], columns=COLUMNS)  # compile / load the kernels
    # same answers
    df = analyze_many(batch[:m], columns=COLUMNS)
    ref = np.array(scipy_loop(batch, m))
    assert np.array_equal(df["min_throws"].to_numpy(int), ref[:, 0].astype(int))
    assert np.allclose(df["mean"], ref[:, 1], rtol=1e-9)
    assert np.allclose(df["variance"], ref[:, 2], rtol=1e-8)
    threads = numba.get_num_threads()
    all_wall, all_cpu = median_times(lambda: analyze_many(batch, columns=COLUMNS), repeats)
    numba.set_num_threads(1)
    try:
        with threadpool_limits(1):
            t = interleaved_times({"ours": (lambda: analyze_many(batch, columns=COLUMNS), 1),
                                   "scipy": (lambda: scipy_loop(batch, m), 1)},
                                  max(3, repeats))
    finally:
        numba.set_num_threads(threads)
    (ours, ours_cpu), (base, base_cpu) = (t["ours"][0] / n, t["ours"][1] / n), (
        t["scipy"][0] / m, t["scipy"][1] / m)
    rows = [row("batch: min+mean+var, 100 squares, per board, 1 thread", ours,
                "per-board SciPy loop, same columns", base,
                note=f"{1 / ours:,.0f} boards/s vs {1 / base:,.0f} boards/s wall, one thread "
                     f"each ({n} boards ours, {m} baseline); ours on {threads} threads "
                     f"{n / all_wall:,.0f} boards/s wall, CPU per board "
                     f"{all_cpu / n * 1e6:.1f} us",
                ours_cpu_s=ours_cpu, baseline_cpu_s=base_cpu,
                method="ours: analyze_many(batch, columns=(min_throws, mean, "
                       "variance)) on random_batch(n, 100, snakes=10, ladders=10); baseline: "
                       "bench_batch.scipy_loop, per board _baselines.scipy_columns (NumPy "
                       "successor table, coo_array I - Q, one splu for t and N t, csgraph "
                       "BFS); numba.set_num_threads(1) and threadpool_limits(1) around both")]
    med = min(n, 2_000)
    analyze_many(batch[:10], columns=COLUMNS + ("median",))  # compile / load its kernel
    t_med = median_time(lambda: analyze_many(batch[:med], columns=COLUMNS + ("median",)),
                        repeats=max(1, repeats // 2)) / med
    rows.append(row("batch: + median (distribution), per board", t_med,
                    note=f"{1 / t_med:,.0f} boards/s"))
    sizes = [100_000] if quick else [100_000, 1_000_000]
    for count in sizes:
        res = stream_run(count)
        rows.append(row(f"batch: {count:,} boards Parquet -> Parquet", res["seconds"],
                        note=f"{res['rows'] / res['seconds']:,.0f} boards/s wall, "
                             f"{res['cpu_seconds']:.1f} s CPU, peak RSS "
                             f"{res['peak_rss_mb']:.0f} MB (subprocess, chunks of 20,000)"))
    return rows


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    for r in run(quick=args.quick):
        print(r)
