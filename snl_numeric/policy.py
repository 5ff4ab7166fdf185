"""Optimal play: which die to throw on each square, and which jumps to take.

A player owns several dice (``actions``) and picks one before every throw,
knowing the square the token is on. With ``optional_jumps=True`` the player
also decides, after the token lands on the start of a snake or ladder,
whether to follow it (under ``chain=True``: each jump of a chain in turn).
This is a stochastic shortest-path Markov decision problem over

- *square* states ``x = 0 .. size`` (the goal ``size`` absorbing), where the
  player chooses a die ``a`` and pays one throw, and
- *jump* states ``j`` (landing on the start of jump ``j``), where the player
  chooses, for free, between resting on ``src_j`` and following the jump.

The optimal expected throws ``V`` solve the Bellman equation (``objective``
"min"; "max" swaps min for max)::

    V(x) = min_a  1 + sum_f P_a(f) W(land(x, a, f))       V(size) = 0
    W(j) = min(V(src_j), W(dst_j))                        (jump states)

with ``W(y) = V(y)`` for a square ``y``. The answer is a stationary policy:
one die per square and one take/decline decision per jump.

**Policy iteration** (default) evaluates a policy ``pi`` exactly by solving
``(I - Q_pi) t = 1`` with the core's solver (LAPACK LU up to
``chain.DENSE_MAX`` unknowns; above it the structured triangular plus
low-rank solver of :mod:`snl_numeric._large`), then switches each square and jump to a
*strictly* better choice until none exists. **Value iteration** runs
Gauss-Seidel sweeps from the goal downwards until no value moves by more than
``tol``, reads off the greedy policy and evaluates it exactly. Both return
the policy with the smallest die index among (numerically) tied choices, and
the take decision where taking and declining tie.

*Improper policies.* Under "min" a policy may never finish from some square
(e.g. a die 4-6 on square 98 under the exact-landing rule). The squares from
which *some* policy finishes with probability 1 are found first (iterated
backward reachability: the almost-sure attractor of the goal); elsewhere the
optimum is ``inf``. Policy iteration starts from a proper policy read off the
attractor's layers and only accepts strict improvements, so every iterate is
proper. Under "max" the worst play is infinite as soon as a player can keep
the token away from the goal forever with positive probability: the largest
set of squares with a choice that never leaves it (a goal-avoiding end
component) is found, and if the start can reach it a ``ValueError`` names
the square and the die.

:func:`finish_within` maximises instead the chance to finish within ``K``
throws by backward induction: ``P_0 = 1[goal]``,
``P_k(x) = max_a sum_f P_a(f) W_{k-1}(land(x, a, f))``; the optimal policy
depends on the number of throws left.
"""

from __future__ import annotations

import argparse
import json
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from ._numba_config import njit
from .board import Board
from .chain import _factorize_table
from .dice import Dice, as_dice, parse_dice
from .shortest import _check_board

__all__ = [
    "Convergence",
    "PolicyResult",
    "FinishWithinResult",
    "optimal_policy",
    "finish_within",
    "add_policy_parser",
]

OBJECTIVES = ("min", "max")
METHODS = ("policy", "value")
#: Expected throws above this cannot be resolved in double precision (the
#: condition number of ``I - Q`` is about the largest expected value).
RELIABLE_MAX = 1e12


# =============================================================================
# The decision problem as arrays
# =============================================================================
@dataclass(frozen=True, eq=False)
class _Problem:
    """The decision problem; node ``v < n`` is a square, ``n + j`` jump ``j``.

    ``nxt[a, x, f]`` is the node reached by face ``f`` of die ``a`` from
    square ``x`` (padded faces have probability 0 and lead to the goal);
    ``tgt[j]`` the node reached by following jump ``j`` (a jump node when
    chained into the next jump); ``order`` lists jumps with every jump after
    the one it chains into.
    """

    n: int
    nxt: np.ndarray
    probs: np.ndarray
    src: np.ndarray
    tgt: np.ndarray
    order: np.ndarray
    optional: bool

    @property
    def goal(self) -> int:
        return self.n - 1

    @property
    def n_actions(self) -> int:
        return self.nxt.shape[0]


def _as_actions(actions: Any) -> tuple[Dice, ...]:
    if isinstance(actions, (Dice, Mapping, str)) or not isinstance(actions, Sequence):
        raise TypeError(
            "actions must be a list of dice (Dice objects, mappings face -> probability "
            f"or strings such as '1-3'), got {type(actions).__name__}"
        )
    if len(actions) == 0:
        raise ValueError("actions must hold at least one die, got an empty list")
    out = []
    for i, a in enumerate(actions):
        if isinstance(a, str):
            out.append(parse_dice(a))
        elif a is None or isinstance(a, (Dice, Mapping)):
            out.append(as_dice(a))
        else:
            raise TypeError(f"actions[{i}] must be a Dice, a mapping or a string, got {a!r}")
    return tuple(out)


def _build_problem(board: Board, dice: tuple[Dice, ...], optional: bool) -> _Problem:
    n = board.size + 1
    goal = board.size
    width = max(len(d.faces) for d in dice)
    nxt = np.full((len(dice), n, width), goal, dtype=np.intp)
    probs = np.zeros((len(dice), width))
    cb = None
    for a, d in enumerate(dice):
        if board.overshoot == "bounce" and d.max_face > board.size + 1:
            # the core accepts faces up to 2 * size, but from square size - 1 a face
            # above size + 1 bounces below square 0
            raise ValueError(
                f"face {d.max_face} of actions[{a}] is too large for a bounce on a board of "
                f"size {board.size}: from square {board.size - 1} it would bounce below "
                f"square 0 (faces must be <= {board.size + 1})")
        cb = board.replace(dice=d).compiled  # validates the die against the rules
        k = len(d.faces)
        nxt[a, :, :k] = np.where(cb.fired >= 0, n + cb.fired, cb.succ)
        probs[a, :k] = d.probs
    src = cb.jump_src.astype(np.intp)
    dst = cb.jump_dst.astype(np.intp)
    tgt = dst.copy()
    if board.chain and len(src):
        nxt_jump = cb.jump_index[dst]
        tgt = np.where(nxt_jump >= 0, n + nxt_jump, dst).astype(np.intp)
    depth = np.zeros(len(src), dtype=np.int64)
    _jump_depth_kernel(tgt, n, depth)
    order = np.argsort(depth, kind="stable").astype(np.intp)
    return _Problem(n, nxt, probs, src, tgt, order, bool(optional))


