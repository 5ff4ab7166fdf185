"""``optimal_race`` and ``race_value``: validation, the bracketing sweeps, read-out."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.memory import check_memory
from .._core.validation import flag, positive_int
from ..board import Board
from ..dice import Dice
from ..policy.problem import Problem, build_problem, check_common, jump_pairs
from .kernels import (
    alive_kernel,
    diag_base_kernel,
    from_diag_kernel,
    greedy_kernel,
    jump_options_kernel,
    live_kernel,
    moves_kernel,
    sweep_jumps_kernel,
    sweep_kernel,
    to_diag_kernel,
)
from .players import FixedPlayer, fixed_player
from .result import RaceConvergence, RaceResult

DiceList = Sequence[Dice | Mapping[int, float] | str | None]

#: Default certificate: the bracket around every value must be narrower than this.
DEFAULT_TOL = 1e-12
#: Default cap on Gauss-Seidel sweeps.
DEFAULT_MAX_SWEEPS = 1_000_000
#: Refuse races whose arrays would take more than this many bytes.
MAX_BYTES = 2 * 2**30
#: Ties between dice (and jump decisions) within this are broken towards the
#: smaller die index (and following the jump).
TIE_TOL = 1e-10
#: Positions whose bracket is already this fraction of ``tol`` wide are not
#: updated again (their bounds stay valid): late sweeps only visit the rest.
SKIP_RATIO = 0.25
#: A bracket whose values moved by less than this fraction of its width in a
#: sweep has stalled: nobody may win from some positions (see the package notes).
STALL_RATIO = 1e-3


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


def _in_our_words(exc: Exception) -> Exception:
    """The policy package's validation names the dice ``actions``; here they are ``dice``."""
    text = str(exc)
    return type(exc)("dice" + text[len("actions"):] if text.startswith("actions") else text)


def _common(board: Any, dice: Any, optional_jumps: Any) -> tuple[Board, tuple[Dice, ...]]:
    try:
        return check_common(board, dice, optional_jumps)
    except (TypeError, ValueError) as exc:
        raise _in_our_words(exc) from None


def _problem(board: Board, dice: tuple[Dice, ...], optional: bool) -> Problem:
    try:
        return build_problem(board, dice, optional)
    except ValueError as exc:
        raise _in_our_words(exc) from None


def _check_tol(tol: Any) -> float:
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not 0.0 < tol < 1.0:
        raise ValueError(f"tol must be a number in (0, 1), got {tol!r}")
    return float(tol)


def _nodes(p: Problem) -> np.ndarray:
    """Per-die successor nodes; with compulsory jumps every jump node is followed to its
    resting square, so the kernels only see squares."""
    if p.optional or len(p.src) == 0:
        return p.nxt
    rest = np.arange(p.n + len(p.src))
    for j in p.order.tolist():  # chained jumps come first
        rest[p.n + j] = rest[p.tgt[j]]
    return rest[p.nxt]


def jump_tables(p: Problem) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(src, tgt, ptr, rest)``: the jumps, and where a deciding player may rest after
    landing on each (``rest[ptr[k]:ptr[k + 1]]``)."""
    m = len(p.src)
    ptr = np.zeros(m + 1, dtype=np.int64)
    jump_options_kernel(p.src, p.tgt, p.n, ptr, np.zeros(0, dtype=np.int64))
    rest = np.zeros(max(int(ptr[m]), 1), dtype=np.int64)
    jump_options_kernel(p.src, p.tgt, p.n, ptr, rest)
    return p.src, p.tgt, ptr, rest


def move_tables(nodes: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(cnt, node, prob, move, stay)`` of :func:`moves_kernel`."""
    n_act, n, width = nodes.shape
    cnt = np.empty((n_act, n), dtype=np.int64)
    node = np.empty((n_act, n, width), dtype=np.int64)
    prob = np.empty((n_act, n, width))
    move = np.empty((n_act, n))
    stay = np.empty((n_act, n))
    moves_kernel(nodes, probs, cnt, node, prob, move, stay)
    return cnt, node, prob, move, stay


def _check_memory(size: int, arrays: int, tables: int) -> None:
    """Refuse before allocating: ``arrays`` float64 bounds and ``tables`` fixed-choice
    tables per pair state, plus the result's tables and their temporaries."""
    states = size * size
    need = states * (8 * arrays + 8 * tables + 64)
    if need > MAX_BYTES:
        raise ValueError(
            f"a race on {size} squares has {states:,} pair states and needs about "
            f"{need / 2**30:.1f} GiB of memory; the limit is {MAX_BYTES / 2**30:.0f} GiB")
    check_memory(need, f"a race on {size:,} squares ({states:,} pair states)")


