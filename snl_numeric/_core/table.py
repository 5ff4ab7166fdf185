"""Successor-table kernels shared by every question (private layer).

- :func:`succ_table_kernel` compiles a board's rules into its successor table
  ``succ[x, f]``: where a token on ``x`` rests after face ``f``;
- :func:`reach_kernel`: fewest throws to the goal and the squares that finish
  with probability 1, by breadth-first search over the reversed moves (the moves
  that are their face's usual step reversed in place, a table of the rest), or from
  one start by a search forward when every square has a move up (its NumPy twin is
  :func:`.vectorised.reach`);
- :func:`push_step_kernel`: the probability mass of the token's position pushed one
  throw (the distribution of game length; its NumPy twin is
  :func:`.vectorised.push`).

Kernels take only arrays and scalars, so batch analysis and board design can
call them in their loops over many boards.
"""

from __future__ import annotations

from collections.abc import Sequence

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
    # with chain: where a token landing on each square rests, the end of its chain of jumps
    # (-1 where none starts); each square followed once (the Board rules out cycles)
    ends = np.full(jump_to.shape[0] if chain else 0, -1, dtype=jump_to.dtype)
    for x in range(ends.shape[0]):
        if jump_to[x] < 0 or ends[x] >= 0:
            continue
        y = jump_to[x]
        while jump_to[y] >= 0 and ends[y] < 0:  # to the end, or to a chain already known
            y = jump_to[y]
        end = ends[y] if jump_to[y] >= 0 else y
        y = x
        while jump_to[y] >= 0 and ends[y] < 0:
            ends[y] = end
            y = jump_to[y]
    nf = faces.shape[0]
    low = 0  # rows 0 .. low - 1: every face stays on the board (no overshoot to test)
    if not record and not chain:  # (the common case, a square's jump read branch-free)
        top = 0
        for f in range(nf):
            top = max(top, faces[f])
        low = max(size - top + 1, 0)
        for x in range(low):
            for f in range(nf):
                t = x + faces[f]
                j = jump_to[t]
                succ[x, f] = j if j >= 0 else t
    for x in range(low, size + 1):
        for f in range(nf):
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
                t = ends[t] if chain else jump_to[t]
            succ[x, f] = t


