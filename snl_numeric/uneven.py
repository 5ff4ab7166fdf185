"""The expected steps and their variance for chains too uneven for a successor table.

A chain whose widest row is far wider than its typical row (a hub state that moves to
thousands of states beside rows of a few moves) would waste most of a padded successor
table (:func:`~snl_numeric.compile.uneven`). Its mean and variance of the steps to
absorption are solved from its CSR rows instead (:func:`~snl_numeric._core.solve.csr_solver`:
SciPy's SuperLU on ``I - Q`` with the residual certificates of a board):

- the *sure* states (from which absorption has probability 1) by two breadth-first
  searches on the reversed graph: the states that reach an absorbing state, then those
  that reach a state that cannot; ``inf`` elsewhere, 0 on the absorbing states;
- ``t = N 1`` and ``u = N t``, the variance ``2 u - t - t**2`` where it does not cancel;
  where it would (below ``t**2 / CANCELLATION``) ``N w`` with ``w`` the variance of ``t``
  after one step, from ``t`` refined to double-double (certified componentwise where ``w``
  is positive on every state, else relative to the largest such variance; a variance
  computed as 0 there is certified absolutely).

:func:`~snl_numeric.expected_throws_all`, :func:`~snl_numeric.throws_variance_all` and
:func:`~snl_numeric.solver_report` call :func:`uneven_moments` for such a chain; the
questions that need the table (those from one start, distributions, shortest walks,
simulation) refuse it with the reason.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from ._core.solve import CANCELLATION, TARGET_ERROR, UNIT_ROUNDOFF, WARN_ERROR, csr_solver
from ._core.warn import warn_user
from .markov import Chain

__all__ = ["UnevenMoments", "clear_cache", "is_uneven", "uneven_moments"]

_LOCK = threading.Lock()
_CACHE: dict[Chain, UnevenMoments] = {}
#: Chains whose moments are kept (the most recent).
CACHED = 8


@dataclass(frozen=True)
class UnevenMoments:
    """The moments of an uneven chain over its states, in its own order.

    Attributes
    ----------
    mean, variance : ndarray
        The expected steps to absorption and their variance (``inf`` where absorption is
        not sure, 0 on absorbing states; read-only).
    mean_error, variance_error : float
        Their certified relative errors.
    method : str
        ``"splu"`` (or ``"gth"`` where the elimination certified the mean).
    unknowns, backward_targets : int
        The sure transient states, and the distinct states moves back lead to.
    residual : float
        The normwise backward error of the mean's solve.
    """

    mean: np.ndarray
    variance: np.ndarray
    mean_error: float
    variance_error: float
    method: str
    unknowns: int
    backward_targets: int
    residual: float

    @property
    def report(self) -> tuple[str, int, int, int, float, float, float]:
        """The fields of :class:`~snl_numeric.SolveReport`: method, unknowns, backward
        targets, iterations (0), residual, error estimate and condition (``max(t)``)."""
        finite = self.mean[np.isfinite(self.mean)]
        return (self.method, self.unknowns, self.backward_targets, 0, self.residual,
                self.mean_error, float(finite.max(initial=0.0)))


def is_uneven(model: object) -> bool:
    """Whether ``model`` is a :class:`~snl_numeric.Chain` too uneven for a successor table
    (:attr:`Chain.uneven <snl_numeric.Chain.uneven>`, :func:`~snl_numeric.compile.uneven`).

    Examples
    --------
    >>> import numpy as np
    >>> is_uneven(Chain(np.array([[0.5, 0.5], [0.0, 1.0]])))
    False
    """
    return isinstance(model, Chain) and model.uneven


def uneven_moments(chain: Chain) -> UnevenMoments:
    """The mean and variance of the steps to absorption from every state of ``chain``,
    certified, solved from its CSR rows (cached for the last :data:`CACHED` chains); warns
    when an answer is certified only above ``WARN_ERROR``.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0, 0.5, 0.5], [0.5, 0, 0.5], [0, 0, 1.0]])
    >>> m = uneven_moments(Chain(P))
    >>> m.mean.tolist(), m.variance.round(12).tolist(), m.mean_error < 1e-14
    ([2.0, 2.0, 0.0], [2.0, 2.0, 0.0], True)
    """
    with _LOCK:
        found = _CACHE.get(chain)
    if found is None:
        found = _solve(chain)
        with _LOCK:
            _CACHE[chain] = found
            while len(_CACHE) > CACHED:
                del _CACHE[next(iter(_CACHE))]
    for error, what in ((found.mean_error, "expected steps"),
                        (found.variance_error, "variances")):
        if error > WARN_ERROR:
            warn_user(f"{what} of this chain are certified only to a relative error of "
                      f"{error:.1g}")
    return found


def clear_cache() -> None:
    """Forget the moments kept by :func:`uneven_moments` (benchmarks time fresh solves).

    Examples
    --------
    >>> clear_cache()
    """
    with _LOCK:
        _CACHE.clear()


def _reaching(reverse: sp.csr_array, sources: np.ndarray) -> np.ndarray:
    """The states from which a state of ``sources`` (a mask) can be reached: a
    breadth-first search on the reversed graph from a node joined to every source."""
    n = reverse.shape[0]
    hub = sp.csr_array((np.ones(int(sources.sum())), np.flatnonzero(sources),
                        np.array([0, int(sources.sum())])), shape=(1, n + 1))
    graph = sp.vstack([sp.hstack([reverse, sp.csr_array((n, 1))]), hub], format="csr")
    order = breadth_first_order(graph, n, directed=True, return_predecessors=False)
    out = np.zeros(n + 1, dtype=np.bool_)
    out[order] = True
    return out[:n]


def _solve(chain: Chain) -> UnevenMoments:
    P, ends = chain.P, chain.is_absorbing
    n = chain.n_states
    reverse = sp.csr_array(P.T)
    live = _reaching(reverse, ends)
    active = ~ends & ~_reaching(reverse, ~live)
    solver = csr_solver(P.indptr, P.indices, P.data, active)
    mean, var = np.full(n, np.inf), np.full(n, np.inf)
    mean[ends] = var[ends] = 0.0
    if not active.any():
        for arr in (mean, var):
            arr.flags.writeable = False
        return UnevenMoments(mean, var, 0.0, 0.0, "empty", 0, 0, 0.0)
    sol = solver.solve(active.astype(np.float64), measure=True)
    t, et = sol.x, sol.error
    sol_u = solver.solve(t, target=TARGET_ERROR / 4)
    u, eu = sol_u.x, sol_u.error
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        v = 2.0 * u - t - t * t
        # a step's every move leaves the system: exactly one step, variance 0
        certain = active & (solver.step_variance(np.zeros(n), np.zeros(n)) == 0.0)
        cancel = active & ~certain & ~(v * CANCELLATION >= t * t)
        keep = active & ~certain & ~cancel
        gain = ((2.0 * np.abs(u) + t + 2.0 * t * t)[keep] / v[keep])
        error = float(gain.max(initial=0.0)) * (eu + et + 3 * UNIT_ROUNDOFF)
    v = np.where(certain, 0.0, v)
    if cancel.any():  # N w, w >= 0 the variance of t after one step (t to double-double)
        thi, tlo = solver.refined(active.astype(np.float64))
        w = solver.step_variance(thi, tlo)
        step = solver.solve(w / solver.rowsum)
        x = step.x
        # componentwise where w > 0 on every state, else relative to the largest answer;
        # w's own rounding (sums of non-negative terms) adds its relative size
        rounding = (solver.faces + 8) * UNIT_ROUNDOFF
        scale = x if (w[active] > 0.0).all() else np.full(n, np.abs(x[active]).max())
        with np.errstate(divide="ignore", invalid="ignore"):
            bound = np.where(x > 0.0, (step.error * scale + rounding * x) / x, np.inf)
        v = np.where(cancel, x, v)
        zero = cancel & ~(x > 0.0)  # (certified absolutely: within the error of the largest)
        error = max(error, float(bound[cancel & ~zero].max(initial=0.0)))
    var[active] = np.maximum(v[active], 0.0)
    mean[active] = t[active]
    for arr in (mean, var):
        arr.flags.writeable = False
    return UnevenMoments(mean, var, et, error, sol.method or solver.method, solver.unknowns,
                         solver.k, sol.residual)
