"""Same-run A/B against older trees (issues 24-25): throughput of the Numba paths.

Each row runs one snippet in fresh processes of this tree and of the other,
alternately (``benchmarks._ab``), and compares medians; ratios > 1 mean this tree
is faster.

- batch analysis, 20,000 random 100-square boards (10 snakes, 10 ladders),
  min + mean + variance: CPU seconds per board, against ``SNL_BENCH_BASE``;
- ``design_board`` candidate evaluations per second (100 squares, 10 + 10, 8
  chains), against ``SNL_BENCH_BASE``;
- ``simulate`` on Milton Bradley, throws per CPU second, against
  ``SNL_BENCH_RELEASE``;
- warm single-board calls on a new Milton Bradley board each call
  (``expected_throws``, ``analyze``): CPU time per call, against both;
- ``analyze`` on a new Milton Bradley board, wall time per call, on an idle machine and
  beside busy processes (one per other core: OpenBLAS's worker threads then wait for a
  time slice, see ``snl_numeric/_core/blas.py``), against both;
- ``expected_throws_all`` on a fresh random board of 10^6 squares (10% jumps): wall time
  of the solve, and that time in CSR mat-vecs of the board (issue 25's unit), against
  both; and on the slow-mixing family of 2x10^5 squares (a die that throws 1 with
  p=.99: GMRES needs hundreds of steps, and a refining round), against
  ``SNL_BENCH_BASE``.

Usage: ``SNL_BENCH_BASE=../c035537 SNL_BENCH_RELEASE=../b4a4c6a python -m benchmarks
--only ab`` (trees made with ``git worktree add --detach DIR COMMIT``).
"""

from __future__ import annotations

from benchmarks._ab import alternate, label, median, tree
from benchmarks._util import row

_CPU = ("import json, resource, time\n"
        "def cpu():\n"
        "    u = resource.getrusage(resource.RUSAGE_SELF)\n"
        "    return u.ru_utime + u.ru_stime\n")

BATCH = _CPU + """
from snl_numeric.batch import analyze_many, random_batch
n = {n}
batch = random_batch(n, 100, snakes=10, ladders=10, rng=42)
cols = ("min_throws", "mean", "variance")
analyze_many(batch[:10], columns=cols)
best = []
for _ in range(3):
    c0, t0 = cpu(), time.perf_counter()
    analyze_many(batch, columns=cols)
    best.append((cpu() - c0, time.perf_counter() - t0))
print(json.dumps({{"cpu": min(b[0] for b in best) / n, "wall": min(b[1] for b in best) / n}}))
"""

DESIGN = _CPU + """
from snl_numeric import design_board
kw = dict(snakes=10, ladders=10, objective="max", chains=8, rng=3)
design_board(100, iterations=20, **kw)
best = 0.0
for _ in range(3):
    c0, t0 = cpu(), time.perf_counter()
    res = design_board(100, iterations={iterations}, **kw)
    best = max(best, res.evaluations / (time.perf_counter() - t0))
print(json.dumps({{"evals_per_s": best, "mean": res.mean}}))
"""

SIMULATE = _CPU + """
from snl_numeric import boards, simulate
board = boards.get("milton-bradley")
simulate(board, 10000, rng=1)
best = 0.0
for _ in range(3):
    c0 = cpu()
    r = simulate(board, {games}, rng=42)
    best = max(best, r.total_throws / (cpu() - c0))
print(json.dumps({{"throws_per_cpu_s": best, "mean": r.mean}}))
"""

SINGLE = """
import json, statistics, time
from snl_numeric import Board, analyze, boards, expected_throws
mb = boards.get("milton-bradley")
fresh = lambda: Board(mb.size, dict(mb.jumps), overshoot=mb.overshoot)
out = {{}}
for name, fn in (("expected_throws", expected_throws), ("analyze", analyze)):
    for _ in range(20):
        fn(fresh())
    times = []
    for _ in range({calls}):
        b = fresh()
        t = time.thread_time(); fn(b); times.append(time.thread_time() - t)
    out[name] = statistics.median(times)
print(json.dumps(out))
"""


BUSY = """
import json, os, statistics, subprocess, sys, time
from snl_numeric import Board, analyze, boards
mb = boards.get("milton-bradley")
fresh = lambda: Board(mb.size, dict(mb.jumps), overshoot=mb.overshoot)
for _ in range(20):
    analyze(fresh())
out = {{}}
for busy in (0, max(1, (os.cpu_count() or 2) - 1)):
    spin = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
    try:
        time.sleep(0.2 if busy else 0.0)
        times = []
        for _ in range({calls}):
            b = fresh()
            t = time.perf_counter(); analyze(b); times.append(time.perf_counter() - t)
    finally:
        for p in spin:
            p.kill(); p.wait()
    out["busy" if busy else "idle"] = statistics.median(times)
print(json.dumps(out))
"""

