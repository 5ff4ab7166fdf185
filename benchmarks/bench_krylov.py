"""The structured solver's GMRES against SciPy's in its place (issue 49: SciPy's unless
ours wins by more than 1.5x, measured in the same run).

Both run the solver's whole certified solve (``Solver.solve``: first solve, certificate,
refining rounds) of ``b = 1``, forward and transposed, on a fresh solver each time.
:class:`ScipySolver` replaces only ``Solver._gmres`` by :func:`scipy.sparse.linalg.gmres`
over a ``LinearOperator`` of the same operator: the capacitance sweep
(``krylov.capacitance_apply``), right-preconditioned by the same likeliest paths
(``greedy``), deflated by the same ``U = M 1`` (forward), the same restart length and
step limit. SciPy stops on a 2-norm only, so it gets the componentwise target over the
largest row sum of ``C`` relative to ``b`` (what ours compares its 2-norm with before it
forms the residual), and, as it has no test for the sweeps' rounding floor, at least
``floor`` relative (``0``: the same target as ours; the default ``1e-10`` is SciPy at its
best here, leaving the rest to the refining rounds). CPU time (every thread's),
interleaved, median of the repeats; the note gives each side's sweeps and certified
error. Run ``python -m benchmarks.bench_krylov [--full] [--floor=0]``.
"""

from __future__ import annotations

import sys
from functools import partial

import numpy as np
import scipy.sparse.linalg as spla

from benchmarks._families import FAMILIES
from benchmarks._util import interleaved_times, row
from snl_numeric._core.solve import Solver
from snl_numeric._core.solve.greedy import NONE
from snl_numeric._core.solve.krylov import capacitance_apply, landing_sweep_kernel
from snl_numeric._core.solve.structured import MAX_ITERATIONS
from snl_numeric.chain import sure_states


class ScipySolver(Solver):
    """The structured solver with SciPy's GMRES in place of ``gmres_kernel``."""

    floor = 1e-10
    _scipy_deflation: tuple | None = None

    def _gmres(self, b, trans, tol, scale):
        d, n, k = self.targets, self.n, self.k
        op = (self._succ, self._probs, self.pstride, self._active, self.block_start,
              self.offsets, self.lu, self.piv)
        near = 0 if trans else int(self.landing[2].max()) + 1
        work = (self.landing, np.zeros(near), np.empty(0 if trans else n))
        size_t = n if trans else 0
        work_t = (np.zeros((size_t, 1)), np.empty((size_t, 1)), np.empty((size_t, 1)))
        if trans:
            rhs = self._sweep_t(b, True)[1][d]
        else:
            c = np.empty(n)
            landing_sweep_kernel(self.landing, *op[1:], b, work[1], c)
            rhs = c[d]
        if not np.any(rhs):
            return (self._sweep_t(b)[0], 0) if trans else (c, 0)
        pre = NONE if trans or not self.pre[0].shape[0] else self.pre
        tmp = np.empty(k if pre[0].shape[0] else 0)
        w = np.empty(k)
        steps = [0]

        def apply(v):
            steps[0] += 1
            capacitance_apply(bool(trans), op, d, np.ascontiguousarray(v, dtype=np.float64),
                              work, work_t, w, pre, tmp)
            return w.copy()

        norm = float(np.sqrt(rhs @ rhs))
        if tol < 0:
            atol = -tol * norm
        else:
            rows, _, vals = self.c_entries
            mass = np.bincount(rows, weights=vals, minlength=n)
            atol = tol / float(np.max(mass / np.where(mass > 0, scale, 1.0)))
        atol = max(atol, self.floor * norm)
        r, alpha = rhs.copy(), 0.0
        if trans:
            matvec = apply
        else:
            if self._scipy_deflation is None:  # U = M 1, C U (one sweep), P^-1 R U
                u = np.ones(k)
                if tmp.shape[0]:
                    u[pre[0] >= 0] = 1.0 - pre[1][pre[0] >= 0]
                q = apply(u)
                s = float(np.sqrt(q @ q))
                self._scipy_deflation = (u / s, q / s, work[2] / s)
            u, q, swept = self._scipy_deflation
            alpha = q @ r
            r -= alpha * q

            def matvec(v):
                z = apply(v)
                return z - (q @ z) * q

        restart = min(self.restart, k)
        z, _ = spla.gmres(spla.LinearOperator((k, k), matvec=matvec, dtype=np.float64), r,
                          atol=atol, rtol=0.0, restart=restart,
                          maxiter=-(-MAX_ITERATIONS // restart))
        if trans:
            full = np.zeros(n)
            full[d] = z
            return self._sweep_t(b + full)[0], steps[0]
        w1 = apply(z)  # its sweep of M^-1 z, then the deflated part's
        c += work[2] + (alpha - q @ w1) * swept
        return c, steps[0]


def _solver(cls, board, floor):
    cb = board.compiled
    active = sure_states(cb).copy()
    active[cb.size] = False
    s = cls(cb.succ, cb.probs, active, method="gmres")
    s.floor = floor
    return s


def _solve(sols: dict, name: str, s: Solver, b: np.ndarray, trans: bool) -> None:
    """One certified solve on a fresh solver (no deflation or second solver kept)."""
    s._deflation = s._scipy_deflation = s._second = None
    sols[name] = s.solve(b, trans)


def run(repeats: int = 3, quick: bool = False, floor: float = 1e-10) -> list[dict]:
    cases = ([("random", 20_000), ("die throws 1 (p=.99)", 20_000), ("random", 100_000),
              ("snakes near goal", 100_000), ("die throws 1 (p=.99)", 100_000)]
             + ([] if quick else [("random", 1_000_000)]))
    rows = []
    for family, n in cases:
        board = FAMILIES[family](n)
        ours, theirs = _solver(Solver, board, floor), _solver(ScipySolver, board, floor)
        b = np.ones(ours.n)
        for trans in (False, True):
            sols: dict = {}
            t = interleaved_times({"ours": (partial(_solve, sols, "ours", ours, b, trans), 1),
                                   "scipy": (partial(_solve, sols, "scipy", theirs, b, trans), 1)},
                                  repeats)
            o, q = sols["ours"], sols["scipy"]
            with np.errstate(divide="ignore", invalid="ignore"):
                rel = float(np.max(np.abs(o.x - q.x) / np.abs(o.x), where=ours.active,
                                   initial=0.0))
            rows.append(row(
                f"GMRES in the solve, {family}, {n:,} squares{', transposed' if trans else ''}",
                t["ours"][0], f"scipy.sparse.linalg.gmres (floor {floor:g})", t["scipy"][0],
                f"k = {ours.k:,}; sweeps {o.iterations} vs {q.iterations}; certified "
                f"{o.error:.1e} vs {q.error:.1e}; answers within {rel:.1e}",
                ours_cpu_s=t["ours"][1], baseline_cpu_s=t["scipy"][1]))
    return rows


if __name__ == "__main__":
    floors = [float(a.split("=")[1]) for a in sys.argv if a.startswith("--floor=")]
    for r in run(quick="--full" not in sys.argv, floor=floors[-1] if floors else 1e-10):
        print(f"{r['benchmark']}: CPU {r['ours_cpu_s']:.3f} s vs {r['baseline_cpu_s']:.3f} s "
              f"({r['cpu_ratio']:.2f}x); {r['note']}")
