"""Single-board speed (issues 2 and 24): analyze, expected throws, fewest throws, import.

Baselines, timed in the same run:
- seed 004's Gauss-Seidel iteration for expected throws (tolerance 1e-9), plain Python;
- the seeds' queue BFS for the fewest throws, plain Python;
- plain SciPy: build ``I - Q`` with ``scipy.sparse`` and ``spsolve``;
- QuantEcon's ``gth_solve`` (Numba, compiled before timing) on the same chain made
  irreducible (the goal leads back to the start): ``E[T] = 1 / pi_goal - 1``. Skipped when
  ``quantecon`` is not installed (``pip install ".[bench]"``).

Ours and the baselines are timed in turn in each of ``3 * repeats`` short rounds
(:func:`benchmarks._util.interleaved`), so a change in the machine's speed during the run
moves both sides of a ratio alike (with 5 rounds of 200 calls, three runs in a row on a
noisy host gave ``expected_throws`` 5.2x, 5.5x and 3.8x plain SciPy: one slow spell
fell on two of ours' five blocks).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections import deque
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from benchmarks._util import interleaved, median_time, row
from snl_numeric import analyze, boards, expected_throws, min_throws


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


def scipy_expected(board):
    """Plain SciPy: COO -> CSR of I - Q, then spsolve."""
    n = board.size
    rows, cols, vals = [], [], []
    for i in range(n):
        for f, p in zip(board.dice.faces, board.dice.probs, strict=False):
            w = _move(board, i, int(f))
            if w != n:
                rows.append(i)
                cols.append(w)
                vals.append(p)
    q = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    t = spla.spsolve((sp.identity(n, format="csr") - q).tocsc(), np.ones(n))
    return t[board.start]


def gth_chain(board):
    """The board's chain as a dense matrix with the goal leading back to the start."""
    cb = board.compiled
    n = cb.n_states
    p = np.zeros((n, n))
    np.add.at(p, (np.repeat(np.arange(n), cb.succ.shape[1]), cb.succ.ravel()),
              np.tile(cb.probs, n))
    p[cb.size] = 0.0
    p[cb.size, board.start] = 1.0
    return p


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


def import_time(repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import snl_numeric"], check=True)
        t1 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append((t1 - t0) - (time.perf_counter() - t1))
    return statistics.median(times)


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    mb = boards.get("milton-bradley")
    analyze(mb)  # compile the kernels
    rounds = 3 * repeats
    n_calls = 16 if quick else 64
    # a new (uncompiled) Board for every call: nothing is cached between calls. Each one is
    # dropped after its call, as in a plain loop (and as the baselines keep nothing): kept
    # alive with their solved caches, 1,000 boards (75 MB) made every call fault in fresh
    # memory, 1.25x the time of expected_throws.
    fresh = [mb.replace() for _ in range(3 * rounds * n_calls)].pop
    rows = []
    ours, exact = expected_throws(mb), exact_expected(mb)
    contenders = {
        "analyze": (lambda: analyze(fresh()), n_calls // 4),
        "expected_throws": (lambda: expected_throws(fresh()), n_calls),
        "min_throws": (lambda: min_throws(fresh()), n_calls),
        "scipy": (lambda: scipy_expected(mb), 2 if quick else 8),
        "gauss_seidel": (lambda: gauss_seidel(mb), 1),
        "bfs": (lambda: queue_bfs(mb), n_calls),
    }
    try:
        from quantecon import gth_solve
    except ImportError:
        pass
    else:
        p = gth_chain(mb)
        assert abs(quantecon_expected(gth_solve, p) - ours) < 1e-9 * ours  # compiled here
        contenders["gth_solve"] = (lambda: quantecon_expected(gth_solve, p), n_calls)
    t = interleaved(contenders, rounds)
    t_an_cached = median_time(lambda: analyze(mb), repeats, n_calls)
    rows.append(row("analyze(), Milton Bradley, new Board each call", t["analyze"],
                    note=f"same Board again (cached compile): {t_an_cached * 1e3:.2f} ms"))
    rel = abs(ours - float(exact)) / float(exact)
    rows.append(row("expected_throws, MB, new Board each call", t["expected_throws"],
                    "seed 004 Gauss-Seidel (1e-9), Python", t["gauss_seidel"],
                    note=f"rel. error vs exact rational {rel:.1e}; "
                         f"Gauss-Seidel's {abs(gauss_seidel(mb) - float(exact)) / float(exact):.1e}"))
    rows.append(row("expected_throws, MB, new Board each call", t["expected_throws"],
                    "plain SciPy build + spsolve", t["scipy"]))
    rows.append(row("analyze(), MB, new Board each call", t["analyze"],
                    "plain SciPy build + spsolve", t["scipy"],
                    note="the ratio should be at least 0.5 (analyze within 2x)"))
    if "gth_solve" in t:
        rows.append(row("expected_throws, MB, new Board each call", t["expected_throws"],
                        "QuantEcon gth_solve (matrix given)", t["gth_solve"]))
    rows.append(row("min_throws, MB, new Board each call", t["min_throws"],
                    "seeds' queue BFS, Python", t["bfs"]))

    rows.append(row("import snl_numeric (subprocess)", import_time(3 if quick else repeats),
                    note="no Numba compilation at import"))
    return rows


if __name__ == "__main__":
    for r in run():
        print(r)
