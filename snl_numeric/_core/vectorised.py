"""The successor table, breadth-first search and mass push in NumPy/SciPy (private layer).

For boards of ordinary size (:func:`.sizes.ordinary`) these answer what the Numba
kernels of :mod:`.table` answer, with nothing to compile; the two are each other's twins
in the tests.

- :func:`succ_table`: the board's rules applied to every square and face at once;
- :func:`reach`: fewest throws to the goal by breadth-first search over the reversed
  adjacency (:func:`scipy.sparse.csgraph.breadth_first_order`), then the squares that
  reach the goal with probability 1 (those that cannot reach a square that cannot);
  :func:`play_from`: the fewest-throws play from one square whose faces come first, by one
  search forward from it;
- :func:`push`: the distribution of the number of throws. The mass ``v_k`` on the squares
  that can still finish after ``k`` throws obeys ``v_{k+1} = v_k Q``, and
  ``P(T = k + 1) = v_k r`` with ``r`` the chance of finishing in one throw. On a small
  board (:func:`.sizes.dense_push`) the mass moves ``B`` throws per product
  (:data:`BLOCK`), ``v_{k+B} = v_k Q^B``, and the throws in
  between are read out together: ``v_k Q^i (r, Q 1, d)`` for ``i < B`` (``d``: the chance of
  moving where the goal cannot be reached), one product for a chunk of ``v_k``. Every
  product adds non-negative terms, so each entry keeps its relative accuracy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from .blas import matmul, right_product
from .memory import check_memory
from .progress import Progress
from .sizes import dense_push

__all__ = ["BLOCK", "FACE_COLUMNS", "over_faces", "landing_rest", "succ_table", "fired_table",
           "reach", "stable_order", "search_from", "reachable_from", "squares_in", "play_from",
           "push"]

#: Throws per product of a dense push (the distribution's here, the handicaps' backward
#: one): ``B`` in ``v Q^B``.
BLOCK = 16
#: Squares from which :func:`over_faces` reduces a table one face (column) at a time.
FACE_COLUMNS = 256


def over_faces(ufunc: np.ufunc, table: np.ndarray) -> np.ndarray:
    """``ufunc.reduce(table, axis=1)``, bit for bit, over the faces of a table of shape
    ``(squares, faces, ...)``: on many squares and fewer than 8 faces, one face (a column)
    at a time, in order, as NumPy takes them; NumPy reduces a short axis square by square,
    several times slower (a sum over 1,000 squares x 6 faces: 15 us against 4). From 8
    faces NumPy adds pairwise: the reduction is its own.

    Examples
    --------
    >>> t = np.array([[0.1, 0.2, 0.3]] * 300)
    >>> np.array_equal(over_faces(np.add, t), t.sum(axis=1))
    True
    """
    squares, faces = table.shape[:2]
    if squares < FACE_COLUMNS or not 2 <= faces < 8:
        return ufunc.reduce(table, axis=1)
    out = ufunc(table[:, 0], table[:, 1])
    for f in range(2, faces):
        ufunc(out, table[:, f], out=out)
    return out


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
    rest = landing_rest(jump_to, chain)
    x, target, over = _targets(size, overshoot, faces)
    succ = rest.take(target)
    if overshoot == "exact":  # the token stays, and takes no jump where it stays
        succ = np.where(over, x, succ)
    succ[size] = size
    if not landing:
        return succ, None
    landed = np.where((jump_to >= 0).take(target), target, -1)
    landed[size] = -1
    return succ, landed


def _targets(size: int, overshoot: str, faces: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(x, target, over)``: the squares (a column), the square each throw lands on before
    any jump (the goal where an ``"exact"`` throw overshoots: no jump there) and whether
    it overshoots."""
    x = np.arange(size + 1)[:, None]
    target = x + np.minimum(faces, size + 1)  # no overflow: faces are at most size + 1 here
    over = target > size
    if overshoot == "win":
        target = np.minimum(target, size)
    elif overshoot == "bounce":  # Board guarantees faces <= size + 1
        target = np.where(over, 2 * size - target, target)
    else:
        target[over] = size  # the goal: no jump (the token stays: succ_table)
    return x, target, over


