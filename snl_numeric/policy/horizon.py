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
from .evaluate import face_sums
from .problem import Problem, build_problem, check_common, jump_pairs, resolve
from .result import FinishWithinResult

#: Largest ``(k + 1) * squares`` table :func:`finish_within` will allocate.
_MAX_HORIZON_CELLS = 200_000_000
#: Chances within this of the best are ties (the smaller die index, and taking a jump).
TIE = 1e-13


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
        As in :func:`optimal_policy`: a ``None`` entry is a fair d6, not the board's die
        (which is ignored here).
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
    check_memory((k + 1) * (p.n * 24 + len(p.src) * 9),
                 f"a horizon of {k:,} throws on {p.n:,} squares")
    values = np.zeros((k + 1, p.n))
    policy = np.full((k, p.n), -1, dtype=np.int64)
    take = np.ones((k, len(p.src)), dtype=np.bool_)
    if p.kernels:
        _horizon_kernel(p.nxt, p.probs, p.src, p.tgt, p.optional, p.order, p.goal, TIE,
                        values, policy, take)
    else:
        _backward_induction(p, values, policy, take)
    for arr in (values, policy, take):
        arr.flags.writeable = False
    return FinishWithinResult(
        board=board, actions=dice, optional_jumps=bool(optional_jumps), horizon=k,
        policy=policy, take=take,
        jumps=jump_pairs(board),
        values=values, probability=values[k], probability_start=float(values[k, board.start]),
    )


def _backward_induction(p: Problem, values: np.ndarray, policy: np.ndarray,
                        take: np.ndarray) -> None:
    """``values[r]`` for ``r`` throws left, then the choices ``policy[K - r]``,
    ``take[K - r]`` (:func:`_horizon_kernel`'s twin): the chances a throw at a time, the
    choices for many throws at once."""
    n, horizon = p.n, len(policy)
    values[0, p.goal] = 1.0
    if p.optional:  # the value of every node, each throw: squares, then jumps along chains
        steps, land = np.zeros((horizon, n + len(p.src))), p.nxt
    else:  # every jump taken: where each throw rests
        steps, land = values[horizon - 1::-1], resolve(p, np.ones(len(p.src), dtype=bool))[p.nxt]
    for r in range(1, horizon + 1):
        w = steps[horizon - r]
        if p.optional:
            w[:n] = values[r - 1]
            for js in p.levels:  # jumps leading to squares first, then chains into them
                w[n + js] = np.maximum(w[p.tgt[js]], w[p.src[js]])
        np.max(face_sums(p, w, land), axis=0, out=values[r])
        np.minimum(values[r], 1.0, out=values[r])
        values[r, p.goal] = 1.0
    # the choices, for as many throws at a time as about a million sums take
    per = max(1, 2**20 // max(1, land.size))
    for i in range(0, horizon, per):
        w = steps[i:i + per]
        q = face_sums(p, w, land)
        policy[i:i + per] = np.argmax(q >= q.max(axis=1, keepdims=True) - TIE, axis=1)
        if p.optional:
            take[i:i + per] = w[:, p.src] <= w[:, p.tgt] + TIE
    policy[:, p.goal] = -1


@njit()
def _horizon_kernel(nxt, probs, src, tgt, optional, order, goal, tie, values, policy,
                    take):  # pragma: no cover - jitted
    """Backward induction; ``values[r]`` for ``r`` throws left (the best chances),
    ``policy[K - r]``: on each square the smallest die index within ``tie`` of the best,
    ``take[K - r]``: a jump unless resting is better by more than ``tie``."""
    n_act, n, width = nxt.shape
    m = src.shape[0]
    horizon = policy.shape[0]
    wj = np.empty(m)
    q = np.empty(n_act)
    values[0, goal] = 1.0
    for r in range(1, horizon + 1):
        prev = values[r - 1]
        i = horizon - r
        for kk in range(m):
            j = order[kk]
            t = tgt[j]
            w_take = prev[t] if t < n else wj[t - n]
            take[i, j] = not (optional and prev[src[j]] > w_take + tie)
            wj[j] = max(w_take, prev[src[j]]) if optional else w_take
        for x in range(n):
            if x == goal:
                values[r, x] = 1.0
                continue
            best = -1.0
            for a in range(n_act):
                s = 0.0
                for f in range(width):
                    if probs[a, f] > 0.0:
                        v = nxt[a, x, f]
                        s += probs[a, f] * (prev[v] if v < n else wj[v - n])
                q[a] = s
                best = max(best, s)
            a = 0
            while q[a] < best - tie:
                a += 1
            values[r, x] = min(best, 1.0)
            policy[i, x] = a
