r"""A best response to a fixed opponent: a one-player decision problem, solved exactly.

With the second player's choices fixed, the first player's chance to win is the
largest chance to reach a win in a Markov decision process over the pair states
(the mover's square, the other square, whose turn). :func:`best_response` solves
it by policy iteration with exact evaluations:

1. evaluate the policy: both players fixed make a Markov chain, solved by the core's
   solver (:func:`~.linear.solve_chain`), with a certified error ``err`` on every
   chance;
2. improve it: in every position, switch to the die (and, with optional jumps, the
   jump decision) whose one-step value against the evaluated chances is better by more
   than ``2 err`` plus rounding, keeping the current choice otherwise; stop when
   nothing switches. Switching only on a strict improvement never lowers the value, even
   where a choice could keep the game going for ever.

The policy's evaluated chances are what is reported, so the returned policy delivers
them. **The certificate**: they are lower bounds on the optimum (up to ``err``); an
upper bound comes from Gauss-Seidel sweeps of the one-player Bellman operator
``U <- T U`` (:func:`response_sweep_kernel`, every value rounded upwards) from the box
``min(1, v + delta)`` (0 where the policy never wins): when a few sweeps land inside the
box, the box is a pre-fixed point of a monotone operator whose least fixed point is the
optimum (Knaster-Tarski), so it bounds the optimum from above, and so does the last
sweep. Where the first player could keep a game going for ever without anybody winning,
no box closes (the value is flat there); the sweeps then start from 1 and the bracket
they reach is reported with a warning.
"""

from __future__ import annotations

import numpy as np

from .._core.numba_config import njit
from .._core.progress import Progress
from .graph import alive_squares, live_kernel
from .linear import solve_chain
from .players import FixedPlayer
from .result import RaceConvergence
from .tables import Tables, from_diag, to_diag

#: The evaluations' target relative error, as a share of tol.
TARGET_SHARE = 1 / 16
#: Policy iterations at most.
MAX_ITERATIONS = 500
#: A switch must gain this many units of the certified error, plus rounding...
GAIN_ERRORS = 2.0
GAIN_ROUNDING = 64 * np.finfo(float).eps
#: Upper bounds: each value is multiplied by one plus this many units of roundoff per
#: face (a sum of non-negative terms), plus ``UP_EXTRA`` (the division by the die's total
#: and the product itself)...
UP_PER_FACE = 2
UP_EXTRA = 8
#: ... the upper bound's sweeps from a box, and boxes tried (each this factor wider).
BOX_SWEEPS = 8
BOX_TRIES = 3
BOX_GROWTH = 16.0
_U = 2.0**-53
#: The estimate's sweeps stop once its error, judged by their rate, is below this share of
#: tol, or they change nothing by more than rounding does, or after this many sweeps.
ESTIMATE_ERROR = 1 / 64
ROUNDING_CHANGE = 2.0**-50
ESTIMATE_SWEEPS = 5_000


@njit()
def response_sweep_kernel(moves, jumps, optional, base, die1, take1, up, u0, u1
                          ):  # pragma: no cover - jitted
    """One in-place Gauss-Seidel sweep of the first player's chances to win, each value
    multiplied by ``up``, last diagonal first: 1 for an estimate, or one plus the relative
    rounding bound of a sum of non-negative terms for upper bounds (exact zeros stay zero).

    ``u0[(i, j)]``: the first player on ``i`` to throw, the second on ``j``: the best die
    of ``sum_f P(f) (1 at the goal, else u1[(j, r)])``, resting anywhere along an optional
    jump's chain. ``u1[(j, i)]``: the second player on ``j`` to throw ``die1`` (following
    jump ``k`` iff ``take1[k, i]``): ``sum_f P(f) (0 at the goal, else u0[(i, r)])``. A lost
    throw rests where it was. Values are kept at most 1. Returns the largest change."""
    cnt, node, prob, move, stay = moves
    src, tgt, ptr, rest = jumps
    n_act, n = cnt.shape
    goal = n - 1
    n_sq = goal
    change = 0.0
    for s in range(2 * n_sq - 2, -1, -1):
        for i in range(max(0, s - n_sq + 1), min(s, n_sq - 1) + 1):
            j = s - i
            w = base[s] + j  # the second player on j to throw
            b = die1[w]
            acc = 0.0
            for e in range(cnt[b, j]):
                v = node[b, j, e]
                while optional and v >= n:  # follow the fixed decisions
                    if not take1[v - n, i]:
                        v = src[v - n]
                        break
                    v = tgt[v - n]
                if v != goal:
                    acc += prob[b, j, e] * u0[base[i + v] + i]
            acc += stay[b, j] * u0[base[s] + i]
            new = min(1.0, acc / (move[b, j] + stay[b, j]) * up)
            change = max(change, abs(new - u1[w]))
            u1[w] = new
            u = base[s] + i  # the first player on i to throw
            best = 0.0
            for a in range(n_act):
                acc = 0.0
                for e in range(cnt[a, i]):
                    v = node[a, i, e]
                    if v == goal:
                        acc += prob[a, i, e]
                    elif not optional or v < n:
                        acc += prob[a, i, e] * u1[base[j + v] + j]
                    else:
                        most = 0.0
                        for q in range(ptr[v - n], ptr[v - n + 1]):
                            r = rest[q]
                            most = max(most, 1.0 if r == goal else u1[base[j + r] + j])
                        acc += prob[a, i, e] * most
                acc += stay[a, i] * u1[base[s] + j]
                best = max(best, acc / (move[a, i] + stay[a, i]) * up)
            best = min(1.0, best)
            change = max(change, abs(best - u0[u]))
            u0[u] = best
    return change