@njit()
def _jump_depth_kernel(tgt, n, depth):  # pragma: no cover - jitted
    """``depth[j]``: number of jumps chained after ``j`` (no cycles: checked by Board)."""
    m = tgt.shape[0]
    done = np.zeros(m, dtype=np.bool_)
    stack = np.empty(m, dtype=np.int64)
    for j0 in range(m):
        top = 0
        j = j0
        while not done[j] and tgt[j] >= n:
            stack[top] = j
            top += 1
            j = tgt[j] - n
        if not done[j]:
            depth[j] = 0 if tgt[j] < n else depth[tgt[j] - n] + 1
            done[j] = True
        while top > 0:
            top -= 1
            k = stack[top]
            depth[k] = depth[tgt[k] - n] + 1
            done[k] = True


# =============================================================================
# Graph analysis: where is the answer finite?  (choices and reverse edges)
# =============================================================================
# Choice ids: square x with die a -> x * A + a; jump j: n * A + 2 j (decline),
# n * A + 2 j + 1 (take).


@njit()
def _reverse_kernel(nxt, probs, src, tgt, optional, goal, indptr, choice):  # pragma: no cover
    """Reverse edges node -> choices leading to it (counting sort, two passes)."""
    n_act, n, width = nxt.shape
    m = src.shape[0]
    for fill in range(2):
        pos = indptr.copy()
        for x in range(n):
            if x == goal:
                continue
            for a in range(n_act):
                for f in range(width):
                    if probs[a, f] > 0.0:
                        v = nxt[a, x, f]
                        if fill:
                            choice[pos[v]] = x * n_act + a
                            pos[v] += 1
                        else:
                            indptr[v + 1] += 1
        for j in range(m):
            base = n * n_act + 2 * j
            if fill:
                choice[pos[tgt[j]]] = base + 1
                pos[tgt[j]] += 1
                if optional:
                    choice[pos[src[j]]] = base
                    pos[src[j]] += 1
            else:
                indptr[tgt[j] + 1] += 1
                if optional:
                    indptr[src[j] + 1] += 1
        if not fill:
            for v in range(indptr.shape[0] - 1):
                indptr[v + 1] += indptr[v]


def _reverse(p: _Problem) -> tuple[np.ndarray, np.ndarray]:
    n_nodes = p.n + len(p.src)
    n_edges = (p.n - 1) * int(np.count_nonzero(p.probs > 0)) + len(p.src) * (1 + p.optional)
    indptr = np.zeros(n_nodes + 1, dtype=np.int64)
    choice = np.empty(n_edges, dtype=np.int64)
    _reverse_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.goal, indptr, choice)
    return indptr, choice


@njit()
def _owner(c, n, n_act):  # pragma: no cover - jitted
    if c < n * n_act:
        return c // n_act
    return n + (c - n * n_act) // 2


@njit()
def _attractor_kernel(nxt, probs, src, tgt, optional, goal, indptr, choice,
                      dist, die, take):  # pragma: no cover - jitted
    """Almost-sure attractor of the goal and a proper policy on it.

    ``dist[v] >= 0`` marks nodes from which some policy finishes with
    probability 1 (the BFS layer of the last round); ``die``/``take`` get a
    choice that stays in the set and moves down a layer with positive
    probability, preferring the die with the smallest expected layer.
    """
    n_act, n, width = nxt.shape
    m = src.shape[0]
    n_nodes = n + m
    n_choice = n * n_act + 2 * m
    in_u = np.ones(n_nodes, dtype=np.bool_)
    allowed = np.zeros(n_choice, dtype=np.bool_)
    queue = np.empty(n_nodes, dtype=np.int64)
    while True:
        for x in range(n):
            for a in range(n_act):
                ok = in_u[x] and x != goal
                if ok:
                    for f in range(width):
                        if probs[a, f] > 0.0 and not in_u[nxt[a, x, f]]:
                            ok = False
                            break
                allowed[x * n_act + a] = ok
        for j in range(m):
            base = n * n_act + 2 * j
            allowed[base] = optional and in_u[n + j] and in_u[src[j]]
            allowed[base + 1] = in_u[n + j] and in_u[tgt[j]]
        dist[:] = -1
        dist[goal] = 0
        queue[0] = goal
        head, tail = 0, 1
        while head < tail:
            v = queue[head]
            head += 1
            for k in range(indptr[v], indptr[v + 1]):
                c = choice[k]
                if not allowed[c]:
                    continue
                u = _owner(c, n, n_act)
                if dist[u] == -1:
                    dist[u] = dist[v] + 1
                    queue[tail] = u
                    tail += 1
        changed = False
        for v in range(n_nodes):
            if in_u[v] and dist[v] < 0:
                in_u[v] = False
                changed = True
        if not changed:
            break
    # a proper policy on the attractor
    for x in range(n):
        die[x] = 0
        if x == goal or dist[x] < 0:
            continue
        best = np.inf
        for a in range(n_act):
            if not allowed[x * n_act + a]:
                continue
            down = False
            score = 0.0
            for f in range(width):
                if probs[a, f] > 0.0:
                    d = dist[nxt[a, x, f]]
                    score += probs[a, f] * d
                    if d < dist[x]:
                        down = True
            if down and score < best:
                best = score
                die[x] = a
    for j in range(m):
        take[j] = True
        if dist[n + j] >= 0 and optional:
            take[j] = dist[tgt[j]] >= 0 and (dist[src[j]] < 0 or dist[tgt[j]] <= dist[src[j]])