@njit()
def reach_kernel(succ, start, dist, sure):  # pragma: no cover - jitted
    """Fewest throws to the goal (``dist``, -1 if unreachable) and the sure mask; returns
    ``dist[start]`` (with ``start < 0``: 0, every entry of ``dist`` wanted).

    ``sure[x]`` is True when the goal is reached from ``x`` with probability 1:
    ``x`` cannot reach a square from which the goal is unreachable.

    With ``start >= 0``, when every square but the goal has a move up (every face of
    ``succ`` counted), every square reaches the goal by moving up: every square is sure,
    and a search forward from ``start``, stopped at the goal, gives the throws; ``dist``
    is then scratch.

    The full search is breadth-first over the reversed moves of every square but the
    goal (every face of ``succ``), and a second one, for the sure mask, only when some
    square cannot reach the goal. It takes about 2 bytes a square besides the jumps:
    most moves are their face's usual step, ``succ[x, f] == x + step[f]`` with
    ``step[f]`` the median step of a few rows; those are reversed in place (one bit per
    move), and only the others (jumps, overshoot) are copied into a reversed table. The
    step read off is only a guess: any value gives the same answer. Needs fewer than
    ``2**31`` table entries (``compile_board`` allows far fewer).
    """
    n, n_faces = succ.shape
    if n * n_faces >= 2**31:
        raise ValueError("reach_kernel: a successor table of 2**31 entries or more")
    goal = n - 1
    if start >= 0 and moves_up_kernel(succ):
        sure[:] = True
        if start == goal:
            return 0
        dist[:] = -1
        dist[start] = 0
        queue = np.empty(n, dtype=np.int32)
        queue[0] = start
        head, tail = 0, 1
        while head < tail:
            x = queue[head]
            head += 1
            for f in range(n_faces):
                y = succ[x, f]
                if dist[y] < 0:
                    if y == goal:
                        return dist[x] + 1
                    dist[y] = dist[x] + 1
                    queue[tail] = y
                    tail += 1
        return -1  # (not reached: the goal is reachable from every square)
    step = usual_steps(succ, min(goal, 7), goal)
    # bit i of square x is bit i % 8 of marks[x, i // 8]: bit f < n_faces, the move of
    # face f from x is its usual step; bit n_faces, x has predecessors in the reversed
    # table; bit n_faces + 1, the search has reached x (see _search_back)
    marks = np.zeros((n, (n_faces + 9) >> 3), dtype=np.uint8)
    room = min(n * n_faces, max(n, 1 << 12))  # (every move of a small board: one pass)
    src = np.empty(room, dtype=np.int32)
    dst = np.empty(room, dtype=np.int32)
    m = _split_moves(succ, step, marks, src, dst)
    if m > room:  # more irregular moves than room: record them all in a second pass
        src = np.empty(m, dtype=np.int32)
        dst = np.empty(m, dtype=np.int32)
        _split_moves(succ, step, marks, src, dst)
    # the reversed table of the irregular moves: the predecessors of y are
    # pred[ptr[y] : ptr[y + 1]] (a counting sort: ptr[y + 1] is y's cursor while filling)
    ptr = np.zeros(n + 2, dtype=np.int32)
    tabled = np.uint8(1 << (n_faces & 7))
    for i in range(m):
        ptr[dst[i] + 2] += 1
        marks[dst[i], n_faces >> 3] |= tabled
    for y in range(2, n + 2):
        ptr[y] += ptr[y - 1]
    pred = np.empty(m, dtype=np.int32)
    for i in range(m):
        y = dst[i] + 1
        pred[ptr[y]] = src[i]
        ptr[y] += 1
    s, seen = (n_faces + 1) >> 3, np.uint8(1 << ((n_faces + 1) & 7))
    queue = np.empty(n, dtype=np.int32)
    dist[:] = -1
    dist[goal] = 0
    marks[goal, s] |= seen
    queue[0] = goal
    tail = _search_back(step, marks, ptr, pred, queue, np.int64(1), dist)  # not a literal
    sure[:] = True
    if tail == n:  # every square reaches the goal
        return dist[start] if start >= 0 else 0
    # squares that can reach a stuck square are not sure
    tail = np.int64(0)  # not a literal: one compile of _search_back
    for x in range(goal):
        marks[x, s] ^= seen
        if marks[x, s] & seen:
            queue[tail] = x
            tail += 1
    _search_back(step, marks, ptr, pred, queue, tail, dist[:0])
    for x in range(goal):
        sure[x] = not marks[x, s] & seen
    return dist[start] if start >= 0 else 0


@njit()
def moves_up_kernel(succ):  # pragma: no cover - jitted
    """Whether every square but the goal (the last row) has a face that rests on a higher
    square (a board's dice have no face of probability zero: every face of its table
    counts). Then every square reaches the goal, with probability 1."""
    n, n_faces = succ.shape
    for x in range(n - 1):
        up = False
        for f in range(n_faces):
            if succ[x, f] > x:
                up = True
                break
        if not up:
            return False
    return True


