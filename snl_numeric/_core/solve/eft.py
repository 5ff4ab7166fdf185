"""Error-free transformations: sums and products of doubles kept exactly as pairs.

For doubles ``a`` and ``b`` (no overflow, no underflow of the error term):

- ``two_sum(a, b) = (s, e)`` with ``s = fl(a + b)`` and ``s + e = a + b`` exactly (Knuth's
  six operations, whatever the magnitudes);
- ``two_prod(a, b) = (p, e)`` with ``p = fl(a * b)`` and ``p + e = a * b`` exactly;
- ``dd_add(hi, lo, dx)``: the double-double ``hi + lo`` plus the double ``dx``, as a new
  pair ``(h, l)`` within about ``2**-104`` of ``hi + lo + dx``.

Each is written for NumPy (element-wise over arrays, or on scalars) with its Numba twin
beside it, for kernels, where it is inlined; the twins give the same numbers bit for bit.
:func:`two_sum_jit` compiles :func:`two_sum`'s own body; :func:`two_prod` forms the error
by Dekker's split of each factor (17 operations: NumPy has no fused multiply-add) and
:func:`two_prod_jit` by one fused multiply-add, both exactly; :func:`dd_add` makes three
NumPy passes, :func:`dd_add_jit` one loop.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..numba_config import intrinsic, njit, overload

__all__ = ["dd_add", "dd_add_jit", "two_prod", "two_prod_jit", "two_sum", "two_sum_jit"]

_SPLIT = 134217729.0  # 2**27 + 1


def two_sum(a, b):
    """``(s, e)``: ``s = a + b`` rounded and ``e`` its rounding error, ``s + e = a + b``.

    Examples
    --------
    >>> two_sum(1.0, 2.0**-60) == (1.0, 2.0**-60)
    True
    """
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def two_prod(a, b):
    """``(p, e)``: ``p = a * b`` rounded and ``e`` its rounding error, ``p + e = a * b``
    (Dekker's split).

    Examples
    --------
    >>> x = 1.0 + 2.0**-30
    >>> two_prod(x, x) == (1.0 + 2.0**-29, 2.0**-60)
    True
    """
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def dd_add(hi: np.ndarray, lo: np.ndarray, dx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(hi + lo) + dx`` as a new double-double pair: ``two_sum(hi, dx)``, its error plus
    ``lo``, renormalised. ``dx`` is overwritten (three new arrays are made: at 10^7
    squares each is 80 MB).

    Examples
    --------
    >>> h, l = dd_add(np.array([1.0]), np.array([0.0]), np.array([2.0**-60]))
    >>> h.tolist(), l.tolist() == [2.0**-60]
    ([1.0], True)
    """
    s = hi + dx  # s, err = two_sum(hi, dx), in place where it can be
    bb = s - hi
    err = s - bb
    np.subtract(hi, err, out=err)
    np.subtract(dx, bb, out=dx)
    err += dx
    err += lo  # the new lo
    np.add(s, err, out=bb)  # the new hi
    np.subtract(bb, s, out=s)
    err -= s
    return bb, err


# -- the Numba twins ------------------------------------------------------------------------
two_sum_jit = njit(inline="always")(two_sum)


def _fma(a, b, c):
    """``a * b + c`` rounded once. As Python (``NUMBA_DISABLE_JIT``), in rationals; in a
    kernel, LLVM's ``llvm.fma`` (the instruction, or the C library's correctly rounded
    ``fma`` where the processor has none)."""
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    return float(Fraction(a) * Fraction(b) + Fraction(c))


@intrinsic
def _llvm_fma(typingctx, a, b, c):  # pragma: no cover - runs when a kernel compiles
    from llvmlite import ir
    from numba import types

    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        d = ir.DoubleType()
        fn = builder.module.declare_intrinsic("llvm.fma", [d], ir.FunctionType(d, [d, d, d]))
        return builder.call(fn, args)

    return sig, codegen


@overload(_fma)
def _fma_overload(a, b, c):  # pragma: no cover - runs when a kernel compiles
    return lambda a, b, c: _llvm_fma(a, b, c)


@njit(inline="always")
def two_prod_jit(a, b):  # pragma: no cover - jitted
    """:func:`two_prod` for kernels: the error of a product is exact under a fused
    multiply-add, the same ``e`` as Dekker's split."""
    p = a * b
    return p, _fma(a, b, -p)


@njit()
def dd_add_jit(hi, lo, dx, out_lo):  # pragma: no cover - jitted
    """:func:`dd_add` in one pass, bit for bit, the high part into ``dx`` and the low into
    ``out_lo``, making no new array."""
    for i in range(hi.shape[0]):
        s, e = two_sum_jit(hi[i], dx[i])
        e += lo[i]
        h = s + e
        dx[i] = h
        out_lo[i] = e - (h - s)
