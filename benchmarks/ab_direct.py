"""Single boards on the direct path (issue 53), several trees in the same run.

Each round runs one fresh process per tree (this tree first, then each ``--tree`` in
turn, the order rotating from round to round); each process times every row once
(``time.process_time``, the process's CPU time, per call) on boards built as a user's
loop builds them (``Board.from_dict`` of a description, every call). The report gives
each row's median over the rounds, per tree, beside the baselines of
``benchmarks/_baselines.py`` (vectorised SciPy build + ``spsolve``; QuantEcon's
``gth_solve`` given the matrix, when installed), timed in this tree's processes.

Rows: ``expected_throws`` on Milton Bradley and on ``random_board(size, 0.1, rng=1)`` of
1,000 and 5,000 squares; ``analyze`` on Milton Bradley; ``optimal_policy`` (dice
``1-3`` and ``4-6``), ``min_throws`` and ``shortest_path`` on random boards of 100 and
1,000 squares.

Usage: ``python -m benchmarks.ab_direct --tree /work/main --tree /tmp/c035537
[--rounds 7]``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

from benchmarks._ab import HERE, rotated, tree_args

CHILD = r"""
import json, sys, time
import numpy as np
from snl_numeric import (Board, analyze, boards, expected_throws, min_throws, optimal_policy,
                         shortest_path)
from snl_numeric.boards import random_board

baselines = sys.argv[1] == "1"
descs = {"MB": boards.get("milton-bradley").to_dict()}
for size in (100, 1000, 5000):
    descs[str(size)] = random_board(size, 0.1, rng=1).to_dict()

def fresh(key):
    return Board.from_dict(descs[key])

def cpu(fn, number):
    fn()  # (first call: imports, kernels from the cache)
    c = time.process_time()
    for _ in range(number):
        fn()
    return (time.process_time() - c) / number

rows = {}
for key, number in (("MB", 200), ("1000", 30), ("5000", 6)):
    rows[f"expected_throws {key}"] = cpu(lambda k=key: expected_throws(fresh(k)), number)
rows["analyze MB"] = cpu(lambda: analyze(fresh("MB")), 50)
for key, number in (("100", 20), ("1000", 4)):
    rows[f"optimal_policy {key}"] = cpu(
        lambda k=key: optimal_policy(fresh(k), ["1-3", "4-6"]), number)
for key, number in (("100", 200), ("1000", 50)):
    rows[f"min_throws {key}"] = cpu(lambda k=key: min_throws(fresh(k)), number)
    rows[f"shortest_path {key}"] = cpu(lambda k=key: shortest_path(fresh(k)), number)
if baselines:
    sys.path.insert(0, sys.argv[2])
    from benchmarks._baselines import gth_matrix, scipy_expected
    for key, number in (("MB", 200), ("1000", 30), ("5000", 6)):
        rows[f"scipy {key}"] = cpu(lambda k=key: scipy_expected(fresh(k)), number)
    try:
        from quantecon import gth_solve
    except ImportError:
        pass
    else:
        p = gth_matrix(fresh("MB"))
        rows["gth_solve MB"] = cpu(lambda: 1.0 / gth_solve(p)[-1] - 1.0, 200)
print(json.dumps(rows))
"""


def run_tree(path: str, baselines: bool, cache: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": path, "NUMBA_CACHE_DIR": cache}
    out = subprocess.run([sys.executable, "-c", CHILD, "1" if baselines else "0", HERE],
                         env=env, capture_output=True, text=True, check=True, timeout=600,
                         cwd=os.path.expanduser("~"))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    args, trees = tree_args(__doc__, 7, "/tmp/ab_direct", argv)
    results = rotated(trees, args.rounds,
                      lambda i, name: run_tree(trees[i], i == 0, f"{args.cache}-{name}"))
    names = list(results)
    keys = list(results["ours"][0])
    med = {n: {k: statistics.median(r[k] for r in results[n] if k in r) for k in keys
               if any(k in r for r in results[n])} for n in names}
    print(f"CPU ms per call, median of {args.rounds} rounds, one process per tree per round")
    print(f"{'row':24s}" + "".join(f"{n:>12s}" for n in names))
    for k in keys:
        print(f"{k:24s}" + "".join(f"{med[n][k] * 1e3:12.3f}" if k in med[n] else f"{'':>12s}"
                                   for n in names))
    ours = med["ours"]
    for key in ("MB", "1000", "5000"):
        print(f"expected_throws {key}: {ours[f'scipy {key}'] / ours[f'expected_throws {key}']:.2f}x"
              " vectorised SciPy")
    if "gth_solve MB" in ours:
        print(f"expected_throws MB: {ours['gth_solve MB'] / ours['expected_throws MB']:.2f}x "
              "QuantEcon gth_solve")
    print(f"analyze MB: {ours['analyze MB'] / ours['scipy MB']:.2f}x the SciPy time")


if __name__ == "__main__":
    main()
