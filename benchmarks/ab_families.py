"""``expected_throws`` on every board family, several trees in the same run (issue 53).

Each round runs one fresh process per tree (this tree first, then each ``--tree``, the
order rotating from round to round); each process times ``expected_throws`` on a fresh
``Board.from_dict`` of every family of ``benchmarks/_families.py`` at 300, 1,000 and 4,000
squares (``time.process_time``, the process's CPU time, per call; the families read from
this tree). The report gives each row's median over the rounds, per tree, and each other
tree's time over ours.

Usage: ``python -m benchmarks.ab_families --tree /tmp/s68base [--rounds 3]``.
"""

from __future__ import annotations

import statistics

from benchmarks._ab import HERE, rotated, run_in, tree_args

CHILD = r"""
import json, sys, time
sys.path.append(HERE)  # (the tree timed comes first, on PYTHONPATH)
from benchmarks._families import FAMILIES
from snl_numeric import Board, expected_throws
rows = {}
for size, number in ((300, 60), (1000, 20), (4000, 4)):
    for name, make in FAMILIES.items():
        d = make(size).to_dict()
        expected_throws(Board.from_dict(d))
        c = time.process_time()
        for _ in range(number):
            expected_throws(Board.from_dict(d))
        rows[f"{name} {size}"] = (time.process_time() - c) / number
print(json.dumps(rows))
"""


def main(argv: list[str] | None = None) -> None:
    args, trees = tree_args(__doc__, 3, "/tmp/ab_families", argv)
    results = rotated(trees, args.rounds, lambda i, name: run_in(
        trees[i], CHILD.replace("HERE", repr(HERE)),
        {"NUMBA_CACHE_DIR": f"{args.cache}-{name}", "SNL_QUIET": "1"}, timeout=1200))
    names = list(results)
    print(f"CPU ms per call, median of {args.rounds} rounds, one process per tree per round")
    print(f"{'row':28s}" + "".join(f"{n:>12s}" for n in names) + "  (theirs / ours)")
    for key in results["ours"][0]:
        med = [statistics.median(r[key] for r in results[n]) * 1e3 for n in names]
        print(f"{key:28s}" + "".join(f"{m:12.3f}" for m in med)
              + "".join(f"  {m / med[0]:.2f}x" for m in med[1:]))


if __name__ == "__main__":
    main()
