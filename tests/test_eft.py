"""Error-free transformations (``_core/solve/eft.py``): the NumPy bodies against exact
rationals, and their Numba twins against the NumPy bodies, bit for bit."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snl_numeric._core.numba_config import njit
from snl_numeric._core.solve.eft import (
    dd_add,
    dd_add_jit,
    two_prod,
    two_prod_jit,
    two_sum,
    two_sum_jit,
)


@njit(cache=False)  # made, with the package's kernels, when first called
def _pairs_jit(a, b, out):
    """The kernels' ``two_sum`` and ``two_prod`` (one fused multiply-add) element-wise."""
    for i in range(a.shape[0]):
        s, e = two_sum_jit(a[i], b[i])
        p, f = two_prod_jit(a[i], b[i])
        out[0, i], out[1, i], out[2, i], out[3, i] = s, e, p, f


def _doubles(low, high):
    """Doubles of either sign with magnitudes in ``[low, high]`` (and zero)."""
    mag = st.floats(low, high, allow_nan=False, allow_infinity=False)
    return st.one_of(st.just(0.0), mag, mag.map(lambda v: -v))


# sums: any magnitudes short of overflow; products: the error term stays a normal double
# (|a b| above 2**-969) and Dekker's split does not overflow (|a|, |b| below 2**996)
SUMMANDS = st.lists(st.tuples(_doubles(1e-300, 1e300), _doubles(1e-300, 1e300)),
                    min_size=1, max_size=20)
FACTORS = st.lists(st.tuples(_doubles(1e-140, 1e140), _doubles(1e-140, 1e140)),
                   min_size=1, max_size=20)


def _columns(pairs):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    return a, b


@settings(max_examples=200, deadline=None)
@given(SUMMANDS)
def test_two_sum_is_exact(pairs):
    a, b = _columns(pairs)
    s, e = two_sum(a, b)
    np.testing.assert_array_equal(s, a + b)  # the rounded sum
    for i in range(len(a)):
        assert Fraction(s[i]) + Fraction(e[i]) == Fraction(a[i]) + Fraction(b[i])
        assert two_sum(float(a[i]), float(b[i])) == (s[i], e[i])  # scalars too
    out = np.empty((4, len(a)))
    _pairs_jit(a, b, out)
    np.testing.assert_array_equal(out[0].view(np.uint64), s.view(np.uint64))
    np.testing.assert_array_equal(out[1].view(np.uint64), e.view(np.uint64))


@settings(max_examples=200, deadline=None)
@given(FACTORS)
def test_two_prod_is_exact_and_its_fused_twin_agrees(pairs):
    a, b = _columns(pairs)
    p, e = two_prod(a, b)
    np.testing.assert_array_equal(p, a * b)
    for i in range(len(a)):
        assert Fraction(p[i]) + Fraction(e[i]) == Fraction(a[i]) * Fraction(b[i])
    out = np.empty((4, len(a)))
    _pairs_jit(a, b, out)
    np.testing.assert_array_equal(out[2], p)
    np.testing.assert_array_equal(out[3], e)  # Dekker's split and the fused multiply-add


def test_two_prod_splits_the_hardest_factors():
    # factors with full 53-bit significands, whose product's error needs every bit
    a = np.array([1.0 - 2.0**-53, 2.0**52 + 1.0, np.nextafter(3.0, 4.0), -1e140])
    b = np.array([1.0 - 2.0**-53, 2.0**52 - 1.0, np.nextafter(1 / 3, 1.0), 1e-140 / 3])
    p, e = two_prod(a, b)
    assert (e != 0.0).all()
    for i in range(len(a)):
        assert Fraction(p[i]) + Fraction(e[i]) == Fraction(a[i]) * Fraction(b[i])
    out = np.empty((4, len(a)))
    _pairs_jit(a, b, out)
    np.testing.assert_array_equal(out[3], e)
    assert two_sum(1.0, 2.0**-53) == (1.0, 2.0**-53)  # a tie rounded to even: all in e


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_dd_add_twins_agree_bit_for_bit_and_are_exact(n, seed):
    # dd_add_jit against dd_add, bit for bit, and (hi + lo) + dx exact to about 2**-104 of
    # its size, in rationals
    rng = np.random.default_rng(seed)
    hi = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 8, n)
    lo = hi * 2.0**-54 * rng.uniform(-1, 1, n)
    dx = np.where(rng.random(n) < 0.5, hi * 1e-9, rng.standard_normal(n)) * rng.uniform(-1, 1, n)
    want_hi, want_lo = dd_add(hi, lo, dx.copy())
    got_hi, got_lo = dx.copy(), np.empty(n)
    dd_add_jit(hi, lo, got_hi, got_lo)
    np.testing.assert_array_equal(got_hi.view(np.uint64), want_hi.view(np.uint64))
    np.testing.assert_array_equal(got_lo.view(np.uint64), want_lo.view(np.uint64))
    for i in range(n):
        exact = Fraction(hi[i]) + Fraction(lo[i]) + Fraction(dx[i])
        assert abs(Fraction(got_hi[i]) + Fraction(got_lo[i]) - exact) <= 2.0**-100 * abs(exact)
        assert abs(got_lo[i]) <= 2.0**-53 * abs(got_hi[i])  # hi: the pair's leading part


def test_dd_add_keeps_what_a_double_loses():
    h, l = dd_add(np.array([1.0, 1e16]), np.array([2.0**-60, 0.0]), np.array([2.0**-70, 1.0]))
    assert h.tolist() == [1.0, 1e16] and l.tolist() == [2.0**-60 + 2.0**-70, 1.0]


@pytest.mark.parametrize("n", [0, 1, 7])
def test_dd_add_jit_writes_in_place(n):
    hi, lo, dx = np.arange(n, dtype=float), np.zeros(n), np.full(n, 0.5)
    out_lo = np.full(n, np.nan)
    dd_add_jit(hi, lo, dx, out_lo)
    assert dx.tolist() == (np.arange(n) + 0.5).tolist() and out_lo.tolist() == [0.0] * n