def solve_bounds(p: Problem, size: int, players: tuple[FixedPlayer | None, FixedPlayer | None],
                 tol: float, max_sweeps: int) -> Bounds:
    """Bracket both sides' chances to win and not to lose on every pair state.

    ``players[k]`` is None for a side that maximises its chance to win; both
    None is the symmetric game (one set of arrays). A side without a choice
    (one die, compulsory jumps) is played as a fixed one.
    """
    symmetric = players[0] is None and players[1] is None
    if p.n_actions == 1 and not p.optional:  # nothing to choose: a Markov chain
        no_choice = FixedPlayer(np.zeros((size, size), dtype=np.int32),
                                np.ones((len(p.src), size), dtype=np.bool_), False, "")
        players = tuple(no_choice if pl is None else pl for pl in players)
    chain = players[0] is not None and players[1] is not None
    _check_memory(size, 4 if symmetric else 8, sum(pl is not None for pl in players))
    nodes = _nodes(p)
    n_sq = size
    base = np.zeros(2 * n_sq - 1, dtype=np.int64)
    diag_base_kernel(n_sq, base)
    states = n_sq * n_sq
    jumps = jump_tables(p)
    moves = move_tables(nodes, p.probs)
    kernel = sweep_jumps_kernel if p.optional else sweep_kernel
    skip = SKIP_RATIO * tol

    def side_args(pl: FixedPlayer | None) -> tuple[bool, bool, np.ndarray, np.ndarray]:
        if pl is None:
            return p.optional, False, np.zeros(1, dtype=np.int32), np.ones((1, 1), np.bool_)
        die = np.empty(states, dtype=np.int32)
        to_diag_kernel(pl.die, base, die)
        take = pl.take if p.optional else np.ones((max(len(p.src), 1), 1), np.bool_)
        return False, True, die, np.ascontiguousarray(take)

    side0 = side_args(players[0])
    side1 = side0 if symmetric else side_args(players[1])

    def sweep(arrays: tuple[np.ndarray, ...], lower: bool) -> tuple[float, float]:
        return kernel(moves, jumps, side0[0], side1[0], side0[1], side0[2], side0[3],
                      side1[1], side1[2], side1[3], symmetric, base, *arrays, lower,
                      skip if lower else -1.0)  # pair 2's gap q - p brackets nothing

    def pair(lo_value: float, hi_value: float) -> tuple[np.ndarray, ...]:
        a0, b0 = np.full(states, lo_value), np.full(states, hi_value)
        if symmetric:
            return a0, b0, a0, b0
        return a0, b0, np.full(states, lo_value), np.full(states, hi_value)

    # pair 1 from (0, 1): lower bounds on the chance to win rise, upper bounds on the
    # chance not to lose fall; they meet unless nobody may win from some position
    low = pair(0.0, 1.0)
    high: tuple[np.ndarray, ...] | None = None
    sweeps, width, note = 0, 1.0, ""
    while True:
        if sweeps == max_sweeps:
            note = f"max_sweeps={max_sweeps} reached"
            break
        change, width = sweep(low, True)
        sweeps += 1
        if high is not None:
            change = max(change, sweep(high, False)[0])
            width = _draw_width(low, high)
        if width <= tol:
            break
        if change > STALL_RATIO * width:
            continue
        if high is None:  # pair 2 from above (win) and below (not lose), see _draw_start
            high = _draw_start(nodes, p, jumps, chain, side0, side1, symmetric, base, states)
            continue
        if change <= 1e-3 * tol:  # nothing moves any more: pair 1's limits are the answer
            note = ("nobody may win from some positions and the players' choices keep the "
                    "bounds apart: value and opponent_wins are the limits of the iteration "
                    "from below and above, within the bracket of the exact values")
            break
    conv = RaceConvergence(sweeps, float(width), high is not None, note)
    w_lo, k_hi = (low[0], low[2]), (low[1], low[3])
    if high is None:  # the game always ends: win and not-lose coincide
        return Bounds(base, w_lo, k_hi, w_lo, k_hi, conv)
    if width > tol:  # report pair 1's limits, not midpoints
        return Bounds(base, w_lo, w_lo, k_hi, k_hi, conv)
    return Bounds(base, w_lo, (high[0], high[2]), (high[1], high[3]), k_hi, conv)


def _draw_width(low: tuple[np.ndarray, ...], high: tuple[np.ndarray, ...]) -> float:
    """Widths of the separate brackets on the chances to win and not to lose."""
    win = max(float(np.max(high[k] - low[k])) for k in (0, 2))
    keep = max(float(np.max(low[k] - high[k])) for k in (1, 3))
    return max(win, keep)


