"""Fair starts: the vectorised handicap search against one win_probabilities call per candidate.

Targets (issue 51): on Milton Bradley, two players' start squares with a first-player edge
below 1e-5 found in under a second; three independent players within 1e-3 of 1/3 each.
Ours: ``fair_starts`` (every square's length distribution from one backward push, every
pair of squares by matrix products); the baseline: a loop over the candidates calling
``win_probabilities(board, 2, starts=[0, b])`` once per square ``b`` (player 0 kept on the
start, the 100 candidates the search with ``move_first=False`` covers). Fresh
``Board.from_dict`` each call on both sides; wall and CPU time.

``design_board(objective="fair")``'s evaluation of a batch of 256 candidate layouts
(``snl_numeric.design.fair.fair_edges``: one sparse product per throw with the batch's
block-diagonal matrix) against a fresh ``first_player_advantage`` per layout; here every
layout is Milton Bradley's, so both sides do the same work.
"""

from __future__ import annotations

import numpy as np

from benchmarks._util import interleaved_times, median_times, row
from snl_numeric import Board, boards, fair_starts, first_player_advantage, win_probabilities
from snl_numeric._core.table import OVERSHOOT_CODES
from snl_numeric.design.fair import fair_edges
from snl_numeric.design.kernels import Space

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
    rows.append(design_row(reps))
    return rows


def design_row(reps: int, layouts: int = 256) -> dict:
    """``fair_edges`` of ``layouts`` candidates against a fresh ``first_player_advantage``
    per candidate (Milton Bradley's layout each time)."""
    mb = boards.get("milton-bradley")
    d = mb.to_dict()
    src = np.array(sorted(mb.snakes) + sorted(mb.ladders), dtype=np.int64)
    dst = np.array([mb.jumps[s] for s in src.tolist()], dtype=np.int64)
    srcs, dsts = np.repeat(src[None], layouts, 0), np.repeat(dst[None], layouts, 0)
    ok = np.ones(mb.size + 1, dtype=bool)
    space = Space(mb.size, len(mb.snakes), ok, ok, 1, mb.size, mb.start,
                  OVERSHOOT_CODES[mb.overshoot], mb.chain, mb.dice.faces,
                  mb.dice.probs.reshape(1, -1))

    def ours() -> np.ndarray:
        return fair_edges(space, srcs, dsts, 2, 1e-12, 10_000_000)

    def base() -> list[float]:
        return [first_player_advantage(Board.from_dict(d), 2) for _ in range(layouts)]

    t = interleaved_times({"ours": (ours, 1), "base": (base, 1)}, reps)
    gap = float(np.abs(ours() - first_player_advantage(mb, 2)).max())
    return row(f"design fair: edges of {layouts} MB layouts", t["ours"][0],
               "first_player_advantage per layout", t["base"][0],
               note=f"max difference {gap:.1e}; ours {t['ours'][1] / layouts * 1e3:.2f} ms "
                    f"CPU per layout", ours_cpu_s=t["ours"][1], baseline_cpu_s=t["base"][1],
               method="ours: fair_edges(space, 256 layouts); baseline: "
                      "first_player_advantage(Board.from_dict(d), 2) per layout")


if __name__ == "__main__":
    import sys

    for r in run(quick="--quick" in sys.argv):
        print(r)
