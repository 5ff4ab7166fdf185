"""Bracketing the values of a race: the estimate, its certified box, the sweeps.

See the package notes (:mod:`snl_numeric.race`) for the scheme. This module drives
the kernels: the symmetric game's estimate and its certified box
(``kernels.value_sweep_kernel``, ``kernels.box_sweep_kernel``), pair 1 of bounds from
(0, 1) when no box closes or the game is not symmetric, pair 2 when nobody may win
from some positions (both ``kernels.bracket_sweep_kernel``), the linear solver for
chains that mix too slowly, and a clear stop when nothing would certify the answer
within ``max_sweeps``.

**Why the certificate holds.** Pair 1 is value iteration from below for two
reachability games at once: ``p`` bounds each side's chance to win from below (a
least fixed point, so any iterate from 0 is a lower bound), ``q = 1 -`` a lower bound
on the other side's chance. When ``q - p <= tol`` everywhere, the two lower bounds add
up to at least ``1 - tol``, so each is within ``tol`` of its exact value: no
uniqueness of fixed points is needed.

**The estimated box.** A symmetric game (both players choose, or one die and every
game ends) is estimated first (one array, in place, no allowances), then a box
``[x - delta, x + delta]`` around the estimate is swept (bounds not clamped). If ``K``
sweeps land inside the box, the box is a sub-solution of the monotone map one sweep
makes of the pair of bounds, and so are the sweeps' bounds; where every game ends (no
token can be kept from the goal) that map has one fixed point, the values, so the
bounds bracket them. Where a token can be stranded, the chance to win is computed with
the dice of a policy ``sigma`` read off the estimate only, after checking that
``sigma`` cannot be kept from finishing (no set of squares its dice never leave,
:func:`_finishes`, or no end component of the game with ``sigma`` fixed,
:func:`~.graph.trap_kernel`): the game with ``sigma`` fixed always ends, its unique
fixed point is the chance ``sigma`` guarantees, at most the exact chance to win, and
the result plays ``sigma``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._core.memory import check_memory
from .._core.progress import Progress
from .._core.solve import TARGET_ERROR
from ..policy.problem import Problem
from .graph import alive_squares, avoid_squares, live_kernel, trap_kernel
from .kernels import (
    box_sweep_kernel,
    bracket_sweep_kernel,
    value_sweep_kernel,
)
from .linear import MAX_STATES, solve_chain
from .players import FixedPlayer
from .readout import read_policy
from .result import RaceConvergence
from .tables import Tables, from_diag, to_diag

#: Positions whose bracket is already this fraction of ``tol`` wide are not
#: updated again (their bounds stay valid): late sweeps only visit the rest.
SKIP_RATIO = 0.25
#: A bracket whose values moved by less than this fraction of its width in a
#: sweep has stalled: nobody may win from some positions (see the package notes).
STALL_RATIO = 1e-3
#: Refuse races whose arrays would take more than this many bytes.
MAX_BYTES = 2 * 2**30
#: Bytes per die, square and face of the per-face tables (and per chain state and face).
FACE_BYTES = 40
#: The rate of the bracket is judged over this many sweeps, after at least this many.
RATE_WINDOW = 64
RATE_AFTER = 256
#: A chain whose bracket would need more sweeps than this goes to the linear solver.
CHAIN_SWEEPS = 2_000
#: A game that always ends is first estimated (one value per state, in place) until the
#: estimate's error, judged by the rate of its last sweeps, is below this fraction of tol...
ESTIMATE_ERROR = 1 / 64
#: ... or its sweeps change nothing by more than rounding does, or (judged after this
#: many sweeps) it would need more sweeps than this.
ROUNDING_CHANGE = 2.0**-50
ESTIMATE_JUDGED = 16
ESTIMATE_SWEEPS = 5_000
#: ... then a box around it is certified by at most this many bracket sweeps, trying
#: boxes of this many widths (each this factor wider) before the plain bracket from (0, 1).
BOX_SWEEPS = 6
BOX_TRIES = 3
BOX_GROWTH = 16.0


@dataclass(frozen=True, eq=False)
class Bounds:
    """The solved bounds (diagonal layout), side 0 then side 1 (the same arrays when
    the game is symmetric). ``win_lo/win_hi`` bracket the chance to win,
    ``keep_lo/keep_hi`` the chance not to lose."""

    base: np.ndarray
    win_lo: tuple[np.ndarray, np.ndarray]
    win_hi: tuple[np.ndarray, np.ndarray]
    keep_lo: tuple[np.ndarray, np.ndarray]
    keep_hi: tuple[np.ndarray, np.ndarray]
    convergence: RaceConvergence
    #: Whether every game ends, whatever the players do (no token can be kept from the goal).
    ends: bool = False
    #: Side 0's die per position and jump decisions when the bracket was certified through
    #: them (they attain the lower bounds), else None.
    policy: tuple[np.ndarray, np.ndarray] | None = None

    @classmethod
    def around(cls, base: np.ndarray, win: tuple[np.ndarray, np.ndarray],
               lose: tuple[np.ndarray, np.ndarray], err: float, convergence: RaceConvergence,
               policy: tuple[np.ndarray, np.ndarray] | None = None) -> Bounds:
        """The bounds of the chances to win and to lose (side 0's, side 1's) known within
        ``err``: each widened by ``err`` and clipped to ``[0, 1]``; not losing is one minus
        losing."""
        w0, w1, l0, l1 = ((np.clip(x - err, 0.0, 1.0), np.clip(x + err, 0.0, 1.0))
                          for x in (*win, *lose))
        return cls(base, (w0[0], w1[0]), (w0[1], w1[1]), (1.0 - l0[1], 1.0 - l1[1]),
                   (1.0 - l0[0], 1.0 - l1[0]), convergence, policy=policy)


def check_race_memory(size: int, arrays: int, tables: int, dice: tuple = (),
                      chain: bool = False) -> None:
    """Refuse before allocating: ``arrays`` float64 bounds and ``tables`` fixed-choice
    tables per pair state, the result's tables and their temporaries, the per-face tables
    of ``dice`` (successors and probabilities per die, square and face) and, with
    ``chain``, the Markov chain of two fixed players for the linear solver (per face too)."""
    states = size * size
    faces = max((len(d.faces) for d in dice), default=0)
    need = states * (8 * arrays + 8 * tables + 64) + len(dice) * (size + 1) * faces * FACE_BYTES
    if chain:
        need += (2 * states + 1) * faces * FACE_BYTES
    what = f"a race on {size:,} squares ({states:,} pair states" + (
        f", dice of up to {faces:,} faces)" if faces else ")")
    if need > MAX_BYTES:
        raise ValueError(f"{what} needs about {need / 2**30:.1f} GiB of memory; the limit is "
                         f"{MAX_BYTES / 2**30:.0f} GiB")
    check_memory(need, what)


class _Sides:
    """The two sides' players as the bracket kernel takes them, and one sweep."""

    def __init__(self, t: Tables, players: tuple[FixedPlayer | None, FixedPlayer | None],
                 symmetric: bool) -> None:
        self.t = t
        self.symmetric = symmetric
        self.side0 = self._args(players[0])
        self.side1 = self.side0 if symmetric else self._args(players[1])

    def _args(self, pl: FixedPlayer | None) -> tuple[bool, np.ndarray, np.ndarray]:
        """``(fixed, die, take)``: die per state (diagonal layout) and jump decisions."""
        t = self.t
        if pl is None:
            return False, np.zeros(1, dtype=np.int32), np.ones((1, 1), np.bool_)
        die = np.empty(t.n_sq * t.n_sq, dtype=np.int32)
        to_diag(pl.die, die)
        take = pl.take if t.optional else np.ones((max(t.n_jumps, 1), 1), np.bool_)
        return True, die, np.ascontiguousarray(take)

    def sweep(self, arrays: tuple[np.ndarray, ...], lower: bool, skip: float
              ) -> tuple[float, float]:
        """One clamped sweep of a pair of bounds: ``(largest change, width)``."""
        t = self.t
        return bracket_sweep_kernel(t.moves, t.jumps, t.optional, t.base, self.side0,
                                    self.side1, self.symmetric, *arrays, lower, skip)

    def pair(self, lo_value: float, hi_value: float) -> tuple[np.ndarray, ...]:
        states = self.t.n_sq * self.t.n_sq
        a0, b0 = np.full(states, lo_value), np.full(states, hi_value)
        if self.symmetric:
            return a0, b0, a0, b0
        return a0, b0, np.full(states, lo_value), np.full(states, hi_value)


