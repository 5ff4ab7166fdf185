"""Tests for snl_numeric.markov: any absorbing chain, validated, compiled and answered."""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import boards
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import chain_dense

from snl_numeric import (
    Board,
    expected_throws,
    expected_throws_all,
    finish_probability,
    solver_report,
    throws_variance,
    throws_variance_all,
)
from snl_numeric.boards import random_board
from snl_numeric.compile import compile_chain
from snl_numeric.markov import Chain


def ruin(N: int, p: float) -> np.ndarray:
    """Gambler's ruin on 0..N: up with ``p``, down with ``1 - p``; 0 and N absorbing."""
    P = np.zeros((N + 1, N + 1))
    P[0, 0] = P[N, N] = 1.0
    for i in range(1, N):
        P[i, i + 1] = p
        P[i, i - 1] = 1.0 - p
    return P


def ruin_closed(N: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """(chance to reach N, expected duration) from every i, by the textbook formulas."""
    i = np.arange(N + 1, dtype=float)
    if p == 0.5:
        return i / N, i * (N - i)
    r = (1.0 - p) / p
    win = (1.0 - r**i) / (1.0 - r**N)
    return win, i / (1.0 - 2 * p) - N / (1.0 - 2 * p) * win


# -- closed forms ------------------------------------------------------------------------


@pytest.mark.parametrize("p", [0.5, 0.3, 0.6])
@pytest.mark.parametrize("N", [2, 7, 20])
def test_gamblers_ruin_duration(N, p):
    _, duration = ruin_closed(N, p)
    chain = Chain(ruin(N, p))
    got = expected_throws_all(chain)
    np.testing.assert_allclose(got, duration, rtol=1e-12, atol=0)
    assert got[0] == got[N] == 0.0
    if p == 0.5:  # Var T = i (N - i) (i^2 + (N - i)^2 - 2) / 3
        i = np.arange(N + 1.0)
        np.testing.assert_allclose(throws_variance_all(chain),
                                   i * (N - i) * (i**2 + (N - i) ** 2 - 2) / 3, rtol=1e-12)


def test_ruin_start_and_scalars():
    chain = Chain(ruin(10, 0.5), start=3)
    assert expected_throws(chain) == pytest.approx(21.0, rel=1e-14)
    assert expected_throws(chain, 0) == 0.0
    assert throws_variance(chain, 5) == pytest.approx(25 * 48 / 3, rel=1e-12)
    assert finish_probability(chain) == 1.0
    rep = solver_report(chain)
    assert rep.unknowns == 9 and rep.error_estimate < 1e-12


def test_never_absorbed_states_are_inf():
    # 0 absorbing; 1 -> {0, 2}; 2 <-> 3 forever (a trap that never ends)
    P = np.array([[1.0, 0, 0, 0], [0.5, 0, 0.5, 0], [0, 0, 0, 1.0], [0, 0, 1.0, 0]])
    chain = Chain(P, start=1)
    assert expected_throws_all(chain).tolist() == [0.0, np.inf, np.inf, np.inf]
    assert throws_variance(chain) == np.inf
    assert finish_probability(chain) == 0.5
    assert finish_probability(chain, 2) == 0.0
    # a row P[i, i] == 1 left out of an explicit `absorbing` is such a trap too
    P = np.array([[1.0, 0, 0], [0.25, 0.5, 0.25], [0, 0, 1.0]])
    chain = Chain(P, absorbing=[0], start=1)
    assert finish_probability(chain) == pytest.approx(0.5, rel=1e-15)
    assert expected_throws(chain) == np.inf


def test_labels_order_and_absorbing_in_the_middle():
    # states: a (transient) -> b (absorbing) or c; c -> d (absorbing)
    P = np.array([[0, 0.5, 0.5, 0], [0, 1.0, 0, 0], [0, 0, 0, 1.0], [0, 0, 0, 1.0]])
    chain = Chain(P, labels=list("abcd"))
    assert chain.labels == ("a", "b", "c", "d")
    assert chain.absorbing.tolist() == [1, 3]
    assert expected_throws_all(chain).tolist() == [1.5, 0.0, 1.0, 0.0]
    assert throws_variance_all(chain).tolist() == [0.25, 0.0, 0.0, 0.0]
    cb = chain.compiled
    assert cb.size == 2 and cb.states.tolist() == [0, 2, 1, 2]


# -- inputs --------------------------------------------------------------------------------


def test_input_forms_are_one_chain():
    P = ruin(5, 0.4)
    csr = sp.csr_array(P)
    forms = [P, P.tolist(), csr, sp.csr_matrix(P), sp.coo_array(P),
             (csr.data, csr.indices, csr.indptr)]
    chains = [Chain(f) for f in forms]
    assert all(c == chains[0] for c in chains)
    assert len({hash(c) for c in chains}) == 1
    assert Chain(P, start=1) != chains[0]
    assert Chain(P, labels=list("abcdef")) != chains[0]
    c = pickle.loads(pickle.dumps(Chain(P, labels=list("abcdef"), start=2)))
    assert c == Chain(P, labels=list("abcdef"), start=2)


def test_chain_is_immutable_and_copies_its_input():
    P = ruin(4, 0.5)
    chain = Chain(P)
    P[1, 0] = 0.9
    assert chain.P[1, 0] == 0.5
    with pytest.raises(AttributeError, match="immutable"):
        chain.start = 1  # type: ignore[misc]
    with pytest.raises(ValueError, match="read-only"):
        chain.P.data[0] = 0.3
    assert "Chain(states=5, absorbing=2, transitions=8, start=0)" == repr(chain)


def test_explicit_zeros_and_duplicates():
    # duplicates summed, stored zeros dropped
    data = np.array([1.0, 0.25, 0.25, 0.5, 0.0, 1.0])
    indices = np.array([0, 0, 0, 2, 1, 2])
    indptr = np.array([0, 1, 5, 6])
    chain = Chain((data, indices, indptr))
    assert chain.P.toarray().tolist() == [[1, 0, 0], [0.5, 0, 0.5], [0, 0, 1]]
    assert chain.P.nnz == 4


@pytest.mark.parametrize("P, kwargs, error, match", [
    (np.ones((2, 3)) / 3, {}, ValueError, r"P must be square, got shape \(2, 3\)"),
    (np.ones(3), {}, ValueError, r"square matrix, got shape \(3,\)"),
    (np.zeros((0, 0)), {}, ValueError, "at least one state"),
    ([[1, 0], [np.nan, 1]], {}, ValueError, r"non-finite entries in rows 1: P\[1, 0\] = nan"),
    ([[1, 0], [-0.5, 1.5]], {}, ValueError, r"negative entries in rows 1: P\[1, 0\] = -0.5"),
    ([[1, 0], [0.5, 0.4]], {}, ValueError, r"must sum to 1 .*row 1 sums to 0.9"),
    ([[1, 0], [0, 0]], {}, ValueError, "row 1 sums to 0.0"),
    ([[1 + 1e-12j, 0], [0, 1]], {}, TypeError, "real numbers, got dtype complex"),
    ([["a", "b"], ["c", "d"]], {}, TypeError, "real numbers"),
    ([[0, 1.0], [1.0, 0]], {}, ValueError, "no absorbing state"),
    ([[1.0, 0], [0.5, 0.5]], {"absorbing": [1]}, ValueError,
     r"P\[i, i\] = 1 and nothing else .*state 1 has P\[1, 1\] = 0.5"),
    ([[1.0, 0], [0.5, 0.5]], {"absorbing": [2]}, ValueError, r"in 0..1, got 2"),
    ([[1.0, 0], [0.5, 0.5]], {"absorbing": [0, 0]}, ValueError, "distinct"),
    ([[1.0, 0], [0.5, 0.5]], {"absorbing": []}, ValueError, "at least one absorbing"),
    ([[1.0, 0], [0.5, 0.5]], {"absorbing": [True]}, ValueError, "one entry per state"),
    ([[1.0, 0], [0.5, 0.5]], {"absorbing": [0.5]}, TypeError, "must be integers"),
    ([[1.0, 0], [0.5, 0.5]], {"absorbing": 0}, TypeError, "sequence of states"),
    ([[1.0, 0], [0.5, 0.5]], {"labels": ["a"]}, ValueError, "each of the 2 states, got 1"),
    ([[1.0, 0], [0.5, 0.5]], {"labels": ["a", "a"]}, ValueError, "distinct, got repeated a"),
    ([[1.0, 0], [0.5, 0.5]], {"labels": [[1], [2]]}, TypeError, "hashable"),
    ([[1.0, 0], [0.5, 0.5]], {"labels": 7}, TypeError, "sequence of 2 distinct"),
    ([[1.0, 0], [0.5, 0.5]], {"start": 2}, ValueError, r"start must be a state in 0..1, got 2"),
    ([[1.0, 0], [0.5, 0.5]], {"start": 1.0}, TypeError, "start must be a state index"),
    ((np.ones(1), np.zeros(1, int)), {}, TypeError, r"tuple \(data, indices, indptr\)"),
    ((np.ones(1), np.zeros(1), np.array([0, 1])), {}, TypeError, "indices must be a 1-d array "
     "of integers"),
    ((np.ones(1), np.array([3]), np.array([0, 1])), {}, ValueError, "states in 0..0, got 3"),
    ((np.ones(2), np.array([0, 0]), np.array([0, 1])), {}, ValueError, "rise from 0 to len"),
])
def test_validation_messages(P, kwargs, error, match):
    with pytest.raises(error, match=match):
        Chain(P, **kwargs)


def test_row_sum_tolerance_scales_with_the_row():
    P = np.array([[1.0, 0, 0], [0.5 + 3e-12, 0, 0.5], [0, 0, 1.0]])
    with pytest.raises(ValueError, match="row 1 sums to 1.000000000003"):
        Chain(P)  # two entries: within 2e-12 only
    P[1, 0] = 0.5 + 1.5e-12
    assert Chain(P).P[1, 0] == 0.5 + 1.5e-12  # kept as given
    n = 1001  # a row of 1000 entries may be off by 1e-9
    P = np.zeros((n, n))
    P[:, 0] = 1.0
    P[1, 0] = 1e-3
    P[1, 2:] = 1e-3
    P[1, 2] += 5e-10
    Chain(P)
    P[1, 2] += 1e-9
    with pytest.raises(ValueError, match="row 1 sums to"):
        Chain(P)


def test_start_outside_and_question_errors():
    chain = Chain(ruin(3, 0.5))
    with pytest.raises(ValueError, match=r"start must be a state in 0..3, got 4"):
        expected_throws(chain, 4)
    with pytest.raises(ValueError, match="exact=True is for boards"):
        expected_throws(chain, exact=True)
    with pytest.raises(TypeError, match="expected a Board or a Chain, got dict"):
        expected_throws({})


# -- compilation ---------------------------------------------------------------------------


def test_compiled_table():
    P = np.array([[0.2, 0.3, 0.5, 0], [0, 1.0, 0, 0], [0.5, 0, 0, 0.5], [0, 0, 0, 1.0]])
    cb = Chain(P).compiled
    assert cb.size == 2 and cb.start == 0
    # rows: state 0 -> 0, goal(1), 1 (state 2); state 2 -> 0, goal; padded with itself
    assert cb.succ.tolist() == [[0, 2, 1], [0, 2, 1], [2, 2, 2]]
    assert cb.probs.tolist() == [[0.2, 0.3, 0.5], [0.5, 0.5, 0.0], [1.0, 0.0, 0.0]]
    assert cb.faces.tolist() == [1, 2, 3] and len(cb.jump_src) == 0 and not cb.chained
    assert cb.overshoot == "chain"
    assert cb.matrix.toarray().tolist() == [[0.2, 0.5, 0.3], [0.5, 0.0, 0.5], [0, 0, 1.0]]
    assert not cb.succ.flags.writeable and not cb.probs.flags.writeable
    assert Chain(P).compiled is not cb
    chain = Chain(P)
    assert chain.compiled is chain.compiled


def test_compile_once_across_threads():
    chain = Chain(ruin(50, 0.45))
    out = []
    threads = [threading.Thread(target=lambda: out.append(chain.compiled)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(cb is out[0] for cb in out)


def test_skewed_rows_refused_only_when_padding_is_large(monkeypatch):
    import snl_numeric.compile as compile_mod

    n = 200
    P = sp.lil_array((n, n))
    P[n - 1, n - 1] = 1.0
    for i in range(n - 1):
        P[i, i + 1] = 1.0
    P[0, 1:n] = 1.0 / (n - 1)  # one wide row among rows of one
    P = sp.csr_array(P)
    chain = Chain(P)
    assert chain.compiled.succ.shape == (n, n - 1)  # small: padded
    monkeypatch.setattr(compile_mod, "SKEW_BYTES", 1000)
    with pytest.raises(ValueError, match=r"too uneven .* widest row holds 199 transitions"):
        compile_chain(chain.P, chain.is_absorbing, 0)


# -- a board's chain gives the board's answers ------------------------------------------------


def _close(a, b, bound):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert np.array_equal(np.isinf(a), np.isinf(b))
    fin = np.isfinite(a)
    np.testing.assert_allclose(a[fin], b[fin], rtol=bound, atol=0)


@settings(max_examples=60, deadline=None)
@given(board=boards(), start=st.integers(0, 30))
def test_board_chain_same_answers(board, start):
    chain = board.to_chain()
    assert chain.n_states == board.size + 1 and chain.start == board.start
    assert chain.labels == tuple(range(board.size + 1))
    start = min(start, board.size)
    bound = 1e-11
    _close(expected_throws_all(chain), expected_throws_all(board), bound)
    _close(throws_variance_all(chain), throws_variance_all(board), 1e-9)
    assert finish_probability(chain, start) == pytest.approx(
        finish_probability(board, start), rel=1e-12, abs=1e-15)
    _close(expected_throws(chain, start), expected_throws(board, start), bound)
    assert solver_report(chain).unknowns == solver_report(board).unknowns


@settings(max_examples=40, deadline=None)
@given(board=boards(max_size=15))
def test_chain_against_dense_twin(board):
    P = board.compiled.matrix
    chain = Chain(P, absorbing=[board.size])  # (a square that cannot move is no end)
    mean, var, _, _ = chain_dense(P, [board.size])
    _close(expected_throws_all(chain), mean, 1e-9)
    _close(throws_variance_all(chain), var, 1e-7)


@pytest.mark.parametrize("size, density", [(3000, 0.1), (20_000, 0.05)])
def test_large_board_chain_structured(size, density):
    board = random_board(size, density, rng=size)
    chain = board.to_chain()
    rep = solver_report(chain)
    assert rep.method == solver_report(board).method
    mine, theirs = expected_throws_all(chain), expected_throws_all(board)
    bound = 2 * max(rep.error_estimate, solver_report(board).error_estimate)
    _close(mine, theirs, bound)
    _close(throws_variance_all(chain), throws_variance_all(board), 1e-9)


def test_board_to_chain_start():
    board = Board(20, {3: 15, 17: 4}, start=2, overshoot="bounce")
    chain = board.to_chain()
    assert chain.start == 2
    assert expected_throws(chain) == pytest.approx(expected_throws(board), rel=1e-13)
