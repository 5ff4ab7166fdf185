"""Many right-hand sides at once: one backward sweep over the squares and a low-rank
correction, in NumPy (nothing compiled).

Over the squares of the system, in their natural order, write ``A = B - R``: ``B`` holds
every pivot and every forward move (to a higher square), so it is upper triangular and
``B^-1`` is one sweep from the last square to the first, each square's row of the answer
formed from the rows of the squares its throws lead to, all right-hand sides at once;
``R`` holds the backward moves (snakes, and bounces off the goal), landing on ``k``
distinct squares ``D``, so ``R = C E_D^T`` has rank ``k``. By Woodbury, with
``W = B^-1 C``, ``Y = B^-1 b`` and ``h = B^-1 e`` (``e`` the probability of leaving the
system in one throw), all from the same sweep,

    A^-1 b = Y + W X,        (I - W[D]) X = Y[D],

where ``I - W[D]`` is an M-matrix whose row sums are ``h[D]`` exactly, eliminated by GTH
(:mod:`.gth`). Every step adds non-negative terms: for ``b >= 0`` each entry of the answer
keeps its relative accuracy, a few units in the last place per operation along the
longest chain of dependent operations (the sweep's ``m`` squares, then the capacitance
elimination of ``k`` unknowns and the final product), the same a priori bound as the
structured solver's Woodbury method.

The sweep takes the squares :data:`BLOCK` at a time (BLAS-3): a block ``J``'s rows of the
answer are one matrix product over all columns, of ``[B_JJ^-1, B_JJ^-1 P_J]`` with the
block's right-hand sides and the rows its moves lead to (``P_J``: those moves; the few
rows after the block are a slice, the rows of longer moves gathered). ``B_JJ^-1 >= 0``,
one sweep over the block's rows for all blocks at once, has each entry from a chain of at
most ``s`` rows (``s`` the block's squares) of ``2 f`` roundings each (a sum of at most
``f`` products, ``f`` the faces, and a division by a pivot, itself a sum of ``f``
probabilities); ``B_JJ^-1 P_J`` adds ``s`` and the product, a sum of at most ``s`` plus
``s f`` terms, the rest: at most ``s (3 f + 2)`` roundings per block, within the ``3 f + 4``
per square of :func:`sweep_bound` (the forward sweep, ``B^-T``, the same with the moves
into each block, at most ``f`` per square over the board). The work is ``m / BLOCK``
products of ``BLOCK x (BLOCK + f)`` over all columns plus ``2 m k`` flops per column: for a
board whose ``n`` right-hand sides are wanted at once (every jump one could add,
:mod:`snl_numeric.impact`), far less than ``n`` solves by a sparse LU whose factors the
snakes fill in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..blas import SERIAL_PRODUCT, matmul
from .certify import UNIT_ROUNDOFF, Solution, total_error
from .gth import gth_factor

__all__ = ["Swept", "sweep_bound", "sweep_solve"]

#: Dense products over many columns are taken a few columns at a time, each of at most
#: :data:`~snl_numeric._core.blas.SERIAL_PRODUCT` multiply-adds (OpenBLAS runs those on the
#: calling thread; see :mod:`snl_numeric._core.blas`), into arrays made once; sparse
#: products this many columns at a time (no new pages for a large result).
PRODUCT_COLUMNS = 128
#: The sweeps take the squares this many at a time: one matrix product per block over all
#: columns (a block's rows and the few after it), instead of one small product per square.
BLOCK = 16
#: The sweep is not used where its a priori bound is above this (a board of some 10^4
#: squares with a d6; below the warning threshold of 1e-10, as the rows it leaves in doubt
#: are solved again by the solver).
SWEEP_ERROR = 5e-11


def sweep_bound(unknowns: int, faces: int, k: int) -> float:
    """The a priori relative error of :func:`sweep_solve` (first order): per square of the
    sweep a sum of ``faces`` products and a division, each product's factors (a row's
    probabilities and pivot, sums of ``faces`` terms) counted too; then the elimination of
    the ``k x k`` capacitance system and the product ``W X`` (twice the sweep: both its
    factors come from it).

    Examples
    --------
    >>> 1e-14 < sweep_bound(1000, 6, 50) < 1e-11
    True
    """
    return UNIT_ROUNDOFF * (2 * unknowns * (3 * faces + 4) + 8 * (k + 1) + 10)


@dataclass(frozen=True)
class Swept(Solution):
    """A :func:`sweep_solve` answer, with each column's largest entry (read to check that
    the answer is finite)."""

    peak: np.ndarray = field(default_factory=lambda: np.zeros(0))


def sweep_solve(succ: np.ndarray, probs: np.ndarray, active: np.ndarray, b: sp.sparray,
                *, max_targets: int) -> Swept | None:
    """``A^-1 b`` for a sparse ``b >= 0`` of shape ``(n, m)`` (read on the system only),
    ``A`` the system of :func:`~snl_numeric._core.solve.system_solver` for the same
    ``succ``, ``probs`` (``(faces,)``) and ``active``: one sweep and a correction of rank
    ``k`` (see the module docstring), with its a priori certified relative error
    (componentwise) and each column's largest entry (:class:`Swept`); the answer is dense,
    zero off the system. ``None`` when the backward moves land on more than ``max_targets``
    squares (the correction would cost more than it saves), the a priori bound is above
    :data:`SWEEP_ERROR` or ``b`` has a negative entry.

    Examples
    --------
    >>> succ = np.array([[1, 2], [2, 0], [2, 2]])     # square 2 is the goal; 1 -> 0 back
    >>> sol = sweep_solve(succ, np.array([0.5, 0.5]), np.array([True, True, False]),
    ...                   sp.csr_array(np.array([[1.0], [1.0], [0.0]])), max_targets=4)
    >>> sol.x[:, 0].tolist(), sol.peak.tolist(), sol.error < 1e-14
    ([2.0, 2.0, 0.0], [2.0], True)
    """
    succ = np.asarray(succ)
    probs = np.asarray(probs, dtype=np.float64)
    n, faces = succ.shape
    states = np.flatnonzero(active)
    m, cols = len(states), b.shape[1]
    b_rows, b_cols, b_vals = _entries(b)
    if (b_vals < 0.0).any():
        return None
    if m == 0 or cols == 0:
        return Swept(np.zeros((n, cols)), 0, 0.0, 0.0, "sweep", np.zeros(cols))
    pos = np.full(n, m, dtype=np.intp)  # each square's place in the system, m off it
    pos[states] = np.arange(m)
    dest = succ.take(states, axis=0)
    to = pos.take(dest)
    moving = np.where(dest == states[:, None], 0.0, probs)  # not the faces that stay
    step = np.where(to < m, to - np.arange(m)[:, None], 0)
    back = (step < 0) & (moving > 0.0)
    targets, which = np.unique(to[back], return_inverse=True)
    k = len(targets)
    if k > max_targets or sweep_bound(m, faces, k) > SWEEP_ERROR:
        return None
    rows, faces_back = np.nonzero(back)
    fed, rank = np.unique(rows, return_inverse=True)  # the squares with a backward move
    c_back = sp.csr_array((moving[rows, faces_back], (rank, which)), shape=(len(fed), k))
    pivot = moving.sum(axis=1)
    # the window: the forward distances most squares' throws go (the faces); the longer
    # ones (ladders) are gathered block by block
    counts = np.bincount(step[step > 0], minlength=2)
    window = max(1, int(np.flatnonzero(counts >= max(1, m // 4)).max(initial=1)))
    ahead = (step > 0) & (moving > 0.0)
    plan = _plan(pivot, np.nonzero(ahead)[0], to[ahead], moving[ahead], window)
    on = pos[b_rows] < m
    b_rows, b_cols, b_vals = pos[b_rows[on]], b_cols[on], b_vals[on]
    first = np.zeros((len(plan.pivot) + window, cols))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if k:
            v = np.zeros((window + len(plan.pivot), k))  # B^-T E_D, row window + j: square j
            v[window + targets, np.arange(k)] = 1.0
            _sweep(plan.down, plan.behind, v, plan.size, window, range(len(plan.down)))
            v = v[window: window + m]
            vf = v.take(fed, axis=0)
            cap = -(c_back.T @ vf).T  # -W[D] = -(B^-1 C)[D] = -V^T C: I - W[D] off the diagonal
            # its row sums (B^-1 e)[D] (einsum: no BLAS, whose threads a product this
            # long would wake)
            slack = np.einsum("i,ij->j", np.sum(moving, axis=1, where=to == m), v)
            gth_factor(cap, slack)
            starts = np.zeros(cols + 1, dtype=np.intp)  # (b's entries column by column:
            np.cumsum(np.bincount(b_cols, minlength=cols), out=starts[1:])  # b^T's rows)
            b_t = sp.csr_array((b_vals, b_rows, starts), shape=(cols, m))
            x = _gth_apply(cap, np.ascontiguousarray((b_t @ v).T))  # Y[D] = V^T b
            for j in range(0, cols, PRODUCT_COLUMNS):  # b + C X on the squares with a
                part = slice(j, j + PRODUCT_COLUMNS)  # backward move (in parts: no new
                first[fed, part] = c_back @ x[:, part]  # pages for a large product)
        first[b_rows, b_cols] += b_vals  # (each entry once: b's duplicates were summed)
        _sweep(plan.up, plan.ahead, first, plan.size, 0, range(len(plan.up) - 1, -1, -1))
    y = first[:m]
    peak = y.max(axis=0)  # (y >= 0: its largest is finite unless some entry is not)
    if not np.isfinite(peak).all():
        return None
    if m == n - 1 and states[-1] == m - 1:  # every square but the last (the goal): in place
        out = first[:n]
    else:
        out = np.zeros((n, cols))
        out[states] = y
    return Swept(out, 0, total_error(sweep_bound(m, faces, k), faces), np.nan, "sweep", peak)


def _entries(b: sp.sparray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, cols, values)`` of ``b``'s entries, each once (duplicates summed), column by
    column (each column's rows ascending)."""
    if not (isinstance(b, sp.csc_array) and b.has_canonical_format):
        b = sp.csc_array(b, copy=True)
        b.sum_duplicates()
    return b.indices, np.repeat(np.arange(b.shape[1]), np.diff(b.indptr)), b.data


