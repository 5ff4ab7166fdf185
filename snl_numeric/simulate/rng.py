"""Random numbers for the simulation kernel: xoshiro256**, Lemire, Walker's alias table.

See :mod:`snl_numeric.simulate` for how faces are drawn and streams seeded.
"""

from __future__ import annotations

import math

import numpy as np

from .._core.numba_config import njit

#: Number of blocks the games are split into, each with its own random stream
#: (fixed: results never depend on the number of threads).
BLOCKS = 256

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


def block_seeds(ss: np.random.SeedSequence, bounds: np.ndarray) -> np.ndarray:
    """Four xoshiro256** words per non-empty block, from child ``spawn_key + (b,)``."""
    seeds = np.zeros((len(bounds) - 1, 4), dtype=np.uint64)
    for b in np.flatnonzero(np.diff(bounds)).tolist():
        child = np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, b),
                                       pool_size=ss.pool_size)
        words = child.generate_state(4, np.uint64)
        if not words.any():  # xoshiro's one forbidden state
            words[0] = 1
        seeds[b] = words
    return seeds
