"""``optimal_race`` and ``race_value``: validation, the bracketing sweeps, read-out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._core.progress import Progress, check_progress
from .._core.validation import flag, positive_int, probability
from .._core.warn import warn_user
from ..board import Board
from ..dice import Dice, DiceLike
from ..policy.problem import Problem, build_problem, check_common, jump_pairs
from .bounds import Bounds, check_race_memory, solve_bounds
from .linear import MAX_STATES
from .players import FixedPlayer, fixed_player
from .readout import read_policy
from .response import best_response
from .result import RaceConvergence, RaceResult
from .tables import Tables, from_diag, make_tables, to_diag

DiceList = Sequence[DiceLike | None]

#: Default certificate: the bracket around every value must be narrower than this.
DEFAULT_TOL = 1e-12
#: Default cap on Gauss-Seidel sweeps.
DEFAULT_MAX_SWEEPS = 1_000_000
#: Dice (and jump decisions) whose values differ by less than twice the bracket plus
#: this are ties (the values are midpoints of the bracket, so exact ties may differ by
#: up to the bracket); among ties the read-out prefers progress (see ``readout.py``).
TIE_FLOOR = 1e-14


def _in_our_words(exc: Exception) -> Exception:
    """The policy package's validation names the dice ``actions``; here they are ``dice``."""
    text = str(exc)
    return type(exc)("dice" + text[len("actions"):] if text.startswith("actions") else text)


def _common(board: Any, dice: Any, optional_jumps: Any) -> tuple[Board, tuple[Dice, ...]]:
    try:
        board, dice_t = check_common(board, dice, optional_jumps)
    except (TypeError, ValueError) as exc:
        raise _in_our_words(exc) from None
    if board.capture is not None:  # (the pair states know no captures: refused, not ignored)
        raise ValueError(f"races choosing dice are between players who never meet; this board "
                         f"has capture={board.capture!r}: race on "
                         "board.replace(capture=None), or ask win_probabilities for the game "
                         "with captures and fixed dice")
    return board, dice_t


def _problem(board: Board, dice: tuple[Dice, ...], optional: bool) -> Problem:
    try:
        return build_problem(board, dice, optional)
    except ValueError as exc:
        raise _in_our_words(exc) from None


def _check_tol(tol: Any) -> float:
    tol = probability(tol, "tol")
    if not 0.0 < tol < 1.0:
        raise ValueError(f"tol must be a number in (0, 1), got {tol!r}")
    return tol


def _table(diag: np.ndarray, size: int) -> np.ndarray:
    out = np.empty((size, size))
    from_diag(diag, out)
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
    win = _table(0.5 * (b.win_lo[side] + b.win_hi[side]), size)
    keep = _table(0.5 * (b.keep_lo[side] + b.keep_hi[side]), size)
    keep = np.maximum(keep, win)
    return _full(win, size, 1.0, 0.0), _full(1.0 - keep, size, 0.0, 1.0)


