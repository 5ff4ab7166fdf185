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
structured solver's Woodbury method. The work is ``m`` row operations over all columns
plus ``2 m k`` flops per column: for a board whose ``n`` right-hand sides are wanted at
once (every jump one could add, :mod:`snl_numeric.impact`), far less than ``n`` solves by
a sparse LU whose factors the snakes fill in.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .certify import UNIT_ROUNDOFF, Solution, total_error
from .gth import gth_factor

__all__ = ["sweep_bound", "sweep_solve"]

#: Matrix products over many columns are taken this many columns at a time: OpenBLAS runs
#: each on one thread, and waking its other threads costs more than these small products
#: (on a loaded machine, tens of milliseconds of CPU time for one 50 x 50 x 1000 product).
PRODUCT_COLUMNS = 128
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


def sweep_solve(succ: np.ndarray, probs: np.ndarray, active: np.ndarray, b: sp.sparray,
                *, max_targets: int) -> Solution | None:
    """``A^-1 b`` for a sparse ``b >= 0`` of shape ``(n, m)`` (read on the system only),
    ``A`` the system of :func:`~snl_numeric._core.solve.system_solver` for the same
    ``succ``, ``probs`` (``(faces,)``) and ``active``: one sweep and a correction of rank
    ``k`` (see the module docstring), with its a priori certified relative error
    (componentwise); the answer is dense, zero off the system. ``None`` when the backward
    moves land on more than ``max_targets`` squares (the correction would cost more than it
    saves), the a priori bound is above :data:`SWEEP_ERROR` or ``b`` has a negative entry.

    Examples
    --------
    >>> succ = np.array([[1, 2], [2, 0], [2, 2]])     # square 2 is the goal; 1 -> 0 back
    >>> sol = sweep_solve(succ, np.array([0.5, 0.5]), np.array([True, True, False]),
    ...                   sp.csr_array(np.array([[1.0], [1.0], [0.0]])), max_targets=4)
    >>> sol.x[:, 0].tolist(), sol.error < 1e-14
    ([2.0, 2.0, 0.0], True)
    """
    succ = np.asarray(succ)
    probs = np.asarray(probs, dtype=np.float64)
    b = sp.coo_array(b)
    n, faces = succ.shape
    states = np.flatnonzero(active)
    m, cols = len(states), b.shape[1]
    if (b.data < 0.0).any():
        return None
    if m == 0 or cols == 0:
        return Solution(np.zeros((n, cols)), 0, 0.0, 0.0, "sweep")
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
    # the band: the forward distances most squares' throws go (the faces); the longer
    # ones (ladders) are added row by row
    counts = np.bincount(step[step > 0], minlength=2)
    band = max(1, int(np.flatnonzero(counts >= max(1, m // 4)).max(initial=1)))
    near = (step > 0) & (step <= band)
    coef = np.zeros((m, band + 1))  # over the rows i .. i + band, then over the pivot
    np.add.at(coef, (np.nonzero(near)[0], step[near]), moving[near])
    coef[:, 0] = 1.0
    far_rows, far_faces = np.nonzero(step > band)
    far: dict[int, tuple[list, list]] = {}
    for i, t, p in zip(far_rows.tolist(), to[far_rows, far_faces].tolist(),
                       moving[far_rows, far_faces].tolist(), strict=True):
        far.setdefault(i, ([], []))[0].append(t)
        far[i][1].append(p)
    on = pos[b.coords[0]] < m
    b_rows, b_cols, b_vals = b.coords[0][on], b.coords[1][on], b.data[on]
    first = np.zeros((m + band, cols))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if k:
            v = _rows_of_inverse(coef, far, pivot, targets, band)  # B^-T E_D, (m, k)
            vf = v.take(fed, axis=0)
            cap = -(c_back.T @ vf).T  # -W[D] = -(B^-1 C)[D] = -V^T C: I - W[D] off the diagonal
            slack = np.sum(moving, axis=1, where=to == m) @ v  # its row sums (B^-1 e)[D]
            gth_factor(cap, slack)
            b_t = sp.csr_array((b_vals, (b_cols, pos[b_rows])), shape=(cols, m))
            x = _gth_apply(cap, np.ascontiguousarray((b_t @ v).T))  # Y[D] = V^T b
            first[fed] = c_back @ x  # b + C X on the squares with a backward move
        np.add.at(first, (pos[b_rows], b_cols), b_vals)
        coef /= pivot[:, None]
        _sweep(first, coef, far, band)
    y = first[:m]
    if not np.isfinite(y).all():
        return None
    if m == n - 1 and states[-1] == m - 1:  # every square but the last (the goal): in place
        out = first[:n]
    else:
        out = np.zeros((n, cols))
        out[states] = y
    return Solution(out, 0, total_error(sweep_bound(m, faces, k), faces), np.nan, "sweep")


def _sweep(first: np.ndarray, coef: np.ndarray, far: dict, band: int) -> None:
    """``B^-1`` over ``first`` in place (its last ``band`` rows zero), from the last square
    to the first: each row its right-hand side plus the rows its forward throws lead to,
    weighted by their probabilities, over its pivot (``coef``: ``[1, p_1 .. p_band]`` over
    the pivot)."""
    tmp = np.empty(first.shape[1])
    matmul = np.matmul
    for i in range(len(coef) - 1, -1, -1):
        if i in far:
            t, p = far[i]
            first[i] += np.asarray(p) @ first[t]
        matmul(coef[i], first[i: i + band + 1], out=tmp)
        first[i] = tmp


def _rows_of_inverse(coef: np.ndarray, far: dict, pivot: np.ndarray, targets: np.ndarray,
                     band: int) -> np.ndarray:
    """``V = B^-T E_D`` (rows ``D`` of ``B^-1``, as columns), from the first square to the
    last: each row its own unit (a square of ``D``) plus the rows of the squares whose
    forward throws lead to it, weighted by their probabilities, over its pivot
    (``coef``: :func:`sweep_solve`'s, not yet divided)."""
    m, k = len(pivot), len(targets)
    v = np.zeros((band + m, k))  # row band + j: square j (the first band rows zero)
    v[band + targets, np.arange(k)] = 1.0
    into = np.zeros((m, band + 1))  # over the rows of squares j - band .. j
    for o in range(1, min(band, m - 1) + 1):
        into[o:, band - o] = coef[:-o, o]
    into[:, band] = 1.0
    into /= pivot[:, None]
    above: dict[int, tuple[list, list]] = {}
    for i, (t, p) in far.items():
        for tt, pp in zip(t, p, strict=True):
            above.setdefault(tt, ([], []))[0].append(band + i)
            above[tt][1].append(pp)
    tmp = np.empty(k)
    matmul = np.matmul
    for j in range(m):
        if j in above:
            s, p = above[j]
            v[band + j] += np.asarray(p) @ v[s]
        matmul(into[j], v[j: j + band + 1], out=tmp)
        v[band + j] = tmp
    return v[band:]


def _gth_apply(lu: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``A^-1 y`` from :func:`~.gth.gth_factor`'s packed factors, through the inverses of the
    triangular factors (``>= 0``, each row a sum of non-negative terms; then two small
    matrix products, cheaper here than LAPACK's triangular solve over many columns)."""
    k = len(lu)
    low, up = np.eye(k), np.eye(k)
    for i in range(1, k):  # L^-1: unit lower triangular, L <= 0 below the diagonal
        low[i, :i] = -lu[i, :i] @ low[:i, :i]
    for i in range(k - 1, -1, -1):  # U^-1: U <= 0 above its positive diagonal
        up[i, i + 1:] = -lu[i, i + 1:] @ up[i + 1:, i + 1:]
        up[i] /= lu[i, i]
    out = np.empty_like(y)
    for j in range(0, y.shape[1], PRODUCT_COLUMNS):
        part = slice(j, j + PRODUCT_COLUMNS)
        out[:, part] = up @ (low @ y[:, part])
    return out
