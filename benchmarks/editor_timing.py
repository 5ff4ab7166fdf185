"""How long the editable report takes to answer an edit, measured in the page itself.

Usage: ``python -m benchmarks.editor_timing [--boards 40] [--repeats 5]`` (needs Debian's
``chromium``; not part of ``python -m benchmarks``, which runs without a browser).

The editable report of Milton Bradley is opened in headless chromium (the tests' DevTools
driver, ``tests/browser.py``); Milton Bradley under every overshoot rule and dice, then
random boards of 30-200 squares (every rule, dice strings), are each loaded into the editor
``--repeats`` times; one update is the page's own ``performance.now()`` around solving and
redrawing (``snlEditor.result().ms``). Printed: the best and the median of the repeats of
each board, and percentiles over the boards.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile

import numpy as np

from snl_numeric import Board, boards, report

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests"))
from browser import Browser, evaluate, find_chromium, open_page  # noqa: E402

DICE = ["d6", "2d6", "1-3", "1:0.5,2:0.5", "5-8", "d10", "2:0.25,3:0.75"]


def random_board(rng: random.Random) -> Board:
    while True:
        size = rng.randrange(30, 201)
        jumps: dict[int, int] = {}
        for _ in range(size // 8):
            s, d = rng.randrange(1, size), rng.randrange(0, size + 1)
            if s != d:
                jumps[s] = d
        try:
            return Board(size, jumps, overshoot=rng.choice(["win", "exact", "bounce"]),
                         chain=rng.random() < 0.3, dice=rng.choice(DICE))
        except ValueError:
            continue


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    exe = find_chromium()
    if exe is None:
        print("needs chromium: apt-get install -y chromium", file=sys.stderr)
        return 2
    mb = boards.get("milton-bradley")
    rng = random.Random(52)
    cases = [("milton-bradley " + r + " " + d, mb.replace(overshoot=r, dice=d))
             for r in ("exact", "win", "bounce") for d in ("d6", "2d6")]
    cases += [(f"random {b.size} {b.overshoot} {'chain ' if b.chain else ''}{len(b.jumps)} jumps", b)
              for b in (random_board(rng) for _ in range(args.boards))]
    browser = Browser(exe)
    best, medians = [], []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            page = os.path.join(tmp, "editor.html")
            report(mb, page, editable=True)
            session, problems = open_page(browser, page, width=1100, height=900)
            assert not problems, problems
            for name, board in cases:
                ms = json.loads(evaluate(browser, session, (
                    f"var b = {board.to_json()}, out = [];"
                    f"for (var i = 0; i < {args.repeats}; i++) {{ snlEditor.load(b);"
                    " out.push(JSON.parse(snlEditor.result()).ms); } JSON.stringify(out)")))
                best.append(min(ms))
                medians.append(statistics.median(ms))
                print(f"{name:45s} best {min(ms):6.1f} ms  median {statistics.median(ms):6.1f} ms")
    finally:
        browser.close()
    for label, values in (("best of repeats", best), ("median of repeats", medians)):
        p = np.percentile(values, [50, 90, 100])
        print(f"{label:18s}: p50 {p[0]:.1f} ms, p90 {p[1]:.1f} ms, max {p[2]:.1f} ms "
              f"({sum(v < 20 for v in values)}/{len(values)} boards under 20 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
