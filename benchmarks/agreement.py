"""Agreement of exact answers across two trees (issue 49's "Done when").

Every exact answer must be bitwise the same as the other tree's, or within
``max(1e-14, bound_ours + bound_theirs)`` relative, where a bound is what the tree
certifies for that answer:

- ``expected_throws_all``: each tree's :func:`solver_report` ``error_estimate``;
- ``throws_variance_all`` and ``finish_probability``: the library certifies these below
  ``WARN_ERROR = 1e-10`` relative or warns with the bound it reached (the warning's
  figure is then the bound);
- ``min_throws``: an integer, equal or not;
- ``length_distribution`` (the pmf, ``tail=1e-9``, at most 10,000 throws, to keep the
  check quick; skipped, as a refusal, on boards whose largest finite expected throws
  exceed 500, whose pmf would be longer): no certificate, so ``1e-14`` relative per
  entry, and the same length.

``inf`` and ``nan`` must sit on the same squares in both trees, and a question one tree
refuses on a board (an exception: a bad board, a pmf longer than 10,000 throws, a pmf
skipped) must be refused by the other with the same exception type ("refused" in the
table). The ``solver_report`` bounds themselves are compared and shown (how many are
bitwise the same, the largest ratio), not judged.

Boards: for every rule the ``Board`` constructor accepts (overshoot ``win``, ``exact``,
``bounce`` x ``chain`` False/True), the registry's boards (``snl_numeric.boards``, under
that rule) and ``--boards`` random boards (500 by default) from one seed: sizes
log-uniform from 2 to 2,000 squares, 0-30% of the squares starting a jump
(half snakes), one board in five starting off square 0, random dice (fair d6, a fair
spinner, two d6 summed, a loaded die on a few faces, lopsided ones such as
``{1: 0.99, m: 0.01}``, faces with a common divisor) and about 3% with a wall of snakes
that no throw passes (squares that never finish: ``inf`` answers, finish probability
below 1). Under ``chain=True`` jumps may chain, never in a cycle. The boards are drawn in
this process with NumPy only (no tree's ``random_board``) and handed to both trees as
JSON; each tree answers in its own process (``PYTHONPATH`` = that tree) and returns its
answers in an ``.npz`` file.

Usage: ``python -m benchmarks.agreement --base /tmp/base [--other /work/main]
[--boards 500] [--seed 49]``; ``--other`` defaults to this tree. Exits with status 1 on
any answer beyond its bound (or a mismatched inf/nan, length or refusal).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from benchmarks._ab import HERE, label, run_in
from snl_numeric import boards

RULES = [(o, c) for o in ("win", "exact", "bounce") for c in (False, True)]
#: Arrays compared entry by entry (min_throws and finish_probability as length-1 arrays).
QUANTITIES = ("expected_throws_all", "throws_variance_all", "finish_probability",
              "min_throws", "length_distribution")
FLOOR = 1e-14
#: What the library certifies when it does not warn (``_core.solve`` ``WARN_ERROR``).
WARN_ERROR = 1e-10
TAIL = 1e-9
#: Per-board work kept small: a pmf that needs more throws is a refusal both trees share.
MAX_THROWS = 10_000

# Runs in each tree's own process: public API only.
_CHILD = r"""
import json, re, sys, time, warnings
import numpy as np
import snl_numeric as S
src, dst = {src!r}, {dst!r}
tail, max_throws, warn_error = {tail!r}, {max_throws!r}, {warn_error!r}
specs = json.load(open(src))
values = {{q: [] for q in {quantities!r}}}
lengths = {{q: [] for q in values}}
bounds = {{q: [] for q in values}}
errors, methods, estimates = {{}}, [], []
num = re.compile(r"relative error of ([0-9.eE+-]+|inf)")

def call(fn):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = fn()
    found = [float(m.group(1)) for w in seen for m in [num.search(str(w.message))] if m]
    return out, max(found, default=warn_error)

class Skipped(Exception):
    pass

def pmf(b):
    # skipped where the pmf would need more than max_throws: past a mean of max_throws / 20
    # (a 1e-9 tail takes about 20 means) on some square; both trees decide alike unless
    # their expected throws differ, which the table shows
    e = S.expected_throws_all(b)
    if e[np.isfinite(e)].max(initial=0.0) * 20 > max_throws:
        raise Skipped("mean too long for max_throws")
    return S.length_distribution(b, tail=tail, max_throws=max_throws)

