"""``finish_within``: the best chance to finish within ``k`` throws (backward induction)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from .._core.deprecation import warn_renamed
from .._core.memory import check_memory
from .._core.numba_config import njit
from ..board import Board
from ..dice import DiceLike
from .problem import build_problem, check_common, jump_pairs
from .result import FinishWithinResult

#: Largest ``(k + 1) * squares`` table :func:`finish_within` will allocate.
_MAX_HORIZON_CELLS = 200_000_000


def finish_within(
    board: Board,
    actions: Sequence[DiceLike | None],
    horizon: int | None = None,
    *,
    optional_jumps: bool = False,
    k: int | None = None,
) -> FinishWithinResult:
    """The play that maximises the chance to finish within ``horizon`` throws.

    Backward induction over the throws left: ``P_0 = 1`` on the goal,
    ``P_r(x) = max_a sum_f P_a(f) W_{r-1}(landing)`` with the best jump
    decision ``W``. Ties go to the smaller die index, and to taking a jump.

    Parameters
    ----------
    board : Board
    actions : sequence of Dice, mapping, str or None
        As in :func:`optimal_policy`.
    horizon : int
        The number of throws allowed (``>= 0``): ``--horizon`` on the command
        line, ``.horizon`` on the result.
    optional_jumps : bool, default False
    k : int, optional
        Deprecated spelling of ``horizon`` (removed in snl_numeric 0.2.0).

    Returns
    -------
    FinishWithinResult

    Examples
    --------
    >>> from snl_numeric import Board
    >>> r = finish_within(Board(4, overshoot="exact"), ["1-3", "4-6"], 1)
    >>> r.probability_start, int(r.policy[0, 0])
    (0.3333333333333333, 1)
    """
    if k is not None:
        if horizon is not None:
            raise TypeError("give horizon only (k is its deprecated spelling), not both")
        warn_renamed("finish_within(..., k=...)", "finish_within(..., horizon=...)")
        horizon = k
    if horizon is None:
        raise TypeError("finish_within() missing the number of throws: horizon")
    board, dice = check_common(board, actions, optional_jumps)
    if isinstance(horizon, bool) or not isinstance(horizon, numbers.Integral):
        raise TypeError(f"horizon must be an integer number of throws, got {horizon!r}")
    if horizon < 0:
        raise ValueError(f"horizon must be a non-negative number of throws, got {horizon}")
    k = int(horizon)
    p = build_problem(board, dice, bool(optional_jumps))
    if (k + 1) * p.n > _MAX_HORIZON_CELLS:
        raise ValueError(f"a horizon of {k:,} throws on {p.n:,} squares needs "
                         f"{(k + 1) * p.n:,} table entries; the limit is {_MAX_HORIZON_CELLS:,}")
    check_memory((k + 1) * p.n * 16 + k * len(p.src),
                 f"a horizon of {k:,} throws on {p.n:,} squares")
    values = np.zeros((k + 1, p.n))
    policy = np.full((k, p.n), -1, dtype=np.int64)
    take = np.ones((k, len(p.src)), dtype=np.bool_)
    _horizon_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.order, p.goal, 1e-13,
                    values, policy, take)
    for arr in (values, policy, take):
        arr.flags.writeable = False
    return FinishWithinResult(
        board=board, actions=dice, optional_jumps=bool(optional_jumps), horizon=k,
        policy=policy, take=take,
        jumps=jump_pairs(board, p),
        values=values, probability=values[k], probability_start=float(values[k, board.start]),
    )


@njit()
def _horizon_kernel(nxt, probs, src, tgt, optional, order, goal, tie, values, policy,
                    take):  # pragma: no cover - jitted
    """Backward induction; ``values[r]`` for ``r`` throws left, ``policy[K - r]``."""
    n_act, n, width = nxt.shape
    m = src.shape[0]
    horizon = policy.shape[0]
    wj = np.empty(m)
    values[0, goal] = 1.0
    for r in range(1, horizon + 1):
        prev = values[r - 1]
        i = horizon - r
        for kk in range(m):
            j = order[kk]
            t = tgt[j]
            w_take = prev[t] if t < n else wj[t - n]
            w = w_take
            take[i, j] = True
            if optional and prev[src[j]] > w_take + tie:
                w = prev[src[j]]
                take[i, j] = False
            wj[j] = w
        for x in range(n):
            if x == goal:
                values[r, x] = 1.0
                continue
            best = -1.0
            best_a = 0
            for a in range(n_act):
                q = 0.0
                for f in range(width):
                    pf = probs[a, f]
                    if pf > 0.0:
                        v = nxt[a, x, f]
                        q += pf * (prev[v] if v < n else wj[v - n])
                if q > best + tie:
                    best = q
                    best_a = a
            values[r, x] = min(best, 1.0)
            policy[i, x] = best_a
