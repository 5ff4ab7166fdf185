"""transition_matrix and to_networkx (issue 27)."""

import builtins

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import boards as random_boards
from hypothesis import given
from naive import export_matrix

from snl_numeric import Board, boards, min_throws, to_networkx, transition_matrix


@given(random_boards())
def test_transition_matrix_is_the_rules_one_throw_at_a_time(board):
    p = transition_matrix(board)
    assert isinstance(p, sp.csr_array) and p.shape == (board.size + 1,) * 2
    np.testing.assert_allclose(p.toarray(), export_matrix(board), rtol=0, atol=1e-15)
    assert p[board.size, board.size] == pytest.approx(1.0, abs=1e-12)  # the goal absorbs


def test_transition_matrix_is_a_copy():
    mb = boards.get("milton-bradley")
    p = transition_matrix(mb)
    p.data[:] = 0.0
    assert transition_matrix(mb).sum() == pytest.approx(101.0)


@given(random_boards(max_size=15))
def test_networkx_graph_is_the_chain(board):
    g = to_networkx(board)
    assert list(g.nodes) == list(range(board.size + 1))
    assert g.graph["goal"] == board.size and g.graph["start"] == board.start
    dense = export_matrix(board)
    got = np.zeros_like(dense)
    for i, j, q in g.edges(data="probability"):
        got[i, j] = q
    np.testing.assert_allclose(got, dense, rtol=0, atol=1e-15)
    want = min_throws(board)
    if want >= 0:
        assert nx.shortest_path_length(g, board.start, board.size) == want
    else:
        assert not nx.has_path(g, board.start, board.size)


def test_bad_board_and_missing_networkx(monkeypatch):
    with pytest.raises(TypeError, match="expected a Board or a Chain, got dict"):
        transition_matrix({"size": 10})
    real_import = builtins.__import__

    def no_networkx(name, *args, **kwargs):
        if name == "networkx":
            raise ImportError("No module named 'networkx'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_networkx)
    with pytest.raises(ImportError, match=r"pip install 'snl_numeric\[graph\]'"):
        to_networkx(Board(10))