def _draw_start(nodes: np.ndarray, p: Problem, jumps: tuple[np.ndarray, ...], chain: bool,
                side0: tuple, side1: tuple, symmetric: bool, base: np.ndarray,
                states: int) -> tuple[np.ndarray, ...]:
    """Pair 2: upper bounds on the chance to win, lower bounds on the chance not to lose.

    Nobody can win where no throw sequence reaches the goal: in a Markov chain (both
    sides fixed) the pair states that cannot reach it, whose values are then unique
    elsewhere, so pair 2 meets pair 1; with choices, the squares from which no play
    reaches the goal (a side there cannot win, the other cannot lose).
    """
    if chain:
        live0 = np.zeros(states, dtype=np.bool_)
        live1 = live0 if symmetric else np.zeros(states, dtype=np.bool_)
        live_kernel(nodes, p.probs, jumps, p.optional, side0[2], side0[3], side1[2], side1[3],
                    symmetric, base, live0, live1)
        win0, win1 = live0.astype(np.float64), live1.astype(np.float64)
        keep0 = 1.0 - win0
        if symmetric:  # one player: the kernel needs the very same arrays for both sides
            return win0, keep0, win0, keep0
        return win0, keep0, win1, 1.0 - win1
    n_sq = p.n - 1
    alive = np.empty(p.n, dtype=np.bool_)
    alive_kernel(nodes, p.probs, jumps, p.optional, alive)
    can = alive[:n_sq].astype(np.float64)
    win_hi = np.empty(states)
    keep_lo = np.empty(states)
    to_diag_kernel(np.repeat(can[:, None], n_sq, axis=1), base, win_hi)
    to_diag_kernel(np.repeat(1.0 - can[None, :], n_sq, axis=0), base, keep_lo)
    if symmetric:
        return win_hi, keep_lo, win_hi, keep_lo
    return win_hi, keep_lo, win_hi.copy(), keep_lo.copy()


def _table(diag: np.ndarray, size: int, base: np.ndarray) -> np.ndarray:
    out = np.empty((size, size))
    from_diag_kernel(diag, base, out)
    return out


def _full(inner: np.ndarray, size: int, home: float, away: float) -> np.ndarray:
    """An ``(size + 1)^2`` table from the pair states: ``home`` on the mover's goal row,
    ``away`` on the opponent's goal column (below the corner)."""
    out = np.empty((size + 1, size + 1))
    out[:size, :size] = inner
    out[size, :] = home
    out[:size, size] = away
    return out


