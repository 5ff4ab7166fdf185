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
from naive import chain_conditional_variance, chain_dense, chain_pmf, ruin

from snl_numeric import (
    Board,
    absorption_probabilities,
    analyze,
    expected_throws,
    expected_throws_all,
    finish_probability,
    length_distribution,
    min_throws,
    shortest_path,
    solver_report,
    throw_distances,
    throws_variance,
    throws_variance_all,
    to_networkx,
    transition_matrix,
)
from snl_numeric.boards import random_board
from snl_numeric.compile import compile_chain
from snl_numeric.markov import Chain


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


@pytest.mark.parametrize("seed", range(4))
def test_dense_input_is_converted_entry_by_entry(seed):
    """A dense P (float, Fortran order, a strided view, integers) gives the chain SciPy's
    own conversion gives: the same entries, row by row in column order."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    P = np.where(rng.random((n, n)) < 0.2, rng.integers(1, 5, (n, n)), 0).astype(float)
    P[np.arange(n), np.arange(n)] += P.sum(axis=1) == 0  # (no empty row)
    P[-1] = 0.0
    P[-1, -1] = 1.0
    P /= P.sum(axis=1, keepdims=True)
    reference = Chain(sp.csr_array(P))
    wide = np.zeros((n, 2 * n))
    wide[:, ::2] = P
    for form in (P, np.asfortranarray(P), wide[:, ::2]):
        assert Chain(form) == reference
    ends = np.eye(n, dtype=np.int64)  # integers: every state absorbing
    assert Chain(ends).P.data.dtype == np.float64 and Chain(ends).absorbing.tolist() == list(
        range(n))
    bad = P.copy()
    bad[0, -1] = np.nan
    with pytest.raises(ValueError, match="non-finite entries in rows 0"):
        Chain(bad)


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
    (sp.csr_array(np.array([[1, 0], [0.5 + 0.5j, 0.5]])), {}, TypeError,
     "real numbers, got dtype complex"),  # (was cast to real, the imaginary part dropped)
    ([["a", "b"], ["c", "d"]], {}, TypeError, "real numbers"),
    # booleans are no probabilities (as the maze refuses them for cells)
    ([[True, False], [False, True]], {}, TypeError, "real numbers, got dtype bool"),
    (sp.csr_array(np.eye(2, dtype=bool)), {}, TypeError, "real numbers, got dtype bool"),
    ((np.ones(2, bool), np.array([0, 1]), np.array([0, 1, 2])), {}, TypeError,
     "real numbers, got dtype bool"),
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


def test_rows_within_the_tolerance_answer_as_scaled_to_one():
    # a row that sums to 1 - 1.5e-12 (within the tolerance): the mean number of steps is
    # that of the row scaled to sum to 1, (p + q) / q, not the row's own 1 / q
    p = 0.999
    q = 1 - p - 1.5e-12
    mean = expected_throws(Chain(np.array([[p, q], [0.0, 1.0]])))
    assert mean == pytest.approx((p + q) / q, rel=1e-14)
    assert abs(mean - 1 / q) > 1e-9
    # the distribution steps the row as given: P(T = k) = p^(k-1) q, its sum q / (1 - p)
    pmf = length_distribution(Chain(np.array([[p, q], [0.0, 1.0]])))
    assert pmf[1] == pytest.approx(q, rel=1e-15) and abs(pmf[1] - q / (p + q)) > 1e-15
    assert pmf.sum() == pytest.approx(q / (1 - p), rel=1e-11)  # (1 less 1.5e-9)


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


def _close(a, b, bound, atol=0.0):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert np.array_equal(np.isinf(a), np.isinf(b))
    fin = np.isfinite(a)
    np.testing.assert_allclose(a[fin], b[fin], rtol=bound, atol=atol)


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


# -- the other questions ---------------------------------------------------------------------


@st.composite
def chains(draw, max_states=12):
    """Random small chains: sparse rows, one or more absorbing states, some states that may
    never be absorbed."""
    n = draw(st.integers(2, max_states))
    absorbing = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=max(1, n // 3),
                              unique=True))
    P = np.zeros((n, n))
    for i in range(n):
        if i in absorbing:
            P[i, i] = 1.0
            continue
        cols = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4, unique=True))
        w = draw(st.lists(st.integers(1, 9), min_size=len(cols), max_size=len(cols)))
        P[i, cols] = np.array(w, dtype=float) / sum(w)
    start = draw(st.integers(0, n - 1))
    return Chain(P, absorbing=absorbing, start=start)


@settings(max_examples=80, deadline=None)
@given(chain=chains())
def test_random_chains_against_dense_twin(chain):
    mean, var, B, cond = chain_dense(chain.P, chain.absorbing.tolist())
    _close(expected_throws_all(chain), mean, 1e-10)
    _close(throws_variance_all(chain), var, 1e-7, atol=1e-12)  # (the twin's cancels)
    a = absorption_probabilities(chain, visit_probability=True)
    np.testing.assert_allclose(a.probabilities, B, rtol=1e-10, atol=1e-13)
    assert np.array_equal(np.isnan(a.conditional_mean), np.isnan(cond))
    ok = ~np.isnan(cond)
    np.testing.assert_allclose(a.conditional_mean[ok], cond[ok], rtol=1e-9)
    bound = a.conditional_error[ok]
    assert np.all(np.abs(a.conditional_mean[ok] - cond[ok]) <= (bound + 1e-9) * cond[ok] + 1e-12)
    assert a.probability_error < 1e-12
    for x in range(chain.n_states):
        assert finish_probability(chain, x) == pytest.approx(B[x].sum(), rel=1e-10, abs=1e-13)
    dist = throw_distances(chain)
    assert np.array_equal(dist >= 0, B.sum(axis=1) > 0)
    path = shortest_path(chain)
    if dist[chain.start] < 0:
        assert path is None
    else:
        assert len(path) == dist[chain.start] == min_throws(chain)
        for x, p, y in path:
            assert chain.P[x, y] == p > 0
        assert (path[-1][2] if path else chain.start) in chain.absorbing


@settings(max_examples=60, deadline=None)
@given(chain=chains())
def test_random_chains_length_distribution_against_matrix_powers(chain):
    """The distribution of the steps and its median against matrix powers of ``Q``."""
    pmf = length_distribution(chain)
    ref = chain_pmf(chain.P, chain.absorbing.tolist(), chain.start, len(pmf) + 50)
    np.testing.assert_allclose(pmf, ref[:len(pmf)], rtol=1e-9, atol=1e-15)
    assert ref[len(pmf):].sum() < 1e-12  # (the tail cut off is below tail)
    _, _, B, _ = chain_dense(chain.P, chain.absorbing.tolist())
    assert pmf.sum() == pytest.approx(B[chain.start].sum(), abs=1e-9)
    if B[chain.start].sum() > 0.5:
        median = int(np.searchsorted(np.cumsum(ref), 0.5 * (1 - 1e-12)))
        assert analyze(chain).median == median


def test_ruin_absorption_closed_forms():
    for N, p in [(10, 0.5), (10, 0.3), (25, 0.55)]:
        win, _ = ruin_closed(N, p)
        a = absorption_probabilities(Chain(ruin(N, p), start=3))
        np.testing.assert_allclose(a.probabilities[:, 1], win, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(a.probabilities[:, 0], 1 - win, rtol=1e-12, atol=1e-15)
        assert a.absorbing.tolist() == [0, N] and a.labels == (0, N)
        i = np.arange(1, N, dtype=float)
        if p == 0.5:  # E[T | end N] = (N^2 - i^2) / 3, E[T | end 0] = i (2 N - i) / 3
            np.testing.assert_allclose(a.conditional_mean[1:N, 1], (N**2 - i**2) / 3,
                                       rtol=1e-12)
            np.testing.assert_allclose(a.conditional_mean[1:N, 0], i * (2 * N - i) / 3,
                                       rtol=1e-12)
        else:
            _, _, B, cond = chain_dense(ruin(N, p), [0, N])
            np.testing.assert_allclose(a.conditional_mean[1:N], cond[1:N], rtol=1e-11)
        assert (a.conditional_error[1:N] < 1e-9).all()  # (normwise bounds: small ends)
        # the conditional means average to the mean: sum_j B_j * E[T | j] = E[T]
        weighted = np.where(a.probabilities > 0, a.probabilities * a.conditional_mean, 0.0)
        np.testing.assert_allclose(weighted.sum(axis=1),
                                   expected_throws_all(Chain(ruin(N, p))), rtol=1e-12)


def test_two_ends_known_conditional_durations():
    # 0 stays with q, ends on A with p1, goes to 1 with p2; 1 ends on B: the time to leave 0
    # is geometric (mean 1 / (1 - q)) whatever the end, and B takes one step more
    q, p1, p2 = 0.5, 0.125, 0.375
    P = np.array([[q, p2, p1, 0], [0, 0, 0, 1.0], [0, 0, 1.0, 0], [0, 0, 0, 1.0]])
    a = absorption_probabilities(Chain(P, labels=["play", "last", "A", "B"]))
    assert a.labels == ("A", "B")
    np.testing.assert_allclose(a.probabilities[0], [p1 / (1 - q), p2 / (1 - q)], rtol=1e-15)
    np.testing.assert_allclose(a.conditional_mean[0], [1 / (1 - q), 1 / (1 - q) + 1],
                               rtol=1e-14)
    assert a.conditional_mean[1].tolist()[1] == 1.0 and np.isnan(a.conditional_mean[1, 0])
    np.testing.assert_allclose(a.expected_visits, [2.0, 0.75, 0.25, 0.75], rtol=1e-14)
    np.testing.assert_allclose(a.visit_probability, [1.0, 0.75, 0.25, 0.75], rtol=1e-14)
    frame = a.to_frame()
    assert frame.loc["play", ("mean steps", "B")] == pytest.approx(3.0, rel=1e-14)


def test_absorption_from_an_absorbing_or_trapped_start():
    P = np.array([[1.0, 0, 0, 0], [0.5, 0, 0.5, 0], [0, 0, 0, 1.0], [0, 0, 1.0, 0]])
    a = absorption_probabilities(Chain(P), start=0)
    assert a.expected_visits.tolist() == [1.0, 0.0, 0.0, 0.0]
    assert a.visit_probability.tolist() == [1.0, 0.0, 0.0, 0.0]
    a = absorption_probabilities(Chain(P), start=1)
    assert a.probabilities[:, 0].tolist() == [1.0, 0.5, 0.0, 0.0]
    assert a.expected_visits[:2].tolist() == [0.5, 1.0] and np.isnan(a.expected_visits[2:]).all()
    with pytest.raises(TypeError, match=r"expected a Chain, got Board \(a Board: "):
        absorption_probabilities(Board(5))
    for bad in (1, "yes"):  # were taken as True
        with pytest.raises(TypeError, match=f"^visit_probability must be None, True or False, "
                                            f"got {bad!r}$"):
            absorption_probabilities(Chain(P), visit_probability=bad)


@settings(max_examples=40, deadline=None)
@given(board=boards(max_size=20))
def test_board_chain_other_questions(board):
    chain = board.to_chain()
    assert np.array_equal(throw_distances(chain), throw_distances(board))
    assert min_throws(chain) == min_throws(board)
    path = shortest_path(chain)
    assert (path is None) == (shortest_path(board) is None)
    if path is not None:
        assert len(path) == len(shortest_path(board))
    mat = transition_matrix(chain)
    assert (mat != transition_matrix(board)).nnz == 0
    sure = finish_probability(board) == 1.0
    if sure or min_throws(board) > 0:
        pmf_c, pmf_b = length_distribution(chain), length_distribution(board)
        assert len(pmf_c) == len(pmf_b)
        np.testing.assert_allclose(pmf_c, pmf_b, rtol=1e-12, atol=1e-15)
    a = absorption_probabilities(chain, visit_probability=True)
    for x in range(board.size + 1):
        assert a.probabilities[x, 0] == pytest.approx(finish_probability(board, x), rel=1e-11,
                                                      abs=1e-14)
    t = expected_throws_all(board)
    fin = np.isfinite(t) & (a.probabilities[:, 0] > 0)
    np.testing.assert_allclose(a.conditional_mean[fin, 0], t[fin], rtol=1e-10)
    if sure and board.start != board.size:
        an = analyze(board, visit_probability=True)
        np.testing.assert_allclose(a.expected_visits[:-1], an.expected_visits[:-1],
                                   rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(a.visit_probability, an.visit_probability, rtol=1e-10,
                                   atol=1e-14)


def test_to_networkx_chain():
    import networkx as nx

    P = np.array([[0, 0.5, 0.5, 0], [0, 1.0, 0, 0], [0, 0, 0, 1.0], [0, 0, 0, 1.0]])
    g = to_networkx(Chain(P, labels=list("abcd"), start=2))
    assert g.graph["start"] == 2 and g.graph["absorbing"] == [1, 3]
    assert [g.nodes[i]["label"] for i in range(4)] == list("abcd")
    assert g.edges[0, 2]["probability"] == 0.5 and g.number_of_edges() == 5
    assert nx.shortest_path_length(g, 0, 3) == 2


def test_chain_not_yet_supported_is_a_clear_error():
    from snl_numeric import jump_impact

    chain = Chain(ruin(4, 0.5))
    with pytest.raises(TypeError, match="got a Chain: a chain has no jumps to remove"):
        jump_impact(chain)


# -- chains from rules: the recipes of docs/user_guide/own_game.md ------------------------------

COIN = ([1, 2], [0.5, 0.5])


def test_from_rule_trap_back_three():
    def step(x, face):  # race to 6 with a coin; landing on 5 sends the token back 3
        y = np.minimum(x + face, 6)
        y = np.where(y == 5, 2, y)
        return np.where(x == 6, 6, y)

    chain = Chain.from_rule(7, *COIN, step)
    hand = np.array([
        [0, .5, .5, 0, 0, 0, 0],
        [0, 0, .5, .5, 0, 0, 0],
        [0, 0, 0, .5, .5, 0, 0],
        [0, 0, 0, 0, .5, 0, .0],  # 3 -> 4, or 5 -> back to 2
        [0, 0, 0, 0, 0, 0, 1.0],  # 4 -> 5 -> 2, or 6
        [0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 1.0],
    ])
    hand[3, 2] = 0.5
    hand[4, 2], hand[4, 6] = 0.5, 0.5
    hand[5, 6] = 1.0
    assert np.array_equal(chain.P.toarray(), hand)
    assert expected_throws(chain) == pytest.approx(
        expected_throws(Board(6, {5: 2}, dice={1: 0.5, 2: 0.5})), rel=1e-13)


def test_from_rule_lose_square():
    def step(x, face):  # landing on 4 loses: 4 and 6 both end the game
        y = np.minimum(x + face, 6)
        return np.where((x == 4) | (x == 6), x, y)

    chain = Chain.from_rule(7, *COIN, step, labels=[0, 1, 2, 3, "lose", 5, "win"])
    hand = np.zeros((7, 7))
    for x in range(4):
        hand[x, x + 1] = hand[x, x + 2] = 0.5
    hand[5, 6] = 1.0
    hand[4, 4] = hand[6, 6] = 1.0
    assert np.array_equal(chain.P.toarray(), hand)
    a = absorption_probabilities(chain)
    assert a.labels == ("lose", "win")
    # P(land on 4) from 0: the walk skips 4 only by 3 -> 5
    land = {6: 0.0, 5: 0.0, 4: 1.0}
    for x in (3, 2, 1, 0):
        land[x] = 0.5 * land[x + 1] + 0.5 * land[x + 2]
    np.testing.assert_allclose(a.probabilities[0], [land[0], 1 - land[0]], rtol=1e-14)


def test_from_rule_roll_to_start():
    def step(x, face):  # the token enters only on a 2 (it then moves 2)
        y = np.minimum(x + face, 6)
        return np.where((x == 0) & (face != 2), 0, y)

    chain = Chain.from_rule(7, *COIN, step)
    hand = np.zeros((7, 7))
    hand[0, 0] = hand[0, 2] = 0.5
    for x in range(1, 6):
        hand[x, min(x + 1, 6)] += 0.5
        hand[x, min(x + 2, 6)] += 0.5
    hand[6, 6] = 1.0
    assert np.array_equal(chain.P.toarray(), hand)
    # two throws on average to enter, then the race from 2
    assert expected_throws(chain) == pytest.approx(2 + expected_throws(chain, 2), rel=1e-14)


def test_from_rule_miss_a_turn():
    def step(x, face):  # landing on 3 misses the next turn: state 7 is "on 3, waiting"
        y = np.minimum(x + face, 6)
        y = np.where(y == 3, 7, y)
        y = np.where(x == 7, 3, y)
        return np.where(x == 6, 6, y)

    chain = Chain.from_rule(8, *COIN, step, labels=[0, 1, 2, 3, 4, 5, 6, "3 (miss)"])
    hand = np.zeros((8, 8))
    hand[0, 1] = hand[0, 2] = 0.5
    hand[1, 2] = hand[1, 7] = 0.5
    hand[2, 7] = hand[2, 4] = 0.5
    hand[3, 4] = hand[3, 5] = 0.5
    hand[4, 5] = hand[4, 6] = 0.5
    hand[5, 6] = 1.0
    hand[6, 6] = 1.0
    hand[7, 3] = 1.0
    assert np.array_equal(chain.P.toarray(), hand)
    plain = Chain.from_rule(7, *COIN, lambda x, f: np.where(x == 6, 6, np.minimum(x + f, 6)))
    a = absorption_probabilities(chain, visit_probability=True)
    # one more step for every game that lands on 3
    assert expected_throws(chain) == pytest.approx(
        expected_throws(plain) + a.visit_probability[7], rel=1e-13)


def throw_again_turns(n, faces, probs, move, again):
    """The turn matrix of a game where a face for which ``again(face)`` is true throws once
    more (the docs' recipe): ``P = (I - A)^-1 E``, ``A`` the throws that go on, ``E`` those
    that end the turn (and every throw that reaches the goal, the last state)."""
    x = np.arange(n)
    A, E = np.zeros((n, n)), np.zeros((n, n))
    for face, p in zip(faces, probs, strict=True):
        y = move(x, face)
        more = again(face) & (y != n - 1) & (x != n - 1)
        np.add.at(A, (x[more], y[more]), p)
        np.add.at(E, (x[~more], y[~more]), p)
    return np.linalg.solve(np.eye(n) - A, E)


def test_throw_again_recipe():
    P = throw_again_turns(4, *COIN, lambda x, f: np.minimum(x + f, 3), lambda f: f == 2)
    hand = np.array([[0, .5, 0, .5], [0, 0, .5, .5], [0, 0, 0, 1.0], [0, 0, 0, 1.0]])
    np.testing.assert_allclose(P, hand, rtol=0, atol=1e-15)
    chain = Chain(P)
    assert expected_throws(chain) == pytest.approx(1.75, rel=1e-14)  # turns, not throws


@pytest.mark.parametrize("args, error, match", [
    ((0, [1], [1.0], lambda x, f: x), ValueError, "at least 1"),
    ((1.5, [1], [1.0], lambda x, f: x), TypeError, "n_states must be an integer"),
    ((3, [1], [1.0], "no"), TypeError, "step must be a function"),
    ((3, [1, 2], [1.0], lambda x, f: x), ValueError, "one probability per face"),
    ((3, [1, 2], [0.5, 0.4], lambda x, f: x), ValueError, "sum to 1"),
    ((3, [1], [1.0], lambda x, f: x[:2]), ValueError, "must return 3 integer states"),
    ((3, [1], [1.0], lambda x, f: x + 0.5), ValueError, "must return 3 integer states"),
    ((3, [1], [1.0], lambda x, f: x + f), ValueError, r"outside 0..2: 2 -> 3"),
])
def test_from_rule_errors(args, error, match):
    with pytest.raises(error, match=match):
        Chain.from_rule(*args)


def test_equal_shares_compile_to_the_boards_own_table():
    # a fair die's board: every transition a whole number of 1/6 shares, so the chain's
    # table is the board's own (faces in place, the jump's face where the die puts it)
    board = Board(20, {3: 15, 17: 4}, overshoot="win")
    cb, bc = board.to_chain().compiled, board.compiled
    assert cb.probs.shape == (6,) and np.array_equal(cb.probs, bc.probs)
    assert np.array_equal(cb.succ, bc.succ)
    assert np.array_equal(expected_throws_all(board.to_chain()), expected_throws_all(board))
    # several absorbing states merged into the goal: their shares go to free columns
    cb = Chain(ruin(2, 0.5)).compiled
    assert cb.succ.tolist() == [[1, 1], [1, 1]] and cb.probs.tolist() == [0.5, 0.5]
    # not whole shares (0.2 does not divide 0.3): a row of probabilities each
    P = np.array([[0.2, 0.3, 0.5, 0], [0, 1.0, 0, 0], [0.5, 0, 0, 0.5], [0, 0, 0, 1.0]])
    assert Chain(P).compiled.probs.ndim == 2
    # 0.9 is not 0.1 summed nine times in doubles (0.8999999999999999): not shares either
    P = np.array([[0.0, 0.1, 0.9], [0, 0, 1.0], [0, 0, 1.0]])
    assert Chain(P).compiled.probs.ndim == 2
    P = np.array([[0.0, 0.2, 0.8], [0, 0, 1.0], [0, 0, 1.0]])  # 0.2 * 4 is: shares
    assert Chain(P).compiled.succ.tolist() == [[1, 2, 2, 2, 2], [2] * 5, [2] * 5]


@settings(max_examples=60, deadline=None)
@given(chain=chains())
def test_conditional_variance_against_dense_twin(chain):
    want = chain_conditional_variance(chain.P, chain.absorbing.tolist())
    a = absorption_probabilities(chain, visit_probability=False)
    got, bound = a.conditional_variance, a.conditional_variance_error
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-7, atol=1e-10)  # (the twin's cancels)
    assert (bound[ok] >= 0).all()
    # the bound holds against the twin where the twin itself is far more accurate
    sure = ok & (want > 1e-6) & (bound < 1e-3)
    assert np.all(np.abs(got[sure] - want[sure]) <= (bound[sure] + 1e-9) * want[sure])


def test_ruin_conditional_variance_closed_form():
    # the fair walk on 0..N conditioned to end on N from i: variance of its duration
    # 2 (N^2 - i^2) (N^2 + i^2 - 5) / 45 (and by symmetry the same from N - i for end 0)
    for N in (4, 10, 25):
        a = absorption_probabilities(Chain(ruin(N, 0.5)))
        i = np.arange(1, N, dtype=float)
        win = 2 * (N**2 - i**2) * (N**2 + i**2 - 5) / 45
        lose = win[::-1]
        np.testing.assert_allclose(a.conditional_variance[1:N, 1], win, rtol=1e-12)
        np.testing.assert_allclose(a.conditional_variance[1:N, 0], lose, rtol=1e-12)
        assert (a.conditional_variance_error[1:N] < 1e-8).all()
        err = np.abs(a.conditional_variance[1:N] - np.stack([lose, win], axis=1))
        assert np.all(err <= a.conditional_variance_error[1:N] * np.stack([lose, win], axis=1)
                      + 1e-300)
    for N, p in [(10, 0.3), (25, 0.55)]:  # against the twin
        a = absorption_probabilities(Chain(ruin(N, p)))
        want = chain_conditional_variance(ruin(N, p), [0, N])
        np.testing.assert_allclose(a.conditional_variance[1:N], want[1:N], rtol=1e-9)


def test_two_ends_conditional_variance():
    # leaving 0 is geometric with success 1 - q whatever the end (variance q / (1 - q)^2);
    # B's one step more adds no variance
    q, p1, p2 = 0.5, 0.125, 0.375
    P = np.array([[q, p2, p1, 0], [0, 0, 0, 1.0], [0, 0, 1.0, 0], [0, 0, 0, 1.0]])
    a = absorption_probabilities(Chain(P))
    np.testing.assert_allclose(a.conditional_variance[0], [q / (1 - q) ** 2] * 2, rtol=1e-14)
    assert a.conditional_variance[1, 1] == 0.0 and np.isnan(a.conditional_variance[1, 0])
    assert a.conditional_variance[2].tolist()[0] == 0.0
    frame = a.to_frame()
    assert frame.loc[0, ("steps variance", 2)] == pytest.approx(q / (1 - q) ** 2, rel=1e-14)


@pytest.mark.parametrize("n, density, seed", [(300, 0.3, 1), (2000, 0.1, 2), (5000, 0.2, 3)])
def test_board_csr_gets_the_boards_own_table(n, density, seed):
    # several jumps within one throw's reach: each jump's destination in the column of the
    # face that lands on it (the board's compiled table, built from the board's rules),
    # inferred from the plain matrix alone
    board = random_board(n, density, rng=seed)
    P = transition_matrix(board)
    cb = Chain((P.data, P.indices, P.indptr)).compiled
    assert np.array_equal(cb.succ, board.compiled.succ)
    assert np.array_equal(expected_throws_all(Chain(P)), expected_throws_all(board))
