"""Successor-table kernels shared by every question (private layer).

- :func:`succ_table_kernel` compiles a board's rules into its successor table
  ``succ[x, f]``: where a token on ``x`` rests after face ``f``;
- :func:`reach_kernel`: fewest throws to the goal and the squares that finish
  with probability 1, by breadth-first propagation over the reversed table;
- :func:`push_step_kernel` / :func:`push_kernel`: the probability mass of the
  token's position pushed one throw at a time (the distribution of game length).

Kernels take only arrays and scalars, so batch analysis and board design can
call them in their loops over many boards.
"""

from __future__ import annotations

import numpy as np

from .numba_config import njit

#: ``overshoot`` codes used by the kernels.
OVERSHOOT_CODES = {"win": 0, "exact": 1, "bounce": 2}


@njit()
def succ_table_kernel(size, jump_to, overshoot, chain, faces, succ, landed):  # pragma: no cover
    """Successor table of a board: ``jump_to[x]`` is -1 or the destination.

    ``overshoot`` is a code of ``OVERSHOOT_CODES``. Unless ``landed`` is empty,
    ``landed[x, f]`` receives the jump square the throw lands on (the first
    jump it fires) or -1. Faces larger than the board never overflow: a face
    is compared with the distance to the goal before it is added.
    """
    record = landed.shape[0] > 0
    for x in range(size + 1):
        for f in range(faces.shape[0]):
            if record:
                landed[x, f] = -1
            if x == size:
                succ[x, f] = size
                continue
            d = faces[f]
            if d > size - x:
                if overshoot == 0:
                    t = size
                elif overshoot == 1:
                    succ[x, f] = x
                    continue
                else:
                    t = size - (d - (size - x))  # Board guarantees d <= size + 1
            else:
                t = x + d
            if jump_to[t] >= 0:
                if record:
                    landed[x, f] = t
                t = jump_to[t]
                if chain:
                    while jump_to[t] >= 0:
                        t = jump_to[t]
            succ[x, f] = t


@njit()
def reach_kernel(succ, dist, sure):  # pragma: no cover - jitted
    """Fewest throws to the goal (``dist``, -1 if unreachable) and the sure mask.

    ``sure[x]`` is True when the goal is reached from ``x`` with probability 1:
    ``x`` cannot reach a square from which the goal is unreachable.
    """
    n, n_faces = succ.shape
    goal = n - 1
    # the reversed table, CSR-style: the predecessors of y are pred[ptr[y] : ptr[y + 1]]
    ptr = np.zeros(n + 1, dtype=np.int64)
    for x in range(goal):
        for f in range(n_faces):
            ptr[succ[x, f] + 1] += 1
    for y in range(n):
        ptr[y + 1] += ptr[y]
    fill = ptr[:n].copy()
    pred = np.empty(ptr[n], dtype=succ.dtype)
    for x in range(goal):
        for f in range(n_faces):
            y = succ[x, f]
            pred[fill[y]] = x
            fill[y] += 1
    queue = np.empty(n, dtype=np.int64)
    dist[:] = -1
    sure[:] = True
    dist[goal] = 0
    queue[0] = goal
    head, tail = 0, 1
    while head < tail:
        y = queue[head]
        head += 1
        for i in range(ptr[y], ptr[y + 1]):
            x = pred[i]
            if dist[x] == -1:
                dist[x] = dist[y] + 1
                queue[tail] = x
                tail += 1
    # squares that can reach a stuck square are not sure
    head, tail = 0, 0
    for x in range(goal):
        if dist[x] == -1:
            sure[x] = False
            queue[tail] = x
            tail += 1
    while head < tail:
        y = queue[head]
        head += 1
        for i in range(ptr[y], ptr[y + 1]):
            x = pred[i]
            if sure[x]:
                sure[x] = False
                queue[tail] = x
                tail += 1


@njit()
def push_step_kernel(succ, probs, mass, nxt, live, goal, band):  # pragma: no cover - jitted
    """Move ``mass`` through one throw; returns ``(absorbed, live mass left)``.

    Only the band ``band[0] .. band[1]`` of squares that may hold mass is
    visited and the band is updated in place, so early throws on a long board
    and boards whose mass stays local cost little. Mass on squares that are
    not ``live`` (cannot reach the goal) is dropped; ``nxt`` is zeroed scratch.
    """
    nlo, nhi = goal, 0
    for x in range(band[0], band[1] + 1):
        m = mass[x]
        if m == 0.0:
            continue
        mass[x] = 0.0
        for f in range(succ.shape[1]):
            z = succ[x, f]
            nxt[z] += m * probs[f]
            if z < nlo:
                nlo = z
            if z > nhi:
                nhi = z
    absorbed = nxt[goal]
    nxt[goal] = 0.0
    remaining = 0.0
    for x in range(nlo, nhi + 1):
        if live[x]:
            remaining += nxt[x]
            mass[x] = nxt[x]
        nxt[x] = 0.0
    band[0], band[1] = nlo, nhi
    return absorbed, remaining


@njit()
def push_kernel(succ, probs, mass, live, goal, tail, pmf, offset, band):  # pragma: no cover
    """Advance ``mass`` one throw at a time, writing ``pmf[offset:]``.

    Returns the next free index of ``pmf``; stops early (returning a negative
    index ``-(k + 1)``) once the live mass is below ``tail``.
    """
    nxt = np.zeros(mass.shape[0])
    for k in range(offset, pmf.shape[0]):
        pmf[k], remaining = push_step_kernel(succ, probs, mass, nxt, live, goal, band)
        if remaining < tail:
            return -(k + 1)
    return pmf.shape[0]


#: Slack of the quantile rule: a cumulative sum of a pmf can fall short of ``q`` by rounding.
QUANTILE_SLACK = 1e-12


def quantile(cdf: np.ndarray, q: float) -> int | None:
    """The smallest ``k`` with ``cdf[k] >= q`` (less :data:`QUANTILE_SLACK`), None if none.

    The one quantile rule of the package (analyses, plots and batch columns).

    Examples
    --------
    >>> quantile(np.array([0.0, 0.5, 1.0]), 0.5), quantile(np.array([0.0, 0.4]), 0.5)
    (1, None)
    """
    k = int(np.searchsorted(cdf, q - QUANTILE_SLACK))
    return k if k < len(cdf) else None
