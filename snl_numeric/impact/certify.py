"""Certificates of the low-rank updates of :mod:`snl_numeric.impact.compute`.

An update ``new = old + z0 (t_p - t_q) / d`` (``d = 1 - z_p + z_q``; the removals' variance
adds terms of ``N z`` and ``N t`` over the same ``d``) loses accuracy where ``d`` is tiny:
where the change multiplies the game's length. Each term's absolute error is bounded from
its factors' certified errors (``z``, ``N z``, ``N t``: normwise per column, ``e max|x|``;
``t``: componentwise), first order in each, every division by ``d`` taken at
``|d| - e_d``, plus ``u`` per operation. An entry whose bound exceeds :data:`CERTIFIED`
of the new value is solved afresh by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._core.solve import TARGET_ERROR, UNIT_ROUNDOFF

__all__ = ["CERTIFIED", "CHUNK_BYTES", "MAX_RESOLVES", "CandidateTerms", "Removal",
           "columns_certified", "entries_certified", "removal_certified"]

#: Low-rank updates are certified to this relative error (the removals' new mean and
#: variance; a candidate's change to this of the larger of the old and the new mean); an
#: entry whose bound is larger is solved afresh as a board of its own.
CERTIFIED = 1e-10
#: At most this many entries are solved afresh per call; the rest of the uncertified
#: entries are NaN, with a warning.
MAX_RESOLVES = 2_000


@dataclass(frozen=True)
class Removal:
    """The terms of the removals' update and the certified errors of the solves they came
    from (``ez``, ``ey``, ``eu``: normwise per column; ``et``: componentwise)."""

    z: np.ndarray
    ez: float
    y: np.ndarray
    ey: float
    u: np.ndarray
    eu: float
    t: np.ndarray
    et: float
    start: int
    s: np.ndarray
    r: np.ndarray
    d: np.ndarray
    a: np.ndarray
    dt: np.ndarray
    inner: np.ndarray
    du: np.ndarray
    dvar: np.ndarray


def removal_certified(m: Removal, mean: float, var: float) -> np.ndarray:
    """Which removals have their mean and variance certified to :data:`CERTIFIED`: each
    term's absolute error bounded from its factors' (first order in each, every division
    by ``d`` taken at ``|d| - e_d``) plus the rounding of the operations here."""
    uu = UNIT_ROUNDOFF
    k = np.arange(len(m.s))
    ez = (m.ez + uu) * np.abs(m.z).max(axis=0)
    ey = (m.ey + uu) * np.abs(m.y).max(axis=0)
    eu = (m.eu + uu) * float(np.abs(m.u).max())
    ets, etr, et0 = ((m.et + uu) * m.t[i] for i in (m.s, m.r, m.start))
    z0, y0 = m.z[m.start], m.y[m.start]
    ad = np.abs(m.d)
    ed = 2.0 * ez + 3.0 * uu * (1.0 + m.z[m.s, k] + m.z[m.r, k])
    room = ad - ed
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        aa = np.abs(m.a)
        ea = (ets + etr + aa * ed) / room + 2.0 * uu * aa
        edt = aa * ez + (z0 + ez) * ea + uu * np.abs(m.dt)
        e1 = ea * (np.abs(y0) + ey) + aa * ey
        ein = 2.0 * eu + ea * (np.abs(m.y[m.s, k] - m.y[m.r, k]) + 2.0 * ey) + aa * 2.0 * ey
        ai = np.abs(m.inner)
        e2 = (ez * ai + (z0 + ez) * ein + (z0 + ez) * (ai + ein) * ed / ad) / room
        edu = e1 + e2 + 4.0 * uu * (np.abs(m.a * y0) + z0 * ai / ad)
        growth = 1.0 + 2.0 * m.t[m.start] + 2.0 * np.abs(m.dt) + edt
        edvar = 2.0 * edu + edt * growth + np.abs(m.dt) * 2.0 * et0 + 4.0 * uu * (
            2.0 * np.abs(m.du) + np.abs(m.dt) * growth)
        new_mean, new_var = mean + m.dt, var + m.dvar
        ok_mean = (room > 0.0) & (edt <= CERTIFIED * np.abs(new_mean))
        ok_var = (room > 0.0) & (TARGET_ERROR * var + edvar + uu * (var + np.abs(m.dvar))
                                 <= CERTIFIED * np.abs(new_var))
    return ok_mean & ok_var


def _row_bound(zmax, ez: float, z0, et: float, tmax: float, dmin):
    """``(bound, low)``: the error bound of a row (or of the whole block, given scalars)
    with ``|dt| <= 2 max(t)`` and ``d`` at its smallest (``low``: ``d``'s smallest less its
    error; the bound holds where it is positive)."""
    u = UNIT_ROUNDOFF
    ezs = (ez + u) * zmax  # z's absolute error
    dd = 2.0 * ezs + 3.0 * u * (1.0 + 2.0 * zmax)  # d's
    bt = (et + 2.0 * u) * 2.0 * tmax  # dt's
    big_a = z0 + ezs
    low = dmin - dd
    bound = (ezs * (2.0 * tmax + bt) + big_a * bt + big_a * (2.0 * tmax + bt) * dd / dmin
             ) / low + 4.0 * u * z0 * 2.0 * tmax / low
    return bound, low


def columns_certified(zmax: np.ndarray, ez: float, z0: np.ndarray, et: float, tmax: float,
                      dmin: np.ndarray, least: np.ndarray | float) -> np.ndarray:
    """Which sources (columns) have every entry of ``z0 dt / d`` (``d = 1 - zb + za``,
    ``dt = tb - ta``) certified to :data:`CERTIFIED` of the larger of the old and the new
    mean, from the solves' certified errors: ``z`` normwise to ``ez`` per column (``ez
    zmax``, ``zmax`` the largest ``|z|`` of each column), ``t`` componentwise to ``et``,
    and the rounding of the few operations here (``u`` each): the error of a product of
    three factors known to ``+-e`` each, with ``|dt| <= 2 max(t)``, ``d`` at its smallest
    ``dmin`` and the new mean at its smallest ``least``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        bound, low = _row_bound(zmax, ez, z0, et, tmax, dmin)
        return (low > 0.0) & (bound <= CERTIFIED * least)


