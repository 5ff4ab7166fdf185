"""Single-board speed (issues 2 and 24): analyze, expected throws, fewest throws (start-up:
``bench_import``).

Baselines, timed in the same run:
- seed 004's Gauss-Seidel iteration for expected throws (tolerance 1e-9), plain Python;
- the seeds' queue BFS for the fewest throws, plain Python;
- plain SciPy as a SciPy user writes it (``benchmarks/_baselines.py``): the successor
  table by NumPy fancy indexing from the board's public description, ``I - Q`` as a
  ``scipy.sparse.coo_array``, ``spsolve``; on Milton Bradley and on random boards of
  1,000 and 5,000 squares;
- QuantEcon's ``gth_solve`` (Numba, compiled before timing) given the same chain as a
  dense matrix made irreducible (the goal leads back to the start):
  ``E[T] = 1 / pi_goal - 1``. Skipped when ``quantecon`` is not installed
  (``pip install ".[bench]"``).

Every side that takes a board gets a new one each call, built as a user's loop builds it:
``Board.from_dict`` of the board's description (the baselines too, so both pay it). Wall
and CPU time are both recorded; each row's ``method`` says what each side runs.

Ours and the baselines are timed in turn in each of ``3 * repeats`` short rounds
(:func:`benchmarks._util.interleaved_times`), so a change in the machine's speed during the run
moves both sides of a ratio alike (with 5 rounds of 200 calls, three runs in a row on a
noisy host gave ``expected_throws`` 5.2x, 5.5x and 3.8x plain SciPy: one slow spell
fell on two of ours' five blocks).
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction

from benchmarks._baselines import gth_matrix, scipy_expected
from benchmarks._util import interleaved_times, median_time, row
from snl_numeric import Board, analyze, boards, expected_throws, min_throws
from snl_numeric.boards import random_board


def _move(board, pos, face):
    t = pos + face
    if t > board.size:
        if board.overshoot == "exact":
            return pos
        t = board.size if board.overshoot == "win" else 2 * board.size - t
    return board.jumps.get(t, t)


def gauss_seidel(board, eps=1e-9):
    """Seed 004, section 3.2: sweep from the goal down until the change is below eps."""
    n = board.size
    e = [0.0] * (n + 1)
    faces = [(int(f), float(p)) for f, p in zip(board.dice.faces, board.dice.probs, strict=False)]
    while True:
        diff = 0.0
        for i in range(n - 1, -1, -1):
            new = 1.0 + sum(p * e[_move(board, i, f)] for f, p in faces)
            diff = max(diff, abs(new - e[i]))
            e[i] = new
        if diff < eps:
            return e[board.start]


def queue_bfs(board):
    """The seeds' BFS with a queue and a visited array."""
    seen = [False] * (board.size + 1)
    seen[board.start] = True
    q = deque([(board.start, 0)])
    while q:
        v, d = q.popleft()
        if v == board.size:
            return d
        for f in board.dice.faces:
            w = _move(board, v, int(f))
            if not seen[w]:
                seen[w] = True
                q.append((w, d + 1))
    return -1


def quantecon_expected(gth_solve, p):
    """QuantEcon's GTH stationary distribution: the mean return time to the goal is
    ``1 / pi_goal = E[T] + 1``."""
    return 1.0 / gth_solve(p)[-1] - 1.0


def exact_expected(board):
    """Exact rational answer by Gauss-Jordan elimination over Fractions."""
    n = board.size
    p = Fraction(1, len(board.dice.faces))
    a = [[Fraction(int(i == j)) for j in range(n)] + [Fraction(1)] for i in range(n)]
    for i in range(n):
        for f in board.dice.faces:
            w = _move(board, i, int(f))
            if w != n:
                a[i][w] -= p
    for c in range(n):
        piv = next(r for r in range(c, n) if a[r][c] != 0)
        a[c], a[piv] = a[piv], a[c]
        inv = 1 / a[c][c]
        a[c] = [v * inv for v in a[c]]
        for r in range(n):
            if r != c and a[r][c] != 0:
                fac = a[r][c]
                a[r] = [v - fac * w for v, w in zip(a[r], a[c], strict=False)]
    return a[board.start][n]


#: What each side of a row runs (``--methods``; quoted by the performance page).
FRESH = "d = board.to_dict() once; each call builds Board.from_dict(d)"
SCIPY = ("benchmarks/_baselines.py scipy_expected(Board.from_dict(d)): successor table by "
         "NumPy fancy indexing from size/jumps/dice/overshoot, I - Q as "
         "scipy.sparse.coo_array -> CSC, scipy.sparse.linalg.spsolve")
GTH = ("quantecon.gth_solve(P) given the dense matrix P built beforehand (the goal leads "
       "back to the start; E[T] = 1 / pi_goal - 1)")


