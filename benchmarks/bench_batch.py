"""Batch analysis: boards per second against a per-board SciPy loop, and streamed memory.

Boards: 100 squares, 10 snakes and 10 ladders, fair d6, overshoot wins
(``snl_numeric.batch.random_batch``). Ours: ``analyze_many`` with the columns
min throws, expected throws and variance (one parallel Numba kernel over the
boards). Baseline, per board in a Python loop: the successor table with
NumPy, ``I - Q`` as a ``scipy.sparse`` CSR matrix, ``spsolve`` for ``t`` and
for the second moment, and a BFS (``scipy.sparse.csgraph.shortest_path``,
unweighted). Streaming: a subprocess analyses 10^6 boards (10^5 in quick
mode) generated chunk by chunk into a Parquet directory and reports its peak
resident memory (``ru_maxrss``).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla

from benchmarks._util import median_time, row
from snl_numeric.batch import analyze_many, random_batch, write_parquet

COLUMNS = ("min_throws", "expected_throws", "variance")


def scipy_loop(batch, count: int) -> list[tuple[int, float, float]]:
    """The plain per-board baseline: NumPy successor table, SciPy CSR, spsolve, BFS."""
    out = []
    faces = np.arange(1, 7)
    probs = np.full(6, 1 / 6)
    for b in range(count):
        size = int(batch.sizes[b])
        j0, j1 = batch.jump_ptr[b], batch.jump_ptr[b + 1]
        jump = np.arange(size + 1)
        jump[batch.jump_src[j0:j1]] = batch.jump_dst[j0:j1]
        target = np.minimum(np.arange(size)[:, None] + faces[None, :], size)  # overshoot wins
        succ = jump[target]
        rows = np.repeat(np.arange(size), 6)
        q = sp.csr_matrix((np.tile(probs, size), (rows, succ.ravel())), shape=(size, size + 1))
        a = (sp.identity(size, format="csr") - q[:, :size]).tocsc()
        t = spla.spsolve(a, np.ones(size))
        u = spla.spsolve(a, t)
        adj = sp.csr_matrix((np.ones(rows.size), (rows, succ.ravel())), shape=(size + 1, size + 1))
        d = csgraph.shortest_path(adj, unweighted=True, indices=0)
        out.append((int(d[size]) if np.isfinite(d[size]) else -1, float(t[0]),
                    float(2 * u[0] - t[0] - t[0] ** 2)))
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


def _cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def cpu_time(fn, repeats: int) -> float:
    """Median process CPU time (all threads) of ``fn``."""
    times = []
    for _ in range(repeats):
        c0 = _cpu()
        fn()
        times.append(_cpu() - c0)
    return float(np.median(times))


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    n = 4_000 if quick else 50_000
    m = 40 if quick else 400
    batch = random_batch(n, 100, snakes=10, ladders=10, rng=42)
    analyze_many(batch[:10], columns=COLUMNS)  # compile / load the kernels
    ours = median_time(lambda: analyze_many(batch, columns=COLUMNS), repeats=repeats) / n
    ours_cpu = cpu_time(lambda: analyze_many(batch, columns=COLUMNS), repeats) / n
    base = median_time(lambda: scipy_loop(batch, m), repeats=max(1, repeats // 2)) / m
    base_cpu = cpu_time(lambda: scipy_loop(batch, m), max(1, repeats // 2)) / m
    # same answers
    df = analyze_many(batch[:m], columns=COLUMNS)
    ref = np.array(scipy_loop(batch, m))
    assert np.array_equal(df["min_throws"].to_numpy(int), ref[:, 0].astype(int))
    assert np.allclose(df["expected_throws"], ref[:, 1], rtol=1e-9)
    rows = [row("batch: min+mean+var, 100 squares, per board", ours,
                "per-board scipy CSR+spsolve x2+BFS", base,
                note=f"{1 / ours:,.0f} boards/s vs {1 / base:,.0f} boards/s wall ({n} boards); "
                     f"CPU time per board {ours_cpu * 1e6:.1f} us vs {base_cpu * 1e6:.0f} us "
                     f"({base_cpu / ours_cpu:.0f}x), i.e. {2 / ours_cpu:,.0f} boards/s on 2 "
                     "free cores")]
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