t0 = time.perf_counter()
for i, s in enumerate(specs):
    got = {{}}
    try:
        b = S.Board(s["size"], {{int(a): int(c) for a, c in s["jumps"]}}, start=s["start"],
                    overshoot=s["overshoot"], chain=s["chain"],
                    dice={{int(f): float.fromhex(p) for f, p in s["dice"]}})
    except Exception as exc:  # the other tree must refuse it alike
        b = exc
    steps = (
        ("expected_throws_all", lambda: (call(lambda: S.expected_throws_all(b))[0],
                                          S.solver_report(b))),
        ("throws_variance_all", lambda: call(lambda: S.throws_variance_all(b))),
        ("finish_probability", lambda: call(lambda: [S.finish_probability(b)])),
        ("min_throws", lambda: ([S.min_throws(b)], 0.0)),
        ("length_distribution", lambda: (pmf(b), 0.0)),
    )
    rep = None
    for q, fn in steps:
        try:
            if isinstance(b, Exception):
                raise b
            x, bound = fn()
            if q == "expected_throws_all":
                rep, bound = bound, bound.error_estimate
        except Exception as exc:
            errors[f"{{i}} {{q}}"] = type(exc).__name__ + ": " + str(exc)[:200]
            x, bound = [], float("nan")
        x = np.asarray(x, dtype=np.float64).ravel()
        values[q].append(x)
        lengths[q].append(len(x))
        bounds[q].append(bound)
    methods.append(rep.method if rep is not None else "error")
    estimates.append(rep.error_estimate if rep is not None else float("nan"))
arrays = {{}}
for q in values:
    arrays[q] = np.concatenate(values[q]) if values[q] else np.zeros(0)
    arrays[q + ".len"] = np.array(lengths[q], dtype=np.int64)
    arrays[q + ".bound"] = np.array(bounds[q], dtype=np.float64)
arrays["error_estimate"] = np.array(estimates)
np.savez(dst, **arrays)
print(json.dumps({{"seconds": time.perf_counter() - t0, "errors": errors,
                   "methods": methods}}))
"""


def _dice(g: np.random.Generator) -> dict[int, float]:
    kind = g.integers(6)
    if kind == 0:
        faces, w = np.arange(1, 7), np.ones(6)
    elif kind == 1:  # a fair spinner 1..k
        k = int(g.integers(2, 13))
        faces, w = np.arange(1, k + 1), np.ones(k)
    elif kind == 2:  # two d6 summed
        faces = np.arange(2, 13)
        w = 6.0 - np.abs(faces - 7)
    elif kind == 3:  # a loaded die on a few faces
        faces = np.sort(g.choice(np.arange(1, 11), size=int(g.integers(2, 6)), replace=False))
        w = g.dirichlet(np.ones(len(faces)))
    elif kind == 4:  # lopsided
        m = int(g.integers(2, 9))
        eps = float(10.0 ** -g.uniform(1, 3))
        faces, w = np.array([1, m]), np.array([1 - eps, eps])
    else:  # a common divisor: some squares never reached
        d = int(g.integers(2, 4))
        faces = d * np.arange(1, int(g.integers(2, 4)) + 1)
        w = g.dirichlet(np.ones(len(faces)))
    p = w / w.sum()
    return {int(f): float(x) for f, x in zip(faces, p, strict=True)}


def _leads_to(jumps: dict[int, int], a: int, b: int) -> bool:
    """Whether following jumps from ``a`` reaches ``b``."""
    seen = set()
    while a in jumps and a not in seen:
        seen.add(a)
        a = jumps[a]
        if a == b:
            return True
    return False


def random_spec(g: np.random.Generator, overshoot: str, chain: bool) -> dict:
    """One board as plain data: size, jumps, start, rules, dice (probabilities in hex)."""
    dice = _dice(g)
    top = max(dice)
    size = int(round(math.exp(g.uniform(math.log(2), math.log(2000)))))
    if overshoot == "bounce":
        size = max(size, top)
    size = max(size, 2)
    jumps: dict[int, int] = {}
    wall = g.random() < 0.03 and size > top + 4
    if wall:  # `top` snakes in a row: no throw passes them
        w = int(g.integers(2, size - top))
        for s in range(w, w + top):
            jumps[s] = int(g.integers(0, w))
    count = int(round(g.uniform(0, 0.3) * (size - 1)))
    for s in g.choice(np.arange(1, size), size=min(count, size - 1), replace=False).tolist():
        if s in jumps:
            continue
        d = int(g.integers(0, s)) if g.random() < 0.5 else int(g.integers(s + 1, size + 1))
        if chain and (d == s or _leads_to(jumps, d, s)):
            continue
        jumps[s] = d
    start = int(g.integers(0, size)) if g.random() < 0.2 else 0
    return {"size": size, "jumps": sorted(jumps.items()), "start": start,
            "overshoot": overshoot, "chain": chain, "wall": bool(wall),
            "dice": [[f, p.hex()] for f, p in dice.items()]}


def named_spec(name: str, overshoot: str, chain: bool) -> dict:
    """A registry board (``snl_numeric.boards``) under the given rule."""
    d = boards.get(name).to_dict()
    dice = zip(d["dice"]["faces"], d["dice"]["probs"], strict=True)
    return {"size": d["size"], "jumps": [tuple(j) for j in d["jumps"]], "start": d["start"],
            "overshoot": overshoot, "chain": chain, "wall": False, "name": name,
            "dice": [[int(f), float(p).hex()] for f, p in dice]}


def specs(count: int, seed: int) -> list[dict]:
    """For every rule, the registry's boards and ``count`` random boards from ``seed``."""
    g = np.random.default_rng(seed)
    return [spec for o, c in RULES
            for spec in [named_spec(name, o, c) for name in boards.names()]
            + [random_spec(g, o, c) for _ in range(count)]]


