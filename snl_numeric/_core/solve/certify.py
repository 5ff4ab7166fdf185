"""Certified error bounds shared by the solvers (private; NumPy only).

``A = D - G`` is the system matrix over the squares of the system: ``G`` holds the
probabilities of moving between them and the pivot ``D[x]`` is the sum of ``x``'s
probabilities of moving. ``A`` is ``diag(s)`` times the ``I - Q`` of the chain whose rows
are scaled to sum to 1 (``s`` the row sums of the die), and ``A^-1 >= 0``. For a computed
``x`` and the exact residual ``r = b - A x``, ``|x* - x| <= A^-1 |r|``:

- ``b > 0``: every entry of ``x`` has a relative error below ``max_i |r_i| / b_i``
  (``A^-1 |r| <= max(|r| / b) A^-1 b``);
- otherwise normwise, ``||A^-1||_inf = max(A^-1 s)`` / ``min(s)`` at most (``A^-1 s`` is the
  expected number of throws ``t``).

What :func:`total_error` adds to such a bound: the rounding of the inputs (the row sums
``s``, summed from the die's probabilities, and ``b * s``) and of the returned double.
:class:`Rows` computes residuals, in double precision with a bound on their rounding, or in
double-double arithmetic (error-free products and sums, :mod:`.eft`) for refinement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .eft import two_prod, two_sum

__all__ = ["DD_EPS", "UNIT_ROUNDOFF", "Rows", "Solution", "gamma", "step_variance", "total_error"]

#: Unit roundoff of a double.
UNIT_ROUNDOFF = float(np.finfo(float).eps / 2)
#: Unit roundoff of a double-double.
DD_EPS = 2.0**-104


@dataclass(frozen=True)
class Solution:
    """A solve's answer, the Krylov steps it took, its certified relative error, its
    normwise backward error and how it was solved (the solver's method, or the method of
    the fallback that certified it)."""

    x: np.ndarray
    iterations: int
    error: float
    residual: float
    method: str = ""


def gamma(terms):
    """``gamma_n = n u / (1 - n u)``: the relative rounding error of ``n`` operations (``n``
    an int, or an array of them)."""
    return terms * UNIT_ROUNDOFF / (1.0 - terms * UNIT_ROUNDOFF)


def upper(value: float, error: float) -> float:
    """An upper bound on the true value of a computed ``value >= 0`` certified to a relative
    ``error``; ``inf`` from an error of 1 on (nothing certified: a system that may be
    singular, a play that may never end, bounds nothing).

    Examples
    --------
    >>> upper(3.0, 0.25), upper(3.0, float("inf"))
    (4.0, inf)
    """
    return value / (1.0 - error) if error < 1.0 else np.inf


def total_error(solve_error: float, faces: int) -> float:
    """The relative error of a returned answer: the solve's own bound, the row sums of ``faces``
    probabilities and the product ``b * s``, and the final rounding.

    Examples
    --------
    >>> 1e-16 < total_error(0.0, 6) < 1e-15
    True
    """
    inputs = gamma(max(faces, 1))  # (faces - 1 additions and one product)
    return float((1.0 + solve_error) * (1.0 + inputs) * (1.0 + UNIT_ROUNDOFF) - 1.0)


class Rows:
    """The rows of ``A`` (or of ``A^T``): row ``i`` is
    ``pivot[i] x[i] - sum p x[y]`` over its off-diagonal terms ``(i, y, p)``, the pivot given
    by its terms ``moving[i, :]`` (so that it is summed exactly in double-double).

    The off-diagonal terms are kept slot by slot: slot ``t`` holds the ``t``-th term of each
    row that has one, the rows in order of decreasing count. A residual then costs one pass
    per slot over only the rows that reach it: a square that many moves lead to (the end of
    a long chain of jumps, a hub) costs its own terms, not a table of every row padded to
    its count.

    Parameters
    ----------
    moving : ndarray (m, k)
        The probabilities of moving out of each square (0 where a face stays).
    src, dst, prob : ndarray (terms,)
        The off-diagonal terms: row, column and probability; each row's terms in the order
        they are summed.

    Examples
    --------
    >>> rows = Rows(np.array([[0.5, 0.5], [0.5, 0.5]]), np.array([0]), np.array([1]),
    ...             np.array([0.5]))
    >>> r, bound = rows.dd_residual(np.ones((2, 1)), np.array([[1.5], [1.0]]), np.zeros((2, 1)))
    >>> r.ravel().tolist(), bool(0.0 < bound.max() < 1e-28)
    ([0.0, 0.0], True)
    """

    def __init__(self, moving: np.ndarray, src: np.ndarray, dst: np.ndarray,
                 prob: np.ndarray) -> None:
        m = len(moving)
        self.moving = moving
        self.pivot = moving.sum(axis=1)[:, None]
        counts = np.bincount(src, minlength=m)
        #: the rows by decreasing count: slot t's rows are the first ``bounds[t+1] - bounds[t]``
        self.order = order = np.argsort(-counts, kind="stable")
        rank = np.empty(m, dtype=np.intp)
        rank[order] = np.arange(m)
        by_row = np.argsort(src, kind="stable")
        slot = np.empty(len(src), dtype=np.intp)
        slot[by_row] = np.arange(len(src)) - np.repeat(np.cumsum(counts) - counts, counts)
        width = int(counts.max(initial=0))
        self.bounds = np.concatenate([[0], np.cumsum(np.bincount(slot, minlength=width))])
        key = np.argsort(slot * m + rank[src], kind="stable")  # slot by slot, rows in order
        self.off_to, self.off_p = dst[key], prob[key]
        self.terms = moving.shape[1] + width + 1

    def dd_residual(self, b: np.ndarray, hi: np.ndarray, lo: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
        """``(r, bound)``: ``b - A (hi + lo)`` in double-double arithmetic, rounded to
        double, and a bound on its distance from the exact residual."""
        rh = b.take(self.order, axis=0)  # (rows by decreasing count of terms)
        rl = np.zeros_like(rh)
        size = np.abs(rh)
        xh, xl = hi.take(self.order, axis=0), lo.take(self.order, axis=0)
        for f in range(self.moving.shape[1]):  # the pivot: - p x[i] for every move out
            p = self.moving[self.order, f, None]
            ph, pl = two_prod(p, xh)
            pl = pl + p * xl
            rh, e = two_sum(rh, -ph)
            rl = rl + (e - pl)
            size = size + np.abs(ph)
        for t in range(len(self.bounds) - 1):  # + p x[y] for every move to y in the system
            start, stop = self.bounds[t], self.bounds[t + 1]
            c = stop - start  # the rows with a t-th term: the first c
            p = self.off_p[start:stop, None]
            to = self.off_to[start:stop]
            qh, ql = two_prod(p, hi.take(to, axis=0))
            ql = ql + p * lo.take(to, axis=0)
            rh[:c], e = two_sum(rh[:c], qh)
            rl[:c] = rl[:c] + (e + ql)
            size[:c] = size[:c] + np.abs(qh)
        r = np.empty_like(rh)
        r[self.order] = rh + rl
        bound = np.empty_like(size)
        bound[self.order] = size
        return r, (2 * self.terms + 6) * DD_EPS * bound + UNIT_ROUNDOFF * np.abs(r)


def step_variance(to: np.ndarray, probs: np.ndarray, thi: np.ndarray,
                  tlo: np.ndarray) -> np.ndarray:
    """``w[x] = sum_y Q[x, y] (t[y] - t[x] + 1)**2``: the variance of ``t`` after one throw
    from each square of the system, ``t`` a double-double pair over the system's squares
    (index ``m``: a square off the system, ``t = 0``), each difference formed exactly before
    it is squared. ``to[x, f]`` is where face ``f`` leads (``m`` off the system) and
    ``probs[x, f]`` its probability.

    Examples
    --------
    >>> to = np.array([[1, 2], [2, 2]])             # two squares, then off the system
    >>> t = np.array([1.5, 1.0, 0.0])
    >>> step_variance(to, np.full((2, 2), 0.5), t, np.zeros(3)).tolist()
    [0.25, 0.0]
    """
    m = len(to)
    yh, yl = thi.take(to), tlo.take(to)
    xh, xl = thi[:m, None], tlo[:m, None]
    s, e = two_sum(yh, -xh)
    d = s + (e + (yl - xl) + 1.0)
    w = (probs * d * d).sum(axis=1)
    # every throw leaves the system: t is exactly 1 there, and so is every step
    w[~np.any((probs > 0.0) & (to < m), axis=1)] = 0.0
    return w
