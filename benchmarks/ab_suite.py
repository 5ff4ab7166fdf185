"""Every benchmark row, this tree's library against an older tree's, same run.

Runs ``python -m benchmarks`` (this tree's benchmark code) ``--rounds`` times on each
library, alternating, each run a fresh process: once on this tree, once on a mixed tree
whose ``benchmarks`` is this tree's and ``snl_numeric`` the other's (symbolic links in
``--work``, kept between runs so Numba's cache of the other library stays warm). Then,
per row present in both: the median over the rounds of each side's time (CPU time where
the row records it, else its ``ours_s``), the change, and a flag where this tree is
slower by more than ``--threshold`` (10%). Exits 1 when any row is.

Rows that need an API the older library lacks fail there (the module is named in that
run's output) and are left out. ``SNL_BENCH_BASE`` / ``SNL_BENCH_RELEASE`` are unset in
the runs (their own A/B rows would nest one A/B inside another).

Usage: ``python -m benchmarks.ab_suite --base /tmp/base [--rounds 3] [--only core batch]
[--quick]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from benchmarks._ab import HERE, label


def mixed_tree(base: str, work: str) -> str:
    """A directory whose ``benchmarks`` is this tree's and ``snl_numeric`` is ``base``'s."""
    path = os.path.join(work, "mixed-" + label(base))
    os.makedirs(path, exist_ok=True)
    for name, target in (("benchmarks", os.path.join(HERE, "benchmarks")),
                         ("snl_numeric", os.path.join(base, "snl_numeric"))):
        link = os.path.join(path, name)
        if os.path.islink(link) and os.readlink(link) != target:
            os.remove(link)
        if not os.path.lexists(link):
            os.symlink(target, link)
    return path


def suite(tree: str, out: str, args: list[str]) -> list[dict]:
    """One ``python -m benchmarks`` run with ``tree`` first on the path; its rows."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("SNL_BENCH_BASE", "SNL_BENCH_RELEASE")}
    env["PYTHONPATH"] = tree
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--no-record", "--json", out,
                           *args], cwd=tree, env=env, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    if proc.returncode not in (0, 1):  # 1: a module failed, the others' rows still count
        raise RuntimeError(proc.stderr[-2000:])
    with open(out) as fh:
        return json.load(fh)


def _time(r: dict) -> tuple[float | None, bool]:
    if r.get("ours_cpu_s"):
        return r["ours_cpu_s"], True
    t = r.get("ours_s")
    return (t if t and t == t else None), False


def compare(new_runs: list[list[dict]], old_runs: list[list[dict]],
            threshold: float) -> list[dict]:
    """Median per row over the rounds, both sides; rows present in every run of both."""
    def index(runs):
        out: dict[tuple[str, str], list[dict]] = {}
        for rows in runs:
            for r in rows:
                out.setdefault((r["benchmark"], r.get("baseline") or ""), []).append(r)
        return out
    new, old = index(new_runs), index(old_runs)
    result = []
    for key in new:
        if key not in old:
            continue
        tn = [_time(r) for r in new[key]]
        to = [_time(r) for r in old[key]]
        if any(t is None for t, _ in tn + to):
            continue
        cpu = all(c for _, c in tn + to)
        if not cpu:  # one side without CPU time: compare the rows' own times alike
            tn, to = [(r["ours_s"], False) for r in new[key]], [(r["ours_s"], False)
                                                                 for r in old[key]]
        m_new = statistics.median(t for t, _ in tn)
        m_old = statistics.median(t for t, _ in to)
        change = m_new / m_old - 1.0
        result.append({"benchmark": key[0], "baseline": key[1], "new_s": m_new,
                       "old_s": m_old, "change": change, "cpu": cpu,
                       "rounds": (len(tn), len(to)), "slower": change > threshold})
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ab_suite")
    parser.add_argument("--base", required=True, help="the older tree (a git worktree)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threshold", type=float, default=0.10)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "snl_ab"),
                        help="where the mixed tree lives (kept: its Numba cache stays warm)")
    parser.add_argument("--only", nargs="*", help="module names, as python -m benchmarks")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    base = mixed_tree(os.path.abspath(args.base), args.work)
    extra = (["--quick"] if args.quick else []) + (["--only", *args.only] if args.only else [])
    new_runs, old_runs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            order = [(HERE, new_runs), (base, old_runs)]
            for tree, sink in order if r % 2 == 0 else order[::-1]:
                print(f"# round {r + 1}: {'this tree' if tree == HERE else base}", flush=True)
                sink.append(suite(tree, os.path.join(tmp, f"{len(sink)}-{id(sink)}.json"),
                                  extra))
    result = compare(new_runs, old_runs, args.threshold)
    print(f"# {label(HERE)} against {label(os.path.abspath(args.base))}: medians of "
          f"{args.rounds} alternating runs; CPU time where the row records it")
    print(f"| {'benchmark':<60} | {'base':>10} | {'this':>10} | {'change':>8} |")
    for r in result:
        name = r["benchmark"] + (f" vs {r['baseline']}" if r["baseline"] else "")
        name += " (CPU)" if r["cpu"] else ""
        flag = "  SLOWER" if r["slower"] else ""
        print(f"| {name[:60]:<60} | {r['old_s']:10.4g} | {r['new_s']:10.4g} | "
              f"{r['change']:+8.1%} |{flag}")
    compared = {r["benchmark"] for r in result}
    alone = sorted({r["benchmark"] for rows in new_runs for r in rows} - compared)
    if alone:
        print(f"# not compared (missing or untimed on one side): {'; '.join(alone)}")
    slower = [r for r in result if r["slower"]]
    print(f"# {len(slower)} of {len(result)} rows slower by more than {args.threshold:.0%}")
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
