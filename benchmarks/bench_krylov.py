"""The structured solver's GMRES against SciPy's (issue 49: SciPy's unless ours wins by
more than 1.5x, measured in the same run).

Both solve the capacitance system of a board's structured solver (one sweep per
mat-vec: ``snl_numeric._core.solve.krylov.capacitance_apply``) from ``y = 0`` to a
2-norm residual of ``1e-10`` relative, undeflated, with the solver's restart length:
ours in one compiled call (``gmres_kernel``), SciPy's ``scipy.sparse.linalg.gmres`` over
a ``LinearOperator`` of the same sweep. Interleaved in one process, wall time, median
over the repeats; the note gives the sweeps each took. The solver's own solves add the
deflation and the componentwise stop (see the performance page).
"""

from __future__ import annotations

import inspect

import numpy as np
import scipy.sparse.linalg as spla

from benchmarks._families import FAMILIES
from benchmarks._util import interleaved, row

#: SciPy renamed ``tol`` to ``rtol`` in 1.12 (and removed ``tol`` in 1.14).
_RTOL = "rtol" if "rtol" in inspect.signature(spla.gmres).parameters else "tol"


def _solver(board):
    from snl_numeric._core.solve import Solver
    from snl_numeric.chain import sure_states

    cb = board.compiled
    active = sure_states(cb).copy()
    active[cb.size] = False
    return Solver(cb.succ, cb.probs, active, method="gmres")


def _contenders(solver) -> tuple[dict, dict]:
    from snl_numeric._core.solve.greedy import NONE
    from snl_numeric._core.solve.krylov import capacitance_apply, gmres_kernel

    s, n, k = solver, solver.n, solver.k
    op = (s._succ, s._probs, s.pstride, s._active, s.block_start, s.offsets, s.lu, s.piv)
    work = (s.landing, np.zeros(int(s.landing[2].max()) + 1), np.empty(n))
    work_t = (np.zeros((0, 1)), np.empty((0, 1)), np.empty((0, 1)))
    rhs = np.ones(k)
    w = np.empty(k)
    none = np.zeros((0, k))
    tol2 = 1e-10 * float(np.sqrt(k))
    sweeps = {}

    def ours() -> None:
        y = np.zeros(k)
        sweeps["ours"] = int(gmres_kernel(False, op, s.targets, work, work_t, rhs, tol2,
                                          *s.c_entries, np.ones(n), 0.0, s.restart, 2000,
                                          none, none, False, NONE, y))  # (both unpreconditioned)

    def matvec(v: np.ndarray) -> np.ndarray:
        sweeps["count"] += 1
        capacitance_apply(False, op, s.targets,
                          np.ascontiguousarray(v, dtype=np.float64).ravel(), work, work_t, w,
                          NONE, np.empty(0))
        return w.copy()

    operator = spla.LinearOperator((k, k), matvec=matvec, dtype=np.float64)
    restart = min(s.restart, k)

    def scipy() -> None:
        sweeps["count"] = 0
        spla.gmres(operator, rhs, atol=tol2, restart=restart,
                   maxiter=max(1, 2000 // restart), **{_RTOL: 0.0})
        sweeps["scipy"] = sweeps["count"]

    return {"ours": (ours, 1), "scipy": (scipy, 1)}, sweeps


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    cases = ([("random", 20_000), ("die throws 1 (p=.99)", 20_000)] if quick else
             [("random", 100_000), ("short snakes", 100_000), ("snakes near goal", 100_000),
              ("die throws 1 (p=.99)", 100_000), ("random", 1_000_000)])
    rows = []
    for family, n in cases:
        solver = _solver(FAMILIES[family](n))
        contenders, sweeps = _contenders(solver)
        times = interleaved(contenders, repeats)
        rows.append(row(f"GMRES, capacitance system, {family}, {n:,} squares",
                        times["ours"], "scipy.sparse.linalg.gmres", times["scipy"],
                        f"k = {solver.k:,}; sweeps {sweeps['ours']} vs {sweeps['scipy']}"))
    return rows


if __name__ == "__main__":
    for r in run(3, quick=True):
        print(r)