def _table(diag: np.ndarray, t: Tables) -> np.ndarray:
    out = np.empty((t.n_sq, t.n_sq))
    from_diag(diag, out)
    return out


def _diag(table: np.ndarray, t: Tables, dtype: type = np.float64) -> np.ndarray:
    out: np.ndarray = np.empty(t.n_sq * t.n_sq, dtype=dtype)
    to_diag(np.ascontiguousarray(table), out)
    return out


class _Evaluation:
    """Both players fixed: the chances of the chain, per side (diagonal layout)."""

    def __init__(self, t: Tables, die0: np.ndarray, take0: np.ndarray, die1: np.ndarray,
                 take1: np.ndarray, target: float) -> None:
        states = t.n_sq * t.n_sq
        live0 = np.zeros(states, dtype=np.bool_)
        live1 = np.zeros(states, dtype=np.bool_)
        while live_kernel(t.nodes, t.probs, t.jumps, t.optional, die0, take0, die1, take1,
                          False, t.base, live0, live1):
            pass  # one pass per call (Ctrl-C)
        (self.win0, self.lose0), (self.win1, self.lose1), self.error = solve_chain(
            t, die0, take0, die1, take1, live0, live1, target)
        self.draws = not (bool(live0.all()) and bool(live1.all()))


def _decide_jumps(t: Tables, after: np.ndarray, take: np.ndarray, gain: float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Jump decisions against ``after[j, r]`` (the first player's chance after resting on
    ``r``, the other on ``j``; column ``size``: the goal), switched only where that gains
    more than ``gain``; chained jumps first. Returns ``take`` and the resting square per
    jump and opponent square."""
    src, tgt = t.jumps[0], t.jumps[1]
    n = t.n_sq + 1
    m = len(src)
    value = np.empty((m, t.n_sq))
    rest = np.empty((m, t.n_sq), dtype=np.int64)
    take = take.copy()
    for k in t.order.tolist():
        if tgt[k] >= n:
            fv, fr = value[tgt[k] - n], rest[tgt[k] - n]
        else:
            fv, fr = after[:, tgt[k]], np.full(t.n_sq, tgt[k])
        dv = after[:, src[k]]
        follow = np.where(take[k], fv >= dv - gain, fv > dv + gain)
        take[k] = follow
        value[k] = np.where(follow, fv, dv)
        rest[k] = np.where(follow, fr, src[k])
    return take, rest


def _improve(t: Tables, second: np.ndarray, die: np.ndarray, take: np.ndarray, gain: float
             ) -> tuple[np.ndarray, np.ndarray, bool]:
    """One improvement step against ``second``, the first player's chances when the
    second is about to throw (diagonal layout): the new dice (a table), jump decisions,
    and whether anything switched (see the module notes)."""
    size = t.n_sq
    cnt, node, prob, move, stay = t.moves
    after = np.ones((size, size + 1))  # after[j, r]: resting on r (size: the goal)
    after[:, :size] = _table(second, t)
    rest = np.zeros((0, size), dtype=np.int64)
    new_take = take
    if t.optional and t.n_jumps:
        new_take, rest = _decide_jumps(t, after, take, gain)
    n = size + 1
    rows = np.arange(size)[None, :]  # the opponent's square j
    q = np.zeros((len(cnt), size, size))  # q[a, i, j]
    for a in range(len(cnt)):
        for e in range(node.shape[2]):
            used = e < cnt[a, :size]
            if not used.any():
                continue
            v = np.where(used, node[a, :size, e], size)
            r = np.broadcast_to(v[:, None], (size, size))
            if t.optional and t.n_jumps:
                jump = v >= n
                r = np.where(jump[:, None], rest[np.where(jump, v - n, 0)], r)
            q[a] += np.where(used, prob[a, :size, e], 0.0)[:, None] * after[rows, r]
        q[a] += stay[a, :size, None] * after[rows, np.arange(size)[:, None]]
        q[a] /= (move[a, :size] + stay[a, :size])[:, None]
    current = np.take_along_axis(q, die[None], axis=0)[0]
    best = q.argmax(axis=0)
    switch = q.max(axis=0) > current + gain
    changed = bool(switch.any()) or not np.array_equal(new_take, take)
    return np.where(switch, best, die).astype(np.int32), new_take, changed


def _estimate(t: Tables, die1: np.ndarray, take1: np.ndarray, tol: float, budget: int,
              bar: Progress | None) -> np.ndarray:
    """Gauss-Seidel sweeps of the first player's best chances from 0 (an estimate): its
    chances when the second player is about to throw (diagonal layout; ``bar`` counts the
    sweeps)."""
    u0 = np.zeros(t.n_sq * t.n_sq)
    u1 = np.zeros(t.n_sq * t.n_sq)
    prev = np.inf
    for used in range(1, min(budget, ESTIMATE_SWEEPS) + 1):
        change = response_sweep_kernel(t.moves, t.jumps, t.optional, t.base, die1, take1, 1.0,
                                       u0, u1)
        if bar is not None:
            bar.update(1)
        rate = min(change / prev, 0.9999) if prev > 0.0 else 0.0
        prev = change
        if change <= ROUNDING_CHANGE or (used >= 3 and change * rate / (1.0 - rate)
                                         <= ESTIMATE_ERROR * tol):
            break
    return u1


def _upper(t: Tables, ev: _Evaluation, die1: np.ndarray, take1: np.ndarray, tol: float,
           max_sweeps: int, bar: Progress | None) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """Upper bounds on the first player's best chances (first and second player to
    throw, diagonal layout): from a box around the evaluated chances if sweeps certify
    one (see the module notes), else from 1. Returns them, the sweeps and whether a box
    was certified (``bar`` counts the sweeps)."""
    up = 1.0 + (UP_PER_FACE * t.moves[1].shape[2] + UP_EXTRA) * _U
    args = (t.moves, t.jumps, t.optional, t.base, die1, take1, up)
    v0, v1 = ev.win0, ev.lose1
    delta = tol / 4 + ev.error
    sweeps = 0
    for _ in range(BOX_TRIES):
        box0 = np.where(v0 > 0.0, np.minimum(v0 + delta, 1.0), 0.0)
        box1 = np.where(v1 > 0.0, np.minimum(v1 + delta, 1.0), 0.0)
        u0, u1 = box0.copy(), box1.copy()
        for _ in range(BOX_SWEEPS):
            response_sweep_kernel(*args, u0, u1)
            sweeps += 1
            if bar is not None:
                bar.update(1)
            if bool(np.all(u0 <= box0)) and bool(np.all(u1 <= box1)):
                return u0, u1, sweeps, True
        delta *= BOX_GROWTH
    # from 1 where the first player's square can still reach the goal, else 0
    can = alive_squares(t)[:t.n_sq].astype(np.float64)
    u0 = _diag(np.repeat(can[:, None], t.n_sq, axis=1), t)
    u1 = _diag(np.repeat(can[None, :], t.n_sq, axis=0), t)
    while sweeps < max_sweeps:
        change = response_sweep_kernel(*args, u0, u1)
        sweeps += 1
        if bar is not None:
            bar.update(1)
        gap = max(float(np.max(u0 - v0)), float(np.max(u1 - v1))) + ev.error
        if gap <= tol or change <= 1e-3 * tol:
            break
    return u0, u1, sweeps, False


def best_response(t: Tables, fixed: FixedPlayer, tol: float, max_sweeps: int,
                  bar: Progress | None = None
                  ) -> tuple[_Evaluation, np.ndarray, np.ndarray, RaceConvergence]:
    """The first player's best response to ``fixed``: the evaluation of the final policy,
    its dice (diagonal layout) and jump decisions, and the certificate. ``bar`` counts the
    sweeps and the exact evaluations."""
    size = t.n_sq
    m = max(t.n_jumps, 1)
    die1 = _diag(fixed.die, t, np.int32)
    take1 = np.ascontiguousarray(fixed.take) if t.optional else np.ones((m, 1), np.bool_)
    # start from the policy read off an estimate: usually optimal already
    die, take, _ = _improve(t, _estimate(t, die1, take1, tol, max_sweeps, bar),
                            np.zeros((size, size), dtype=np.int32),
                            np.ones((t.n_jumps, size), dtype=np.bool_), 0.0)
    iterations, changed = 0, True
    while changed and iterations < MAX_ITERATIONS:
        take0 = take if t.optional else np.ones((m, 1), np.bool_)
        ev = _Evaluation(t, _diag(die, t, np.int32), take0, die1, take1, tol * TARGET_SHARE)
        if bar is not None:
            bar.update(1)
        die, take, changed = _improve(t, ev.lose1, die, take,
                                      GAIN_ERRORS * ev.error + GAIN_ROUNDING)
        iterations += 1
    u0, u1, sweeps, boxed = _upper(t, ev, die1, take1, tol, max_sweeps, bar)
    bracket = max(float(np.max(u0 - ev.win0)), float(np.max(u1 - ev.lose1))) + ev.error
    note = f"policy iteration: {iterations} exact evaluations"
    if changed:
        note += f" (stopped at {MAX_ITERATIONS})"
    if bracket > tol and not boxed:
        note += ("; the first player can keep a game going for ever without a winner: "
                 "the sweeps that bound the optimum from above do not close there")
    return ev, _diag(die, t, np.int32), take, RaceConvergence(sweeps, bracket,
                                                              ev.draws or not boxed, note)
