"""Policy evaluation (exact), improvement and value iteration kernels."""

from __future__ import annotations

import numpy as np

from .._core.numba_config import njit
from .._core.solve import system_solver
from .._core.table import reach_kernel
from .._core.validation import readonly
from .problem import Problem


@njit()
def _resolve(node, n, src, tgt, take):  # pragma: no cover - jitted
    while node >= n:
        j = node - n
        node = tgt[j] if take[j] else src[j]
    return node


@njit()
def policy_table_kernel(nxt, probs, src, tgt, die, take, goal, succ, prob):  # pragma: no cover
    """Resting square ``succ[x, f]`` and probability of each face under the policy.

    Faces of probability 0 (padding, and the goal's row) stay on their square, so
    the table's reachability is that of the chain.
    """
    n_act, n, width = nxt.shape
    for x in range(n):
        a = die[x]
        for f in range(width):
            if x == goal or a < 0 or probs[a, f] == 0.0:
                succ[x, f] = x
                prob[x, f] = 0.0
            else:
                succ[x, f] = _resolve(nxt[a, x, f], n, src, tgt, take)
                prob[x, f] = probs[a, f]


def _proper(succ: np.ndarray, prob: np.ndarray, active: np.ndarray, goal: int) -> bool:
    """Whether the policy's chain finishes surely from every active square: no active
    square moves outside ``active`` and the goal, and each can reach the goal."""
    moves = (prob > 0.0) & active[:, None]
    landing = succ[moves]
    if not np.all(active[landing] | (landing == goal)):
        return False
    dist = np.empty(len(succ), dtype=np.int64)
    reach_kernel(readonly(succ), dist, np.empty(len(succ), dtype=np.bool_))  # as Board's
    return bool(np.all(dist[active] >= 0))


def evaluate(p: Problem, die: np.ndarray, take: np.ndarray, active: np.ndarray
             ) -> tuple[np.ndarray, float]:
    """Expected throws under a policy proper on ``active`` squares (``inf`` elsewhere),
    and their certified relative error.

    The policy's chain is a successor table with per-square probabilities,
    solved exactly by the core's solver family (a block-triangular sweep plus a
    low-rank correction, cancellation-free).
    """
    n = p.n
    width = p.nxt.shape[2]
    succ = np.empty((n, width), dtype=np.intp)
    prob = np.empty((n, width))
    policy_table_kernel(p.nxt, p.probs, p.src, p.tgt, die, take, p.goal, succ, prob)
    states = np.flatnonzero(active)
    values = np.full(n, np.inf)
    values[p.goal] = 0.0
    if len(states) == 0 or not _proper(succ, prob, active, p.goal):
        return values, 0.0
    system = np.zeros(n, dtype=np.bool_)
    system[states] = True
    sol = system_solver(succ, prob, system).solve(system.astype(np.float64))
    values[states] = sol.x[states]
    return values, sol.error


# =============================================================================
# Improvement and value iteration
# =============================================================================
@njit()
def greedy_kernel(nxt, probs, src, tgt, optional, order, values, active, jactive, sense,
                   tol, strict, die, take):  # pragma: no cover - jitted
    """One improvement step from the values of the current policy.

    Strict mode (policy iteration) switches a choice only for a gain above
    ``tol`` (relative), judging dice by the jump values of the current
    decisions. Otherwise (greedy read-out) jumps are taken unless declining is
    better by more than ``tol``, and each square gets the smallest die index
    within ``tol`` of the best under those decisions. Returns ``(number of
    changes, max over squares of |T V - V|)``; with ``strict=False`` and
    ``tol=0`` that is the Bellman residual of ``V``.
    """
    n_act, n, width = nxt.shape
    m = src.shape[0]
    wj = np.empty(m)  # value of each jump state under the current decisions
    for k in range(m):
        j = order[k]
        t = tgt[j]
        wt = values[t] if t < n else wj[t - n]
        wj[j] = wt if take[j] else values[src[j]]
    wn = np.empty(m)  # ... and under the decisions of this step
    changes = 0
    for k in range(m):
        j = order[k]
        t = tgt[j]
        w_take = values[t] if t < n else (wj[t - n] if strict else wn[t - n])
        w_decl = values[src[j]]
        if optional and jactive[j]:
            if strict:
                cur = w_take if take[j] else w_decl
                alt = w_decl if take[j] else w_take
                if sense * (alt - cur) < -tol * (1.0 + abs(cur)):
                    take[j] = not take[j]
                    changes += 1
            else:
                new_take = not sense * (w_decl - w_take) < -tol * (1.0 + abs(w_take))
                if new_take != take[j]:
                    take[j] = new_take
                    changes += 1
        wn[j] = w_take if take[j] else w_decl
    if not strict:
        wj = wn
    residual = 0.0
    qs = np.empty(n_act)
    for x in range(n):
        if not active[x]:
            continue
        best = np.inf * sense
        best_a = -1
        for a in range(n_act):
            q = 1.0
            for f in range(width):
                pf = probs[a, f]
                if pf > 0.0:
                    v = nxt[a, x, f]
                    q += pf * (values[v] if v < n else wj[v - n])
            qs[a] = q
            if sense * (q - best) < 0:
                best = q
                best_a = a
        residual = max(residual, abs(best - values[x]))
        new = die[x]
        if strict:
            if sense * (best - qs[new]) < -tol * (1.0 + abs(qs[new])):
                new = best_a
        else:
            for a in range(n_act):
                if sense * (qs[a] - best) <= tol * (1.0 + abs(best)):
                    new = a
                    break
        if new != die[x]:
            die[x] = new
            changes += 1
    return changes, residual


@njit()
def _node_value(v, values, n, src, tgt, optional, sense):  # pragma: no cover - jitted
    """Best value of landing on node ``v`` (walks a chain of jump decisions)."""
    best = np.inf * sense
    while v >= n:
        j = v - n
        if optional and sense * (values[src[j]] - best) < 0:
            best = values[src[j]]
        v = tgt[j]
    if sense * (values[v] - best) < 0:
        best = values[v]
    return best


@njit()
def value_iteration_kernel(nxt, probs, src, tgt, optional, values, active, sense, tol,
                            max_iter):  # pragma: no cover - jitted
    """Gauss-Seidel value iteration from the goal downwards, in place.

    A throw that leaves the token where it is is solved for exactly
    (``q = (1 + s) / (1 - p_stay)``). Returns ``(sweeps, last max change,
    converged)``.
    """
    n_act, n, width = nxt.shape
    change = np.inf
    it = 0
    while it < max_iter:
        it += 1
        change = 0.0
        scale = 1.0
        for x in range(n - 1, -1, -1):
            if not active[x]:
                continue
            best = np.inf * sense
            for a in range(n_act):
                s = 1.0
                stay = 0.0
                for f in range(width):
                    pf = probs[a, f]
                    if pf > 0.0:
                        v = nxt[a, x, f]
                        if v == x:
                            stay += pf
                        else:
                            s += pf * _node_value(v, values, n, src, tgt, optional, sense)
                q = s / (1.0 - stay) if stay < 1.0 - 1e-15 else np.inf
                if sense * (q - best) < 0:
                    best = q
            d = abs(best - values[x])
            if d > change:
                change = d
            if abs(best) > scale:
                scale = abs(best)
            values[x] = best
        if change <= tol * scale:
            return it, change, True
    return it, change, False