LARGE = """
import json, statistics, time
import numpy as np
from snl_numeric import expected_throws_all
from snl_numeric.boards import random_board
w = random_board(60_000, 0.1, rng=2)  # the Numba path compiled (or loaded)
expected_throws_all(w)
del w
solve, mv = [], []
for _ in range(3):
    b = random_board({n}, 0.1, rng=1{dice})
    b.compiled
    t = time.perf_counter(); e = expected_throws_all(b); solve.append(time.perf_counter() - t)
    q, x = b.compiled.matrix, np.ones({n} + 1)
    for _ in range(5):
        t = time.perf_counter(); q @ x; mv.append(time.perf_counter() - t)
    del b, q
s, m = statistics.median(solve), statistics.median(mv)
print(json.dumps({{"solve": s, "matvecs": s / m, "e0": float(e[0])}}))
"""


SLOW_DIE = ", dice={1: 0.99, 6: 0.01}"


def _large(rows: list[dict], other: str, reps: int, n: int, dice: str = "") -> None:
    ours, theirs = alternate(LARGE.format(n=n, dice=dice), other, reps)
    what = "slow die (p=.99 of a 1)" if dice else "random"
    rows.append(row(f"A/B expected_throws_all, fresh {what} board of {n:.0e} squares (wall)",
                    median(ours, "solve"), f"same at {label(other)}", median(theirs, "solve"),
                    note=f"{median(ours, 'matvecs'):.0f} vs {median(theirs, 'matvecs'):.0f} "
                         f"CSR mat-vecs of the board (timed in the same process); E[0] "
                         f"{ours[0]['e0']!r} vs {theirs[0]['e0']!r}; 3 boards per process, "
                         f"{reps} processes"))


def _busy(rows: list[dict], other: str, reps: int, calls: int) -> None:
    ours, theirs = alternate(BUSY.format(calls=calls), other, reps)
    for key, what in (("idle", "an idle machine"), ("busy", "busy processes on the other cores")):
        rows.append(row(f"A/B analyze milton-bradley, new Board (wall), {what}",
                        median(ours, key), f"same at {label(other)}", median(theirs, key),
                        note=f"median of {calls} calls per process, {reps} processes"))


def _single(rows: list[dict], other: str, reps: int, calls: int) -> None:
    ours, theirs = alternate(SINGLE.format(calls=calls), other, reps)
    for name in ("expected_throws", "analyze"):
        rows.append(row(f"A/B {name} milton-bradley, new Board (CPU)", median(ours, name),
                        f"same at {label(other)}", median(theirs, name),
                        note=f"warm; median of {calls} calls per process, {reps} processes"))


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    rows = []
    reps = 1 if quick else 3
    base = tree("SNL_BENCH_BASE")
    if base:
        name = label(base)
        n = 4000 if quick else 20000
        ours, theirs = alternate(BATCH.format(n=n), base, reps)
        rows.append(row("A/B batch min+mean+var, 100 sq, CPU per board", median(ours, "cpu"),
                        f"same at {name}", median(theirs, "cpu"),
                        note=f"wall per board {median(ours, 'wall') * 1e6:.1f} us vs "
                             f"{median(theirs, 'wall') * 1e6:.1f} us; {reps} runs each"))
        its = 500 if quick else 4000
        ours, theirs = alternate(DESIGN.format(iterations=its), base, reps)
        e_ours, e_base = median(ours, "evals_per_s"), median(theirs, "evals_per_s")
        rows.append(row("A/B design_board candidate evaluation", 1 / e_ours,
                        f"same at {name}", 1 / e_base,
                        note=f"{e_ours:,.0f} vs {e_base:,.0f} evaluations/s (anneal, 8 chains"
                             f" x {its}); best mean {ours[0]['mean']:.6g} vs "
                             f"{theirs[0]['mean']:.6g}"))
        _single(rows, base, reps, 100 if quick else 400)
        _busy(rows, base, reps, 20 if quick else 60)
        _large(rows, base, reps, 10**5 if quick else 10**6)
        _large(rows, base, reps, 2 * 10**4 if quick else 2 * 10**5, SLOW_DIE)
    release = tree("SNL_BENCH_RELEASE")
    if release:
        games = 2 * 10**5 if quick else 2 * 10**6
        ours, theirs = alternate(SIMULATE.format(games=games), release, reps)
        t_ours, t_rel = median(ours, "throws_per_cpu_s"), median(theirs, "throws_per_cpu_s")
        rows.append(row("A/B simulate milton-bradley, per throw (CPU)", 1 / t_ours,
                        f"same at {label(release)}", 1 / t_rel,
                        note=f"{t_ours:.3g} vs {t_rel:.3g} throws per CPU second; means "
                             f"{ours[0]['mean']} vs {theirs[0]['mean']}"))
        _single(rows, release, reps, 100 if quick else 400)
        _busy(rows, release, reps, 20 if quick else 60)
        _large(rows, release, reps, 10**5 if quick else 10**6)
    return rows


if __name__ == "__main__":
    import sys

    for r in run(quick="--quick" in sys.argv):
        print(r)