@njit()
def _trap_kernel(nxt, probs, src, tgt, optional, goal, indptr, choice,
                 trap, bad, doomed, via):  # pragma: no cover - jitted
    """Squares from which a player can keep the token from the goal forever.

    ``trap`` (in: all False) becomes the largest set of non-goal nodes each
    with a choice that never leaves it; ``bad[c]`` counts the edges of
    choice ``c`` leaving it. ``doomed`` marks the nodes that can reach it
    with positive probability, ``via[v]`` the choice that leads there.
    """
    n_act, n, width = nxt.shape
    m = src.shape[0]
    n_nodes = n + m
    good = np.empty(n_nodes, dtype=np.int64)
    for v in range(n_nodes):
        trap[v] = v != goal
        good[v] = n_act if v < n else (2 if optional else 1)
    if not optional:
        for j in range(m):
            bad[n * n_act + 2 * j] = 1  # declining does not exist
    queue = np.empty(n_nodes, dtype=np.int64)
    queue[0] = goal
    head, tail = 0, 1
    while head < tail:
        v = queue[head]
        head += 1
        for k in range(indptr[v], indptr[v + 1]):
            c = choice[k]
            bad[c] += 1
            if bad[c] == 1:
                u = _owner(c, n, n_act)
                good[u] -= 1
                if good[u] == 0 and trap[u]:
                    trap[u] = False
                    queue[tail] = u
                    tail += 1
    head, tail = 0, 0
    for v in range(n_nodes):
        doomed[v] = trap[v]
        via[v] = -1
        if trap[v]:
            queue[tail] = v
            tail += 1
    while head < tail:
        v = queue[head]
        head += 1
        for k in range(indptr[v], indptr[v + 1]):
            c = choice[k]
            u = _owner(c, n, n_act)
            if not doomed[u]:
                doomed[u] = True
                via[u] = c
                queue[tail] = u
                tail += 1


# =============================================================================
# Policy evaluation
# =============================================================================
@njit()
def _resolve(node, n, src, tgt, take):  # pragma: no cover - jitted
    while node >= n:
        j = node - n
        node = tgt[j] if take[j] else src[j]
    return node


@njit()
def _policy_table_kernel(nxt, probs, src, tgt, die, take, goal, succ, prob):  # pragma: no cover
    """Resting square ``succ[x, f]`` and probability of each face under the policy."""
    n_act, n, width = nxt.shape
    for x in range(n):
        a = die[x]
        for f in range(width):
            if x == goal or a < 0:
                succ[x, f] = goal
                prob[x, f] = 0.0
            else:
                succ[x, f] = _resolve(nxt[a, x, f], n, src, tgt, take)
                prob[x, f] = probs[a, f]


@njit()
def _proper_kernel(succ, prob, active, goal):  # pragma: no cover - jitted
    """Whether the policy's chain finishes surely from every active square.

    True iff no active square moves outside ``active`` and the goal and
    every active square can reach the goal (backward BFS, counting sort).
    """
    n, width = succ.shape
    indptr = np.zeros(n + 1, dtype=np.int64)
    for x in range(n):
        if active[x]:
            for f in range(width):
                if prob[x, f] > 0.0:
                    y = succ[x, f]
                    if y != goal and not active[y]:
                        return False
                    indptr[y + 1] += 1
    for y in range(n):
        indptr[y + 1] += indptr[y]
    pos = indptr[:-1].copy()
    pred = np.empty(indptr[n], dtype=np.int64)
    for x in range(n):
        if active[x]:
            for f in range(width):
                if prob[x, f] > 0.0:
                    y = succ[x, f]
                    pred[pos[y]] = x
                    pos[y] += 1
    seen = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int64)
    seen[goal] = True
    queue[0] = goal
    head, tail = 0, 1
    while head < tail:
        y = queue[head]
        head += 1
        for k in range(indptr[y], indptr[y + 1]):
            x = pred[k]
            if not seen[x]:
                seen[x] = True
                queue[tail] = x
                tail += 1
    for x in range(n):
        if active[x] and not seen[x]:
            return False
    return True


def _evaluate(p: _Problem, die: np.ndarray, take: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Expected throws under a policy proper on ``active`` squares (``inf`` elsewhere).

    The policy's chain is a successor table with per-square probabilities,
    solved exactly by the core's solver (LAPACK LU, or the structured
    triangular + low-rank solver on large boards).
    """
    n = p.n
    width = p.nxt.shape[2]
    succ = np.empty((n, width), dtype=np.intp)
    prob = np.empty((n, width))
    _policy_table_kernel(p.nxt, p.probs, p.src, p.tgt, die, take, p.goal, succ, prob)
    states = np.flatnonzero(active)
    values = np.full(n, np.inf)
    values[p.goal] = 0.0
    if len(states) == 0 or not _proper_kernel(succ, prob, active, p.goal):
        return values
    values[states] = _factorize_table(succ, prob, states).solve(np.ones(len(states)))
    return values


# =============================================================================
# Improvement and value iteration
# =============================================================================
@njit()
def _greedy_kernel(nxt, probs, src, tgt, optional, order, values, active, jactive, sense,
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
def _value_iteration_kernel(nxt, probs, src, tgt, optional, values, active, sense, tol,
                            max_iter):  # pragma: no cover - jitted
    """Gauss-Seidel value iteration from the goal downwards, in place.

    A throw that leaves the token where it is is solved for exactly
    (``q = (1 + s) / (1 - p_stay)``). Returns ``(sweeps, last max change)``.
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
            break
    return it, change


