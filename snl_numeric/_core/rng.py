"""The package's one random stream inside kernels: xoshiro256**, seeded from a
``numpy.random.SeedSequence``; Lemire's exactly uniform integers and Walker's alias table
on top of it.

A stream is four 64-bit words (:func:`stream_words`). The simulation kernel keeps them in
scalars through its hot loop (:func:`xoshiro`, :func:`column`, :func:`alias_pick`);
the layout search keeps one stream per chain in a row of a ``(streams, 4)`` array
(:func:`row_uniform`, :func:`row_below`). See :mod:`snl_numeric.simulate` for how faces
are drawn and streams seeded.
"""

from __future__ import annotations

import math

import numpy as np

from .numba_config import njit

U32 = np.uint64(32)
MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_R17 = np.uint64(17)
_R7 = np.uint64(7)
_R57 = np.uint64(57)
_R45 = np.uint64(45)
_R19 = np.uint64(19)
_FIVE = np.uint64(5)
_NINE = np.uint64(9)
_ELEVEN = np.uint64(11)


# -- random numbers ------------------------------------------------------------
@njit(inline="always")
def xoshiro(s0, s1, s2, s3):  # pragma: no cover - jitted
    """One xoshiro256** step: ``(value, s0, s1, s2, s3)``."""
    x = s1 * _FIVE
    r = ((x << _R7) | (x >> _R57)) * _NINE
    t = s1 << _R17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << _R45) | (s3 >> _R19)
    return r, s0, s1, s2, s3


@njit()
def _reject(m, k, s0, s1, s2, s3):  # pragma: no cover - jitted
    """Lemire's rejection step (rare, not inlined): redraw until unbiased."""
    bound = (_TWO32 - k) % k
    while (m & MASK32) < bound:
        r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
        m = (r >> U32) * k
    return m, s0, s1, s2, s3


@njit(inline="always")
def column(x, k, s0, s1, s2, s3):  # pragma: no cover - jitted
    """Exactly uniform ``0 .. k-1`` from 32 random bits ``x`` (Lemire's method)."""
    m = x * k
    if (m & MASK32) < k:
        m, s0, s1, s2, s3 = _reject(m, k, s0, s1, s2, s3)
    return np.intp(m >> U32), s0, s1, s2, s3


@njit()
def alias_pick(f, r, th, other, s0, s1, s2, s3):  # pragma: no cover - jitted
    """The face of alias column ``f`` (threshold ``th``, alias ``other``), given the
    64-bit word ``r`` whose high 32 bits chose the column.

    The low 32 bits are the top of a 64-bit uniform compared with the column's
    threshold, extended by a fresh word only on a tie (probability 2**-32), so
    the comparison is exact. Scalars only: an array passed to an inlined helper
    costs reference counting in the hot loop.
    """
    low = r & MASK32
    top = th >> U32
    if low > top:
        f = other
    elif low == top:
        f, s0, s1, s2, s3 = _tie(f, other, th, s0, s1, s2, s3)
    return f, s0, s1, s2, s3


@njit()
def _tie(f, other, th, s0, s1, s2, s3):  # pragma: no cover - jitted
    """The low 32 bits of the threshold decide (probability 2**-32, not inlined)."""
    r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
    if (r >> U32) >= (th & MASK32):
        f = other
    return f, s0, s1, s2, s3


def alias_table(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Walker/Vose alias table: ``(alias, thresh, fair)`` with 64-bit thresholds."""
    k = len(probs)
    scaled = probs * k
    if np.all(scaled == 1.0) or k == 1:
        return np.arange(k, dtype=np.intp), np.full(k, np.iinfo(np.uint64).max, np.uint64), True
    q = scaled.astype(np.float64).copy()
    alias = np.arange(k, dtype=np.intp)
    small = [i for i in range(k) if q[i] < 1.0]
    large = [i for i in range(k) if q[i] >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        alias[s] = g
        q[g] = (q[g] + q[s]) - 1.0
        (small if q[g] < 1.0 else large).append(g)
    for i in small + large:  # rounding leftovers: full columns
        q[i] = 1.0
    top = 2**64 - 1
    thresh = np.array([min(int(math.ldexp(float(x), 64)), top) for x in q], dtype=np.uint64)
    return alias, thresh, False


def stream_words(ss: np.random.SeedSequence) -> np.ndarray:
    """The four words of a xoshiro256** stream from ``ss`` (never the one forbidden state,
    all zero).

    Examples
    --------
    >>> words = stream_words(np.random.SeedSequence(1))
    >>> words.dtype, words.shape, bool(words.any())
    (dtype('uint64'), (4,), True)
    """
    words = ss.generate_state(4, np.uint64)
    if not words.any():  # xoshiro's one forbidden state
        words[0] = 1
    return words


@njit()
def row_uniform(state, c):  # pragma: no cover - jitted
    """A uniform float in ``[0, 1)`` (53 bits) from the stream in row ``c`` of ``state``,
    which advances."""
    r, s0, s1, s2, s3 = xoshiro(state[c, 0], state[c, 1], state[c, 2], state[c, 3])
    state[c, 0], state[c, 1], state[c, 2], state[c, 3] = s0, s1, s2, s3
    return float(r >> _ELEVEN) * (1.0 / 9007199254740992.0)


@njit()
def row_below(state, c, n):  # pragma: no cover - jitted
    """An integer exactly uniform over ``0 .. n - 1`` (``1 <= n < 2**32``, Lemire's method
    on the top 32 bits of a word) from the stream in row ``c`` of ``state``, which
    advances."""
    r, s0, s1, s2, s3 = xoshiro(state[c, 0], state[c, 1], state[c, 2], state[c, 3])
    v, s0, s1, s2, s3 = column(r >> U32, np.uint64(n), s0, s1, s2, s3)
    state[c, 0], state[c, 1], state[c, 2], state[c, 3] = s0, s1, s2, s3
    return v