def _value_tables(b: Bounds, side: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    win = _table(0.5 * (b.win_lo[side] + b.win_hi[side]), size, b.base)
    keep = _table(0.5 * (b.keep_lo[side] + b.keep_hi[side]), size, b.base)
    keep = np.maximum(keep, win)
    return _full(win, size, 1.0, 0.0), _full(1.0 - keep, size, 0.0, 1.0)


def _read_policy(p: Problem, b: Bounds, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Side 0's choices against side 1's (midpoint) chances not to lose."""
    keep1 = 0.5 * (b.keep_lo[1] + b.keep_hi[1])
    m = len(p.src)
    diag = np.empty(size * size, dtype=np.int64)
    inner_take = np.ones((m, size), dtype=np.bool_)
    greedy_kernel(_nodes(p), p.probs, jump_tables(p), p.optional, b.base, keep1, TIE_TOL, diag,
                  inner_take)
    policy = np.full((size + 1, size + 1), -1, dtype=np.int64)
    inner = np.empty((size, size), dtype=np.int64)
    from_diag_kernel(diag, b.base, inner)
    policy[:size, :size] = inner
    take = np.ones((m, size + 1), dtype=np.bool_)
    take[:, :size] = inner_take
    return policy, take


def _freeze(*arrays: np.ndarray) -> None:
    for a in arrays:
        a.flags.writeable = False


def optimal_race(
    board: Board,
    dice: DiceList,
    *,
    opponent: Any = None,
    optional_jumps: bool = False,
    tol: float = DEFAULT_TOL,
    max_sweeps: int = DEFAULT_MAX_SWEEPS,
) -> RaceResult:
    """Two players race; each picks a die before every throw to maximise their chance to win.

    Parameters
    ----------
    board : Board
        The board and rules (overshoot, chain, start square for both
        players); its own dice are ignored.
    dice : sequence of Dice, mapping, str or None
        The dice both players choose from (a string is read by
        :func:`~snl_numeric.dice.parse_dice`, ``None`` is a fair d6).
    opponent : PolicyResult, RaceResult or array of int, optional
        A fixed opponent instead of an optimal one: a
        :class:`~snl_numeric.PolicyResult` (e.g. the fewest expected throws),
        another :class:`RaceResult` (its ``policy``), or die indices into
        ``dice`` per square (shape ``(size + 1,)``) or per position (shape
        ``(size + 1, size + 1)``). The result is then the first player's best
        response to it.
    optional_jumps : bool, default False
        Let players decline any snake or ladder after landing on it; the
        decision may depend on the opponent's square. A fixed opponent then
        keeps its own decisions (an array of dice follows every jump); with
        compulsory jumps everybody follows every jump.
    tol : float, default 1e-12
        The certificate to reach: the width of the proven bracket around every
        value.
    max_sweeps : int, default 1_000_000
        Cap on Gauss-Seidel sweeps.

    Returns
    -------
    RaceResult

    Raises
    ------
    ValueError
        For a bad die, a fixed opponent computed on another board or with
        other dice, or a race too large for memory (the message says how much
        it would need).

    Examples
    --------
    >>> from snl_numeric import boards, optimal_race
    >>> r = optimal_race(boards.get("milton-bradley"), ["1-3", "4-6"])
    >>> round(r.win_probability, 6), r.bracket < 1e-12
    (0.522993, True)

    On square 11 the big die (B, index 1), unless the opponent is on 64..69:

    >>> r.policy[11, 60:72].tolist()
    [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1]
    """
    board, dice_t = _common(board, dice, optional_jumps)
    tol = _check_tol(tol)
    max_sweeps = positive_int(max_sweeps, "max_sweeps")
    size = board.size
    _check_memory(size, 4 if opponent is None else 8, 0 if opponent is None else 1)
    p = _problem(board, dice_t, bool(optional_jumps))
    fixed = None
    if opponent is not None:
        fixed = fixed_player(opponent, board, dice_t, len(p.src), "opponent")
    b = solve_bounds(p, size, (None, fixed), tol, max_sweeps)
    value, opp = _value_tables(b, 0, size)
    policy, take = _read_policy(p, b, size)
    s = board.start
    if fixed is None:
        second = float(opp[s, s])
    else:
        _, opp1 = _value_tables(b, 1, size)
        second = float(opp1[s, s])
    _freeze(value, opp, policy, take)
    win, lose = float(value[s, s]), float(opp[s, s])
    return RaceResult(
        board=board, dice=dice_t, optional_jumps=bool(optional_jumps),
        opponent="optimal" if fixed is None else fixed.kind,
        value=value, opponent_wins=opp, policy=policy, jumps=jump_pairs(board, p), take=take,
        win_probability=win, lose_probability=lose, no_winner=max(0.0, 1.0 - win - lose),
        win_probability_second=second, convergence=b.convergence)


def race_value(
    board: Board,
    dice: DiceList,
    first: Any,
    second: Any,
    *,
    optional_jumps: bool | None = None,
    tol: float = DEFAULT_TOL,
) -> float:
    """The first player's chance to win when both players follow given choices.

    Parameters
    ----------
    board : Board
    dice : sequence of Dice, mapping, str or None
        The dice the choices index into.
    first, second : PolicyResult, RaceResult or array of int
        Each player's choices, in any form accepted by ``opponent`` in
        :func:`optimal_race`.
    optional_jumps : bool, optional
        Whether players may decline jumps (each then follows its own
        decisions). By default, True when either player's choices were
        computed with optional jumps.
    tol : float, default 1e-12
        Width of the proven bracket around the answer.

    Returns
    -------
    float
        The chance that the first player (throwing first, both on the
        board's start square) wins. The second player's chance is at most
        ``1 -`` this; the rest is the chance that nobody ever wins.

    Examples
    --------
    How much does playing for the fewest expected throws cost against an
    optimal racer?

    >>> from snl_numeric import boards, optimal_policy, optimal_race, race_value
    >>> mb, dice = boards.get("milton-bradley"), ["1-3", "4-6"]
    >>> fewest, best = optimal_policy(mb, dice), optimal_race(mb, dice)
    >>> round(race_value(mb, dice, best, best), 6)
    0.522993
    >>> round(race_value(mb, dice, fewest, best), 6)
    0.51642
    """
    board, dice_t = _common(board, dice, False if optional_jumps is None else optional_jumps)
    tol = _check_tol(tol)
    _check_memory(board.size, 8, 2)
    probe = _problem(board, dice_t, False)
    players = (fixed_player(first, board, dice_t, len(probe.src), "first"),
               fixed_player(second, board, dice_t, len(probe.src), "second"))
    optional = (any(pl.optional for pl in players) if optional_jumps is None
                else flag(optional_jumps, "optional_jumps"))
    p = _problem(board, dice_t, optional) if optional else probe
    b = solve_bounds(p, board.size, players, tol, DEFAULT_MAX_SWEEPS)
    value, _ = _value_tables(b, 0, board.size)
    return float(value[board.start, board.start])
