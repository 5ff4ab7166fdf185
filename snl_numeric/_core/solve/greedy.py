"""A preconditioner of the capacitance system for slow-mixing boards (private).

GMRES (:mod:`.krylov`) solves ``S y = c`` with ``S = I - W[D]``: ``W[d, e]`` is the
chance that a token on target ``d`` first moves back to a lower block by landing on
target ``e``. When one face nearly always comes up (a die that throws 1 with
probability .99), the path from a target to its next snake is nearly certain: each row
of ``W[D]`` holds one entry near 1 and ``W[D]`` is near the matrix of a map ``phi``
on the targets. Its cycles (a snake back to a square whose path leads to the same snake)
spread the eigenvalues of ``S`` around a circle near 0, and GMRES needs hundreds of
steps (docs: Performance, Large boards).

``M = I - diag(w) Phi`` keeps that map: ``phi[d]`` is where the most likely path from
``d`` (one move at a time, the likeliest square each time) first lands on a lower
block, and ``w[d]`` the chance of that path, kept where it is above
:data:`THRESHOLD` (so at most one entry a row, and ``w[d] <= W[d, phi[d]]``). ``M`` is
the system of a chain on a map (trees leading into cycles), solved exactly in ``O(k)``:
each cycle's first target by its geometric sum, then every other target after the one
it leads to. GMRES runs on ``S M^-1`` (preconditioned on the right: its residual is
``S``'s own, so the stopping rule and the certificate do not change), on boards where
at least :data:`MIN_SHARE` of the targets have an entry. On a fair die no path has a
chance above 1/2 after one move, so random boards keep the plain operator.
"""

from __future__ import annotations

import numpy as np

from ..numba_config import njit

#: A target's path is kept when its chance is above this (at most one a row).
THRESHOLD = 0.5
#: Precondition when at least this fraction of the targets has a path.
MIN_SHARE = 1 / 8
#: Moves followed from one target at most (each step of chance ``q < 1`` shortens it:
#: ``.99`` a step leaves 1/2 after 69 moves).
MAX_WALK = 512

#: A cycle whose chance is within this of 1 is cut at its first target (``phi = -1``
#: there): kept, ``M`` would be near singular and its solve would amplify rounding.
CYCLE_MARGIN = 1 / 16

NONE = (np.zeros(0, dtype=np.int32), np.zeros(0), np.zeros(0, dtype=np.int32),
        np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.int32))
"""The tables of no preconditioner."""


@njit()
def greedy_paths_kernel(succ, probs, pstride, active, block_start, targets
                        ):  # pragma: no cover - jitted
    """``(phi, w)``: for each target (column) ``c``, the target its most likely path
    first lands on in a lower block and that path's chance (``phi[c] = -1`` where none
    is above :data:`THRESHOLD`, or the path leaves the system first)."""
    n, nf = succ.shape
    k = targets.shape[0]
    tcol = np.full(n, -1, dtype=np.int32)
    for c in range(k):
        tcol[targets[c]] = c
    phi = np.full(k, -1, dtype=np.int32)
    w = np.zeros(k)
    for c in range(k):
        x = targets[c]
        chance = 1.0
        for _ in range(MAX_WALK):
            if not active[x]:
                break
            row = x * pstride
            best, q, moving = -1, 0.0, 0.0
            for f in range(nf):  # the likeliest square moved to (faces summed)
                y = succ[x, f]
                if y == x or probs[row, f] <= 0.0:
                    continue
                moving += probs[row, f]
                p = 0.0
                for g in range(nf):
                    if succ[x, g] == y:
                        p += probs[row, g]
                if p > q:
                    best, q = y, p
            if best < 0:
                break
            chance *= q / moving
            if chance <= THRESHOLD or not active[best]:
                break
            # back before x's block: a move of R's
            if best < x and best < block_start[np.searchsorted(block_start, x, "right") - 1]:
                if tcol[best] >= 0:
                    phi[c], w[c] = tcol[best], chance
                break
            x = best
    return phi, w


@njit()
def greedy_plan_kernel(phi, w):  # pragma: no cover - jitted
    """The order of :func:`greedy_solve`: ``(seq, cycles, cstart)``. ``seq`` lists the
    targets with a path, each after the one it leads to, but for each cycle's first
    target; ``cycles[cstart[i]: cstart[i + 1]]`` is the ``i``-th cycle from its first
    target along the map."""
    k = phi.shape[0]
    state = np.zeros(k, dtype=np.int8)  # 0 new, 1 on the stack, 2 placed
    seq = np.empty(k, dtype=np.int32)
    cycles = np.empty(k, dtype=np.int32)
    cstart = np.zeros(k + 1, dtype=np.int32)
    stack = np.empty(k, dtype=np.int32)
    ns = nc = ncyc = 0
    for c0 in range(k):
        top = 0
        c = c0
        while c >= 0 and state[c] == 0:
            state[c] = 1
            stack[top] = c
            top += 1
            c = phi[c]
        first = top - 1
        while c >= 0 and state[c] == 1 and stack[first] != c:
            first -= 1
        g = 1.0
        for i in range(first if c >= 0 and state[c] == 1 else top, top):
            g *= w[stack[i]]
        if c >= 0 and state[c] == 1 and g >= 1.0 - CYCLE_MARGIN:
            phi[c] = -1  # (a cycle of certain paths: none in a system of sure squares)
        elif c >= 0 and state[c] == 1:  # a cycle from c to the top of the stack
            for i in range(first, top):
                cycles[nc] = stack[i]
                nc += 1
            ncyc += 1
            cstart[ncyc] = nc
            for i in range(top - 1, first, -1):  # each after the next (the first: its sum)
                seq[ns] = stack[i]
                ns += 1
                state[stack[i]] = 2
            state[c] = 2
            top = first
        for i in range(top - 1, -1, -1):  # the tail leading into what is placed
            if phi[stack[i]] >= 0:
                seq[ns] = stack[i]
                ns += 1
            state[stack[i]] = 2
    return seq[:ns].copy(), cycles[:nc].copy(), cstart[: ncyc + 1].copy()


@njit(error_model="numpy")
def greedy_solve(pre, v, z):  # pragma: no cover - jitted
    """``z = M^-1 v`` for the tables ``pre = (phi, w, seq, cycles, cstart)``."""
    phi, w, seq, cycles, cstart = pre
    z[:] = v
    for i in range(cstart.shape[0] - 1):
        s, g = 0.0, 1.0
        for j in range(cstart[i], cstart[i + 1]):
            c = cycles[j]
            s += g * v[c]
            g *= w[c]
        z[cycles[cstart[i]]] = s / (1.0 - g)
    for j in range(seq.shape[0]):
        c = seq[j]
        z[c] = v[c] + w[c] * z[phi[c]]


def greedy_tables(succ, probs, pstride, active, block_start, targets) -> tuple:
    """The preconditioner's tables ``(phi, w, seq, cycles, cstart)``, or :data:`NONE`
    where fewer than :data:`MIN_SHARE` of the targets have a path, or where one die has
    no face above :data:`THRESHOLD` of its probability (no walk is taken: a path's first
    move could pass it only where faces meet on one square or stay put, near the goal)."""
    if pstride == 0 and probs.max() <= THRESHOLD * probs.sum():
        return NONE
    phi, w = greedy_paths_kernel(succ, probs, pstride, active, block_start, targets)
    if not len(phi) or np.count_nonzero(phi >= 0) < MIN_SHARE * len(phi):
        return NONE
    return (phi, w, *greedy_plan_kernel(phi, w))