def entries_certified(zmax: np.ndarray, ez: float, z0: np.ndarray, ta: np.ndarray,
                      tb: np.ndarray, et: float, tmax: float, d: np.ndarray,
                      block: np.ndarray, mean: float) -> np.ndarray:
    """:func:`columns_certified` entry by entry, for the columns of ``d`` and ``block``
    (``[b, i]``: the source ``i``, the destination ``b``), each with its own ``dt``, ``d``
    and new mean; one row per column."""
    u = UNIT_ROUNDOFF
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ezs = ((ez + u) * zmax)[:, None]
        dd = 2.0 * ezs + 3.0 * u * (1.0 + 2.0 * zmax[:, None])
        bt = (et + 2.0 * u) * 2.0 * tmax
        big_a = z0[:, None] + ezs
        ad, big_b = np.abs(d.T), np.abs(tb[None, :] - ta[:, None]) + bt
        room = ad - dd
        mine = block.T
        err = (ezs * big_b + big_a * bt + big_a * big_b * dd / ad) / room + 4.0 * u * np.abs(
            mine)
        return (room > 0.0) & (err <= CERTIFIED * np.maximum(np.abs(mean + mine), mean))


#: :meth:`CandidateTerms.block` takes the destinations this many bytes of a row at a time
#: (its steps then run in the processor's cache, and no ``n x n`` temporary is made).
CHUNK_BYTES = 1 << 18