def _width(arrays: tuple[np.ndarray, ...]) -> float:
    return max(float(np.max(np.abs(arrays[1] - arrays[0]))),
               float(np.max(np.abs(arrays[3] - arrays[2]))))


def _rate(history: list[float]) -> float:
    """The factor by which the bracket shrank per sweep over the last window."""
    old, new = history[-RATE_WINDOW - 1], history[-1]
    if new <= 0.0 or old <= 0.0:
        return 0.0
    return min(1.0, (new / old) ** (1.0 / RATE_WINDOW))


def _sweeps_needed(width: float, rate: float, tol: float) -> float:
    if width <= tol:
        return 0.0
    if rate >= 1.0 - 1e-15:
        return math.inf
    return math.log(tol / width) / math.log(rate)


def _finishes(t: Tables, sigma: np.ndarray) -> bool:
    """Whether, with compulsory jumps, a token thrown with the dice ``sigma`` uses on its
    square (against any opponent square) surely reaches the goal: no square from which
    those dice keep it away (:func:`~.graph.avoid_squares`). Then nobody can keep a game
    going for ever against ``sigma`` (a quick sufficient test before :func:`_trapped`)."""
    if t.optional:
        return False
    table = np.empty((t.n_sq, t.n_sq), dtype=np.int64)
    from_diag(sigma, table)
    used = np.zeros((t.nodes.shape[0], t.n_sq + 1), dtype=np.bool_)
    used[table, np.arange(t.n_sq)[:, None]] = True
    return not avoid_squares(t, used).any()