# =============================================================================
# Results
# =============================================================================
@dataclass(frozen=True)
class Convergence:
    """How an optimal policy was found.

    Attributes
    ----------
    method : str
        ``"policy"`` (policy iteration) or ``"value"`` (value iteration).
    iterations : int
        Policy-improvement steps, or value-iteration sweeps.
    residual : float
        Bellman error ``max |T V - V|`` of the returned expected throws ``V``
        over the squares and jumps where they are finite.
    note : str
        Anything unusual (e.g. a fallback), empty otherwise.
    """

    method: str
    iterations: int
    residual: float
    note: str = ""


@dataclass(frozen=True, eq=False)
class PolicyResult:
    """An optimal (or worst) stationary policy and the expected throws under it.

    Attributes
    ----------
    board : Board
        The board; its own dice are replaced by ``actions``.
    actions : tuple of Dice
        The dice to choose from, indexed as in ``policy``.
    objective : {"min", "max"}
        Fewest (best play) or most (worst play) expected throws.
    optional_jumps : bool
        Whether the player may decline jumps.
    policy : ndarray of int64, shape (size + 1,)
        Index of the die thrown on each square; -1 on the goal. Where the
        optimum is infinite it is a die that achieves it (under "min": the
        first die, as no play finishes surely from there).
    jumps : tuple of (int, int)
        The board's jumps ``(from, to)``, sorted by square.
    take : ndarray of bool, shape (n_jumps,)
        Whether the player follows each jump on landing (all True unless
        ``optional_jumps``).
    expected : ndarray of float64, shape (size + 1,)
        Expected throws from every square under the policy (``inf`` where the
        goal is not reached with probability 1).
    expected_start : float
        ``expected[board.start]``.
    convergence : Convergence
        Method, iterations and the Bellman residual.
    """

    board: Board
    actions: tuple[Dice, ...]
    objective: str
    optional_jumps: bool
    policy: np.ndarray = field(repr=False)
    jumps: tuple[tuple[int, int], ...] = field(repr=False)
    take: np.ndarray = field(repr=False)
    expected: np.ndarray = field(repr=False)
    expected_start: float
    convergence: Convergence

    @property
    def declined(self) -> list[tuple[int, int]]:
        """The jumps ``(from, to)`` the player declines."""
        return [j for j, t in zip(self.jumps, self.take, strict=True) if not t]

    def transition_matrix(self) -> sp.csr_matrix:
        """The chain the policy induces: ``P[x, y]`` (CSR, goal absorbing).

        Examples
        --------
        >>> from snl_numeric import Board
        >>> r = optimal_policy(Board(3), [{1: 1.0}, {3: 1.0}])
        >>> r.transition_matrix().toarray()[0].tolist()
        [0.0, 0.0, 0.0, 1.0]
        """
        p = _build_problem(self.board, self.actions, self.optional_jumps)
        width = p.nxt.shape[2]
        succ = np.empty((p.n, width), dtype=np.intp)
        prob = np.empty((p.n, width))
        _policy_table_kernel(p.nxt, p.probs, p.src, p.tgt, self.policy, self.take, p.goal,
                             succ, prob)
        rows = np.repeat(np.arange(p.n), width)
        keep = prob.ravel() > 0
        rows = np.append(rows[keep], p.goal)
        cols = np.append(succ.ravel()[keep], p.goal)
        data = np.append(prob.ravel()[keep], 1.0)
        mat = sp.csr_matrix((data, (rows, cols)), shape=(p.n, p.n))
        mat.sum_duplicates()
        mat.sort_indices()
        return mat

    def induced_board(self) -> Board:
        """The plain board the policy plays: declined jumps removed, one die.

        Only defined when the policy throws the same die on every square
        (otherwise use :meth:`transition_matrix`).

        Examples
        --------
        >>> from snl_numeric import Board, expected_throws
        >>> b = Board(10, {3: 1, 5: 9})
        >>> r = optimal_policy(b, [None], optional_jumps=True)
        >>> r.declined
        [(3, 1)]
        >>> expected_throws(r.induced_board()) == r.expected_start
        True
        """
        used = np.unique(self.policy[: self.board.size])
        if len(used) != 1:
            labels = ", ".join(_label(i) for i in used.tolist())
            raise ValueError(
                f"the policy throws several dice ({labels}); a Board has one die: "
                "use transition_matrix() for the induced chain")
        jumps = [j for j, t in zip(self.jumps, self.take, strict=True) if t]
        return self.board.replace(jumps=jumps, dice=self.actions[int(used[0])])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (arrays as lists, ``inf`` as ``"inf"``)."""
        return {
            "board": self.board.to_dict(),
            "actions": [{"label": _label(i), "dice": _dice_text(d)}
                        for i, d in enumerate(self.actions)],
            "objective": self.objective,
            "optional_jumps": self.optional_jumps,
            "start": self.board.start,
            "expected_start": _json_float(self.expected_start),
            "policy": self.policy.tolist(),
            "jumps": [{"from": s, "to": d, "take": bool(t)}
                      for (s, d), t in zip(self.jumps, self.take, strict=True)],
            "expected": [_json_float(v) for v in self.expected.tolist()],
            "convergence": {"method": self.convergence.method,
                            "iterations": self.convergence.iterations,
                            "residual": self.convergence.residual,
                            "note": self.convergence.note},
        }

    def _repr_html_(self) -> str:
        from ._html import policy_html

        return policy_html(self)

    def __str__(self) -> str:
        b = self.board
        what = "fewest" if self.objective == "min" else "most"
        c = self.convergence
        lines = [
            f"{'optimal' if self.objective == 'min' else 'worst'} play ({what} expected "
            f"throws) on {b.name or f'a board of size {b.size}'}: {_n_dice(self.actions)}"
            + (", optional jumps" if self.optional_jumps else ""),
            "  dice              " + "  ".join(
                f"{_label(i)} = {_dice_text(d)}" for i, d in enumerate(self.actions)),
            f"  expected throws   {self.expected_start:.6f} from square {b.start}",
            f"  {'policy' if c.method == 'policy' else 'value'} iteration  {c.iterations} "
            f"{'steps' if c.method == 'policy' else 'sweeps'}, Bellman residual {c.residual:.2g}"
            + (f" ({c.note})" if c.note else ""),
        ]
        lines += _board_map(b, self.policy, self.jumps, self.take)
        if self.optional_jumps:
            dec = self.declined
            lines.append("  declined jumps    " + (
                " ".join(f"{s}->{d}" for s, d in dec) if dec else "none"))
        return "\n".join(lines)


@dataclass(frozen=True, eq=False)
class FinishWithinResult:
    """The play that maximises the chance to finish within ``horizon`` throws.

    Attributes
    ----------
    board : Board
    actions : tuple of Dice
    optional_jumps : bool
    horizon : int
        ``K``, the number of throws allowed.
    policy : ndarray of int64, shape (K, size + 1)
        ``policy[i, x]``: the die for throw ``i`` (0-based, ``K - i`` throws
        left) on square ``x``; -1 on the goal.
    take : ndarray of bool, shape (K, n_jumps)
        ``take[i, j]``: follow jump ``j`` on landing after throw ``i``.
    jumps : tuple of (int, int)
    values : ndarray of float64, shape (K + 1, size + 1)
        ``values[k, x]``: the best chance to finish within ``k`` throws from ``x``.
    probability : ndarray of float64, shape (size + 1,)
        ``values[K]``.
    probability_start : float
        ``probability[board.start]``.
    """

    board: Board
    actions: tuple[Dice, ...]
    optional_jumps: bool
    horizon: int
    policy: np.ndarray = field(repr=False)
    take: np.ndarray = field(repr=False)
    jumps: tuple[tuple[int, int], ...] = field(repr=False)
    values: np.ndarray = field(repr=False)
    probability: np.ndarray = field(repr=False)
    probability_start: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (arrays as nested lists)."""
        return {
            "board": self.board.to_dict(),
            "actions": [{"label": _label(i), "dice": _dice_text(d)}
                        for i, d in enumerate(self.actions)],
            "optional_jumps": self.optional_jumps,
            "horizon": self.horizon,
            "start": self.board.start,
            "probability_start": self.probability_start,
            "policy": self.policy.tolist(),
            "jumps": [list(j) for j in self.jumps],
            "take": self.take.tolist(),
            "probability": self.probability.tolist(),
        }

    def __str__(self) -> str:
        b = self.board
        lines = [
            f"best chance to finish within {self.horizon} throws on "
            f"{b.name or f'a board of size {b.size}'}: {_n_dice(self.actions)}"
            + (", optional jumps" if self.optional_jumps else ""),
            "  dice              " + "  ".join(
                f"{_label(i)} = {_dice_text(d)}" for i, d in enumerate(self.actions)),
            f"  chance            {self.probability_start:.6f} from square {b.start}",
        ]
        if self.horizon:
            lines.append(f"  first throw ({self.horizon} left); the choice depends on "
                         "the throws left:")
            lines += _board_map(b, self.policy[0], self.jumps, self.take[0])
        return "\n".join(lines)


