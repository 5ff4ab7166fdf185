"""Where an absorbing chain ends, how long it takes to get there, and what it visits.

For a :class:`~snl_numeric.Chain` with transient-to-transient block ``Q`` and
transient-to-absorbing block ``R``, ``N = (I - Q)^-1`` and:

- ``B = N R``: ``B[i, j]`` the chance that the walk from ``i`` ends in absorbing state ``j``
  (one solve, a right-hand side per absorbing state, on the factorisation every question
  of the chain shares);
- ``g_j = N B[:, j]`` is ``E[T; end j]`` (one step counts towards the end ``j`` with the
  chance of reaching it afterwards), so the expected number of steps *given* the end ``j``
  is ``g_j / B[:, j]`` (the mean of the chain conditioned on that end, Doob's
  h-transform);
- the conditioned chain moves from ``i`` to ``k`` with ``Q[i, k] B_j(k) / B_j(i)``, so its
  fundamental matrix is ``D^-1 N D`` (``D = diag(B_j)``) and its second moment of the
  length ``(2 N~ - I) N~ 1``: ``E[T^2 | end j] = (2 N g_j - g_j) / B_j`` (one more solve,
  ``h_j = N g_j``), whose variance is ``E[T^2 | end j] - (g_j / B_j)^2``;
- from a start ``s``: the expected number of steps taken from each state,
  ``v = e_s^T N`` (one transposed solve), and the chance to ever be on state ``j``,
  ``N[s, j] / N[j, j]``; ``N[j, j] = 1`` for a state no walk can come back to, one solve
  for each of the others.

States from which no absorbing state can be reached have ``B = 0`` (and no conditional
mean); those that may or may not be absorbed have rows of ``B`` summing below 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.sparse.csgraph import connected_components

from ._core.equality import value_eq
from ._core.memory import check_memory
from ._core.solve import SystemSolver, system_solver
from ._core.validation import optional_flag
from ._core.warn import warn_user
from .chain import fundamental
from .compile import CompiledBoard
from .markov import Chain

__all__ = ["AUTO_VISIT_SOLVES", "Absorption", "absorption_probabilities"]

#: ``visit_probability=None`` computes the chance to ever visit each state when at most this
#: many states need their own column of the fundamental matrix.
AUTO_VISIT_SOLVES = 256


@dataclass(frozen=True, eq=False)
class Absorption:
    """Where a chain ends and how long it takes, from every state (see
    :func:`~snl_numeric.absorption_probabilities`).

    Attributes
    ----------
    chain : Chain
        The chain.
    absorbing : ndarray of intp, shape (k,)
        The absorbing states (the columns below).
    labels : tuple
        Their labels.
    probabilities : ndarray, shape (n, k)
        ``probabilities[i, j]``: the chance that the walk from state ``i`` ends in
        ``absorbing[j]`` (a row sums to the chance of ending at all; an absorbing state's
        row is 1 in its own column).
    conditional_mean : ndarray, shape (n, k)
        The expected number of steps from ``i`` given that the walk ends in
        ``absorbing[j]``; NaN where that end cannot be reached (0 on the end itself).
    probability_error : float
        A certified bound on the absolute error of every probability.
    conditional_error : ndarray, shape (n, k)
        A certified bound on the relative error of each conditional mean (NaN where the
        mean is).
    conditional_variance : ndarray, shape (n, k)
        The variance of the number of steps from ``i`` given that the walk ends in
        ``absorbing[j]``; NaN where that end cannot be reached (0 on the end itself).
    conditional_variance_error : ndarray, shape (n, k)
        A certified bound on the relative error of each conditional variance (NaN where
        the variance is; ``inf`` where it is 0 but may not be exactly).
    start : int
        The start of the visits below.
    expected_visits : ndarray, shape (n,)
        From ``start``: the expected number of steps taken from each transient state (the
        start included), and the chance of ending on each absorbing state; NaN on states
        from which the walk may never be absorbed (it may stay there forever).
    visit_probability : ndarray, shape (n,), or None
        From ``start``: the chance of ever being on each state (1 on the start); NaN
        where ``expected_visits`` is. None when not computed (see
        :func:`~snl_numeric.absorption_probabilities`).
    """

    chain: Chain
    absorbing: np.ndarray
    labels: tuple[Any, ...]
    probabilities: np.ndarray
    conditional_mean: np.ndarray
    probability_error: float
    conditional_error: np.ndarray
    conditional_variance: np.ndarray
    conditional_variance_error: np.ndarray
    start: int
    expected_visits: np.ndarray
    visit_probability: np.ndarray | None

    __eq__ = value_eq
    __hash__ = None  # type: ignore[assignment]

    def to_frame(self) -> Any:
        """The probabilities, conditional means and variances from every state as a pandas
        table: a row per state (indexed by label), columns ``("probability", end)``,
        ``("mean steps", end)`` and ``("steps variance", end)`` for each absorbing state's
        label.

        Examples
        --------
        >>> import numpy as np
        >>> from snl_numeric import Chain, absorption_probabilities
        >>> P = np.array([[1.0, 0, 0], [0.25, 0.25, 0.5], [0, 0, 1.0]])
        >>> df = absorption_probabilities(Chain(P, labels=["lose", "play", "win"])).to_frame()
        >>> df.loc["play", ("probability", "win")], df.loc["play", ("mean steps", "win")]
        (np.float64(0.6666666666666666), np.float64(1.3333333333333333))
        """
        import pandas as pd

        columns = pd.MultiIndex.from_tuples(
            [(name, x) for name in ("probability", "mean steps", "steps variance")
             for x in self.labels])
        data = np.concatenate([self.probabilities, self.conditional_mean,
                               self.conditional_variance], axis=1)
        return pd.DataFrame(data, index=pd.Index(self.chain.labels, name="state"),
                            columns=columns)


def _live_solver(cb: CompiledBoard) -> SystemSolver:
    """The solver over the states that can be absorbed (the sure ones' shared solver when
    every such state is sure)."""
    live = cb.reach[0] > 0
    if np.array_equal(live, cb.sure & (np.arange(cb.n_states) != cb.size)):
        return fundamental(cb)
    return cb.cache.get("live solver", lambda: system_solver(cb.succ, cb.probs, live))


def absorption_probabilities(chain: Chain, start: int | None = None, *,
                             visit_probability: bool | None = None) -> Absorption:
    """The chance of ending in each absorbing state from every state, the expected steps
    given each end, and the visits from one start.

    Parameters
    ----------
    chain : Chain
        (A board: ``board.to_chain()``.)
    start : int, optional
        The start of the result's ``expected_visits`` and ``visit_probability``; the
        chain's own by default.
    visit_probability : bool or None
        Compute the chance to ever visit each state: it costs a column of one solve per
        state a walk can come back to. ``None`` (default): when that is at most
        ``AUTO_VISIT_SOLVES`` (256) columns; ``True`` always; ``False`` never.

    Returns
    -------
    Absorption

    Notes
    -----
    One solve gives ``B = N R`` (a right-hand side per absorbing state), one more the
    expected steps given each end, ``N B[:, j] / B[:, j]``, and one more their variance
    (see the module docstring), all three
    on the factorisation the chain's other questions share, each certified by its residual
    (normwise: relative to the largest entry of its column); the visits are a transposed
    solve and, for the chance to ever visit the states a walk can come back to, one more
    solve with a column each.

    Examples
    --------
    Gambler's ruin on 0..4 with a fair coin: from ``i`` the walk ends on 4 with chance
    ``i / 4``, after ``(16 - i**2) / 3`` steps on average given that it does, with variance
    ``2 (16 - i**2) (16 + i**2 - 5) / 45``.

    >>> import numpy as np
    >>> from snl_numeric import Chain, absorption_probabilities
    >>> P = np.zeros((5, 5))
    >>> P[0, 0] = P[4, 4] = 1.0
    >>> for i in range(1, 4):
    ...     P[i, i - 1] = P[i, i + 1] = 0.5
    >>> a = absorption_probabilities(Chain(P, start=1))
    >>> a.probabilities[:, 1].round(12).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> a.conditional_mean[1:4, 1].round(12).tolist()
    [5.0, 4.0, 2.333333333333]
    >>> a.conditional_variance[1:4, 1].round(12).tolist()
    [8.0, 8.0, 6.222222222222]
    >>> a.expected_visits.round(12).tolist(), a.visit_probability.round(12).tolist()
    ([0.75, 1.5, 1.0, 0.5, 0.25], [0.75, 1.0, 0.5, 0.333333333333, 0.25])
    """
    if not isinstance(chain, Chain):
        raise TypeError(f"expected a Chain, got {type(chain).__name__} (a Board: "
                        "board.to_chain())")
    cb = chain.compiled
    s = chain.compiled_index(start)
    start = chain.start if start is None else int(start)
    visit_probability = optional_flag(visit_probability, "visit_probability")
    n, k, size = chain.n_states, len(chain.absorbing), cb.size
    transient = np.flatnonzero(~chain.is_absorbing)
    check_memory(8 * 4 * (size + 1) * k, f"absorption probabilities ({size + 1:,} states x "
                 f"{k:,} absorbing states, 4 arrays)")
    r = np.zeros((size + 1, k))
    r[:size] = chain.P[transient][:, chain.absorbing].toarray()
    errors = [0.0]
    if size:
        solver = _live_solver(cb)
        # (the solver answers for the rows scaled to sum to 1: R scaled alike)
        sol_b = solver.solve(r / np.reshape(solver.rowsum, (-1, 1)))
        b = np.clip(sol_b.x, 0.0, 1.0)
        b[~solver.active] = 0.0
        sol_g = solver.solve(b)
        g = np.maximum(sol_g.x, 0.0)
        g[~solver.active] = 0.0
        sol_h = solver.solve(g)
        h = np.maximum(sol_h.x, 0.0)
        errors = [sol_b.error, sol_g.error, sol_h.error]
        steps = np.where(solver.active, solver.throws().x, 0.0)
    else:
        b = g = h = np.zeros((1, k))
        steps = np.zeros(1)
    # back to the chain's states: an absorbing state's row is its own column
    B = b[cb.states]
    G = g[cb.states]
    H = h[cb.states]
    own = np.zeros((n, k), dtype=np.bool_)
    own[chain.absorbing, np.arange(k)] = True
    B[chain.is_absorbing] = 0.0
    B[own] = 1.0
    G[chain.is_absorbing] = 0.0
    H[chain.is_absorbing] = 0.0
    eb, eg = errors[0], errors[1 if len(errors) > 1 else 0]
    prob_error = float(eb * float(B[transient].max(initial=0.0)))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        cond = np.where(B > 0.0, G / B, np.nan)
        # b's error is at most eb * mb (normwise); it moves g = N b by at most eb * mb * t
        # (t = N 1); g's own solve errs by at most eg * mg; then the division
        mb = B[transient].max(axis=0, initial=0.0)
        mg = G[transient].max(axis=0, initial=0.0)
        t = steps[cb.states][:, None]
        rel = (eg * mg + eb * mb * t) / G + eb * mb / B + 4 * np.finfo(float).eps
        cond_err = np.where(B > 0.0, rel, np.nan)
    cond[own] = 0.0
    cond_err[own] = 0.0
    var, var_err = _conditional_variance(B, G, H, cond, cond_err, t, errors, transient)
    var[own] = var_err[own] = 0.0
    if max(errors[:2]) > 1e-10:  # (the variances carry their own bounds)
        warn_user(f"absorption probabilities on this chain are certified only to "
                  f"{max(errors[:2]):.1g} (normwise)")
    visits, chance = _visits(chain, cb, s, B[start], visit_probability)
    for arr in (B, cond, cond_err, var, var_err, visits, chance):
        if arr is not None:
            arr.flags.writeable = False
    return Absorption(chain=chain, absorbing=chain.absorbing,
                      labels=tuple(chain.labels[i] for i in chain.absorbing),
                      probabilities=B, conditional_mean=cond, probability_error=prob_error,
                      conditional_error=cond_err, conditional_variance=var,
                      conditional_variance_error=var_err, start=start, expected_visits=visits,
                      visit_probability=chance)


def _conditional_variance(B: np.ndarray, G: np.ndarray, H: np.ndarray, cond: np.ndarray,
                          cond_err: np.ndarray, t: np.ndarray, errors: list[float],
                          transient: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The variance of the steps given each end, ``(2 H - G) / B - (G / B)^2`` (``G = N B``,
    ``H = N G``), and a certified bound on its relative error.

    Each solve's error is normwise (relative to its column's largest entry). ``G``'s
    absolute error is at most ``eg mg + eb mb t`` (its own solve, and ``B``'s error moved
    by ``N``: ``N 1 = t``); ``N`` moves that by at most ``(eg mg + eb mb max(t)) t``, and
    ``H``'s own solve adds ``eh mh``. The second moment's error over ``B`` (relative error
    at most ``d = eb mb / B``) is then at most ``(|2 dH| + |dG| + d M) / (1 - d)`` with
    ``M = (2 H - G) / B``, the squared mean's ``c^2 (2 r + r^2)`` with ``r`` the mean's
    bound, and the roundings of the few operations ``8 u (M + c^2)`` on top; divided by
    the variance (``inf`` where it is 0 or that bound reaches 1)."""
    eb, eg, eh = (errors + [errors[-1]] * 3)[:3]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mb = B[transient].max(axis=0, initial=0.0)
        mg = G[transient].max(axis=0, initial=0.0)
        mh = H[transient].max(axis=0, initial=0.0)
        tmax = float(t.max(initial=0.0))
        dg = eg * mg + eb * mb * t
        dh = eh * mh + (eg * mg + eb * mb * tmax) * t
        moment = (2.0 * H - G) / B
        var = np.where(B > 0.0, np.maximum(moment - cond * cond, 0.0), np.nan)
        d = eb * mb / B
        dm = (2.0 * dh + dg + d * (2.0 * H + G)) / B / (1.0 - d)
        dc = cond * cond * (2.0 * cond_err + cond_err * cond_err)
        err = dm + dc + 8 * np.finfo(float).eps * (moment + cond * cond)
        rel = np.where(d < 1.0, err / var, np.inf)
        rel = np.where(var > 0.0, rel, np.where(err > 0.0, np.inf, 0.0))
        var_err = np.where(B > 0.0, rel, np.nan)
    return var, var_err


