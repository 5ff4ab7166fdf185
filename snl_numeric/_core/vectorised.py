"""The successor table, breadth-first search and mass push in NumPy/SciPy (private layer).

For boards of ordinary size (:func:`.sizes.ordinary`) these answer what the Numba
kernels of :mod:`.table` answer, with nothing to compile; the two are each other's twins
in the tests.

- :func:`succ_table`: the board's rules applied to every square and face at once;
- :func:`reach`: fewest throws to the goal by breadth-first search over the reversed
  adjacency (:func:`scipy.sparse.csgraph.breadth_first_order`), then the squares that
  reach the goal with probability 1 (those that cannot reach a square that cannot);
- :func:`push`: the distribution of the number of throws. The mass ``v_k`` on the squares
  that can still finish after ``k`` throws obeys ``v_{k+1} = v_k Q``, and
  ``P(T = k + 1) = v_k r`` with ``r`` the chance of finishing in one throw. On a small
  board the mass moves ``B`` throws per product, ``v_{k+B} = v_k Q^B``, and the throws in
  between are read out together: ``v_k Q^i (r, Q 1, d)`` for ``i < B`` (``d``: the chance of
  moving where the goal cannot be reached), one product for a chunk of ``v_k``. Every
  product adds non-negative terms, so each entry keeps its relative accuracy.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from .blas import matmul, right_product
from .memory import check_memory
from .sizes import DENSE_PUSH_MAX

__all__ = ["landing_rest", "succ_table", "reach", "stable_order",
           "reachable_from", "push"]

#: Throws per product on the dense path (up to :data:`.sizes.DENSE_PUSH_MAX` squares).
BLOCK = 16


def landing_rest(jump_to: np.ndarray, chain: bool) -> np.ndarray:
    """Where a token that lands on each square rests: the square itself, or where the jump
    starting there leads (``jump_to[x]``, -1 for none), to the end of the chain of jumps
    when they chain (Board rules out cycles): by pointer doubling, O(n log(longest chain)).

    Examples
    --------
    >>> landing_rest(np.array([2, -1, 3, -1]), chain=True).tolist()
    [3, 1, 3, 3]
    """
    rest = np.where(jump_to >= 0, jump_to, np.arange(len(jump_to)))  # one jump followed
    while chain:
        further = rest.take(rest)
        if np.array_equal(further, rest):
            break
        rest = further
    return rest


def succ_table(size: int, jump_to: np.ndarray, overshoot: str, chain: bool,
               faces: np.ndarray, landing: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """``(succ, landed)``: where a token on each square rests after each face, and (when
    ``landing``) the square of the first jump that throw lands on (-1 for none).

    ``jump_to[x]`` is the destination of the jump starting on ``x``, or -1.

    Examples
    --------
    >>> succ, landed = succ_table(6, np.array([-1, -1, 5, -1, -1, -1, -1]), "exact",
    ...                           False, np.array([1, 2]), landing=True)
    >>> succ.tolist()
    [[1, 5], [5, 3], [3, 4], [4, 5], [5, 6], [6, 5], [6, 6]]
    >>> landed[:2].tolist()
    [[-1, 2], [2, -1]]
    """
    squares = np.arange(size + 1)
    rest = landing_rest(jump_to, chain)
    x = squares[:, None]
    target = x + np.minimum(faces, size + 1)  # no overflow: faces are at most size + 1 here
    over = target > size
    if overshoot == "win":
        target = np.minimum(target, size)
    elif overshoot == "bounce":  # Board guarantees faces <= size + 1
        target = np.where(over, 2 * size - target, target)
    else:
        target[over] = size  # the goal: no jump, replaced below
    succ = rest.take(target)
    if overshoot == "exact":  # the token stays, and takes no jump where it stays
        succ = np.where(over, x, succ)
    succ[size] = size
    if not landing:
        return succ, None
    landed = np.where((jump_to >= 0).take(target), target, -1)
    landed[size] = -1
    return succ, landed


def stable_order(keys: np.ndarray, bound: int) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` for integer keys in ``0 .. bound - 1``: by radix
    sort of 16-bit keys where they fit (NumPy sorts wider integers stably by merge sort,
    several times slower). The keys are not checked.

    Examples
    --------
    >>> stable_order(np.array([2, 0, 2, 1]), 3).tolist()
    [1, 3, 0, 2]
    """
    if bound <= np.iinfo(np.int16).max + 1:
        keys = keys.astype(np.int16)
    return keys.argsort(kind="stable")


