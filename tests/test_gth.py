"""GTH elimination (``_core/solve/gth.py``): the NumPy body and its Numba twin against exact
rational elimination (``naive.gauss_jordan``) and against each other."""

from __future__ import annotations

from fractions import Fraction

import naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snl_numeric._core.solve.gth import gth_factor, gth_factor_jit, gth_solve, gth_solve_jit

U = 2.0**-53


@st.composite
def m_matrices(draw, max_size=12):
    """``(g, slack)``: ``A = diag(g 1 + slack) - g`` over ``m`` unknowns, ``g >= 0`` off the
    diagonal, every row leaking to the last (``slack > 0`` there, or a move to the next
    row): a nonsingular M-matrix. Some slacks are tiny, so ``A^-1`` has entries up to
    ~1e13 or more."""
    m = draw(st.integers(1, max_size))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    g = np.where(rng.random((m, m)) < draw(st.sampled_from([0.2, 0.5, 1.0])),
                 rng.choice([1 / 6, 1 / 3, 0.5, 1e-3, 1.0]) * rng.random((m, m)), 0.0)
    np.fill_diagonal(g, 0.0)
    slack = rng.choice([0.0, 1e-13, 1e-6, 0.25, 1.0], m) * rng.random(m)
    slack[-1] = max(slack[-1], 1e-9)
    for i in range(m - 1):
        if slack[i] == 0.0 and g[i, i + 1] == 0.0:
            g[i, i + 1] = 0.125
    return g, slack


def _exact(g, slack):
    """``A`` in rationals."""
    m = len(g)
    a = [[-Fraction(g[i, j]) for j in range(m)] for i in range(m)]
    for i in range(m):
        a[i][i] = Fraction(slack[i]) + sum(Fraction(v) for v in g[i])
    return a


def _exact_solve(a, b, trans):
    m = len(a)
    rows = [[a[j][i] if trans else a[i][j] for j in range(m)] + [Fraction(b[i])]
            for i in range(m)]
    return naive.gauss_jordan(rows)


def _exact_lu(a):
    """Doolittle's ``A = L U`` without row exchanges, in rationals."""
    m = len(a)
    u = [row[:] for row in a]
    low = [[Fraction(0)] * m for _ in range(m)]
    for k in range(m):
        for i in range(k + 1, m):
            low[i][k] = u[i][k] / u[k][k]
            u[i] = [v - low[i][k] * w for v, w in zip(u[i], u[k], strict=True)]
    return low, u


def _factor_both(g, slack):
    """The NumPy body's and the Numba twin's packed factors and pivots."""
    lu = -g  # A's off-diagonal entries; the diagonal (0 here) is not read
    np.fill_diagonal(lu, 7.0)
    piv = gth_factor(lu, slack.copy())
    lu_jit = -g
    np.fill_diagonal(lu_jit, -7.0)
    piv_jit = np.empty(len(g))
    gth_factor_jit(lu_jit, slack.copy(), piv_jit)
    return lu, piv, lu_jit, piv_jit


def _bound(m):
    """The a priori relative error of a factor entry or a solve with ``b >= 0``: a few
    units in the last place per operation along the longest chain (the solvers' model)."""
    return U * (6 * m + 16)


def _close(got, want, bound):
    """Each entry of ``got`` within ``bound`` relative of the rational ``want`` (exactly 0
    where that is)."""
    for v, w in zip(np.ravel(got), want, strict=True):
        if w == 0:
            assert v == 0.0
        else:
            assert abs(Fraction(v) - w) <= bound * abs(w), (v, float(w))


@settings(max_examples=120, deadline=None)
@given(m_matrices())
def test_the_factors_are_the_exact_lu_to_a_few_roundings_per_step(system):
    g, slack = system
    m = len(g)
    low, up = _exact_lu(_exact(g, slack))
    for lu, piv in _factor_both(g, slack)[:2], _factor_both(g, slack)[2:]:
        assert (piv > 0).all() and (np.diag(lu) == piv).all()  # the pivots, on the diagonal
        assert (np.tril(lu, -1) <= 0).all() and (np.triu(lu, 1) <= 0).all()  # no cancellation
        _close(np.diag(lu), [up[k][k] for k in range(m)], _bound(m))
        below = [(i, k) for i in range(m) for k in range(i)]
        _close([lu[i, k] for i, k in below], [low[i][k] for i, k in below], _bound(m))
        above = [(k, j) for k in range(m) for j in range(k + 1, m)]
        _close([lu[k, j] for k, j in above], [up[k][j] for k, j in above], _bound(m))


