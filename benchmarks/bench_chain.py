"""Any absorbing chain: a random board's chain handed over as plain CSR arrays.

The chain of ``random_board(n, 0.1, rng=1)`` (10% of squares start a jump, half of them
snakes, fair d6) is given to :class:`~snl_numeric.Chain` as ``(data, indices, indptr)``;
timed per round: validating and compiling a fresh ``Chain`` and solving the mean and the
variance of the steps to absorption (``expected_throws_all``, ``throws_variance_all``),
against

- the board path on the same board (a fresh copy, compiled and solved: issue 50's target
  is within 1.5x);
- SciPy's ``spsolve`` on the same matrix's ``I - Q``, twice (the mean ``t``, then
  ``N t`` for the variance ``2 N t - t - t**2``: issue 50's target is 20x).

The answers are checked against each other first (1e-10 relative). The chain and the
board path are timed in interleaved rounds (:func:`benchmarks._util.interleaved`);
``spsolve`` once (about 75 s at 10^5 squares on the reference machine, 100x ours).

Measured (2 shared cores, CPU time, medians of 5, 10^5 squares): chain 0.39 s, board path
0.27 s (1.43x; wall time interleaved 0.77 s vs 0.55 s, 1.40x), ``spsolve`` x2 75 s (190x).

Usage: ``PYTHONPATH=. python -m benchmarks.bench_chain [--quick] [--size N]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve

from benchmarks._util import interleaved, row
from snl_numeric import Chain, expected_throws_all, throws_variance_all, transition_matrix
from snl_numeric.boards import random_board

SIZE = 10**5
QUICK_SIZE = 2 * 10**4


def scipy_moments(P: sp.csr_array) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of the steps to the last state by two ``spsolve`` calls."""
    n = P.shape[0] - 1
    a = (sp.eye_array(n, format="csc") - P[:n, :n].tocsc()).tocsc()
    t = spsolve(a, np.ones(n))
    u = spsolve(a, t)
    return t, 2 * u - t - t * t


def ours(csr: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    chain = Chain(csr)
    return expected_throws_all(chain), throws_variance_all(chain)


def run(repeats: int = 5, quick: bool = False, size: int | None = None) -> list[dict]:
    n = size or (QUICK_SIZE if quick else SIZE)
    board = random_board(n, 0.1, rng=1)
    P = transition_matrix(board)
    csr = (P.data, P.indices, P.indptr)
    t_c, v_c = ours(csr)  # (compiles the kernels)
    t_b, v_b = expected_throws_all(board), throws_variance_all(board)
    t0 = time.perf_counter()  # once: 100x slower than ours, its rounds would take minutes
    t_s, v_s = scipy_moments(P)
    t_spsolve = time.perf_counter() - t0
    for a, b in ((t_c[:-1], t_s), (v_c[:-1], v_s), (t_c, t_b), (v_c, v_b)):
        assert np.allclose(a, b, rtol=1e-10, atol=1e-12), float(np.max(np.abs(a - b)))

    def board_path() -> None:
        fresh = board.replace()
        expected_throws_all(fresh)
        throws_variance_all(fresh)

    t = interleaved({"chain": (lambda: ours(csr), 1), "board": (board_path, 1)},
                    max(2, repeats))
    t["spsolve"] = t_spsolve
    note = f"{n:,} states, CSR arrays -> Chain, mean + variance"
    return [
        row(f"Chain mean+variance, random {n:,}-square board's CSR", t["chain"], "spsolve x2",
            t["spsolve"], note),
        row(f"Chain vs board path, {n:,} squares", t["chain"], "board path", t["board"],
            note + " (ratio = board / chain)"),
    ]


if __name__ == "__main__":
    size = int(sys.argv[sys.argv.index("--size") + 1]) if "--size" in sys.argv else None
    for r in run(repeats=3, quick="--quick" in sys.argv, size=size):
        ratio = r["ratio"]
        print(f"{r['benchmark']}: ours {r['ours_s']:.3f} s, {r['baseline']} "
              f"{r['baseline_s']:.3f} s, ratio {ratio:.2f}")