def _reversed(succ: np.ndarray, extra: np.ndarray | None = None) -> sp.csr_matrix:
    """The reversed adjacency of the moves out of every square but the goal: row ``y``
    lists the squares that move to ``y``; ``extra`` adds a last row pointing at those
    squares (a virtual source)."""
    n, k = succ.shape
    cols = succ[:-1].ravel()
    order = stable_order(cols, n)
    indices = (order // k).astype(np.int32)
    counts = np.bincount(cols, minlength=n)
    if extra is not None:
        indices = np.concatenate([indices, extra.astype(np.int32)])
        counts = np.append(counts, len(extra))
    indptr = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=indptr[1:])
    m = len(counts)
    return sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(m, m))


def reach(succ: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(dist, sure)`` as :func:`.table.reach_kernel` computes them: fewest throws to the
    goal (the last square; -1 where unreachable) and whether the goal is reached with
    probability 1, from every square.

    Examples
    --------
    >>> succ = np.array([[1, 1], [0, 0], [3, 3], [3, 3]])   # 0 and 1 swap for ever
    >>> [a.tolist() for a in reach(succ)]
    [[-1, -1, 1, 0], [False, False, True, True]]
    """
    n = succ.shape[0]
    goal = n - 1
    graph = _reversed(succ)
    order, pred = breadth_first_order(graph, goal, directed=True, return_predecessors=True)
    # depth by pointer jumping: d[v] is the distance from v up to its ancestor up[v]
    up = np.full(n, goal, dtype=np.intp)
    up[order[1:]] = pred.take(order[1:])
    d = np.zeros(n, dtype=np.int64)
    d[order[1:]] = 1
    while True:
        far = up.take(up)
        if np.array_equal(far, up):
            break
        d += d.take(up)
        up = far
    dist = np.full(n, -1, dtype=np.int64)
    dist[order] = d.take(order)
    stuck = np.flatnonzero(dist < 0)
    sure = np.ones(n, dtype=np.bool_)
    if len(stuck):  # squares that can reach a stuck square are not sure
        doomed = breadth_first_order(_reversed(succ, stuck), n, directed=True,
                                     return_predecessors=False)
        sure[doomed[doomed < n]] = False
    return dist, sure


def reachable_from(succ: np.ndarray, start: int) -> np.ndarray:
    """The squares a token on ``start`` can ever rest on (``start`` included).

    Examples
    --------
    >>> reachable_from(np.array([[1, 2], [2, 2], [2, 2], [0, 0]]), 1).tolist()
    [False, True, True, False]
    """
    n, k = succ.shape  # (int32 indices: SciPy checks them twice as fast as int64)
    graph = sp.csr_matrix((np.ones(n * k), succ.ravel().astype(np.int32),
                           np.arange(0, n * k + 1, k, dtype=np.int32)), shape=(n, n))
    seen = np.zeros(n, dtype=np.bool_)
    seen[breadth_first_order(graph, start, directed=True, return_predecessors=False)] = True
    return seen


def _chain(succ: np.ndarray, probs: np.ndarray, live: np.ndarray, goal: int, dense: bool
           ) -> tuple[np.ndarray, np.ndarray | sp.csr_matrix, np.ndarray, np.ndarray]:
    """The live squares (not the goal), ``Q`` among them (a dense array, or CSR), and per
    live square the chance of finishing in one throw (``r``) and of moving off the live
    squares (``d``)."""
    n, k = succ.shape
    states = live.nonzero()[0]
    states = states[states != goal]
    m = len(states)
    pos = np.full(n, m, dtype=np.intp)  # m: off the live squares
    pos[states] = np.arange(m)
    dest = succ.take(states, axis=0)
    to = pos.take(dest)
    p = np.broadcast_to(probs, dest.shape) if probs.ndim == 1 else probs.take(states, axis=0)
    r = np.where(dest == goal, p, 0.0).sum(axis=1)
    d = np.where((to == m) & (dest != goal), p, 0.0).sum(axis=1)
    if dense:
        rows = np.arange(0, m * (m + 1), m + 1)[:, None]
        q = np.bincount((rows + to).ravel(), weights=p.ravel(), minlength=m * (m + 1))
        return states, np.ascontiguousarray(q.reshape(m, m + 1)[:, :m]), r, d
    keep = to < m
    rows = np.broadcast_to(np.arange(m)[:, None], to.shape)
    return states, sp.csr_matrix((p[keep], (rows[keep], to[keep])), shape=(m, m)), r, d


def push(succ: np.ndarray, probs: np.ndarray, live: np.ndarray, start: int, tail: float,
         max_throws: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Push the mass from ``start`` (a live square that is not the goal) one throw at a
    time until the live mass is below ``tail`` or for ``max_throws`` throws. ``live``:
    the squares that can still finish (those ``start`` can reach will do).

    Returns ``(pmf, live_mass, lost)``, each of length ``K + 1``: ``pmf[k] = P(T = k)``,
    ``live_mass[k]`` the mass on the live squares after ``k`` throws and ``lost[k]`` the
    mass that moved where the goal cannot be reached by then; so
    ``P(T > k) = live_mass[k] + lost[k]`` exactly, from sums of non-negative terms. ``K`` is
    the first ``k`` with ``live_mass[k] < tail`` (or ``max_throws``).

    Examples
    --------
    >>> succ = np.array([[1, 2], [2, 2], [2, 2]])
    >>> pmf, live, lost = push(succ, np.array([0.5, 0.5]), np.array([True, True, True]),
    ...                        0, 1e-12, 100)
    >>> pmf.tolist(), live.tolist()
    ([0.0, 0.5, 0.5], [1.0, 0.5, 0.0])
    """
    fed = np.zeros(len(live), dtype=np.bool_)  # squares that some live square moves to:
    fed[succ[live]] = True  # the mass never rests on the others (jump sources), after the
    fed[start] = True  # start: they leave the chain (smaller products, the same sums)
    live = live & fed
    m = int(np.count_nonzero(live)) - bool(live[-1])
    states, q, r, d = _chain(succ, probs, live, succ.shape[0] - 1, m <= DENSE_PUSH_MAX)
    readout = np.stack([r, np.asarray(q.sum(axis=1)).ravel(), d], axis=1)
    if m <= DENSE_PUSH_MAX:  # B throws per product: v Q^i (r, Q 1, d), i < B, then v Q^B
        power, width = q, 1
        while width < BLOCK:
            readout = np.concatenate([readout, matmul(power, readout)], axis=1)
            power = matmul(power, power)
            width *= 2
        advance = right_product(power)  # v Q^B
    else:  # one sparse product per throw
        width, advance = 1, q.T.tocsr().__matmul__  # (v Q as Q^T v)
    v = np.zeros(m)
    v[np.searchsorted(states, start)] = 1.0
    parts = [np.array([[0.0, 1.0, 0.0]])]
    done, steps = 0, max(1, 64 // width)
    while done < max_throws:
        mass = np.empty((steps, m))  # mass[i]: after done + i * width throws
        for i in range(steps):
            mass[i] = v
            v = advance(v)
        # each throw: (finished, live, lost)
        block = matmul(mass, readout).reshape(-1, 3)
        block = block[: max_throws - done]
        below = np.flatnonzero(block[:, 1] < tail)
        if len(below):
            parts.append(block[: below[0] + 1])
            break
        parts.append(block)
        done += len(block)
        # the live mass falls about geometrically: aim the next chunk at the tail
        rate = (block[-1, 1] / parts[-1][0, 1]) ** (1.0 / len(block)) if len(block) > 1 else 0.5
        wanted = np.log(tail / block[-1, 1]) / np.log(rate) if 0.0 < rate < 1.0 else 4 * done
        steps = int(min(max(wanted * 1.05 + width, 16), 4 * done + 64, 1 << 16)) // width + 1
        check_memory(24 * (done + steps * width) + 8 * steps * m,
                     f"a distribution of {done + steps * width:,} throws")
    out = np.concatenate(parts)
    return out[:, 0], out[:, 1], np.cumsum(out[:, 2])