def _sized(size: int) -> dict:
    return random_board(size, 0.1, rng=1).to_dict()


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    mb = boards.get("milton-bradley")
    d = mb.to_dict()
    analyze(mb)  # compile the kernels
    rounds = 3 * repeats
    n_calls = 16 if quick else 64
    # a new Board for every call, built as a user's loop builds it (Board.from_dict of a
    # description), both sides: nothing is cached between calls, and every side pays the
    # same construction. Each board is dropped after its call, as in a plain loop.
    fresh = lambda: Board.from_dict(d)  # noqa: E731
    rows = []
    ours, exact = expected_throws(mb), exact_expected(mb)
    assert abs(scipy_expected(fresh()) - ours) < 1e-12 * ours
    contenders = {
        "analyze": (lambda: analyze(fresh()), n_calls // 4),
        "expected_throws": (lambda: expected_throws(fresh()), n_calls),
        "min_throws": (lambda: min_throws(fresh()), n_calls),
        "scipy": (lambda: scipy_expected(fresh()), n_calls),
        "gauss_seidel": (lambda: gauss_seidel(fresh()), 1),
        "bfs": (lambda: queue_bfs(fresh()), n_calls),
    }
    try:
        from quantecon import gth_solve
    except ImportError:
        pass
    else:
        p = gth_matrix(mb)
        assert abs(quantecon_expected(gth_solve, p) - ours) < 1e-9 * ours  # compiled here
        contenders["gth_solve"] = (lambda: quantecon_expected(gth_solve, p), n_calls)
    t = interleaved_times(contenders, rounds)
    t_an_cached = median_time(lambda: analyze(mb), repeats, n_calls)

    def pair(name, ours_key, base_key, baseline, method, note=""):
        rows.append(row(name, t[ours_key][0], baseline, t[base_key][0], note,
                        ours_cpu_s=t[ours_key][1], baseline_cpu_s=t[base_key][1],
                        method=method))

    rows.append(row("analyze(), Milton Bradley, new Board each call", t["analyze"][0],
                    note=f"same Board again (cached compile): {t_an_cached * 1e3:.2f} ms",
                    ours_cpu_s=t["analyze"][1], method=f"analyze; {FRESH}"))
    rel = abs(ours - float(exact)) / float(exact)
    pair("expected_throws, MB, new Board each call", "expected_throws", "gauss_seidel",
         "seed 004 Gauss-Seidel (1e-9), Python",
         f"ours: expected_throws, {FRESH}; baseline: bench_core.gauss_seidel, sweeps from "
         "the goal down in plain Python until the change is below 1e-9",
         note=f"rel. error vs exact rational {rel:.1e}; Gauss-Seidel's "
              f"{abs(gauss_seidel(mb) - float(exact)) / float(exact):.1e}")
    pair("expected_throws, MB, new Board each call", "expected_throws", "scipy",
         "vectorised SciPy build + spsolve", f"ours: expected_throws, {FRESH}; "
         f"baseline: {SCIPY}")
    pair("analyze(), MB, new Board each call", "analyze", "scipy",
         "vectorised SciPy build + spsolve", f"ours: analyze, {FRESH}; baseline: {SCIPY}",
         note="issue 53 asks analyze within 3x (ratio at least 0.33)")
    if "gth_solve" in t:
        pair("expected_throws, MB, new Board each call", "expected_throws", "gth_solve",
             "QuantEcon gth_solve (matrix given)", f"ours: expected_throws, {FRESH}; "
             f"baseline: {GTH}")
    pair("min_throws, MB, new Board each call", "min_throws", "bfs",
         "seeds' queue BFS, Python", f"ours: min_throws, {FRESH}; baseline: "
         "bench_core.queue_bfs on Board.from_dict(d), a deque and a visited list")
    for size in (1000, 5000):
        ds = _sized(size)
        one = lambda ds=ds: Board.from_dict(ds)  # noqa: E731
        e = expected_throws(one())
        assert abs(scipy_expected(one()) - e) < 1e-10 * e
        calls = max(1, (4 if quick else 16) * 1000 // size)
        ts = interleaved_times({"ours": (lambda: expected_throws(one()), calls),
                                "scipy": (lambda: scipy_expected(one()), calls)},
                               max(3, rounds // 3))
        rows.append(row(f"expected_throws, {size:,} squares, new Board each call",
                        ts["ours"][0], "vectorised SciPy build + spsolve", ts["scipy"][0],
                        note="random_board(size, 0.1, rng=1), fair d6, overshoot wins",
                        ours_cpu_s=ts["ours"][1], baseline_cpu_s=ts["scipy"][1],
                        method=f"ours: expected_throws, {FRESH}; baseline: {SCIPY}"))

    return rows


if __name__ == "__main__":
    for r in run():
        print(r)
