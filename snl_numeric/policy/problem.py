"""The decision problem as arrays, and where its answer is finite (graph analysis)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.memory import check_memory
from .._core.numba_config import SMALL_LOOP, njit, python_twin
from ..board import Board, check_board
from ..compile import table_bytes
from ..dice import Dice, as_dice, parse_dice


@dataclass(frozen=True, eq=False)
class Problem:
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


def build_problem(board: Board, dice: tuple[Dice, ...], optional: bool) -> Problem:
    n = board.size + 1
    goal = board.size
    width = max(len(d.faces) for d in dice)
    # nxt and the reverse edges (choices) per die and face, and a compiled board or two
    entries = len(dice) * n * width
    check_memory(entries * 16 + 2 * table_bytes(board.size, width),
                 f"a decision problem over {n:,} squares x {len(dice)} dice x {width} faces")
    nxt = np.full((len(dice), n, width), goal, dtype=np.intp)
    probs = np.zeros((len(dice), width))
    for a, d in enumerate(dice):  # at least one die: the jump tables below come from cb
        try:  # the board's rules judge each die (e.g. a face too large for a bounce)
            cb = board.replace(dice=d).compiled
        except ValueError as exc:
            raise ValueError(f"actions[{a}]: {exc}") from None
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
    if len(src) <= SMALL_LOOP:  # a few jumps: as plain Python, nothing to compile
        python_twin(_jump_depth_kernel)(tgt.tolist(), n, depth)
    else:
        _jump_depth_kernel(tgt, n, depth)
    order = np.argsort(depth, kind="stable").astype(np.intp)
    return Problem(n, nxt, probs, src, tgt, order, bool(optional))


@njit()
def _jump_depth_kernel(tgt, n, depth):  # pragma: no cover - jitted
    """``depth[j]``: number of jumps chained after ``j`` (no cycles: checked by Board)."""
    m = len(tgt)
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


def reverse(p: Problem) -> tuple[np.ndarray, np.ndarray]:
    n_nodes = p.n + len(p.src)
    n_edges = (p.n - 1) * int(np.count_nonzero(p.probs > 0)) + len(p.src) * (1 + p.optional)
    indptr = np.zeros(n_nodes + 1, dtype=np.int64)
    choice = np.empty(n_edges, dtype=np.int64)
    _reverse_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.goal, indptr, choice)
    return indptr, choice


@njit(inline="always")
def _owner(c, n, n_act):  # pragma: no cover - jitted
    if c < n * n_act:
        return c // n_act
    return n + (c - n * n_act) // 2


@njit()
def attractor_kernel(nxt, probs, src, tgt, optional, goal, indptr, choice,
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
    in_u = np.empty(n_nodes, dtype=np.bool_)  # loops, not slice assignments: less to compile
    for v in range(n_nodes):
        in_u[v] = True
    allowed = np.empty(n_choice, dtype=np.bool_)
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
        for v in range(n_nodes):
            dist[v] = -1
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
def trap_kernel(nxt, probs, src, tgt, optional, goal, indptr, choice,
                 trap, bad, doomed, via, level):  # pragma: no cover - jitted
    """Squares from which a player can keep the token from the goal forever.

    ``trap`` (in: all False) becomes the largest set of non-goal nodes each
    with a choice that never leaves it; ``bad[c]`` counts the edges of
    choice ``c`` leaving it. ``doomed`` marks the nodes that can reach it
    with positive probability, ``via[v]`` the choice that leads there and
    ``level[v]`` the number of such steps (0 in the trap, -1 off ``doomed``):
    choice ``via[v]`` has an edge to a node of level ``level[v] - 1``, so a walk
    that always takes such an edge reaches the trap in ``level[v]`` steps.
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
        level[v] = -1
        if trap[v]:
            level[v] = 0
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
                level[u] = level[v] + 1
                queue[tail] = u
                tail += 1


def jump_pairs(board: Board, p: Problem) -> tuple[tuple[int, int], ...]:
    return tuple((s, board.jumps[s]) for s in p.src.tolist())


def check_common(board: Board, actions: Any, optional_jumps: Any) -> tuple[Board, tuple]:
    check_board(board)
    dice = _as_actions(actions)
    if not isinstance(optional_jumps, (bool, np.bool_)):
        raise TypeError(f"optional_jumps must be True or False, got {optional_jumps!r}")
    return board, dice