# =============================================================================
# Public functions
# =============================================================================
def _check_common(board: Board, actions: Any, optional_jumps: Any) -> tuple[Board, tuple]:
    _check_board(board)
    dice = _as_actions(actions)
    if not isinstance(optional_jumps, (bool, np.bool_)):
        raise TypeError(f"optional_jumps must be True or False, got {optional_jumps!r}")
    return board, dice


def optimal_policy(
    board: Board,
    actions: Sequence[Dice | Mapping[int, float] | str | None],
    *,
    objective: str = "min",
    optional_jumps: bool = False,
    method: str = "policy",
    tol: float | None = None,
    max_iter: int | None = None,
) -> PolicyResult:
    """The best (or worst) choice of die on every square, and of every jump.

    Parameters
    ----------
    board : Board
        The board and rules; its own dice are ignored.
    actions : sequence of Dice, mapping, str or None
        The dice the player chooses from before each throw (a string is
        read by :func:`~snl_numeric.dice.parse_dice`, ``None`` is a fair d6).
    objective : {"min", "max"}, default "min"
        Minimise (best play) or maximise (worst play) the expected throws.
    optional_jumps : bool, default False
        Let the player decline any snake or ladder after landing on it.
    method : {"policy", "value"}, default "policy"
        Policy iteration with exact evaluation, or Gauss-Seidel value
        iteration followed by an exact evaluation of its greedy policy.
    tol : float, optional
        Relative threshold: policy iteration switches a choice only when it
        gains more than ``tol * (1 + value)`` (default ``1e-9``); value
        iteration stops when no value moves by more than ``tol`` times the
        largest value (default ``1e-12``).
    max_iter : int, optional
        Cap on improvement steps (default 1000) or sweeps (default 1_000_000);
        ``RuntimeError`` when reached.

    Returns
    -------
    PolicyResult

    Raises
    ------
    ValueError
        Under ``objective="max"`` when a player can keep the token away from
        the goal forever with positive probability from the start square (the
        worst expected number of throws is infinite); the message names a
        square and the die that does it.

    Examples
    --------
    >>> from snl_numeric import boards
    >>> r = optimal_policy(boards.get("milton-bradley"), ["1-3", "4-6"])
    >>> round(r.expected_start, 4)
    17.0874
    >>> r.policy[:10].tolist()
    [0, 0, 0, 1, 1, 1, 0, 1, 1, 1]
    """
    board, dice = _check_common(board, actions, optional_jumps)
    if not isinstance(objective, str) or objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if tol is None:
        tol = 1e-9 if method == "policy" else 1e-12
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not 0 <= tol < 1:
        raise ValueError(f"tol must be a number in [0, 1), got {tol!r}")
    if max_iter is None:
        max_iter = 1000 if method == "policy" else 1_000_000
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral):
        raise TypeError(f"max_iter must be an integer, got {max_iter!r}")
    if max_iter < 1:
        raise ValueError(f"max_iter must be at least 1, got {max_iter}")
    p = _build_problem(board, dice, bool(optional_jumps))
    sense = 1.0 if objective == "min" else -1.0
    indptr, choice = _reverse(p)
    n, m = p.n, len(p.src)
    die = np.zeros(n, dtype=np.int64)
    take = np.ones(m, dtype=np.bool_)
    if objective == "min":
        dist = np.empty(n + m, dtype=np.int64)
        _attractor_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.goal, indptr, choice,
                          dist, die, take)
        finite = dist >= 0
    else:
        finite = _worst_case_region(board, dice, p, indptr, choice, die, take)
    active = finite[:n].copy()
    active[p.goal] = False
    jactive = finite[n:].copy()

    note = ""
    if method == "policy":
        values, iterations = _policy_iteration(p, die, take, active, jactive, sense,
                                               float(tol), int(max_iter))
    else:
        values = np.where(active, 0.0, np.inf)
        values[p.goal] = 0.0
        sweeps, change = _value_iteration_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional,
                                                 values, active, sense, float(tol),
                                                 int(max_iter))
        if change > tol * max(1.0, float(np.max(values[active], initial=0.0))):
            raise RuntimeError(f"value iteration did not converge within max_iter={max_iter} "
                               f"sweeps (last change {change:.3g}); raise max_iter or tol")
        iterations = int(sweeps)
        trial_die, trial_take = die.copy(), take.copy()
        _greedy_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.order, values, active,
                       jactive, sense, 1e-9, False, trial_die, trial_take)
        trial = _evaluate(p, trial_die, trial_take, active)
        if np.all(np.isfinite(trial[active])):
            die, take, values = trial_die, trial_take, trial
        else:  # pragma: no cover - needs a near-tie with an improper choice
            values, extra = _policy_iteration(p, die, take, active, jactive, sense, 1e-9,
                                              1000)
            note = f"greedy policy of value iteration was improper; {extra} policy steps"

    # canonical tie-breaking (smallest die index, take on ties); keep it if proper
    canon_die, canon_take = die.copy(), take.copy()
    changes, _ = _greedy_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.order, values,
                                active, jactive, sense, 1e-9, False, canon_die, canon_take)
    if changes:
        canon = _evaluate(p, canon_die, canon_take, active)
        c, v = canon[active], values[active]
        if np.all(np.isfinite(c)) and np.all(sense * (c - v) <= 1e-7 * (1 + np.abs(v))):
            die, take, values = canon_die, canon_take, canon
    _, residual = _greedy_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.order, values,
                                 active, jactive, sense, 0.0, False, die.copy(), take.copy())
    top = float(np.max(values[active], initial=0.0))
    if top > RELIABLE_MAX and objective == "max":
        raise RuntimeError(
            f"objective='max': the worst play lasts about {top:.3g} throws from some square, "
            f"beyond what double precision resolves (about {RELIABLE_MAX:.0e}); the answer "
            "would be meaningless")
    if top > RELIABLE_MAX:
        note = (note + "; " if note else "") + (
            f"expected throws reach {top:.3g}: relative accuracy only ~{top * 1e-16:.0e}")
    die[p.goal] = -1
    for arr in (die, take, values):
        arr.flags.writeable = False
    return PolicyResult(
        board=board, actions=dice, objective=objective, optional_jumps=bool(optional_jumps),
        policy=die, jumps=_jump_pairs(board, p),
        take=take, expected=values, expected_start=float(values[board.start]),
        convergence=Convergence(method, iterations, float(residual), note),
    )


