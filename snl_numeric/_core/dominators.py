"""Dominator trees: which nodes every path from a root must pass through.

Node ``u`` *dominates* ``v`` when every path from the root to ``v`` passes through
``u``. The immediate dominators form a tree (``idom``), computed by the iterative
algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm",
2001): visit the nodes in reverse postorder, set each node's dominator to the
nearest common ancestor of its processed predecessors' in the current tree, repeat
until nothing changes (a few passes on the graphs met here). With preorder numbers
of that tree, ``u`` dominates ``v`` exactly when ``tin[u] <= tin[v] <= tout[u]``.

Run on the reversed move graph of a board with the goal as root, "``u`` dominates
``v``" reads "every way from ``v`` to the goal passes through ``u``".
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["dominator_ranges"]


def _postorder(succ: list[list[int]], root: int) -> list[int]:
    """Depth-first postorder of the nodes reachable from ``root`` (iterative)."""
    seen = {root}
    order: list[int] = []
    stack = [(root, iter(succ[root]))]
    while stack:
        node, it = stack[-1]
        for nxt in it:
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, iter(succ[nxt])))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def dominator_ranges(graph: sp.csr_array | sp.csr_matrix, root: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Preorder ranges of the dominator tree of ``graph`` (``graph[u, v] != 0``: an edge
    ``u -> v``) from ``root``.

    Returns
    -------
    tin, tout : ndarray of int64
        ``u`` dominates ``v`` (every path from ``root`` to ``v`` passes through ``u``;
        every node dominates itself) exactly when ``tin[u] <= tin[v] <= tout[u]``.
        ``-1`` for nodes ``root`` does not reach (``tout`` then -2: nothing is in range).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> g = sp.csr_array(([1, 1, 1, 1], ([0, 0, 1, 2], [1, 2, 3, 3])), shape=(4, 4))
    >>> tin, tout = dominator_ranges(g, 0)   # a diamond: only 0 dominates 3
    >>> [bool(tin[u] <= tin[3] <= tout[u]) for u in range(4)]
    [True, False, False, True]
    """
    graph = sp.csr_array(graph)
    n = graph.shape[0]
    succ = np.split(graph.indices, graph.indptr[1:-1])
    succ_l = [s.tolist() for s in succ]
    tg = sp.csr_array(graph.T)
    pred_l = [s.tolist() for s in np.split(tg.indices, tg.indptr[1:-1])]
    order = _postorder(succ_l, root)
    post = [-1] * n
    for i, v in enumerate(order):
        post[v] = i
    idom = [-1] * n
    idom[root] = root
    changed = True
    while changed:
        changed = False
        for v in reversed(order[:-1]):  # reverse postorder, the root (last) skipped
            new = -1
            for p in pred_l[v]:
                if idom[p] == -1:
                    continue
                if new == -1:
                    new = p
                    continue
                a, b = p, new
                while a != b:
                    while post[a] < post[b]:
                        a = idom[a]
                    while post[b] < post[a]:
                        b = idom[b]
                new = a
            if idom[v] != new:
                idom[v] = new
                changed = True
    children: list[list[int]] = [[] for _ in range(n)]
    for v in order[:-1]:
        children[idom[v]].append(v)
    tin = np.full(n, -1, dtype=np.int64)
    tout = np.full(n, -2, dtype=np.int64)
    clock = 0
    stack = [(root, False)]
    while stack:
        v, done = stack.pop()
        if done:
            tout[v] = clock - 1
            continue
        tin[v] = clock
        clock += 1
        stack.append((v, True))
        stack.extend((c, False) for c in children[v])
    return tin, tout
