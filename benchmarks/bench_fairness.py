"""Fair starts: the vectorised handicap search against one win_probabilities call per candidate.

Targets (issue 51): on Milton Bradley, two players' start squares with a first-player edge
below 1e-5 found in under a second; three independent players within 1e-3 of 1/3 each.
Ours: ``fair_starts`` (every square's length distribution from one backward push, every
pair of squares by matrix products); the baseline: a loop over the candidates calling
``win_probabilities(board, 2, starts=[0, b])`` once per square ``b`` (player 0 kept on the
start, the 100 candidates the search with ``move_first=False`` covers). Fresh
``Board.from_dict`` each call on both sides; wall and CPU time.
"""

from __future__ import annotations

import numpy as np

from benchmarks._util import interleaved_times, median_times, row
from snl_numeric import Board, boards, fair_starts, win_probabilities

TARGET_S = 1.0


def loop_search(board: Board) -> tuple[int, float]:
    """Player 1's fairest start square with player 0 on the board's start, one
    ``win_probabilities`` call per candidate."""
    best, where = np.inf, -1
    for b in range(board.size):
        dev = float(np.abs(win_probabilities(board, 2, starts=[board.start, b]) - 0.5).max())
        if dev < best:
            best, where = dev, b
    return where, best


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    mb = boards.get("milton-bradley")
    d = mb.to_dict()
    reps = 3 if quick else repeats
    rows = []
    t = interleaved_times({
        "ours": (lambda: fair_starts(Board.from_dict(d), move_first=False), 5),
        "base": (lambda: loop_search(Board.from_dict(d)), 1)}, reps)
    f = fair_starts(mb, move_first=False)
    where, dev = loop_search(mb)
    rows.append(row("fair_starts MB k=2, player 0 on 0 (100 squares)", t["ours"][0],
                    "win_probabilities per candidate", t["base"][0],
                    note=f"ours {f.starts} dev {f.deviation:.2e}; loop (0, {where}) "
                         f"dev {dev:.2e}",
                    ours_cpu_s=t["ours"][1], baseline_cpu_s=t["base"][1],
                    method="ours: fair_starts(Board.from_dict(d), move_first=False); "
                           "baseline: bench_fairness.loop_search(Board.from_dict(d))"))
    wall, cpu = median_times(lambda: fair_starts(Board.from_dict(d)), repeats=reps)
    f = fair_starts(mb)
    ok = "ok" if cpu < TARGET_S and f.deviation < 1e-5 else "MISSED"
    rows.append(row("fair_starts MB k=2, all 101 x 101 start pairs", wall,
                    note=f"{f.starts} dev {f.deviation:.2e}; CPU {cpu:.3f} s; target <1 s, "
                         f"<1e-5: {ok}", ours_cpu_s=cpu))
    wall, cpu = median_times(lambda: fair_starts(Board.from_dict(d), 3), repeats=min(reps, 3))
    f = fair_starts(mb, 3)
    ok = "ok" if f.deviation < 1e-3 else "MISSED"
    rows.append(row("fair_starts MB k=3, 10^6 start triples", wall,
                    note=f"{f.starts} dev {f.deviation:.2e}; CPU {cpu:.2f} s; target <1e-3: "
                         f"{ok}", ours_cpu_s=cpu))
    return rows


if __name__ == "__main__":
    import sys

    for r in run(quick="--quick" in sys.argv):
        print(r)
