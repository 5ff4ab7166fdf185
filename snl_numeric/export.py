"""The chain handed to other libraries: a SciPy sparse array and a networkx graph.

A board is an absorbing Markov chain on the squares ``0 .. size``. State ``i`` is
"the token rests on square ``i``": row ``i`` of the transition matrix ``P`` holds
the chances of where one throw from square ``i`` comes to rest (overshoot rule and
jumps applied), so every row sums to 1 and the goal ``size`` is absorbing
(``P[size, size] == 1``). A square that starts a jump is never rested on (except
as the ``start``), yet keeps its row, so that state ``i`` is always square ``i``.

With ``Q = P[:size, :size]`` the fundamental matrix is ``N = (I - Q)^-1`` and the
expected throws ``t = N 1`` (:func:`~snl_numeric.expected_throws_all`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import scipy.sparse as sp

from ._core.optional import require_networkx
from .board import Board, check_model

if TYPE_CHECKING:
    import networkx

    from .markov import Chain

__all__ = ["transition_matrix", "to_networkx"]


def transition_matrix(board: Board | Chain) -> sp.csr_array:
    """The transition matrix ``P`` of ``board`` as a SciPy sparse array.

    Parameters
    ----------
    board : Board or Chain
        For a chain: its own ``P`` (a copy), in its state order.

    Returns
    -------
    scipy.sparse.csr_array, shape (size + 1, size + 1)
        ``P[i, j]``: the chance that one throw from square ``i`` comes to rest on
        square ``j``. States are the squares in order, ``0 .. size``; the goal
        ``size`` (the last state) is absorbing. A fresh copy: changing it changes
        nothing cached on the board.

    Examples
    --------
    >>> import numpy as np
    >>> from snl_numeric import Board
    >>> P = transition_matrix(Board(4, {2: 4}, dice={1: 0.5, 2: 0.5}))
    >>> P.toarray()
    array([[0. , 0.5, 0. , 0. , 0.5],
           [0. , 0. , 0. , 0.5, 0.5],
           [0. , 0. , 0. , 0.5, 0.5],
           [0. , 0. , 0. , 0. , 1. ],
           [0. , 0. , 0. , 0. , 1. ]])

    The expected throws from the fundamental system ``(I - Q) t = 1``:

    >>> n = P.shape[0] - 1
    >>> Q = P[:n, :n].toarray()
    >>> np.linalg.solve(np.eye(n) - Q, np.ones(n))
    array([1.75, 1.5 , 1.5 , 1.  ])
    """
    model = check_model(board)
    if not isinstance(model, Board):
        return sp.csr_array(model.P, copy=True)
    return sp.csr_array(model.compiled.matrix, copy=True)


def to_networkx(board: Board | Chain) -> networkx.DiGraph:
    """The board as a networkx directed graph (requires the ``graph`` extra).

    Parameters
    ----------
    board : Board or Chain
        For a chain: nodes ``0 .. n - 1`` (its states) with a ``label`` attribute each,
        and graph attributes ``start`` and ``absorbing`` (a list of states).

    Returns
    -------
    networkx.DiGraph
        Nodes ``0 .. size`` (the squares; the states of :func:`transition_matrix`);
        an edge ``i -> j`` with attribute ``probability`` for every ``P[i, j] > 0``.
        Graph attributes ``start``, ``goal`` and ``name``.

    Examples
    --------
    >>> import networkx as nx
    >>> from snl_numeric import boards
    >>> g = to_networkx(boards.get("milton-bradley"))
    >>> g.number_of_nodes(), g.graph["goal"]
    (101, 100)
    >>> nx.shortest_path_length(g, g.graph["start"], g.graph["goal"])  # fewest throws
    7
    """
    nx = require_networkx()
    board = check_model(board)
    if isinstance(board, Board):
        coo = board.compiled.matrix.tocoo()
        graph = nx.DiGraph(start=board.start, goal=board.size, name=board.name)
        graph.add_nodes_from(range(board.size + 1))
    else:
        coo = board.P.tocoo()
        graph = nx.DiGraph(start=board.start, absorbing=board.absorbing.tolist())
        graph.add_nodes_from((i, {"label": x}) for i, x in enumerate(board.labels))
    graph.add_weighted_edges_from(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist(),
                                      strict=True), weight="probability")
    return graph

