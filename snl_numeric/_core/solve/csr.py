"""The direct solver's rows given as a chain's CSR rows instead of a successor table.

A chain whose rows are very uneven (a hub state that moves to thousands of states beside
states of a few moves) cannot be padded into a table (:func:`~snl_numeric.compile.compile_chain`
refuses it); :meth:`.direct.DirectSolver.csr` solves its system from the CSR rows
themselves, with SciPy's SuperLU on ``A`` and the same certified residuals as the table's
(:mod:`.certify`). Here: the rows as flat arrays (:class:`CsrRows`, one entry per
transition) and what the solver reads off them (NumPy only: per-row sums by
``np.bincount``, which adds a row's terms one after another, so that each row's rounding
is bounded by its own number of terms).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..memory import check_memory
from .certify import DD_EPS, UNIT_ROUNDOFF, Rows, gamma
from .eft import two_prod, two_sum

__all__ = ["CsrRows", "DDRows", "LONG_ROW", "csr_rows"]


#: Rows of more entries than this have their residuals summed by ``math.fsum`` (rounded
#: once: a bound of a few units in the last place whatever their length, where a sum in
#: order grows with it: a hub row of 10^4 moves would not certify 1e-12 in double).
LONG_ROW = 64


@dataclass(frozen=True)
class CsrRows:
    """A system's rows as one entry per transition, in row order.

    Attributes
    ----------
    row : ndarray of intp
        The system row (``0 .. m - 1``) of each entry.
    to : ndarray of intp
        Its column: the place in the system it leads to, ``m`` off the system.
    prob : ndarray of float
        Its probability (a transition that stays included).
    moving : ndarray of float
        Its probability of moving: ``prob``, 0 on the transition that stays.
    pivot : ndarray of float
        Each row's probability of moving (``moving`` summed along the row).
    rowsum : ndarray of float
        Each row's probabilities summed.
    lengths : ndarray of intp
        Each row's number of entries.
    """

    row: np.ndarray
    to: np.ndarray
    prob: np.ndarray
    moving: np.ndarray
    pivot: np.ndarray
    rowsum: np.ndarray
    lengths: np.ndarray

    @property
    def m(self) -> int:
        """The system's unknowns."""
        return len(self.pivot)

    @property
    def width(self) -> int:
        """The longest row's number of entries (at least 1)."""
        return max(1, int(self.lengths.max(initial=0)))

    def row_sums(self, values: np.ndarray) -> np.ndarray:
        """``values`` (one per entry, or ``(entries, k)``) summed along each row, in order."""
        if values.ndim == 1:
            return np.bincount(self.row, values, self.m)
        return np.stack([np.bincount(self.row, values[:, c], self.m)
                         for c in range(values.shape[1])], axis=1).reshape(self.m, -1)

    def residual(self, rhs: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(r, bound)`` for ``A x = rhs`` in double precision: each row summed as
        ``sum p (x_i - x_to)`` over its moves (``x = 0`` off the system), as the table's
        rows are, within ``gamma(2 len + 6)`` of ``|rhs| + sum p |x_i - x_to|``, ``len`` the
        row's own number of entries."""
        xe = np.zeros((self.m + 1, x.shape[1]))
        xe[:-1] = x
        terms = xe.take(self.row, axis=0)
        terms -= xe.take(self.to, axis=0)
        terms *= self.moving[:, None]
        r = rhs - self.row_sums(terms)
        size = np.abs(rhs) + self.row_sums(np.abs(terms))
        bound = gamma(2 * self.lengths + 6)[:, None] * size
        # the long rows again, each difference and product rounded once and their sum with
        # rhs once (fsum): within gamma(3) of the sizes
        starts = np.concatenate([[0], np.cumsum(self.lengths)])
        for i in np.flatnonzero(self.lengths > LONG_ROW).tolist():
            part = terms[starts[i]:starts[i + 1]]
            for c in range(r.shape[1]):
                r[i, c] = math.fsum([float(rhs[i, c]), *(-part[:, c]).tolist()])
            bound[i] = gamma(3) * size[i]
        return r, bound

    def scatter(self, x: np.ndarray) -> np.ndarray:
        """``G^T x``: each move adds its probability times ``x`` at its source to its
        destination in the system."""
        k = x.shape[1]
        terms = self.moving[:, None] * x.take(self.row, axis=0)
        idx = self.to[:, None] * k + np.arange(k)
        return np.bincount(idx.ravel(), terms.ravel(), (self.m + 1) * k).reshape(
            self.m + 1, k)[:self.m]

    def rounding_t(self) -> np.ndarray:
        """``gamma(len + moves in + 4)`` for each row of ``A^T``: the rounding of its
        pivot (a sum of ``len`` terms), of the products into it and of their sums."""
        inside = (self.to < self.m) & (self.moving > 0.0)
        into = np.bincount(self.to[inside], minlength=self.m)
        return gamma(self.lengths + 4 + into)

    def sparse(self) -> sp.csc_matrix:
        """``A`` for SuperLU (CSC): the pivots on the diagonal, ``-p`` for each move within
        the system (rows already hold each column once)."""
        m = self.m
        keep = (self.to < m) & (self.moving > 0.0)
        check_memory((int(np.count_nonzero(keep)) + m) * 40.0,
                     f"the sparse matrix I - Q of a chain of {m:,} states")
        rows = np.concatenate([self.row[keep], np.arange(m)])
        cols = np.concatenate([self.to[keep], np.arange(m)])
        vals = np.concatenate([-self.moving[keep], self.pivot])
        return sp.csc_matrix(sp.coo_matrix((vals, (rows, cols)), shape=(m, m)))

    def dense(self) -> np.ndarray:
        """``A`` as a dense array (C order), for the cancellation-free elimination."""
        m = self.m
        check_memory(8.0 * m * (m + 1), f"the dense I - Q of a chain of {m:,} states")
        a = np.bincount(self.row * (m + 1) + self.to, self.moving, m * (m + 1))
        a = np.negative(a.reshape(m, m + 1)[:, :m])
        a.flat[::m + 1] = self.pivot
        return a

    def leave(self) -> np.ndarray:
        """Each row's probability of leaving the system in one step."""
        return self.row_sums(np.where(self.to == self.m, self.moving, 0.0))

    def dd_pivot(self) -> np.ndarray:
        """The pivots as double-double pairs ``(m, 2)`` (each row's moves summed with
        :func:`.eft.two_sum`, slot by slot: the rows with a ``t``-th move in each pass; a
        row longer than :data:`LONG_ROW` by ``math.fsum``, its sum and the rest), for
        :class:`.certify.Rows`, which needs the pivot as terms it multiplies exactly."""
        m = self.m
        start = np.zeros(m + 1, dtype=np.intp)
        np.cumsum(self.lengths, out=start[1:])
        hi, lo = np.zeros(m), np.zeros(m)
        for i in np.flatnonzero(self.lengths > LONG_ROW).tolist():
            terms = self.moving[start[i]:start[i + 1]].tolist()
            hi[i] = math.fsum(terms)
            lo[i] = math.fsum([*terms, -hi[i]])
        lengths = np.where(self.lengths > LONG_ROW, 0, self.lengths)  # (those done)
        order = np.argsort(-lengths, kind="stable")
        lengths = lengths[order]
        for t in range(min(self.width, LONG_ROW)):
            c = int(np.count_nonzero(lengths > t))  # (the rows with a t-th entry: first c)
            if not c:
                break
            rows = order[:c]
            hi[rows], e = two_sum(hi[rows], self.moving[start[rows] + t])
            lo[rows] += e
        return np.stack([hi, lo], axis=1)

    def off_terms(self, trans: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(src, dst, prob)``: the moves within the system (for :class:`.certify.Rows`),
        of ``A^T`` when ``trans``."""
        inside = (self.to < self.m) & (self.moving > 0.0)
        src, dst = self.row[inside], self.to[inside]
        return (dst, src, self.moving[inside]) if trans else (src, dst, self.moving[inside])

    def backward_targets(self, states: np.ndarray, n: int) -> int:
        """Distinct states of the system that moves to lower-numbered states lead to."""
        dest = np.append(states, n)[self.to]
        back = (dest < states[self.row]) & (self.moving > 0.0)
        return int(len(np.unique(dest[back])))

    def step_variance(self, thi: np.ndarray, tlo: np.ndarray) -> np.ndarray:
        """``w[x] = sum_y Q[x, y] (t[y] - t[x] + 1)**2`` over the system's rows, as
        :func:`.certify.step_variance` (``t`` a double-double pair, index ``m`` off the
        system, each difference formed exactly before it is squared; 0 on a row every step
        of which leaves the system)."""
        yh, yl = thi.take(self.to), tlo.take(self.to)
        xh, xl = thi.take(self.row), tlo.take(self.row)
        s, e = two_sum(yh, -xh)
        d = s + (e + (yl - xl) + 1.0)
        w = self.row_sums(self.prob * d * d)
        stays = np.bincount(self.row, ((self.prob > 0.0) & (self.to < self.m)).astype(float),
                            self.m)
        w[stays == 0] = 0.0
        return w


class DDRows:
    """The rows of ``A`` (or ``A^T``) for residuals in double-double, as
    :class:`.certify.Rows` but for rows of more than :data:`LONG_ROW` terms, whose residuals
    are summed exactly by ``math.fsum`` from error-free products (``Rows`` passes once per
    term of its longest row: 10^4 passes for a hub).

    Parameters
    ----------
    rows : CsrRows
    trans : bool
        The rows of ``A^T``.
    """

    def __init__(self, rows: CsrRows, trans: bool) -> None:
        m = rows.m
        self.pivot = pivot = rows.dd_pivot()
        src, dst, prob = rows.off_terms(trans)
        counts = np.bincount(src, minlength=m)
        short = counts[src] <= LONG_ROW
        self.rows = Rows(pivot, src[short], dst[short], prob[short])
        self.rows.terms += rows.width  # (each pivot summed from up to `width` moves)
        self.long = np.flatnonzero(counts > LONG_ROW)
        key = np.argsort(src[~short], kind="stable")
        bounds = np.concatenate([[0], np.cumsum(counts[self.long])])
        to, p = dst[~short][key], prob[~short][key]
        self.terms = [(to[a:b], p[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        self.width = rows.width

    def dd_residual(self, b: np.ndarray, hi: np.ndarray, lo: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
        """``(r, bound)``: ``b - A (hi + lo)`` in double-double (exactly, rounded once, on
        the long rows), and a bound on its distance from the exact residual."""
        r, bound = self.rows.dd_residual(b, hi, lo)
        for i, (to, p) in zip(self.long.tolist(), self.terms, strict=True):
            ph, pl = self.pivot[i]
            for c in range(b.shape[1]):
                xh, xl = float(hi[i, c]), float(lo[i, c])
                a, e = two_prod(ph, xh)
                qh, qe = two_prod(p, hi[to, c])
                small = np.concatenate([[ph * xl, pl * xh, pl * xl], p * lo[to, c]])
                r[i, c] = math.fsum([float(b[i, c]), -float(a), -float(e), *(-small[:3]).tolist(),
                                     *qh.tolist(), *qe.tolist(), *small[3:].tolist()])
                size = abs(b[i, c]) + abs(a) + float(np.abs(qh).sum()) + float(
                    np.abs(small).sum())
                bound[i, c] = ((2 * (self.width + len(to)) + 6) * DD_EPS * size
                               + UNIT_ROUNDOFF * abs(r[i, c]))
        return r, bound


def csr_rows(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
             states: np.ndarray, n: int) -> CsrRows:
    """The rows of the system over ``states`` (increasing) of the ``n``-state chain with
    CSR rows ``(indptr, indices, data)`` (each row's columns distinct): row ``i`` of the
    system is the chain's row ``states[i]``.

    Examples
    --------
    >>> P = sp.csr_array(np.array([[0.5, 0.5, 0.0], [0.25, 0.25, 0.5], [0.0, 0.0, 1.0]]))
    >>> rows = csr_rows(P.indptr, P.indices, P.data, np.array([0, 1]), 3)
    >>> rows.to.tolist(), rows.moving.tolist(), rows.pivot.tolist()
    ([0, 1, 0, 1, 2], [0.0, 0.5, 0.25, 0.0, 0.5], [0.5, 0.75])
    """
    m = len(states)
    lengths = (indptr[states + 1] - indptr[states]).astype(np.intp)
    nnz = int(lengths.sum())
    check_memory(nnz * 40.0 + m * 32.0,
                 f"the rows of a chain of {m:,} states and {nnz:,} transitions")
    row = np.repeat(np.arange(m), lengths)
    at = np.repeat(indptr[states].astype(np.intp), lengths) + (
        np.arange(nnz) - np.repeat(np.cumsum(lengths) - lengths, lengths))
    cols = indices.take(at).astype(np.intp)
    prob = data.take(at).astype(np.float64)
    pos = np.full(n, m, dtype=np.intp)
    pos[states] = np.arange(m)
    to = pos.take(cols)
    moving = np.where(cols == states.take(row), 0.0, prob)
    pivot = np.bincount(row, moving, m)
    rowsum = np.bincount(row, prob, m)
    return CsrRows(row, to, prob, moving, pivot, rowsum, lengths)