@settings(max_examples=120, deadline=None)
@given(m_matrices(), st.booleans(), st.integers(0, 2**32 - 1))
def test_solves_keep_every_entrys_relative_accuracy(system, trans, seed):
    g, slack = system
    m = len(g)
    rng = np.random.default_rng(seed)
    b = np.where(rng.random(m) < 0.3, 0.0, rng.random(m))  # >= 0: cancellation-free
    exact = _exact_solve(_exact(g, slack), b, trans)
    lu, _, lu_jit, piv_jit = _factor_both(g, slack)
    x = gth_solve(lu, b, trans)
    x_jit = b.copy()
    gth_solve_jit(lu_jit, piv_jit, x_jit, trans)
    _close(x, exact, _bound(m))
    _close(x_jit, exact, _bound(m))
    # the twins, each other's: within both bounds
    np.testing.assert_allclose(x_jit, x, rtol=2 * _bound(m), atol=0)
    # several columns at once (NumPy: LAPACK's matrix solve)
    cols = gth_solve(lu, np.column_stack([b, 2 * b]), trans)
    _close(cols[:, 0], exact, _bound(m))
    _close(cols[:, 1], [2 * v for v in exact], _bound(m))


def test_a_chain_of_squares_closed_form():
    # a walk on 0 .. m-1 that moves up with p, down with q and leaves from the top with p
    # (and stays otherwise): from the bottom, the expected steps to leave are known in
    # closed form, sum_k (1 - (q/p)**(k+1)) / (p - q) over k < m
    m, p, q = 9, 0.5, 0.25
    g = np.zeros((m, m))
    for i in range(m - 1):
        g[i, i + 1] = p
        g[i + 1, i] = q
    slack = np.zeros(m)
    slack[-1] = p
    want = sum((1 - (q / p) ** (k + 1)) / (p - q) for k in range(m))
    lu, _, lu_jit, piv_jit = _factor_both(g, slack)
    x = gth_solve(lu, np.ones(m))
    x_jit = np.ones(m)
    gth_solve_jit(lu_jit, piv_jit, x_jit, False)
    assert x[0] == pytest.approx(want, rel=_bound(m)) and x_jit[0] == pytest.approx(want,
                                                                                     rel=_bound(m))


def test_a_pivot_of_zero_gives_inf_in_a_kernel():
    # a row that never leaks (a singular A): IEEE division in the kernel, no exception
    lu, piv, x = np.zeros((2, 2)), np.empty(2), np.ones(2)
    gth_factor_jit(lu, np.array([0.0, 1.0]), piv)
    gth_solve_jit(lu, piv, x, False)
    assert piv[0] == 0.0 and x[0] == np.inf


@pytest.mark.parametrize("trans", [False, True])
def test_a_pivot_of_zero_gives_inf_in_the_numpy_body(trans):
    # the same singular A: no answer, no exception (the direct solver then reports it)
    lu = np.zeros((2, 2))
    gth_factor(lu, np.array([0.0, 1.0]))
    x = gth_solve(lu, np.ones((2, 3)), trans)
    assert lu[0, 0] == 0.0 and x.shape == (2, 3) and np.isinf(x).all()


def test_a_pivot_of_zero_with_multipliers_below_warns_nothing():
    # square 0 never leaks and square 1 moves to it: its multiplier divides by the pivot 0
    # (the NumPy body keeps IEEE's inf and NaN silent, as the kernel does)
    import warnings

    lu = np.array([[0.0, 0.0], [-1.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        piv = gth_factor(lu, np.array([0.0, 0.0]))
        x = gth_solve(lu, np.ones(2))
    assert piv[0] == 0.0 and np.isinf(x).all()