@dataclass(frozen=True)
class CandidateTerms:
    """What every block of candidate rows shares: the start, where a token sent to each
    square rests, the expected throws ``t`` (certified componentwise to ``et``; ``tmax``
    their largest over the system) and the mean from the start."""

    start: int
    rest: np.ndarray
    t: np.ndarray
    et: float
    tmax: float
    mean: float

    @property
    def identity(self) -> bool:
        """Every square rests where it is sent (no chain of jumps)."""
        return bool((self.rest == np.arange(len(self.rest))).all())

    def block(self, z: np.ndarray, ez: float, a: np.ndarray, out: np.ndarray, *,
              signed: bool = True, peak: np.ndarray | None = None,
              blank: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(doubt, good)``: into ``out[b, i]`` the change ``z0 (t_b' - t_a) / (1 - z_b' +
        z_a)`` of adding ``a -> b`` (``b'`` where ``b`` rests) for the sources ``a = a[i]``
        (``z[:, i]`` the solve for ``a[i]``, certified normwise per column to ``ez``;
        ``signed=False``: no entry of ``z`` is negative; ``peak``: each column's largest
        entry when the solver knows it; ``blank[i]``: NaN down column ``i``, a source
        without candidates, never in doubt), every ``b``; the columns whose entries are not
        all certified at once (:func:`columns_certified`) and which of their entries are
        (:func:`entries_certified`, one row per such column).

        One pass over ``z`` for its columns' largest entries (none given ``peak``), then the
        changes, and no other. A column is certified against the old mean: each entry is
        against the larger of the old and its new mean, so over a column against at least
        the old one (always sound), and against exactly the old one, as the column's
        smallest new mean is at most the old: the jump ``a -> goal`` (resting on the goal,
        where ``t`` and ``z`` are 0) changes it by ``z0 (0 - t_a) / (1 + z_a) <= 0``.

        ``out`` may be ``z`` itself when :attr:`identity` (``z`` is then overwritten): the
        destinations are taken a few rows at a time, each row of ``out`` from the same row
        of ``z``, after what the certificate needs of ``z`` was read."""
        k = np.arange(len(a))
        identity = self.identity
        if not identity and np.shares_memory(out, z):
            raise ValueError("the candidates are written over z only without chains")
        z0, za = z[self.start].copy(), z[a, k]
        ta, tb = self.t[a], self.t[self.rest]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            high = 1.0 + za
            zmax = z.max(axis=0) if peak is None else peak  # (z >= 0 but for an LU's roundings)
            if identity:
                top = zmax
            else:  # over the squares some square rests on
                rests = np.zeros(len(self.rest), dtype=bool)
                rests[self.rest] = True
                top = np.max(z, axis=0, where=rests[:, None], initial=-np.inf)
            dmin = high - top  # d's smallest exactly (rounding is monotone)
            if signed and z.min() < 0.0:
                zmax = np.maximum(zmax, -z.min(axis=0))
            sure = columns_certified(zmax, ez, z0, self.et, self.tmax, dmin, self.mean)
            if blank is not None:
                sure |= blank  # (NaN whatever z)
            doubt = np.flatnonzero(~sure)
            kept = z[:, doubt]  # (read before out overwrites z)
            # t_b - t_a as the product [t_b, 1] [1, -t_a]^T: its products by 1 are exact, so
            # each entry is the one rounding of t_b - t_a, as a subtraction gives it, but
            # formed by BLAS (a broadcast subtraction takes twice as long)
            scale = z0 if blank is None else np.where(blank, np.nan, z0)
            left = np.ones((len(tb), 2))
            left[:, 0] = tb
            right = np.ones((2, len(ta)))
            np.negative(ta, out=right[1])
            rows = max(1, CHUNK_BYTES // (8 * max(len(a), 1)))
            d = np.empty((min(rows, len(self.rest)), len(a)))
            for r in range(0, len(self.rest), rows):
                here = slice(r, r + rows)
                zb = z[here] if identity else z.take(self.rest[here], axis=0)
                dd = np.subtract(high, zb, out=d[: len(zb)])
                o = out[here]
                np.matmul(left[here], right, out=o)
                o *= scale
                o /= dd
            good = np.zeros((len(doubt), len(self.rest)), dtype=bool)
            if len(doubt):
                zb = kept if identity else kept[self.rest]
                good[:] = entries_certified(zmax[doubt], ez, z0[doubt], ta[doubt], tb,
                                            self.et, self.tmax, high[doubt] - zb,
                                            out[:, doubt], self.mean)
        return doubt, good
