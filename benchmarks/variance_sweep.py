"""How far ``throws_variance_all`` is from the exact rationals on boards with lopsided dice.

Usage: ``python -m benchmarks.variance_sweep [--boards 1500] [--seed 0]`` (not part of
``python -m benchmarks``: an accuracy check, run once after a change to the variance code).

Random boards of 2-16 squares (jumps as ``tests/conftest.py`` draws them, every overshoot
rule, ``chain`` True and False, any start) with dice whose faces' probabilities are
lopsided (.001/.999, 1e-6, three faces), each solved by both solver bodies
(``options(path="direct" | "structured")``) and compared square by square with
``throws_variance_all(board, exact=True)`` (``snl_numeric.exact``'s fractions). Printed:
the largest true relative error of an answer that came without a warning (every one must be
below 1e-10), the warnings, whether each warning's stated bound covers the true error (a
false warning: one that does not, or one on a board whose answers are all right to 1e-10)
and the boards that fail.
"""

from __future__ import annotations

import argparse
import json
import re
import warnings
from fractions import Fraction

import numpy as np

from snl_numeric import Board, options, throws_variance_all

DICE = [{1: .001, 2: .999}, {1: .999, 2: .001}, {1: 1e-6, 3: 1 - 1e-6},
        {2: .001, 3: .998, 4: .001}, {1: .01, 2: .98, 6: .01}, {1: .5 - 5e-7, 2: .5 + 5e-7}]
_BOUND = re.compile(r"relative error of ([0-9.e+-]+)")


def random_board(rng: np.random.Generator) -> Board:
    """A board as ``tests/conftest.py``'s ``boards`` draws one, with lopsided dice."""
    size = int(rng.integers(2, 17))
    dice = DICE[rng.integers(len(DICE))]
    overshoot = ["win", "exact", "bounce"][rng.integers(3)]
    chain = bool(rng.integers(2))
    if overshoot == "bounce" and max(dice) > size + 1:
        overshoot = "exact"
    sources = rng.choice(size, size=int(rng.integers(0, max(size // 3, 1) + 1)), replace=False)
    jumps = {}
    for s in sources.tolist():
        d = int(rng.integers(0, size + 1))
        if d != s:
            jumps[s] = d
    if chain:  # drop jumps that would close a cycle
        kept: dict[int, int] = {}
        for s, d in jumps.items():
            trial = {**kept, s: d}
            node, seen = s, set()
            while node in trial and node not in seen:
                seen.add(node)
                node = trial[node]
            if node not in seen:
                kept[s] = d
        jumps = kept
    return Board(size, jumps, start=int(rng.integers(0, size + 1)), overshoot=overshoot,
                 chain=chain, dice=dice)


def describe(board: Board) -> str:
    return json.dumps(board.to_dict())


def true_error(ours: np.ndarray, exact) -> float:
    """The largest relative error over the squares (inf where 0 or inf is missed)."""
    worst = 0.0
    for a, e in zip(ours.tolist(), exact, strict=True):
        if e == float("inf") or e == 0 or not np.isfinite(a):
            worst = max(worst, 0.0 if a == e else np.inf)
        else:
            worst = max(worst, float(abs(Fraction(a) - e) / e))
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.variance_sweep")
    parser.add_argument("--boards", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    silent_worst = 0.0
    counts = {"answers": 0, "warned": 0, "silently wrong": 0, "bound too small": 0,
              "warned but right": 0}
    for i in range(args.boards):
        board = random_board(rng)
        exact = throws_variance_all(board, exact=True)
        for path in ("direct", "structured"):
            with options(path=path), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                var = throws_variance_all(Board.from_dict(board.to_dict()))
            err = true_error(var, exact)
            counts["answers"] += 1
            notes = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
            if not notes:
                silent_worst = max(silent_worst, err)
                if err > 1e-10:
                    counts["silently wrong"] += 1
                    print(f"silently wrong {err:.2g} ({path}): {describe(board)}")
                continue
            counts["warned"] += 1
            found = [_BOUND.search(n) for n in notes]
            bound = max((float(m.group(1)) for m in found if m), default=np.inf)
            if err > bound:
                counts["bound too small"] += 1
                print(f"bound {bound:.1g} < true error {err:.2g} ({path}): {describe(board)}")
            elif err <= 1e-10:
                counts["warned but right"] += 1
                print(f"warned {bound:.1g}, true error {err:.2g} ({path}): {describe(board)}")
        if (i + 1) % 250 == 0:
            print(f"{i + 1} boards ...", flush=True)
    print(f"{args.boards} boards, {counts['answers']} answers (both solver bodies): largest "
          f"true relative error without a warning {silent_worst:.2g}; " +
          ", ".join(f"{k} {v}" for k, v in counts.items() if k != "answers"))


if __name__ == "__main__":
    main()
