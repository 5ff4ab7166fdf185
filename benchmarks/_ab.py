"""Same-run A/B against older trees: the same snippet in fresh processes, this tree's
and another's alternately, medians over repeats.

The other tree is a ``git worktree`` of an older commit, named by an environment
variable: ``SNL_BENCH_BASE`` (the commit before a change, e.g. ``c035537``) or
``SNL_BENCH_RELEASE`` (the last release, e.g. ``b4a4c6a``). Rows that need one are
left out when it is not set.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from typing import Any

#: This tree (the repository holding ``benchmarks/``).
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tree(env: str) -> str | None:
    """The tree an environment variable names, or None."""
    path = os.environ.get(env)
    return os.path.abspath(path) if path else None


def label(path: str) -> str:
    """A tree's short name: its commit."""
    out = subprocess.run(["git", "-C", path, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True)
    return out.stdout.strip() or os.path.basename(path)


def run_in(path: str, code: str, env: dict[str, str] | None = None,
           timeout: float = 1800) -> dict[str, Any]:
    """Run ``code`` (which prints one JSON object last) in a fresh process importing
    ``snl_numeric`` from ``path``."""
    child_env = {**os.environ, **(env or {}), "PYTHONPATH": path}
    out = subprocess.run([sys.executable, "-c", code], env=child_env, capture_output=True,
                         text=True, check=True, timeout=timeout, cwd=os.path.expanduser("~"))
    return json.loads(out.stdout.strip().splitlines()[-1])


def rotated(trees: list[str], rounds: int, run: Callable[[int, str], dict]
            ) -> dict[str, list[dict]]:
    """``{name: [result, ...]}`` over ``rounds`` rounds of ``run(i, name)`` for each tree
    ``trees[i]`` (one fresh process each), the order rotating from round to round; the
    first tree (this one) is named ``ours``, the others by :func:`label`."""
    names = ["ours"] + [label(t) for t in trees[1:]]
    results: dict[str, list[dict]] = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(trees)
        for i in list(range(len(trees)))[shift:] + list(range(len(trees)))[:shift]:
            results[names[i]].append(run(i, names[i]))
        print(f"round {r + 1}/{rounds} done", file=sys.stderr)
    return results


def tree_args(doc: str, rounds: int, cache: str, argv: list[str] | None
              ) -> tuple[argparse.Namespace, list[str]]:
    """The options of a same-run A/B script (``--tree`` repeated, ``--rounds``, ``--cache``)
    and its trees: this one first, then each ``--tree``."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--tree", action="append", default=[], help="another tree to time")
    ap.add_argument("--rounds", type=int, default=rounds)
    ap.add_argument("--cache", default=os.environ.get("NUMBA_CACHE_DIR", cache),
                    help="Numba cache directory prefix (one per tree)")
    args = ap.parse_args(argv)
    return args, [HERE, *map(os.path.abspath, args.tree)]


def alternate(code: str, other: str, repeats: int,
              env: dict[str, str] | None = None) -> tuple[list[dict], list[dict]]:
    """``(ours, theirs)``: ``repeats`` results each, the two trees run alternately."""
    ours: list[dict] = []
    theirs: list[dict] = []
    for r in range(repeats):
        order = [(HERE, ours), (other, theirs)]
        for path, sink in (order if r % 2 == 0 else order[::-1]):
            sink.append(run_in(path, code, env))
    return ours, theirs


def median(results: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in results)