def fired_table(size: int, jump_index: np.ndarray, overshoot: str, faces: np.ndarray
                ) -> np.ndarray:
    """``fired[x, f]``: the index of the jump a throw of ``faces[f]`` from ``x`` lands on
    (``jump_index[y]``: the jump starting on ``y``, -1 for none), -1 for none: the first
    jump the throw fires (:func:`succ_table`'s landing squares, without its successors).

    Examples
    --------
    >>> fired_table(6, np.array([-1, -1, 0, -1, -1, -1, -1]), "exact", np.array([1, 2]))[:3]
    array([[-1,  0],
           [ 0, -1],
           [-1, -1]], dtype=int32)
    """
    fired = np.asarray(jump_index, dtype=np.int32).take(_targets(size, overshoot, faces)[1])
    fired[size] = -1  # (no throw from the goal)
    return fired


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


def _reversed(succ: np.ndarray) -> sp.csr_matrix:
    """The reversed adjacency of the moves out of every square but the last (the goal):
    row ``y`` lists the squares that move to ``y``."""
    n, k = succ.shape
    cols = succ[:-1].ravel()
    indices = stable_order(cols, n).astype(np.int32)
    indices //= k  # (in place: the square each sorted move leaves from)
    indptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(cols, minlength=n), out=indptr[1:])
    return sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(n, n))