def _trapped(t: Tables, pol_a: np.ndarray, take_a: np.ndarray, fixed_b: bool,
             pol_b: np.ndarray, take_b: np.ndarray) -> bool:
    """Whether the other side can keep a game going for ever against side A's policy."""
    states = t.n_sq * t.n_sq
    in_a = np.ones(states, dtype=np.bool_)
    in_b = np.ones(states, dtype=np.bool_)
    while trap_kernel(t.moves, t.jumps, t.optional, t.base, pol_a, take_a, fixed_b, pol_b,
                      take_b, in_a, in_b):
        pass  # one pass per call (Ctrl-C)
    return bool(in_a.any())


def _estimate_value(t: Tables, tol: float, budget: int, bar: Progress | None
                    ) -> tuple[np.ndarray, float, int]:
    """In-place Gauss-Seidel sweeps of the symmetric game's value (one array): the
    estimate, its error judged by the rate of the last sweeps, and the sweeps spent
    (``bar`` counts them)."""
    cnt, node, prob, move, stay = t.moves
    total = move + stay  # each die scaled to sum to 1 (no division in the sweeps)
    prob, stay = prob / total[:, :, None], stay / total
    w = np.full(t.n_sq * t.n_sq, 0.5)
    prev, error, used = math.inf, math.inf, 0
    while used < budget:
        change = value_sweep_kernel(cnt, node, prob, stay, t.jumps, t.optional, t.base, w)
        used += 1
        if bar is not None:
            bar.update(1)
        rate = min(change / prev, 0.9999) if prev > 0.0 else 0.0
        prev = change
        if change <= ROUNDING_CHANGE:
            error = change
            break
        if used >= 3:
            error = change * rate / (1.0 - rate)
            if error <= ESTIMATE_ERROR * tol:
                break
            if used >= ESTIMATE_JUDGED and math.log(ESTIMATE_ERROR * tol / error) / \
                    math.log(rate) > min(budget - used, ESTIMATE_SWEEPS):
                break  # too slow: the error says so, and the bracket takes over
    return w, error, used