def _policy_iteration(p: _Problem, die: np.ndarray, take: np.ndarray, active: np.ndarray,
                      jactive: np.ndarray, sense: float, tol: float, max_iter: int
                      ) -> tuple[np.ndarray, int]:
    """Policy iteration in place on ``die``/``take``; returns values and steps."""
    values = _evaluate(p, die, take, active)
    steps = 0
    while True:
        changes, _ = _greedy_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.order,
                                    values, active, jactive, sense, tol, True, die, take)
        if changes == 0:
            return values, steps
        steps += 1
        if steps > max_iter:
            raise RuntimeError(f"policy iteration did not converge within max_iter={max_iter} "
                               "steps; raise max_iter or tol")
        values = _evaluate(p, die, take, active)


def _worst_case_region(board: Board, dice: tuple[Dice, ...], p: _Problem,
                       indptr: np.ndarray, choice: np.ndarray, die: np.ndarray,
                       take: np.ndarray) -> np.ndarray:
    """Nodes where every play finishes surely; ``ValueError`` if the start is not one."""
    n, m, n_act = p.n, len(p.src), p.n_actions
    trap = np.zeros(n + m, dtype=np.bool_)
    bad = np.zeros(n * n_act + 2 * m, dtype=np.int64)
    doomed = np.zeros(n + m, dtype=np.bool_)
    via = np.full(n + m, -1, dtype=np.int64)
    _trap_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.goal, indptr, choice,
                 trap, bad, doomed, via)
    # a play that never finishes from the doomed nodes: stay in the trap, or head for it
    for v in np.flatnonzero(doomed).tolist():
        if trap[v]:
            owned = (range(v * n_act, (v + 1) * n_act) if v < n
                     else range(n * n_act + 2 * (v - n), n * n_act + 2 * (v - n) + 2))
            c = next(c for c in owned if bad[c] == 0)
        else:
            c = int(via[v])
        if v < n:
            die[v] = c - v * n_act
        else:
            take[v - n] = (c - n * n_act) % 2 == 1
    if doomed[board.start]:
        raise ValueError(
            f"objective='max': the worst expected number of throws from square {board.start} "
            "is infinite: a player can keep the token away from the goal forever with "
            f"positive probability ({_trap_witness(board, dice, p, trap, bad, via)})")
    return ~doomed


