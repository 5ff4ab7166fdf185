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

import numpy as np

from .numba_config import njit
from .sizes import ordinary

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
    """Walker's alias table with Vose's pairing, for one distribution over ``k`` columns
    (``probs`` of shape ``(k,)``) or one per row (shape ``(rows, k)``, e.g. a chain's
    padded rows): ``(alias, thresh, fair)`` of ``probs``' shape.

    Column ``i`` keeps itself with probability ``q_i`` and gives way to ``alias[i]``
    otherwise, so a uniform column then that comparison draws face ``j`` with probability
    ``(q_j + sum of (1 - q_i) over the columns i aliased to j) / k``. The thresholds are
    ``floor(q_i * 2**64)`` (``2**64 - 1`` for a full column). Pairing, per row, from
    ``q = k * p``: the columns with ``q < 1`` (small) and the others (large) are stacks in
    increasing order; the top small is paired with the top large, which gives it
    ``1 - q_small`` (``q_large = (q_large + q_small) - 1``) and goes back on the small or
    large stack; what is left when one stack is empty (rounding) is full. ``fair`` says
    every column of every row is full (equal shares, or one column): a fair die needs no
    comparison.

    Two bodies side by side give the same table bit for bit (tests/naive.py
    ``alias_table_loop`` is their slow twin): NumPy, all rows pairing in lockstep (one step
    for every row per pairing, at most ``k - 1`` steps), for an ordinary table (at most
    ``ORDINARY_ENTRIES`` entries, :func:`~snl_numeric._core.sizes.ordinary`; nothing
    compiled), and a Numba loop row by row (``_alias_table_jit``) above;
    :func:`~snl_numeric.options` forces either.

    Examples
    --------
    >>> alias, thresh, fair = alias_table(np.array([0.5, 0.25, 0.25]))
    >>> alias.tolist(), (thresh / 2.0**64).tolist(), fair
    ([0, 0, 0], [1.0, 0.75, 0.75], False)
    >>> alias_table(np.full((2, 4), 0.25))[2]
    True
    """
    p = np.asarray(probs, dtype=np.float64)
    rows = p.reshape(-1, p.shape[-1])
    n, k = rows.shape
    q = np.ascontiguousarray(rows) * k
    alias = np.tile(np.arange(k, dtype=np.int64), (n, 1))
    top = np.iinfo(np.uint64).max
    if k == 1 or bool(np.all(q == 1.0)):
        return alias.reshape(p.shape), np.full(p.shape, top, dtype=np.uint64), True
    if not ordinary(n, k):
        thresh = np.empty((n, k), dtype=np.uint64)
        _alias_table_jit(q, alias, thresh)
        return alias.reshape(p.shape), thresh.reshape(p.shape), False
    is_small = q < 1.0
    n_small = is_small.sum(axis=1)
    # the stacks, flat, row r at r * k: smalls, then larges, each in increasing order
    small = np.argsort(~is_small, axis=1, kind="stable").ravel()
    large = small.reshape(n, k)[np.arange(n)[:, None],
                                np.minimum(n_small[:, None] + np.arange(k), k - 1)].ravel()
    q, alias = q.ravel(), alias.ravel()
    retired = np.zeros(n * k, dtype=np.bool_)  # paired as a small: keeps its q
    live = np.flatnonzero((n_small > 0) & (n_small < k))
    base, ns, nl = live * k, n_small[live] - 1, k - n_small[live] - 1  # (tops after a pop)
    while len(base):
        s = base + small[base + ns]
        g = base + large[base + nl]
        alias[s] = g - base
        retired[s] = True
        qg = (q[g] + q[s]) - 1.0
        q[g] = qg
        # g goes back on a stack: written on both (in the slots just popped), counted on one
        small[base + ns] = g - base
        large[base + nl] = g - base
        to_small = qg < 1.0
        ns = ns + to_small - 1
        nl = nl + ~to_small - 1
        keep = (ns >= 0) & (nl >= 0)
        base, ns, nl = base[keep], ns[keep], nl[keep]
    full = ~retired  # left on a stack: full columns
    q[full] = 0.0  # (q < 1 elsewhere: the product below stays below 2**64)
    thresh = (q * 2.0**64).astype(np.uint64)
    thresh[full] = top
    return alias.reshape(p.shape), thresh.reshape(p.shape), False


@njit()
def _alias_table_jit(q, alias, thresh):  # pragma: no cover - jitted
    """:func:`alias_table`'s pairing row by row: ``q`` (``k * probs``, shape ``(rows, k)``,
    overwritten) in, ``alias`` (each row ``0 .. k-1`` on entry) and ``thresh`` out."""
    k = q.shape[1]
    small = np.empty(k, dtype=np.int64)
    large = np.empty(k, dtype=np.int64)
    top = np.uint64(0xFFFFFFFFFFFFFFFF)
    for r in range(q.shape[0]):
        ns = 0
        nl = 0
        for i in range(k):
            if q[r, i] < 1.0:
                small[ns] = i
                ns += 1
            else:
                large[nl] = i
                nl += 1
        while ns > 0 and nl > 0:
            ns -= 1
            nl -= 1
            s, g = small[ns], large[nl]
            alias[r, s] = g
            thresh[r, s] = np.uint64(q[r, s] * 18446744073709551616.0)  # (0 <= q < 1)
            q[r, g] = (q[r, g] + q[r, s]) - 1.0
            if q[r, g] < 1.0:
                small[ns] = g
                ns += 1
            else:
                large[nl] = g
                nl += 1
        for j in range(ns):  # rounding leftovers: full columns
            thresh[r, small[j]] = top
        for j in range(nl):
            thresh[r, large[j]] = top


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