@dataclass(frozen=True)
class _Plan:
    """``B`` cut into blocks of ``size`` squares (the last padded with squares that have no
    move and pivot 1), for the two sweeps. Per block ``J`` (squares ``J size ..``):

    - ``up[J] = [B_JJ^-1, B_JJ^-1 P_J]`` over the rows ``ahead[J]``: the block's own (its
      right-hand sides), then those its moves lead to (``P_J``: their probabilities): the
      ``window`` rows after the block, then any further ones (``ahead[J]`` is ``None``
      where there are none: a slice of the array);
    - ``down[J] = [B_JJ^-T Q_J, B_JJ^-T]`` over the rows ``behind[J]`` of the forward
      sweep's array (whose first ``window`` rows are zero and row ``window + j`` is square
      ``j``): the ``window`` rows before the block, the block's own, then any rows before
      the window with moves into the block (``Q_J``: the moves into the block, transposed).

    ``B_JJ^-1`` (upper triangular, ``>= 0``) is one backward sweep over the block's rows,
    all blocks at once."""

    size: int
    window: int
    pivot: np.ndarray
    up: list[np.ndarray]
    ahead: list[np.ndarray | None]
    down: list[np.ndarray]
    behind: list[np.ndarray | None]


def _plan(pivot: np.ndarray, rows: np.ndarray, cols: np.ndarray, probs: np.ndarray,
          window: int) -> _Plan:
    """The blocks of ``B`` (see :class:`_Plan`) from its pivots and forward moves
    ``rows -> cols`` (``cols > rows``) of probabilities ``probs`` (several moves between
    two squares are summed)."""
    m = len(pivot)
    size = min(BLOCK, m)
    nb = -(-m // size)
    flat = np.ones(nb * size)
    flat[:m] = pivot
    piv = flat.reshape(nb, size)
    br, bc = rows // size, cols // size
    same = br == bc
    inner = np.bincount((br[same] * size + rows[same] % size) * size + cols[same] % size,
                        probs[same], nb * size * size).reshape(nb, size, size)
    inv = np.zeros((nb, size, size))
    for r in range(size - 1, -1, -1):  # each row its unit plus the rows its moves lead to
        acc = np.matmul(inner[:, r: r + 1, r + 1:], inv[:, r + 1:, :])[:, 0, :]
        acc[:, r] += 1.0
        np.divide(acc, piv[:, r, None], out=inv[:, r, :])
    out = ~same
    # backward: the block's rows, the window after it, then the rows beyond; forward (in
    # the array's rows: square j is row window + j): the window before the block, its rows,
    # then the rows before the window
    up, ahead = _outside(inv, br[out], rows[out], cols[out], cols[out] - (br[out] + 1) * size,
                         probs[out], nb, window, 0)
    down, behind = _outside(inv.transpose(0, 2, 1), bc[out], cols[out], rows[out] + window,
                            rows[out] - (bc[out] * size - window), probs[out], nb, window,
                            window)
    return _Plan(size, window, flat, up, ahead, down, behind)


def _outside(inv: np.ndarray, block: np.ndarray, own: np.ndarray, other: np.ndarray,
             place: np.ndarray, probs: np.ndarray, nb: int, window: int, own_at: int
             ) -> tuple[list[np.ndarray], list[np.ndarray | None]]:
    """One sweep's matrices and rows (``up`` and ``ahead``, or ``down`` and ``behind``, of
    :class:`_Plan`) from the moves between blocks: square ``own`` of ``block`` reads the
    array's row ``other`` with probability ``probs``, its ``place`` in the window beside
    the block (outside ``[0, window)``: gathered after the block's rows and the window).
    ``inv`` (``B_JJ^-1`` or ``B_JJ^-T``) takes the ``own_at``-th column of the block's own
    rows. Each matrix is over its block's rows only (a view, rows of a common width)."""
    size = inv.shape[1]
    width = size + window
    far = (place < 0) | (place >= window)
    block_far, other_far = block[far], other[far]
    col = place.copy()
    count, first = np.zeros(nb, dtype=np.intp), np.zeros(nb + 1, dtype=np.intp)
    distinct = np.zeros(0, dtype=np.intp)  # each block's far rows, sorted, block by block
    if len(block_far):  # each far row's place among the distinct ones of its block
        span = int(other_far.max()) + 1
        keys, which = np.unique(block_far * span + other_far, return_inverse=True)
        kb = keys // span
        first = np.searchsorted(kb, np.arange(nb + 1))
        count = np.diff(first)
        col[far] = window + which - first[block_far]
        distinct = keys - kb * span
    # [mat's columns before own_at, the identity, the others]: inv times it is the matrix
    # (a product by 1 and 0 is exact)
    wide = size + window + int(count.max(initial=0))
    col += np.where(col >= own_at, size, 0)
    mat = np.bincount((block * size + own % size) * wide + col, probs, nb * size * wide)
    mat = mat.reshape(nb, size, wide)
    mat[:, np.arange(size), own_at + np.arange(size)] = 1.0
    full = inv @ mat
    idx: list[np.ndarray | None] = [None] * nb  # None: the width rows from the block's start
    for j in np.flatnonzero(count).tolist():  # the width rows from its start, then its far rows
        idx[j] = np.concatenate([np.arange(j * size, j * size + width),
                                 distinct[first[j]: first[j + 1]]])
    return [full[j, :, : width + count[j]] for j in range(nb)], idx


def _sweep(mats: list[np.ndarray], idx: list[np.ndarray | None], arr: np.ndarray,
           size: int, at: int, order: range) -> None:
    """One sweep over ``arr`` in place, block ``j`` in ``order``: the product of ``mats[j]``
    with the rows it reads (``idx[j]``; ``None``: the ``size + window`` rows from
    ``j size``) into its ``size`` rows from ``at + j size``."""
    cols = arr.shape[1]
    tmp = np.empty((size, cols))  # (a product into its own operand is not BLAS's)
    for j in order:
        rows, mat = idx[j], mats[j]
        dst = arr[at + j * size: at + (j + 1) * size]
        if rows is None:
            src, out = arr[j * size: j * size + mat.shape[1]], tmp
        else:  # (gathered: a copy, so the product goes straight into the block's rows)
            src, out = arr.take(rows, axis=0), dst
        step = max(1, SERIAL_PRODUCT // mat.size)
        for c in range(0, cols, step):
            np.matmul(mat, src[:, c: c + step], out=out[:, c: c + step])
        if rows is None:
            dst[...] = tmp


def _gth_apply(lu: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``A^-1 y`` from :func:`~.gth.gth_factor`'s packed factors, through the inverses of the
    triangular factors (``>= 0``, each row a sum of non-negative terms) and their product
    ``A^-1 = U^-1 L^-1 >= 0``, then one matrix product: each entry of the answer, like
    ``U^-1 (L^-1 y)``, two levels of sums of at most ``k`` non-negative products, at half
    the work over many columns (cheaper here than LAPACK's triangular solves; einsum and
    :func:`~snl_numeric._core.blas.matmul`'s panels: one thread)."""
    k = len(lu)
    low, up = np.eye(k), np.eye(k)
    for i in range(1, k):  # L^-1: unit lower triangular, L <= 0 below the diagonal
        low[i, :i] = -np.einsum("j,jk->k", lu[i, :i], low[:i, :i])
    for i in range(k - 1, -1, -1):  # U^-1: U <= 0 above its positive diagonal
        up[i, i + 1:] = -np.einsum("j,jk->k", lu[i, i + 1:], up[i + 1:, i + 1:])
        up[i] /= lu[i, i]
    return matmul(matmul(up, low), y)
