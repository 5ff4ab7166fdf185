"""Multi-player win probabilities: independent lengths vs the pair-state chain.

Targets (issue 5): ``win_probabilities`` for 2..10 players on the 100-square
Milton Bradley board in under 5 ms each, and at least 100x faster than the
pair-state sparse solve (seed 004's recursion over both players' squares and
whose turn, ``2 * 101^2`` unknowns) for two players, in the same run, both on a new
``Board.from_dict`` each call (wall and CPU time).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from benchmarks._util import interleaved_times, median_time, row
from snl_numeric import Board, boards, expected_game_length, throw_distances, win_probabilities

TARGET_S = 5e-3


def pair_state_win_probabilities(board0, board1=None, starts=None) -> np.ndarray:
    """Two players' win chances from the joint chain over (square 0, square 1, turn).

    ``W_p(a, b, t)``: chance that player ``p`` wins when the players stand on
    ``a`` and ``b`` and player ``t`` throws next. Transitions come from the
    compiled successor tables (every rule variant); states from which neither
    player can reach the goal are fixed at 0 so ``I - M`` is invertible. The
    system is built with NumPy (no Python loop over states) and solved with
    one sparse LU for both right-hand sides.
    """
    board1 = board0 if board1 is None else board1
    cbs = (board0.compiled, board1.compiled)
    s0, s1 = (board0.start, board1.start) if starts is None else starts
    if s0 == cbs[0].size:
        return np.array([1.0, 0.0])
    if s1 == cbs[1].size:
        return np.array([0.0, 1.0])
    n0, n1 = cbs[0].n_states, cbs[1].n_states
    d0, d1 = throw_distances(board0), throw_distances(board1)
    live = (d0[:, None] > 0) | (d1[None, :] > 0)
    live[cbs[0].size, :] = live[:, cbs[1].size] = False
    a, b = np.meshgrid(np.arange(n0), np.arange(n1), indexing="ij")
    m = 2 * n0 * n1
    rows, cols, vals = [np.arange(m)], [np.arange(m)], [np.ones(m)]
    rhs = np.zeros((m, 2))
    for turn, cb in enumerate(cbs):
        offset = turn * n0 * n1
        for f, p in enumerate(cb.probs):
            if turn == 0:
                na, nb = cb.succ[a, f], b
                win = na == cb.size
            else:
                na, nb = a, cb.succ[b, f]
                win = nb == cb.size
            src = offset + a * n1 + b
            rhs[src[live & win], turn] += p
            move = live & ~win & live[na, nb]
            dst = (1 - turn) * n0 * n1 + na * n1 + nb
            rows.append(src[move])
            cols.append(dst[move])
            vals.append(np.full(int(move.sum()), -p))
    mat = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                        shape=(m, m))
    sol = spla.splu(mat).solve(rhs)
    return sol[s0 * n1 + s1].copy()


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    mb = boards.get("milton-bradley")
    d = mb.to_dict()
    win_probabilities(mb, 2)  # compile kernels, compile the board
    rows = []
    # a new board each call, both sides (Board.from_dict of the description)
    t = interleaved_times({"ours": (lambda: win_probabilities(Board.from_dict(d), 2), 20),
                           "base": (lambda: pair_state_win_probabilities(Board.from_dict(d)),
                                    1)}, repeats if not quick else 3)
    err = np.abs(win_probabilities(mb, 2) - pair_state_win_probabilities(mb)).max()
    rows.append(row("win_probabilities MB k=2, new Board each call", t["ours"][0],
                    "pair-state splu (20402 unknowns)", t["base"][0],
                    note=f"max |diff| {err:.1e}; target <5 ms, >=100x",
                    ours_cpu_s=t["ours"][1], baseline_cpu_s=t["base"][1],
                    method="ours: win_probabilities(Board.from_dict(d), 2); baseline: "
                           "bench_players.pair_state_win_probabilities(Board.from_dict(d)), "
                           "the joint chain over (square, square, turn) built with NumPy, "
                           "one splu for both right-hand sides"))
    for k in ((4, 10) if quick else range(3, 11)):
        t = median_time(lambda k=k: win_probabilities(mb, k), repeats=repeats, number=20)
        ok = "ok" if t < TARGET_S else "MISSED"
        rows.append(row(f"win_probabilities MB k={k}", t, note=f"target <5 ms: {ok}"))
    t = median_time(lambda: expected_game_length(mb, 4), repeats=repeats, number=20)
    rows.append(row("expected_game_length MB k=4", t))
    t = median_time(lambda: win_probabilities(boards.get("milton-bradley"), 4),
                    repeats=repeats, number=5)
    rows.append(row("win_probabilities MB k=4, fresh board", t,
                    note="includes building and compiling the board"))
    return rows


if __name__ == "__main__":
    import sys

    for r in run(quick="--quick" in sys.argv):
        print(r)