def _certify_box(t: Tables, x: np.ndarray, delta: float, sigma: np.ndarray, budget: int,
                 bar: Progress | None) -> tuple[tuple[np.ndarray, ...] | None, int]:
    """Bracket sweeps (not clamped) from the box ``[x - delta, x + delta]``, the chance to
    win computed with the die ``sigma`` gives each state (-1: any die; the game always
    ends): once they land inside the box, it held the values and the sweeps' bounds are a
    valid pair 1 (see the module notes). Returns it (or None) and the sweeps spent."""
    lo, hi = np.maximum(x - delta, 0.0), np.minimum(x + delta, 1.0)
    low, up = lo.copy(), hi.copy()
    sweeps = min(BOX_SWEEPS, budget)
    for used in range(1, sweeps + 1):
        box_sweep_kernel(t.moves, t.jumps, t.optional, t.base, low, up, sigma)
        if bar is not None:
            bar.update(1)
        if bool(np.all(low >= lo)) and bool(np.all(up <= hi)):
            return (low, up, low, up), used
    return None, sweeps


def _estimated_pair(t: Tables, tol: float, max_sweeps: int, draws: bool,
                    bar: Progress | None) -> tuple[tuple[np.ndarray, ...] | None,
                               tuple[np.ndarray, np.ndarray] | None, int]:
    """The symmetric game: estimate its value cheaply, then certify a box around the
    estimate (widening it if the sweeps do not land inside). Where a token can be kept
    from the goal (``draws``), the chance to win is certified through the policy read off
    the estimate, which must finish against any opponent. Returns pair 1 (or None), the
    policy it was certified through (None if it was not) and the sweeps spent."""
    x, error, sweeps = _estimate_value(t, tol, max_sweeps // 2, bar)
    policy = None
    if draws:
        policy = _finishing_policy(t, x, max(4.0 * error, 1e-13))
        if policy is None:
            return None, None, sweeps
    sigma = np.full(t.n_sq * t.n_sq, -1, dtype=np.int64) if policy is None else policy[0]
    delta = max(tol / 4, 4.0 * error)
    for _ in range(BOX_TRIES):
        if sweeps >= max_sweeps or not delta < 0.5:
            break
        pair, used = _certify_box(t, x, delta, sigma, max_sweeps - sweeps, bar)
        sweeps += used
        if pair is not None:
            return pair, policy, sweeps
        delta *= BOX_GROWTH
    return None, None, sweeps


def _finishing_policy(t: Tables, x: np.ndarray, tie: float
                      ) -> tuple[np.ndarray, np.ndarray] | None:
    """Side 0's dice and jump decisions read off the estimate ``x`` such that nobody can
    keep a game going for ever against them, or None: the value-optimal dice with the
    best chance not to lose when they surely finish (:func:`_finishes`, usually the case
    with compulsory jumps), else the attractor's (``readout.py``) unless trapped."""
    if not t.optional:
        sigma, take = read_policy(t, x, x, x, tie, ends=True)
        if _finishes(t, sigma):
            return sigma, take
    sigma, take = read_policy(t, x, x, x, tie)
    no_take = np.ones((1, 1), np.bool_)
    if _finishes(t, sigma) or not _trapped(t, sigma, take if t.optional else no_take, False,
                                           np.zeros(1, dtype=np.int32), no_take):
        return sigma, take
    return None


def _live(t: Tables, sides: _Sides) -> tuple[np.ndarray, np.ndarray]:
    states = t.n_sq * t.n_sq
    live0 = np.zeros(states, dtype=np.bool_)
    live1 = live0 if sides.symmetric else np.zeros(states, dtype=np.bool_)
    while live_kernel(t.nodes, t.probs, t.jumps, t.optional, sides.side0[1], sides.side0[2],
                      sides.side1[1], sides.side1[2], sides.symmetric, t.base, live0, live1):
        pass  # one pass per call (Ctrl-C)
    return live0, live1


def solve_bounds(p: Problem, t: Tables, players: tuple[FixedPlayer | None, FixedPlayer | None],
                 tol: float, max_sweeps: int, bar: Progress | None = None) -> Bounds:
    """Bracket both sides' chances to win and not to lose on every pair state (``bar``
    counts the sweeps, as ``convergence.sweeps`` does).

    ``players[k]`` is None for a side that maximises its chance to win; both
    None is the symmetric game (one set of arrays). Without a choice (one die,
    compulsory jumps) a side is played as a fixed one, unless the game is symmetric
    and its estimated box certifies it.
    """
    size = t.n_sq
    symmetric = players[0] is None and players[1] is None
    one_die = p.n_actions == 1 and not p.optional
    check_race_memory(size, 4 if symmetric else 8,
                      2 if one_die else sum(pl is not None for pl in players))
    # whether a game may never end (some token can keep away from the goal for ever); a
    # chain's live states say it below
    draws = (players[0] is None or players[1] is None) and bool(avoid_squares(t).any())
    low: tuple[np.ndarray, ...] | None = None
    sweeps, width, note, sigma = 0, 1.0, "", None
    if symmetric and not (one_die and draws):  # estimate, then certify a box around it
        low, sigma, sweeps = _estimated_pair(t, tol, max_sweeps, draws, bar)
        if low is not None:
            width = _width(low)
        if width > tol:  # the bracket goes on without the policy
            sigma = None
    if one_die and width > tol:  # nothing to choose: a Markov chain (its live states)
        no_choice = FixedPlayer(np.zeros((size, size), dtype=np.int32),
                                np.ones((len(p.src), size), dtype=np.bool_), False, "")
        first, second = players
        players = (no_choice if first is None else first, no_choice if second is None else second)
    chain = players[0] is not None and players[1] is not None
    sides = _Sides(t, players, symmetric)
    skip = SKIP_RATIO * tol
    live = None
    if chain:
        live = _live(t, sides)
        draws = not (bool(live[0].all()) and bool(live[1].all()))
    if low is None:
        low = sides.pair(0.0, 1.0)
    high: tuple[np.ndarray, ...] | None = None
    history = [width]
    while width > tol:
        if sweeps >= max_sweeps:
            note = f"max_sweeps={max_sweeps} reached"
            break
        change, width = sides.sweep(low, True, skip)
        sweeps += 1
        if bar is not None:
            bar.update(1)
        if high is not None:
            change = max(change, sides.sweep(high, False, -1.0)[0])
            width = _draw_width(low, high)
        history.append(width)
        if width <= tol:
            break
        if len(history) > RATE_AFTER and len(history) % RATE_WINDOW == 0:
            rate = _rate(history)
            needed = _sweeps_needed(width, rate, tol)
            if live is not None and needed > CHAIN_SWEEPS and 2 * size * size <= MAX_STATES:
                return _linear(t, sides, live, tol, sweeps)
            # stop when the rate of the last window (not twice as fast as the one before)
            # would not close the bracket within max_sweeps
            if needed > max_sweeps - sweeps and \
                    1.0 - rate <= 2.0 * (1.0 - _rate(history[:-RATE_WINDOW])):
                note = _too_slow(rate, needed, width, sweeps, max_sweeps, tol)
                break
        if change > STALL_RATIO * width:
            continue
        if high is None:
            if draws:  # pair 2 from above (win) and below (not lose), see _draw_start
                high = _draw_start(t, sides, live, chain)
            continue
        if change <= 1e-3 * tol:  # nothing moves any more: pair 1's limits are the answer
            note = ("nobody may win from some positions and the players' choices keep the "
                    "bounds apart: value and opponent_wins are the limits of the iteration "
                    "from below and above, within the bracket of the exact values")
            break
    conv = RaceConvergence(sweeps, float(width), high is not None, note)
    w_lo, k_hi = (low[0], low[2]), (low[1], low[3])
    if high is None:  # the game always ends: win and not-lose coincide
        return Bounds(t.base, w_lo, k_hi, w_lo, k_hi, conv, not draws, sigma)
    if width > tol:  # report pair 1's limits, not midpoints
        return Bounds(t.base, w_lo, w_lo, k_hi, k_hi, conv)
    return Bounds(t.base, w_lo, (high[0], high[2]), (high[1], high[3]), k_hi, conv)


def _too_slow(rate: float, needed: float, width: float, sweeps: int, max_sweeps: int,
              tol: float) -> str:
    more = "for ever" if math.isinf(needed) else f"about {needed:.1e} more sweeps"
    note = (f"stopped after {sweeps:,} sweeps: the game mixes too slowly for the sweeps "
            f"(the bracket, {width:.1e} wide, shrinks by a factor {rate:.9f} per sweep: "
            f"{more} to reach tol={tol:g}, over max_sweeps={max_sweeps:,}); value is "
            "certified only within the bracket")
    return note


def _linear(t: Tables, sides: _Sides, live: tuple[np.ndarray, np.ndarray], tol: float,
            sweeps: int) -> Bounds:
    """A chain that mixes too slowly for the sweeps: solve it exactly."""
    s0, s1 = sides.side0, sides.side1
    m = max(len(t.jumps[0]), 1)
    take0 = s0[2] if t.optional else np.ones((m, 1), np.bool_)
    take1 = s1[2] if t.optional else np.ones((m, 1), np.bool_)
    # the bracket is 2 err + rounding wide: refine to a quarter of tol (the chances are at
    # most 1, so their relative error bounds the absolute one)
    side0, side1, err = solve_chain(t, s0[1], take0, s1[1], take1, live[0], live[1],
                                    min(TARGET_ERROR, tol / 4))
    mover, other = _alive_tables(t)  # exact zeros where a side cannot reach the goal
    side0 = (side0[0] * mover, side0[1] * other)
    side1 = (side1[0] * mover, side1[1] * other)
    err = err + 4 * np.finfo(float).eps  # and the rounding of 1 - x below
    draws = not (bool(live[0].all()) and bool(live[1].all()))
    note = (f"after {sweeps:,} sweeps the chain mixed too slowly for them and was solved "
            "as a linear system")
    conv = RaceConvergence(sweeps, float(2 * err), draws, note if 2 * err <= tol else
                           note + f"; its certified error {err:.1e} is above tol")
    return Bounds.around(t.base, (side0[0], side1[0]), (side0[1], side1[1]), err, conv)


def _draw_width(low: tuple[np.ndarray, ...], high: tuple[np.ndarray, ...]) -> float:
    """Widths of the separate brackets on the chances to win and not to lose."""
    win = max(float(np.max(high[k] - low[k])) for k in (0, 2))
    keep = max(float(np.max(low[k] - high[k])) for k in (1, 3))
    return max(win, keep)


def _draw_start(t: Tables, sides: _Sides, live: tuple[np.ndarray, np.ndarray] | None,
                chain: bool) -> tuple[np.ndarray, ...]:
    """Pair 2: upper bounds on the chance to win, lower bounds on the chance not to lose.

    Nobody can win where no throw sequence reaches the goal: in a Markov chain (both
    sides fixed) the pair states that cannot reach it, whose values are then unique
    elsewhere, so pair 2 meets pair 1; with choices, the squares from which no play
    reaches the goal (a side there cannot win, the other cannot lose).
    """
    mover, other = _alive_tables(t)
    win_hi, keep_lo = mover.copy(), 1.0 - other
    if not chain or live is None:  # live: computed for a chain only
        if sides.symmetric:
            return win_hi, keep_lo, win_hi, keep_lo
        return win_hi, keep_lo, win_hi.copy(), keep_lo.copy()
    # a chain: also nobody wins where nobody can reach the goal any more
    win0, keep0 = live[0] * win_hi, 1.0 - live[0] * (1.0 - keep_lo)
    if sides.symmetric:  # one player: the kernel needs the very same arrays for both sides
        return win0, keep0, win0, keep0
    return win0, keep0, live[1] * win_hi, 1.0 - live[1] * (1.0 - keep_lo)


def _alive_tables(t: Tables) -> tuple[np.ndarray, np.ndarray]:
    """Per pair state (diagonal layout), 1.0 where the mover's (the other's) square can
    still reach the goal by some play, else 0.0: a chance to win there is exactly 0."""
    n_sq = t.n_sq
    can = alive_squares(t)[:n_sq].astype(np.float64)
    states = n_sq * n_sq
    mover = np.empty(states)
    other = np.empty(states)
    to_diag(np.repeat(can[:, None], n_sq, axis=1), mover)
    to_diag(np.repeat(can[None, :], n_sq, axis=0), other)
    return mover, other