def _trap_witness(board: Board, dice: tuple[Dice, ...], p: _Problem, trap: np.ndarray,
                  bad: np.ndarray, via: np.ndarray) -> str:
    """Why the worst play never finishes: preferably a square where a die never moves."""
    n, n_act = p.n, p.n_actions
    # every node the token can reach from the start, under any play
    rows = [np.repeat(np.arange(n), p.nxt.shape[2])] * n_act
    cols = [p.nxt[a].ravel() for a in range(n_act)]
    keep = [np.tile(p.probs[a] > 0, n) for a in range(n_act)]
    rows = [r[k] for r, k in zip(rows, keep, strict=True)] + [n + np.arange(len(p.src))]
    cols = [c[k] for c, k in zip(cols, keep, strict=True)] + [p.tgt]
    if p.optional:
        rows.append(n + np.arange(len(p.src)))
        cols.append(p.src)
    r, c = np.concatenate(rows), np.concatenate(cols)
    graph = sp.csr_matrix((np.ones(len(r), dtype=np.int8), (r, c)), shape=(n + len(p.src),) * 2)
    reach = np.zeros(graph.shape[0], dtype=bool)
    reach[breadth_first_order(graph, board.start, return_predecessors=False)] = True
    for x in np.flatnonzero(trap[:n] & reach[:n]).tolist():
        for a in range(n_act):
            if bad[x * n_act + a] == 0 and all(y == x for y in _choice_targets(p, x * n_act + a)):
                return (f"the token can reach square {x}, where die {_label(a)} "
                        f"({_dice_text(dice[a])}) never moves it under overshoot "
                        f"{board.overshoot!r}")
    v = board.start  # follow the witness choices from the start into the trap
    while not trap[v]:
        v = next(y for y in _choice_targets(p, int(via[v])) if trap[y] or via[y] >= 0)
    if v >= n:
        s = int(p.src[v - n])
        return f"after landing on square {s}, the jump {s}->{board.jumps[s]} leads into a loop"
    a = next(a for a in range(n_act) if bad[v * n_act + a] == 0)
    targets = _choice_targets(p, v * n_act + a)
    keep_sq = sorted({y if y < n else int(p.src[y - n]) for y in targets})
    return (f"on square {v}, die {_label(a)} ({_dice_text(dice[a])}) only leads to squares "
            f"{_few(keep_sq)}, from which this can go on forever")


def _choice_targets(p: _Problem, c: int) -> list[int]:
    n, n_act = p.n, p.n_actions
    if c < n * n_act:
        x, a = divmod(c, n_act)
        return [int(v) for v, q in zip(p.nxt[a, x], p.probs[a], strict=True) if q > 0]
    j, o = divmod(c - n * n_act, 2)
    return [int(p.tgt[j]) if o else int(p.src[j])]


#: Largest ``(k + 1) * squares`` table :func:`finish_within` will allocate.
_MAX_HORIZON_CELLS = 200_000_000


def finish_within(
    board: Board,
    actions: Sequence[Dice | Mapping[int, float] | str | None],
    k: int,
    *,
    optional_jumps: bool = False,
) -> FinishWithinResult:
    """The play that maximises the chance to finish within ``k`` throws.

    Backward induction over the throws left: ``P_0 = 1`` on the goal,
    ``P_r(x) = max_a sum_f P_a(f) W_{r-1}(landing)`` with the best jump
    decision ``W``. Ties go to the smaller die index, and to taking a jump.

    Parameters
    ----------
    board : Board
    actions : sequence of Dice, mapping, str or None
        As in :func:`optimal_policy`.
    k : int
        The number of throws allowed (``>= 0``).
    optional_jumps : bool, default False

    Returns
    -------
    FinishWithinResult

    Examples
    --------
    >>> from snl_numeric import Board
    >>> r = finish_within(Board(4, overshoot="exact"), ["1-3", "4-6"], 1)
    >>> r.probability_start, int(r.policy[0, 0])
    (0.3333333333333333, 1)
    """
    board, dice = _check_common(board, actions, optional_jumps)
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer number of throws, got {k!r}")
    if k < 0:
        raise ValueError(f"k must be a non-negative number of throws, got {k}")
    p = _build_problem(board, dice, bool(optional_jumps))
    k = int(k)
    if (k + 1) * p.n > _MAX_HORIZON_CELLS:
        raise ValueError(f"k={k} throws on {p.n} squares needs {(k + 1) * p.n:,} table entries; "
                         f"the limit is {_MAX_HORIZON_CELLS:,}")
    values = np.zeros((k + 1, p.n))
    policy = np.full((k, p.n), -1, dtype=np.int64)
    take = np.ones((k, len(p.src)), dtype=np.bool_)
    _horizon_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.order, p.goal, 1e-13,
                    values, policy, take)
    for arr in (values, policy, take):
        arr.flags.writeable = False
    return FinishWithinResult(
        board=board, actions=dice, optional_jumps=bool(optional_jumps), horizon=k,
        policy=policy, take=take,
        jumps=_jump_pairs(board, p),
        values=values, probability=values[k], probability_start=float(values[k, board.start]),
    )