@njit()
def usual_steps(succ, rows, span):  # pragma: no cover - jitted
    """Each face's usual step: the median of ``succ[x, f] - x`` over ``rows`` rows spread
    over ``0 .. span - 1`` (jumps are outliers on either side). A guess: the kernels that
    use it check it move by move."""
    step = np.zeros(succ.shape[1], dtype=np.int64)
    diffs = np.empty(max(rows, 1), dtype=np.int64)
    for f in range(succ.shape[1]):
        for i in range(rows):
            x = i * (span - 1) // max(rows - 1, 1)
            d = succ[x, f] - x
            j = i
            while j > 0 and diffs[j - 1] > d:
                diffs[j] = diffs[j - 1]
                j -= 1
            diffs[j] = d
        step[f] = diffs[rows // 2] if rows else 0
    return step


@njit()
def _split_moves(succ, step, marks, src, dst):  # pragma: no cover - jitted
    """Set the bits of the regular moves in ``marks`` (see :func:`reach_kernel`) and
    record the other moves ``src[i] -> dst[i]`` while there is room; returns how many
    there are."""
    n, n_faces = succ.shape
    room = src.shape[0]
    m = 0
    for x in range(n - 1):
        bits = 0
        for f in range(n_faces):
            y = succ[x, f]
            if y == x + step[f]:
                bits |= 1 << (f & 7)
            else:
                if m < room:
                    src[m] = x
                    dst[m] = y
                m += 1
            if f & 7 == 7:
                marks[x, f >> 3] = bits
                bits = 0
        marks[x, n_faces >> 3] = bits
    return m


@njit()
def _search_back(step, marks, ptr, pred, queue, tail, dist):  # pragma: no cover - jitted
    """Breadth-first search over the reversed moves from ``queue[:tail]``, setting the
    reached bit of ``marks`` and, unless ``dist`` is empty, writing the depth plus one of
    each square reached; returns the number of squares queued. A predecessor of ``y`` is
    ``y - step[f]`` when that square's move of face ``f`` is regular, and any in the
    reversed table."""
    n_faces = step.shape[0]
    goal = marks.shape[0] - 1
    tabled = np.uint8(1 << (n_faces & 7))
    s, seen = (n_faces + 1) >> 3, np.uint8(1 << ((n_faces + 1) & 7))
    level, end, head = 0, tail, 0
    while head < tail:
        if head == end:
            level += 1
            end = tail
        y = queue[head]
        head += 1
        for f in range(n_faces):
            x = y - step[f]
            if (0 <= x < goal and marks[x, f >> 3] >> (f & 7) & 1
                    and not marks[x, s] & seen):
                marks[x, s] |= seen
                queue[tail] = x
                tail += 1
                if dist.shape[0]:
                    dist[x] = level + 1
        if marks[y, n_faces >> 3] & tabled:
            for i in range(ptr[y], ptr[y + 1]):
                x = pred[i]
                if not marks[x, s] & seen:
                    marks[x, s] |= seen
                    queue[tail] = x
                    tail += 1
                    if dist.shape[0]:
                        dist[x] = level + 1
    return tail


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


#: Relative slack of the quantile rule: a cumulative sum of a pmf can fall short of ``q``
#: by rounding (relative, so that a level of 1e-12 or below is not met by a cdf of 0).
QUANTILE_SLACK = 1e-12


def quantile_levels(qs: Sequence[float]) -> np.ndarray:
    """The levels the cdf is searched for: each ``q`` less :data:`QUANTILE_SLACK` of itself.

    Examples
    --------
    >>> bool(quantile_levels([1e-20])[0] > 0.0)
    True
    """
    levels = np.asarray(qs, dtype=np.float64)
    return levels - QUANTILE_SLACK * levels


def quantiles(cdf: np.ndarray, qs: Sequence[float]) -> list[int | None]:
    """For each level ``q`` of ``qs``, the smallest ``k`` with ``cdf[k] >= q`` (less
    :data:`QUANTILE_SLACK` of ``q``), None if none: the one quantile rule of the package
    (analyses, plots and batch columns), every level in one search.

    Examples
    --------
    >>> quantiles(np.array([0.0, 0.5, 1.0]), [0.5, 0.9, 1.5])
    [1, 2, None]
    """
    found = np.searchsorted(cdf, quantile_levels(qs)).tolist()
    return [k if k < len(cdf) else None for k in found]
