"""Run every ``benchmarks/bench_*.py`` and print one table.

Usage: ``python -m benchmarks [--quick] [--only NAME ...] [--json FILE] [--no-record]
[--methods]``.

``ratio`` is the baseline's wall time over ours, ``CPU`` the same in CPU time (every
thread's) where the row measured it; ``--methods`` prints under each row the code both
sides run (also kept in the record).

Every run also writes a JSON record (machine, commit, rows) under
``benchmarks/results/`` (tracked: the history of the suite);
``python -m benchmarks.compare OLD.json NEW.json`` compares two records and flags
slowdowns of more than 10%. A/B rows against older trees (``git worktree`` of a
commit) run when ``SNL_BENCH_BASE`` / ``SNL_BENCH_RELEASE`` name them (see
``bench_ab``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import platform

import numba

from benchmarks.record import write_record


def _fmt_time(s: float | None) -> str:
    if s is None or not s == s or s <= 0:  # None, NaN, or a row without a time
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller sizes")
    parser.add_argument("--only", nargs="*", help="module names, e.g. bench_core")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--no-record", action="store_true",
                        help="do not add this run to benchmarks/results/")
    parser.add_argument("--methods", action="store_true",
                        help="print each row's method (the code each side runs)")
    args = parser.parse_args()
    here = os.path.dirname(__file__)
    names = sorted(m.name for m in pkgutil.iter_modules([here]) if m.name.startswith("bench_"))
    if args.only:
        names = [n for n in names if n in args.only or n.removeprefix("bench_") in args.only]
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS}, Python {platform.python_version()}")
    rows = []
    failed = False
    header = (f"| {'benchmark':<44} | {'ours':>10} | {'baseline':<34} | {'baseline':>10} | "
              f"{'ratio':>8} | {'CPU':>8} | note")
    print(header)
    print("|" + "|".join("-" * (len(c) + 0) for c in header.split("|")[1:]))
    for name in names:
        try:  # a module the library under test cannot import fails alone, too
            mod = importlib.import_module(f"benchmarks.{name}")
            results = mod.run(quick=args.quick)
        except Exception as exc:  # one broken benchmark must not hide the others
            print(f"| {name}: FAILED: {type(exc).__name__}: {exc}", flush=True)
            failed = True
            continue
        for r in results:
            rows.append(r)
            ratio = f"{r['ratio']:.1f}x" if r.get("ratio") else "-"
            cpu = f"{r['cpu_ratio']:.1f}x" if r.get("cpu_ratio") else "-"
            print(f"| {r['benchmark']:<44} | {_fmt_time(r['ours_s']):>10} | "
                  f"{(r.get('baseline') or '-'):<34} | {_fmt_time(r.get('baseline_s')):>10} | "
                  f"{ratio:>8} | {cpu:>8} | {r.get('note', '')}", flush=True)
            if args.methods and r.get("method"):
                print(f"|   method: {r['method']}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)
    if not args.no_record and rows:
        print(f"# record: {write_record(rows, quick=args.quick, only=args.only)}")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