def reach(succ: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(dist, sure)`` as :func:`.table.reach_kernel` computes them: fewest throws to the
    goal (the last square; -1 where unreachable) and whether the goal is reached with
    probability 1, from every square.

    One breadth-first search from the goal over the reversed moves, its depths by
    :func:`_depths`; only when some square cannot reach the goal, a second search finds
    the squares that can reach one that cannot (not sure): those stuck squares, whose
    moves all lead to stuck squares, merged into one and searched from.

    Examples
    --------
    >>> succ = np.array([[1, 1], [0, 0], [3, 3], [3, 3]])   # 0 and 1 swap for ever
    >>> [a.tolist() for a in reach(succ)]
    [[-1, -1, 1, 0], [False, False, True, True]]
    """
    n = succ.shape[0]
    goal = n - 1
    order, pred = breadth_first_order(_reversed(succ), goal, directed=True,
                                      return_predecessors=True)
    missed = pred < 0
    dist = _depths(pred, goal, order[-1])  # (the last in breadth-first order: the deepest)
    dist[missed] = -1
    dist[goal] = 0
    sure = np.ones(n, dtype=np.bool_)
    if len(order) < n:
        stuck = dist < 0
        first = int(stuck.argmax())
        merged = np.where(stuck.take(succ), first, succ)
        sure[breadth_first_order(_reversed(merged), first, directed=True,
                                 return_predecessors=False)] = False
    return dist, sure


def _depths(pred: np.ndarray, root: int, last: int) -> np.ndarray:
    """Depths in a breadth-first tree from ``root`` (``pred``: the search's predecessors,
    negative for the root and the squares not reached; overwritten) by pointer jumping:
    ``depth[v]`` is the distance from ``v`` up to its ancestor ``up[v]``, the ancestor twice
    as far each round, until ``last``'s is the root. Exact on ``last`` and on every square
    reached and no deeper; meaningless on the squares not reached (their predecessors clip
    to square 0; no square reached leads up through them).

    Examples
    --------
    >>> _depths(np.array([-9999, 0, 1, 2, -9999]), 0, 3).tolist()[:4]
    [0, 1, 2, 3]
    """
    up = pred
    up[root] = root
    depth = np.ones(len(up), dtype=np.int64)
    depth[root] = 0
    while up[last] != root:
        depth += depth.take(up, mode="clip")
        up = up.take(up, mode="clip")
    return depth


def _forward(succ: np.ndarray) -> sp.csr_matrix:
    """The moves as a graph: row ``x`` lists where ``x`` moves, face by face."""
    n, k = succ.shape  # (int32 indices: SciPy checks them twice as fast as int64)
    return sp.csr_matrix((np.ones(n * k), succ.astype(np.int32).ravel(),
                          np.arange(0, n * k + 1, k, dtype=np.int32)), shape=(n, n))


def search_from(succ: np.ndarray, start: int) -> tuple[np.ndarray, np.ndarray]:
    """``(order, pred)`` of one breadth-first search forward from ``start``: the squares a
    token on ``start`` can ever rest on (``start`` first) and each square's predecessor in
    the search (negative for ``start`` and the squares not reached; :func:`play_from`
    reads the fewest-throws play off them).

    Examples
    --------
    >>> order, pred = search_from(np.array([[1, 2], [2, 2], [2, 2], [0, 0]]), 1)
    >>> order.tolist(), pred.tolist()[1:3]
    ([1, 2], [-9999, 1])
    """
    return breadth_first_order(_forward(succ), start, directed=True, return_predecessors=True)


def reachable_from(succ: np.ndarray, start: int) -> np.ndarray:
    """The squares a token on ``start`` can ever rest on (``start`` included).

    Examples
    --------
    >>> reachable_from(np.array([[1, 2], [2, 2], [2, 2], [0, 0]]), 1).tolist()
    [False, True, True, False]
    """
    seen = np.zeros(succ.shape[0], dtype=np.bool_)
    seen[breadth_first_order(_forward(succ), start, directed=True,
                             return_predecessors=False)] = True
    return seen


def squares_in(order: np.ndarray, n: int) -> np.ndarray:
    """The mask of ``n`` squares that ``order`` lists (a search's squares reached).

    Examples
    --------
    >>> squares_in(np.array([2, 0]), 3).tolist()
    [True, False, True]
    """
    seen = np.zeros(n, dtype=np.bool_)
    seen[order] = True
    return seen


def play_from(succ: np.ndarray, start: int, pred: np.ndarray | None = None
              ) -> np.ndarray | None:
    """The squares (``start`` to the goal) of the fewest-throws play from ``start`` whose
    faces come first, face after face; None if the goal cannot be reached (the fewest
    throws from ``start``, ``reach(succ)[0][start]``, are its length less one).

    The goal's ancestors in one breadth-first search forward from ``start`` that takes each
    square's moves face by face (csgraph follows a row's entries in the order stored, and
    :func:`_forward` stores them face by face, unsorted; the tests hold this against the
    naive rule): by induction on the depth, the search finds the squares
    of each depth in the order of the smallest faces that reach them in that many throws,
    and each first from the earliest square before it, by its smallest face; so every
    square's predecessors are the play to it whose faces come first, the goal's included.
    ``pred``: that search's predecessors when already made (:func:`search_from`).

    Examples
    --------
    >>> succ = np.array([[1, 2, 3], [2, 3, 3], [3, 3, 3], [3, 3, 3]])
    >>> play_from(succ, 0).tolist(), play_from(np.array([[0], [1]]), 0)
    ([0, 3], None)
    """
    goal = succ.shape[0] - 1
    if start == goal:
        return np.array([goal])
    if pred is None:
        pred = search_from(succ, start)[1]
    if pred[goal] < 0:
        return None
    up, squares = pred.item, [goal]
    while squares[-1] != start:  # (one step a throw of the play)
        squares.append(up(squares[-1]))
    return np.array(squares[::-1])


def _chain(succ: np.ndarray, probs: np.ndarray, live: np.ndarray, goal: int, dense: bool
           ) -> tuple[np.ndarray, np.ndarray | sp.csr_matrix, np.ndarray]:
    """The live squares (not the goal), ``Q`` among them (a dense array, or CSR), and per
    live square its readout ``(r, Q 1, d)``: the chance of finishing in one throw (``r``),
    of staying on the live squares and of moving off them (``d``)."""
    n, k = succ.shape
    states = live.nonzero()[0]
    states = states[states != goal]
    m = len(states)
    pos = np.full(n, m + 1, dtype=np.intp)  # m: the goal, m + 1: off the live squares
    pos[states] = np.arange(m)
    pos[goal] = m
    to = pos.take(succ.take(states, axis=0))
    p = np.broadcast_to(probs, to.shape) if probs.ndim == 1 else probs.take(states, axis=0)
    # each row's moves summed by destination, the goal and the squares off the live ones
    # in two more columns: r and d
    rows = np.arange(0, m * (m + 2), m + 2)[:, None]
    if dense:
        q = np.bincount((rows + to).ravel(), weights=p.ravel(), minlength=m * (m + 2))
        q = q.reshape(m, m + 2)
        readout = np.empty((m, 3))
        readout[:, 0::2] = q[:, m:]
        q = np.ascontiguousarray(q[:, :m])
        readout[:, 1] = q.sum(axis=1)
        return states, q, readout
    keep = to < m
    rows = np.broadcast_to(np.arange(m)[:, None], to.shape)
    q = sp.csr_matrix((p[keep], (rows[keep], to[keep])), shape=(m, m))
    readout = np.stack([np.where(to == m, p, 0.0).sum(axis=1),
                        np.asarray(q.sum(axis=1)).ravel(),
                        np.where(to == m + 1, p, 0.0).sum(axis=1)], axis=1)
    return states, q, readout


def push(succ: np.ndarray, probs: np.ndarray, live: np.ndarray, start: int, tail: float,
         max_throws: int, bar: Progress | None = None,
         hopeless: Callable[[], bool] | None = None
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Push the mass from ``start`` (a live square that is not the goal) one throw at a
    time until the live mass is below ``tail`` or for ``max_throws`` throws. ``live``:
    the squares that can still finish (those ``start`` can reach will do).

    Returns ``(pmf, live_mass, lost)``, each of length ``K + 1``: ``pmf[k] = P(T = k)``,
    ``live_mass[k]`` the mass on the live squares after ``k`` throws and ``lost[k]`` the
    mass that moved where the goal cannot be reached by then; so
    ``P(T > k) = live_mass[k] + lost[k]`` exactly, from sums of non-negative terms. ``K`` is
    the first ``k`` with ``live_mass[k] < tail`` (or ``max_throws``). ``bar`` counts the
    throws pushed. ``hopeless`` is asked once, when the live mass falls too slowly to reach
    the tail within ``max_throws`` throws: True stops the push there.

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
    dense = dense_push(m, nbytes=32.0 * m * m)  # (Q and its powers)
    states, q, readout = _chain(succ, probs, live, succ.shape[0] - 1, dense)
    if dense:  # B throws per product: v Q^i (r, Q 1, d), i < B, then v Q^B
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
            if bar is not None:
                bar.update(below[0] + 1)
            break
        parts.append(block)
        done += len(block)
        if bar is not None:
            bar.update(len(block))
        # the live mass falls about geometrically: aim the next chunk at the tail
        rate = (block[-1, 1] / parts[-1][0, 1]) ** (1.0 / len(block)) if len(block) > 1 else 0.5
        wanted = np.log(tail / block[-1, 1]) / np.log(rate) if 0.0 < rate < 1.0 else 4 * done
        if hopeless is not None and done + wanted > max_throws:
            if hopeless():
                break
            hopeless = None
        steps = int(min(max(wanted * 1.05 + width, 16), 4 * done + 64, 1 << 16)) // width + 1
        check_memory(24 * (done + steps * width) + 8 * steps * m,
                     f"a distribution of {done + steps * width:,} throws")
    out = np.concatenate(parts)
    return out[:, 0], out[:, 1], np.cumsum(out[:, 2])