def answer(tree_path: str, spec_file: str, out_file: str) -> dict:
    """Run the child in ``tree_path``; its summary (the arrays are in ``out_file``)."""
    code = _CHILD.format(src=spec_file, dst=out_file, tail=TAIL, max_throws=MAX_THROWS,
                         warn_error=WARN_ERROR, quantities=QUANTITIES)
    summary = run_in(tree_path, code, timeout=3600)
    summary["errors"] = {(int(k.split()[0]), k.split()[1]): v
                         for k, v in summary["errors"].items()}
    return summary


def _split(npz, q: str) -> list[np.ndarray]:
    return np.split(npz[q], np.cumsum(npz[q + ".len"])[:-1])


def _rel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``|a - b| / max(|a|, |b|)`` on finite entries (0 where both are 0)."""
    scale = np.maximum(np.abs(a), np.abs(b))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(a == b, 0.0, np.abs(a - b) / scale)


def compare(spec_list: list[dict], ours: dict, theirs: dict, a, b) -> tuple[list[dict], list[str]]:
    """One row per rule and quantity, and the list of disagreements."""
    rows, bad = [], []
    rule_of = [(s["overshoot"], s["chain"]) for s in spec_list]
    for q in QUANTITIES:
        xs, ys = _split(a, q), _split(b, q)
        ba, bb = a[q + ".bound"], b[q + ".bound"]
        for rule in RULES:
            idx = [i for i, r in enumerate(rule_of) if r == rule]
            n = equal = within = nonfinite = refused = 0
            worst, worst_tol = 0.0, 0.0
            for i in idx:
                ea, eb = ours["errors"].get((i, q)), theirs["errors"].get((i, q))
                if ea is not None or eb is not None:
                    if (ea or "").split(":")[0] != (eb or "").split(":")[0]:
                        bad.append(f"board {i} {rule} {q}: refused differently: "
                                   f"{ea!r} vs {eb!r}")
                    refused += 1
                    continue
                n += 1
                x, y = xs[i], ys[i]
                if x.shape == y.shape and np.array_equal(x.view(np.int64), y.view(np.int64)):
                    equal += 1
                    within += 1
                    nonfinite += int(not np.isfinite(x).all())
                    continue
                if x.shape != y.shape:
                    bad.append(f"board {i} {rule} {q}: length {len(x)} vs {len(y)}")
                    continue
                fx, fy = np.isfinite(x), np.isfinite(y)
                same_nonfinite = (np.array_equal(fx, fy)
                                  and np.array_equal(x[~fx], y[~fy], equal_nan=True))
                if not same_nonfinite:
                    bad.append(f"board {i} {rule} {q}: inf/nan differ")
                    continue
                nonfinite += int(not fx.all())
                tol = FLOOR if q in ("min_throws", "length_distribution") else max(
                    FLOOR, float(ba[i]) + float(bb[i]))
                if q == "min_throws":
                    tol = 0.0
                r = float(_rel(x[fx], y[fy]).max(initial=0.0))
                if r > worst:
                    worst, worst_tol = r, tol
                if r <= tol:
                    within += 1
                else:
                    bad.append(f"board {i} {rule} {q}: rel. difference {r:.2e} > {tol:.1e}")
            rows.append({"rule": f"{rule[0]}/{'chain' if rule[1] else 'one'}", "quantity": q,
                         "boards": n, "bitwise": equal, "max_rel": worst,
                         "tol_at_max": worst_tol, "within": within, "nonfinite": nonfinite,
                         "refused": refused})
    return rows, bad


def _estimates(spec_list, ours, theirs, a, b) -> list[dict]:
    """The solver_report bounds and methods of the two trees, per rule."""
    out = []
    for rule in RULES:
        idx = [i for i, s in enumerate(spec_list) if (s["overshoot"], s["chain"]) == rule]
        ea, eb = a["error_estimate"][idx], b["error_estimate"][idx]
        ok = np.isfinite(ea) & np.isfinite(eb)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(ea == eb, 1.0, np.maximum(ea, eb) / np.minimum(ea, eb))
        out.append({"rule": f"{rule[0]}/{'chain' if rule[1] else 'one'}",
                    "bitwise": int(np.sum(ea[ok].view(np.int64) == eb[ok].view(np.int64))),
                    "boards": int(ok.sum()), "max_ratio": float(np.max(ratio[ok], initial=1.0)),
                    "largest": float(max(np.max(ea[ok], initial=0), np.max(eb[ok], initial=0))),
                    "same_method": sum(ours["methods"][i] == theirs["methods"][i] for i in idx)})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.agreement")
    parser.add_argument("--base", required=True, help="the older tree (a git worktree)")
    parser.add_argument("--other", default=HERE, help="the newer tree (default: this one)")
    parser.add_argument("--boards", type=int, default=500,
                        help="random boards per rule (besides the registry's)")
    parser.add_argument("--seed", type=int, default=49)
    parser.add_argument("--serial", action="store_true",
                        help="run the two trees one after the other (default: side by side)")
    args = parser.parse_args(argv)
    new, old = os.path.abspath(args.other), os.path.abspath(args.base)
    spec_list = specs(args.boards, args.seed)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "boards.json")
        with open(src, "w") as fh:
            json.dump(spec_list, fh)
        files = [os.path.join(tmp, "new.npz"), os.path.join(tmp, "old.npz")]
        with ThreadPoolExecutor(1 if args.serial else 2) as pool:
            jobs = [pool.submit(answer, t, src, f) for t, f in zip((new, old), files, strict=True)]
            ours, theirs = (j.result() for j in jobs)
        with np.load(files[0]) as a, np.load(files[1]) as b:
            a, b = dict(a), dict(b)
    rows, bad = compare(spec_list, ours, theirs, a, b)
    refused = {i for i, _ in set(ours["errors"]) | set(theirs["errors"])}
    print(f"# agreement: {label(new)} ({new}) vs {label(old)} ({old}); seed {args.seed}, "
          f"{args.boards} random and {len(boards.names())} registry boards per rule, "
          f"{len(refused)} with a refusal; "
          f"{ours['seconds']:.0f} s and {theirs['seconds']:.0f} s of answering, "
          f"{time.perf_counter() - t0:.0f} s in all")
    print(f"| {'rule':<12} | {'quantity':<20} | {'boards':>6} | {'bitwise':>7} | "
          f"{'max rel diff':>12} | {'bound there':>11} | {'within':>6} | inf/nan | refused |")
    print("|" + "|".join("-" * w for w in (14, 22, 8, 9, 14, 13, 8, 9, 9)) + "|")
    for r in rows:
        print(f"| {r['rule']:<12} | {r['quantity']:<20} | {r['boards']:>6} | {r['bitwise']:>7} | "
              f"{r['max_rel']:>12.2e} | {r['tol_at_max']:>11.1e} | {r['within']:>6} | "
              f"{r['nonfinite']:>7} | {r['refused']:>7} |")
    print("# solver_report error_estimate (not judged): rule, bitwise same / boards, largest "
          "ratio between the trees, largest bound, same method")
    for e in _estimates(spec_list, ours, theirs, a, b):
        print(f"#   {e['rule']:<12} {e['bitwise']:>4} / {e['boards']:<4} ratio "
              f"{e['max_ratio']:<8.3g} largest {e['largest']:.1e}  method same "
              f"{e['same_method']}")
    for line in bad[:20]:
        print("DISAGREE", line)
    if bad:
        print(f"# {len(bad)} disagreement(s) beyond the bound")
        return 1
    print("# every answer bitwise equal or within its bound")
    return 0


if __name__ == "__main__":
    sys.exit(main())
