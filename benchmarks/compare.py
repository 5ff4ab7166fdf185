"""Compare two benchmark records and flag slowdowns.

Usage: ``python -m benchmarks.compare OLD.json NEW.json [--threshold 0.10]``.

Rows are matched by benchmark name and baseline. For each, ``ours`` (seconds; CPU time
where both records measured it, ``ours_cpu_s``, else the row's ``ours_s``) is compared:
a row is flagged when the new time exceeds the old by more than the threshold (10% by
default), and the exit status is 1 when any row is. Rows whose
baseline was measured in both runs are also compared by their ratio (baseline /
ours, measured in the same run): that is the figure that holds across machines and
loads, so a flagged time with a steady ratio points at the machine, not the code.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def _rows(path: str) -> dict[tuple[str, str], dict[str, Any]]:
    with open(path) as fh:
        data = json.load(fh)
    rows = data["rows"] if isinstance(data, dict) else data
    return {(r["benchmark"], r.get("baseline") or ""): r for r in rows}


def compare(old_path: str, new_path: str, threshold: float = 0.10) -> list[dict[str, Any]]:
    """One entry per row present in both records: times, ratios and whether it slowed."""
    old, new = _rows(old_path), _rows(new_path)
    out = []
    for key in [k for k in new if k in old]:
        o, n = old[key], new[key]
        key_s = "ours_cpu_s" if o.get("ours_cpu_s") and n.get("ours_cpu_s") else "ours_s"
        t_old, t_new = o.get(key_s), n.get(key_s)
        if not t_old or not t_new or t_old != t_old or t_new != t_new:
            continue
        change = t_new / t_old - 1.0
        out.append({"benchmark": key[0], "baseline": key[1], "old_s": t_old, "new_s": t_new,
                    "change": change, "old_ratio": o.get("ratio"), "new_ratio": n.get("ratio"),
                    "slower": change > threshold, "cpu": key_s == "ours_cpu_s"})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare")
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--threshold", type=float, default=0.10,
                        help="flag a row slower by more than this fraction (default 0.10)")
    args = parser.parse_args(argv)
    result = compare(args.old, args.new, args.threshold)
    print(f"| {'benchmark':<50} | {'old':>10} | {'new':>10} | {'change':>8} | ratio old -> new")
    for r in result:
        ratio = ""
        if r["old_ratio"] and r["new_ratio"]:
            ratio = f"{r['old_ratio']:.2f}x -> {r['new_ratio']:.2f}x"
        flag = "  SLOWER" if r["slower"] else ""
        name = (r["benchmark"] + (f" vs {r['baseline']}" if r["baseline"] else "")
                + (" (CPU)" if r["cpu"] else ""))
        print(f"| {name[:50]:<50} | {r['old_s']:10.4g} | {r['new_s']:10.4g} | "
              f"{r['change']:+8.1%} | {ratio}{flag}")
    slower = [r for r in result if r["slower"]]
    print(f"{len(slower)} of {len(result)} rows slower by more than {args.threshold:.0%}")
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
