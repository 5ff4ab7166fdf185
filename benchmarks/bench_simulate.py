"""Monte Carlo throughput and memory: ``simulate`` against plain Python.

The baseline is seed 004's sequential loop written plainly in Python
(``random.randrange(6) + 1``, one move at a time) on the same board with
the same rules; both are compared per throw. Peak memory is measured in
fresh subprocesses (``ru_maxrss`` of the whole process, and the peak of
Python/NumPy allocations during the call via ``tracemalloc``).

``simulate(players=k)`` races are timed per game, in CPU seconds of one thread, against
the same loop played by ``k`` players in turn (``--players``: those rows only).

Usage: ``PYTHONPATH=. python -m benchmarks.bench_simulate [--quick | --players]``.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time

import numba

from benchmarks._util import median_time, row
from snl_numeric import boards, simulate

BOARD = "milton-bradley"


def python_simulate(size: int, jumps: dict[int, int], games: int, seed: int = 0) -> int:
    """Seed 004's loop in plain Python (exact landing: an overshooting throw stays)."""
    rnd = random.Random(seed)
    total = 0
    for _ in range(games):
        pos = 0
        while pos != size:
            target = pos + rnd.randrange(6) + 1
            if target <= size:
                pos = jumps.get(target, target)
            total += 1
    return total


def python_race(size: int, jumps: dict[int, int], players: int, games: int,
                seed: int = 0) -> int:
    """``players`` players in turn on the loop above (no capture); returns the throws."""
    rnd = random.Random(seed)
    total = 0
    for _ in range(games):
        pos = [0] * players
        mover = 0
        while True:
            target = pos[mover] + rnd.randrange(6) + 1
            if target <= size:
                pos[mover] = jumps.get(target, target)
            total += 1
            if pos[mover] == size:
                break
            mover = (mover + 1) % players
    return total


def race_rows(quick: bool = False, repeats: int = 3) -> list[dict]:
    """``simulate(players=k)`` on Milton Bradley for 2 and 4 players, one thread: games per
    CPU second against the plain-Python race."""
    board = boards.get(BOARD)
    games = 10**5 if quick else 10**6
    base_games = 2_000 if quick else 10_000
    rows = []
    for k in (2, 4):
        simulate(board, 1000, players=k, rng=0)  # compile / load outside the timings
        cpu = []
        for i in range(repeats):
            c0 = time.process_time()
            simulate(board, games, players=k, rng=i, threads=1)
            cpu.append(time.process_time() - c0)
        ours = sorted(cpu)[len(cpu) // 2] / games * 1e6
        c0 = time.process_time()
        python_race(board.size, board.jumps, k, base_games)
        base = (time.process_time() - c0) / base_games * 1e6
        rows.append(row(f"simulate {BOARD}, {k} players, {games:.0e} games, 1 thr (per 1e6 "
                        "games, CPU)", ours, "plain Python race loop (randrange)", base,
                        ours_cpu_s=ours, baseline_cpu_s=base,
                        note=f"{1e6 / ours / 1e6:.2f} M games per CPU-second ours vs "
                             f"{1e6 / base / 1e3:.1f} k/s Python"))
    return rows


_MEMORY_SCRIPT = """
import json, resource, sys, tracemalloc
from snl_numeric import boards, simulate
board = boards.get("milton-bradley")
simulate(board, 1000, rng=0)  # compile / load the cache first
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
r = simulate(board, int(sys.argv[1]), rng=0, per_game=sys.argv[2] == "1")
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"traced": peak, "maxrss_kb": after, "growth_kb": after - before,
                  "throws": r.total_throws}))
"""


def peak_memory(games: int, per_game: bool = False) -> dict:
    """Peak memory of ``simulate(milton-bradley, games)`` in a fresh process."""
    out = subprocess.run([sys.executable, "-c", _MEMORY_SCRIPT, str(games), str(int(per_game))],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    board = boards.get(BOARD)
    games = 10**6 if quick else 10**7
    base_games = 2_000 if quick else 20_000
    repeats = 2 if quick else repeats
    simulate(board, 1000, rng=0)  # compile outside the timings
    simulate(board, 1000, rng=0, per_game=True)
    threads = min(2, numba.config.NUMBA_NUM_THREADS)

    throws = simulate(board, games, rng=1).total_throws
    base_throws = python_simulate(board.size, board.jumps, base_games)
    t_base = median_time(lambda: python_simulate(board.size, board.jumps, base_games),
                         repeats=max(1, repeats // 2))
    per_m_base = t_base / base_throws * 1e6
    rows = []
    c0 = time.process_time()
    python_simulate(board.size, board.jumps, base_games)
    cpu_base = base_throws / (time.process_time() - c0)
    for th in sorted({1, threads}):
        t = median_time(lambda th=th: simulate(board, games, rng=1, threads=th), repeats=repeats)
        c0 = time.process_time()  # CPU seconds of all threads: robust on a shared machine
        simulate(board, games, rng=1, threads=th)
        cpu = throws / (time.process_time() - c0)
        rows.append(row(
            f"simulate {BOARD}, {games:.0e} games, {th} thr (per 1e6 throws)",
            t / throws * 1e6, "plain Python loop (randrange)", per_m_base,
            note=f"wall: {throws / t / 1e6:.0f} M throws/s ours vs "
                 f"{base_throws / t_base / 1e6:.2f} M/s Python; per CPU-second: "
                 f"{cpu / 1e6:.0f} M vs {cpu_base / 1e6:.2f} M"))
    t = median_time(lambda: simulate(board, games // 10, rng=1, per_game=True),
                    repeats=repeats)
    pg_throws = simulate(board, games // 10, rng=1).total_throws
    rows.append(row(f"simulate per_game=True, {games // 10:.0e} games (per 1e6 throws)",
                    t / pg_throws * 1e6, "plain Python loop (randrange)", per_m_base,
                    note=f"{pg_throws / t / 1e6:.0f} M throws/s with per-game outputs"))
    rows += race_rows(quick)
    if not quick:
        mems = {g: peak_memory(g) for g in (10**5, 10**7)}
        note = "; ".join(f"{g:.0e} games: traced peak {m['traced'] / 1024:.0f} KiB, max RSS "
                         f"{m['maxrss_kb'] / 1024:.0f} MiB (+{m['growth_kb'] / 1024:.1f} in call)"
                         for g, m in mems.items())
        rows.append(row("simulate peak memory (per_game=False)", 0.0, note=note))
        m = peak_memory(10**6, per_game=True)
        rows.append(row("simulate peak memory (per_game=True)", 0.0,
                        note=f"1e+06 games: traced peak {m['traced'] / 2**20:.0f} MiB, max RSS "
                             f"{m['maxrss_kb'] / 1024:.0f} MiB (+{m['growth_kb'] / 1024:.1f} "
                             "in call)"))
    return rows


if __name__ == "__main__":
    for r in (race_rows(quick=True) if "--players" in sys.argv
              else run(quick="--quick" in sys.argv)):
        print(r)