def _mid(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return 0.5 * (lo + hi)


def _policy_tables(t: Tables, b: Bounds, opponent: FixedPlayer | None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Side 0's choices read off the bounds' midpoints (``readout.py``), as full tables."""
    size = t.n_sq
    fixed = None
    if opponent is not None:
        die = np.empty(size * size, dtype=np.int32)
        to_diag(opponent.die, die)
        fixed = (die, np.ascontiguousarray(opponent.take) if t.optional
                 else np.ones((max(t.n_jumps, 1), 1), np.bool_))
    if b.policy is not None:  # the policy the bracket was certified through
        diag, inner_take = b.policy
    else:
        tie = 2.0 * b.convergence.bracket + TIE_FLOOR
        diag, inner_take = read_policy(t, _mid(b.win_lo[0], b.win_hi[0]),
                                       _mid(b.win_lo[1], b.win_hi[1]),
                                       _mid(b.keep_lo[1], b.keep_hi[1]), tie, fixed, ends=b.ends)
    policy = np.full((size + 1, size + 1), -1, dtype=np.int64)
    inner = np.empty((size, size), dtype=np.int64)
    from_diag(diag, inner)
    policy[:size, :size] = inner
    take = np.ones((t.n_jumps, size + 1), dtype=np.bool_)
    take[:, :size] = inner_take
    return policy, take


def _as_player(policy: np.ndarray, take: np.ndarray, size: int, optional: bool) -> FixedPlayer:
    return FixedPlayer(np.ascontiguousarray(policy[:size, :size], dtype=np.int32),
                       np.ascontiguousarray(take[:, :size]), optional, "")


def _played_out(p: Problem, t: Tables, b: Bounds, policy: np.ndarray, take: np.ndarray,
                opponent: FixedPlayer | None, tol: float, max_sweeps: int, bar: Progress
                ) -> Bounds:
    """Where nobody may win, the chances of the policy played out (against itself, or
    against the fixed opponent): the Markov chain both make, bracketed on its own."""
    me = _as_player(policy, take, t.n_sq, p.optional)
    chain = solve_bounds(p, t, (me, me if opponent is None else opponent), tol, max_sweeps,
                         bar)
    c, g = chain.convergence, b.convergence
    notes = "; ".join(x for x in (g.note, c.note and f"playing the policy out: {c.note}") if x)
    conv = RaceConvergence(g.sweeps + c.sweeps, max(g.bracket, c.bracket), g.draw_bounds,
                           notes)
    return Bounds(chain.base, chain.win_lo, chain.win_hi, chain.keep_lo, chain.keep_hi, conv)


def _response(t: Tables, fixed: FixedPlayer, tol: float, max_sweeps: int, bar: Progress
              ) -> Bounds:
    """The best response by policy iteration (``response.py``): the chances its policy
    delivers, within the solver's certified error, and the policy itself."""
    ev, die, take, conv = best_response(t, fixed, tol, max_sweeps, bar)
    return Bounds.around(t.base, (ev.win0, ev.win1), (ev.lose0, ev.lose1), ev.error, conv,
                         policy=(die.astype(np.int64), take))


def _warn_uncertified(c: RaceConvergence, tol: float) -> None:
    if c.bracket > tol:
        warn_user(f"snl_numeric race: not certified to tol={tol:g}: the proven bracket is "
                  f"{c.bracket:.1e} wide ({c.note}). A larger tol accepts the bracket.")


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
    progress: bool | str = False,
) -> RaceResult:
    """Two players race; each picks a die before every throw to maximise their chance to win.

    Parameters
    ----------
    board : Board
        The board and rules (overshoot, chain, start square for both
        players); its own dice are ignored.
    dice : sequence of Dice, mapping, str or None
        The dice both players choose from (a string is read by
        :func:`~snl_numeric.dice.parse_dice`). A ``None`` entry is a fair d6, not the
        board's die (which is ignored here), as in :func:`~snl_numeric.optimal_policy`.
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
    progress : bool or "always", default False
        A progress bar on standard error (a widget in Jupyter) counting the sweeps over
        the pair states (against a fixed opponent on smaller boards also the exact
        evaluations of a policy; their number is known only at the end, so the bar has no
        total): True shows it on a terminal or in a notebook only, ``"always"`` in pipes
        and files too. Ctrl-C (``KeyboardInterrupt``) stops the race between two sweeps.

    Returns
    -------
    RaceResult

    Raises
    ------
    ValueError
        For a bad die, a fixed opponent computed on another board or with
        other dice, a board with a capture rule (the race is between players
        who never meet), or a race too large for memory (the message says how
        much it would need).

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
    progress = check_progress(progress)
    size = board.size
    check_race_memory(size, 4 if opponent is None else 8, 0 if opponent is None else 1,
                      dice_t, chain=opponent is not None)
    p = _problem(board, dice_t, bool(optional_jumps))
    fixed = None
    if opponent is not None:
        fixed = fixed_player(opponent, board, dice_t, len(p.src), "opponent")
    t = make_tables(p)
    with Progress(0, "optimal_race", enabled=progress) as bar:
        if fixed is not None and 2 * size * size <= MAX_STATES:
            b = _response(t, fixed, tol, max_sweeps, bar)
            policy, take = _policy_tables(t, b, fixed)
        else:
            b = solve_bounds(p, t, (None, fixed), tol, max_sweeps, bar)
            policy, take = _policy_tables(t, b, fixed)
            if b.convergence.draw_bounds and b.convergence.bracket <= tol:
                b = _played_out(p, t, b, policy, take, fixed, tol, max_sweeps, bar)
    _warn_uncertified(b.convergence, tol)
    value, opp = _value_tables(b, 0, size)
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
        value=value, opponent_wins=opp, policy=policy, jumps=jump_pairs(board), take=take,
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
    progress: bool | str = False,
) -> float:
    """The first player's chance to win when both players follow given choices.

    Parameters
    ----------
    board : Board
        The board and rules; its own dice are ignored (a capture rule is refused, as
        in :func:`optimal_race`).
    dice : sequence of Dice, mapping, str or None
        The dice the choices index into, as in :func:`optimal_race` (a ``None`` entry
        is a fair d6, not the board's die).
    first, second : PolicyResult, RaceResult or array of int
        Each player's choices, in any form accepted by ``opponent`` in
        :func:`optimal_race`.
    optional_jumps : bool, optional
        Whether players may decline jumps (each then follows its own
        decisions). By default, True when either player's choices were
        computed with optional jumps.
    tol : float, default 1e-12
        Width of the proven bracket around the answer.
    progress : bool or "always", default False
        A progress bar counting the sweeps, as in :func:`optimal_race`.

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
    progress = check_progress(progress)
    check_race_memory(board.size, 8, 2, dice_t, chain=True)
    probe = _problem(board, dice_t, False)
    players = (fixed_player(first, board, dice_t, len(probe.src), "first"),
               fixed_player(second, board, dice_t, len(probe.src), "second"))
    optional = (any(pl.optional for pl in players) if optional_jumps is None
                else flag(optional_jumps, "optional_jumps"))
    p = _problem(board, dice_t, optional) if optional else probe
    t = make_tables(p)
    with Progress(0, "race_value", enabled=progress) as bar:
        b = solve_bounds(p, t, players, tol, DEFAULT_MAX_SWEEPS, bar)
    _warn_uncertified(b.convergence, tol)
    value, _ = _value_tables(b, 0, board.size)
    return float(value[board.start, board.start])