def _visits(chain: Chain, cb: CompiledBoard, s: int, ends: np.ndarray, asked: bool | None
            ) -> tuple[np.ndarray, np.ndarray | None]:
    """Expected steps from each state and the chance to ever be on it (None when not
    ``asked``, or more than :data:`AUTO_VISIT_SOLVES` columns when ``asked`` is None), from
    the compiled start ``s``, in the chain's order (``ends``: the chance of each absorbing
    state)."""
    n, size = chain.n_states, cb.size
    visits, chance = np.zeros(n), np.zeros(n)
    visits[chain.absorbing] = chance[chain.absorbing] = ends
    if s == size:  # started on an absorbing state (its own column of ends is 1)
        return visits, (None if asked is False else chance)
    here = np.zeros(size + 1)
    skip = asked is False
    reach = cb.reachable_from(s)
    live = cb.reach[0] > 0
    live[size] = False
    dead = reach & ~live
    dead[size] = False
    if live[s]:
        solver = _live_solver(cb)
        e = np.zeros(size + 1)
        e[s] = 1.0
        sol = solver.solve(e, trans=True)
        v = np.maximum(sol.x, 0.0)
        v[~(reach & live)] = 0.0
        # N[j, j]: 1 unless a walk from j can come back to j
        mat = cb.matrix
        _, comp = connected_components(mat, directed=True, connection="strong")
        back = (np.bincount(comp)[comp] > 1) | (mat.diagonal() > 0)
        back &= live & reach & (v > 0)
        cols = np.flatnonzero(back)
        diag = np.ones(size + 1)
        if asked is False or (asked is None and len(cols) > AUTO_VISIT_SOLVES):
            cols, skip = cols[:0], True
        if len(cols):
            check_memory(8 * (size + 1) * len(cols), f"the chance to ever visit {len(cols):,} "
                         "states (a column of the fundamental matrix each)")
            e = np.zeros((size + 1, len(cols)))
            e[cols, np.arange(len(cols))] = 1.0
            sol_d = solver.solve(e)
            diag[cols] = np.maximum(sol_d.x[cols, np.arange(len(cols))], 1.0)
        here = v
        h = np.clip(v / diag, 0.0, 1.0)
    else:
        h = np.zeros(size + 1)
    h[s] = 1.0
    here = np.where(dead, np.nan, here)
    h = np.where(dead, np.nan, h)
    transient = np.flatnonzero(~chain.is_absorbing)
    visits[transient] = here[:size]
    chance[transient] = h[:size]
    return visits, (None if skip else chance)