@njit()
def _horizon_kernel(nxt, probs, src, tgt, optional, order, goal, tie, values, policy,
                    take):  # pragma: no cover - jitted
    """Backward induction; ``values[r]`` for ``r`` throws left, ``policy[K - r]``."""
    n_act, n, width = nxt.shape
    m = src.shape[0]
    horizon = policy.shape[0]
    wj = np.empty(m)
    values[0, goal] = 1.0
    for r in range(1, horizon + 1):
        prev = values[r - 1]
        i = horizon - r
        for kk in range(m):
            j = order[kk]
            t = tgt[j]
            w_take = prev[t] if t < n else wj[t - n]
            w = w_take
            take[i, j] = True
            if optional and prev[src[j]] > w_take + tie:
                w = prev[src[j]]
                take[i, j] = False
            wj[j] = w
        for x in range(n):
            if x == goal:
                values[r, x] = 1.0
                continue
            best = -1.0
            best_a = 0
            for a in range(n_act):
                q = 0.0
                for f in range(width):
                    pf = probs[a, f]
                    if pf > 0.0:
                        v = nxt[a, x, f]
                        q += pf * (prev[v] if v < n else wj[v - n])
                if q > best + tie:
                    best = q
                    best_a = a
            values[r, x] = min(best, 1.0)
            policy[i, x] = best_a


# =============================================================================
# Text helpers and the command line
# =============================================================================
def _jump_pairs(board: Board, p: _Problem) -> tuple[tuple[int, int], ...]:
    return tuple((s, board.jumps[s]) for s in p.src.tolist())


def _label(i: int) -> str:
    return chr(ord("A") + i) if 0 <= i < 26 else str(i)


def _dice_text(d: Dice) -> str:
    f = d.faces
    if len(f) > 1 and np.all(np.diff(f) == 1) and np.all(d.probs == d.probs[0]):
        return f"{f[0]}-{f[-1]}"
    if d.is_fair():
        return f"{f[0]}-{f[-1]}" if len(f) > 1 else "1"
    return ",".join(f"{int(a)}:{float(q):.4g}" for a, q in zip(f, d.probs, strict=True))


def _n_dice(actions: Sequence[Dice]) -> str:
    return "1 die" if len(actions) == 1 else f"{len(actions)} dice"


def _few(items: list[int], k: int = 8) -> str:
    head = ", ".join(map(str, items[:k]))
    return head + (f", ... ({len(items)} squares)" if len(items) > k else "")


def _json_float(x: float) -> float | str:
    return x if math.isfinite(x) else "inf"


def _board_map(board: Board, policy: np.ndarray, jumps: Sequence[tuple[int, int]],
               take: np.ndarray) -> list[str]:
    """The policy as a grid: each cell ``square die mark`` (^ ladder, v snake, x declined)."""
    mark = {}
    for (s, d), t in zip(jumps, take, strict=True):
        mark[s] = ("^" if d > s else "v") if t else "x"
    w = len(str(board.size))
    labw = max([len(_label(int(a))) for a in policy if a >= 0] or [1])

    def cell(x: int) -> str:
        lab = "" if policy[x] < 0 else _label(int(policy[x]))
        return f"{x:>{w}} {lab:<{labw}}{mark.get(x, ' ')}"

    lines = []
    if board.size == 100:
        lines.append(f"  square 0 (off the board): die {_label(int(policy[0]))}; "
                     "square 1 is bottom left")
        for r in range(9, -1, -1):
            row = list(range(10 * r + 1, 10 * r + 11))
            if r % 2:
                row.reverse()
            lines.append("  " + "  ".join(cell(x) for x in row))
    else:
        for lo in range(0, board.size + 1, 10):
            lines.append("  " + "  ".join(cell(x) for x in range(lo, min(lo + 10,
                                                                         board.size + 1))))
    lines.append("  (cell: square, die; ^ ladder, v snake, x jump declined)")
    return lines


def add_policy_parser(sub: Any) -> None:
    """Register ``snl policy`` on the ``snl`` subparsers."""
    from .cli import add_board_arguments

    p = sub.add_parser("policy", help="optimal choice between dice (and optional jumps)")
    add_board_arguments(p, dice=False)
    p.add_argument("--dice", "--action", dest="actions", action="append", metavar="DICE",
                   help="a die to choose from (repeat): 'd6', '1-3', '2d6', '1:0.5,2:0.5'; "
                        "default: the board's own die")
    p.add_argument("--optional-jumps", action="store_true",
                   help="the player may decline any snake or ladder")
    p.add_argument("--objective", choices=OBJECTIVES, default="min",
                   help="min: best play (default); max: worst play")
    p.add_argument("--method", choices=METHODS, default="policy",
                   help="policy iteration (default) or value iteration")
    p.add_argument("--horizon", type=int, metavar="K",
                   help="maximise instead the chance to finish within K throws")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_run_policy)


def _run_policy(args: argparse.Namespace) -> int:
    from .chain import expected_throws
    from .cli import board_from_args

    board = board_from_args(args)
    actions = [parse_dice(s) for s in args.actions] if args.actions else [board.dice]
    if args.horizon is not None:
        if args.objective != "min":
            raise ValueError("--horizon maximises the chance to finish; drop --objective max")
        result: Any = finish_within(board, actions, args.horizon,
                                    optional_jumps=args.optional_jumps)
        print(json.dumps(result.to_dict()) if args.json else result)
        return 0
    result = optimal_policy(board, actions, objective=args.objective,
                            optional_jumps=args.optional_jumps, method=args.method)
    alone = [expected_throws(board.replace(dice=d)) for d in result.actions]
    if args.json:
        out = result.to_dict()
        out["single_die"] = {_label(i): _json_float(v) for i, v in enumerate(alone)}
        print(json.dumps(out))
    else:
        print(result)
        print("  one die only      " + "  ".join(
            f"{_label(i)}: {v:.6f}" for i, v in enumerate(alone)))
    return 0
