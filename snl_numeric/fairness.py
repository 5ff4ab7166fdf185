"""Fair games: the first player's edge, and the handicap that removes it.

For independent players (no capture rule) on the same start square with the same dice, the
first of two players wins with probability

.. math::

    P(\\text{player 0 wins}) = \\sum_n p_n S(n - 1)
        = \\tfrac12 \\Big(1 + \\sum_n p_n^2\\Big) \\quad (\\text{when the game surely ends}),

``p_n = P(T = n)`` the length distribution and ``S(n) = P(T > n)``: player 1's chance is
``sum_n p_n S(n)``, the two differ by ``sum_n p_n (S(n - 1) - S(n)) = sum_n p_n^2`` and add up
to 1. The edge ``sum_n p_n^2 / 2`` is positive on every board where the goal can be
reached, so **no layout makes a two-player race of identical players fair** (Milton
Bradley's *Chutes and Ladders*: 0.5079 for the first player). Only a handicap can: other
start squares, extra throws before the first round, or other dice per player.
:func:`fair_starts` searches them.

The search is vectorised (:mod:`snl_numeric.handicaps`): the length distributions from
every square come from one backward push through the chain, as a (squares x throws) array,
and with two players varying every pair of their options is evaluated at once by matrix
products of the exact independent-players formula of :mod:`snl_numeric.players`. An extra
throw before round 1 is modelled exactly through the player's length distribution.

Capture rules (``Board(capture=...)``) couple the players; :func:`first_player_advantage`
goes through :func:`~snl_numeric.win_probabilities`, which honours them. :func:`fair_starts`
searches under capture only where each evaluation is cheap (the joint states of all the
assignments together at most ``CAPTURE_SEARCH_WORK``); otherwise it searches as
independent players and reports the found assignment's exact chances under capture beside
the independent ones.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast, get_args

import numpy as np

from ._core.equality import value_eq
from ._core.progress import Progress, check_progress
from ._core.validation import (
    DEFAULT_MAX_THROWS,
    DEFAULT_TAIL,
    check_tail,
    choice,
    flag,
    integer,
    positive_int,
    shown,
)
from .board import Board, capture_rule, check_board
from .dice import Dice, DiceLike, as_dice
from .handicaps import (
    fairest_assignment,
    Options,
    better,
    lengths_from_every_square,
    one_start,
    race_wins,
    shifted,
    stack_rows,
)
from .players import check_race_memory, win_probabilities

__all__ = ["CAPTURE_SEARCH_WORK", "FairStarts", "fair_starts", "first_player_advantage"]

#: A search under a capture rule runs when the assignments' joint states together
#: (assignments x ``k`` x ``(size + 1) ** k``) are at most this many; otherwise the search is
#: for independent players and the found assignment is evaluated under capture.
CAPTURE_SEARCH_WORK = 1_000_000

Handicap = Literal["starts", "throws", "dice"]
Search = Literal["auto", "exhaustive", "coordinate"]


@dataclass(frozen=True, eq=False)
class FairStarts:
    """The fairest handicap found by :func:`fair_starts`.

    Attributes
    ----------
    players : int
        Number of players ``k``; player 0 throws first.
    handicap : {"starts", "throws", "dice"}
        What was searched.
    starts : tuple of int
        Each player's start square.
    dice : tuple of Dice
        Each player's dice.
    extra_throws : tuple of int
        Throws each player makes before round 1 (in player order).
    win_probabilities : ndarray of float64, shape (k,)
        Each player's exact win chance under this assignment, as independent players (for
        starts and dice, a fresh :func:`~snl_numeric.win_probabilities` call).
    deviation : float
        ``max_i |win_probabilities[i] - 1/k|``.
    unhandicapped : ndarray of float64, shape (k,)
        The win chances with no handicap (everybody on the board's start with its dice).
    evaluated : int
        Assignments evaluated by the search.
    capture_win_probabilities : ndarray of float64 or None
        Under a capture rule, this assignment's exact win chances with the rule (through
        :func:`~snl_numeric.win_probabilities`); None without one, and for extra throws
        (which that function does not model).
    capture_deviation : float or None
        ``max_i |capture_win_probabilities[i] - 1/k|``.
    searched_under_capture : bool
        Whether the assignment was chosen by its chances under the capture rule (the search
        was cheap enough: ``CAPTURE_SEARCH_WORK``) rather than as independent players.
    """

    __eq__ = value_eq
    __hash__ = None  # type: ignore[assignment]

    players: int
    handicap: str
    starts: tuple[int, ...]
    dice: tuple[Dice, ...] = field(repr=False)
    extra_throws: tuple[int, ...]
    win_probabilities: np.ndarray
    deviation: float
    unhandicapped: np.ndarray = field(repr=False)
    evaluated: int = field(repr=False)
    capture_win_probabilities: np.ndarray | None = field(repr=False, default=None)
    capture_deviation: float | None = field(repr=False, default=None)
    searched_under_capture: bool = field(repr=False, default=False)

    def to_dict(self) -> dict[str, Any]:
        """A summary of Python numbers and lists."""
        cw = self.capture_win_probabilities
        return {
            "players": self.players,
            "handicap": self.handicap,
            "starts": list(self.starts),
            "dice": [d.to_dict() for d in self.dice],
            "extra_throws": list(self.extra_throws),
            "win_probabilities": self.win_probabilities.tolist(),
            "deviation": self.deviation,
            "unhandicapped": self.unhandicapped.tolist(),
            "evaluated": self.evaluated,
            "capture_win_probabilities": None if cw is None else cw.tolist(),
            "capture_deviation": self.capture_deviation,
            "searched_under_capture": self.searched_under_capture,
        }


def _independent(board: Board) -> Board:
    """The board without its capture rule (players who never interact)."""
    if capture_rule(board)[0] == 0:
        return board
    return board.replace(capture=None, safe=())


# -- the first player's edge --------------------------------------------------------------
def first_player_advantage(board: Board | Sequence[Board], k: int = 2, **options: Any
                           ) -> float:
    """The first player's win chance minus ``1/k``.

    Parameters
    ----------
    board : Board or list of Board
        As for :func:`~snl_numeric.win_probabilities` (a capture rule is honoured).
    k : int, default 2
        Number of players, at least 2.
    **options
        ``starts``, ``dice``, ``tail``, ``max_throws`` of
        :func:`~snl_numeric.win_probabilities` (``None`` dice: the board's own die).

    Returns
    -------
    float
        ``P(player 0 wins) - 1/k``. For two independent players on the same start with the
        same dice it is ``sum_n P(T = n)^2 / 2`` when the game surely ends (module
        docstring): never 0. When nobody may ever win it can be 0 or negative (the first
        player still wins ``sum_n P(T = n)^2`` more often than the second).

    Examples
    --------
    >>> from snl_numeric import Board, boards, first_player_advantage
    >>> round(first_player_advantage(boards.get("milton-bradley")), 6)
    0.007912
    >>> round(first_player_advantage(boards.get("milton-bradley"), 3), 6)
    0.009655

    A throw of 4 wins at once, a 3 strands the token: the first player wins with 0.3.

    >>> round(first_player_advantage(Board(4, overshoot="exact", dice={3: 0.7, 4: 0.3})), 6)
    -0.2
    """
    k = _players(k)
    if "players" in options:
        raise TypeError("give the number of players as k, not players=")
    return float(win_probabilities(board, k, **options)[0]) - 1.0 / k


def _players(k: Any) -> int:
    k = integer(k, "k")
    if k < 2:
        raise ValueError(f"k must be at least 2 players for a first-player edge, got {k}")
    return k


# -- the public search -----------------------------------------------------------------------
def _squares(board: Board, squares: Any, live: np.ndarray) -> np.ndarray:
    """The candidate start squares, checked: every non-goal square from which the goal can
    be reached by default."""
    if squares is None:
        return np.flatnonzero(live[: board.size])
    if isinstance(squares, (str, bytes)) or not isinstance(squares, (Sequence, np.ndarray)):
        raise TypeError(f"squares must be a list of squares, got {shown(squares)}")
    out = []
    for x in squares:
        x = integer(x, "squares entry")
        if not 0 <= x < board.size:
            raise ValueError(f"squares must lie in 0..{board.size - 1} (the goal {board.size} "
                             f"would win at once), got {x}")
        if not live[x]:
            raise ValueError(f"the goal cannot be reached from square {x}; give start squares "
                             "from which it can")
        out.append(x)
    if not out:
        raise ValueError("squares is empty; give at least one candidate start square")
    return np.unique(np.array(out, dtype=np.intp))


def _dice_list(board: Board, dice: Any) -> list[Board]:
    """One board per candidate die, checked."""
    if dice is None or isinstance(dice, (str, bytes, Dice)) or not isinstance(dice, Sequence):
        raise TypeError("handicap='dice' needs dice=, a list of candidate dice (Dice, mappings "
                        f"face -> probability or strings such as '2d6'), got {shown(dice)}")
    if len(dice) == 0:
        raise ValueError("dice is an empty list; give at least one candidate die")
    out = []
    for i, d in enumerate(dice):
        try:
            out.append(board if d is None else board.replace(dice=as_dice(d)))
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"dice[{i}]: {exc}") from None
    return out


def _starts_options(board: Board, k: int, squares: Any, move_first: bool, tail: float,
                    max_throws: int) -> tuple[Options, np.ndarray]:
    live = board.compiled.reach[0] >= 0
    if not live[board.start] or board.start == board.size:
        raise ValueError(f"the goal cannot be reached from the board's start {board.start}, or "
                         "it is the goal: nothing to make fair")
    cand = _squares(board, squares, live)
    cand = np.union1d(cand, [board.start])
    pmf, surv = lengths_from_every_square(board, tail=tail, max_throws=max_throws, rows=cand)
    first = np.flatnonzero(cand == board.start)
    others = np.concatenate([first, np.flatnonzero(cand != board.start)])
    rows = (others if move_first else first,) + (others,) * (k - 1)
    cost = (cand != board.start).astype(np.float64)
    return Options(pmf, surv, cost, rows), cand


def fair_starts(
    board: Board,
    k: int = 2,
    *,
    handicap: Handicap = "starts",
    dice: Sequence[DiceLike | None] | None = None,
    squares: Sequence[int] | None = None,
    move_first: bool = True,
    max_extra: int = 3,
    search: Search = "auto",
    tail: float = DEFAULT_TAIL,
    max_throws: int = DEFAULT_MAX_THROWS,
    progress: bool | str = False,
) -> FairStarts:
    """The handicap that makes a ``k``-player race fairest.

    Parameters
    ----------
    board : Board
        The board everybody races on.
    k : int, default 2
        Number of players, at least 2; player 0 throws first.
    handicap : {"starts", "throws", "dice"}, default "starts"
        What differs between players: their start squares, throws made before round 1
        (in player order; 0 .. ``max_extra`` each), or their dice (from ``dice``).
    dice : list of dice, optional
        With ``handicap="dice"`` (and only then): the candidate dice, each a
        :class:`~snl_numeric.Dice`, a mapping face -> probability or a string such as
        ``"1-4"``, or ``None`` for the board's own die (as in
        :func:`~snl_numeric.win_probabilities`; not a fair d6); every player may take any
        of them.
    squares : list of int, optional
        With ``handicap="starts"``: the candidate start squares (by default every square
        but the goal from which the goal can be reached). Player 0 may also start on the
        board's start.
    move_first : bool, default True
        With ``handicap="starts"``: whether player 0 may start elsewhere too (otherwise it
        stays on the board's start).
    max_extra : int, default 3
        With ``handicap="throws"``: most extra throws per player.
    search : {"auto", "exhaustive", "coordinate"}, default "auto"
        How three or more players' assignments are searched (two players are always
        searched exhaustively, every pair of options at once). ``"exhaustive"`` evaluates
        every assignment: the fairest one for certain, in time growing as the options to
        the power ``k``. ``"coordinate"`` improves the assignment one pair of players at a
        time until no pair does better: fast, but it may stop at a local optimum.
        ``"auto"`` is exhaustive up to 2,000 combinations of the first ``k - 2`` players'
        options (``snl_numeric.handicaps.LOOP_MAX``; the last two are vectorised) and 2e9
        multiply-adds (``WORK_MAX``), coordinate beyond. A search under a capture rule
        (below) evaluates every assignment whatever ``search`` says.
    tail, max_throws
        As for :func:`~snl_numeric.win_probabilities`.
    progress : bool or "always", default False
        A progress bar on standard error (a widget in Jupyter) counting the assignments
        evaluated: True shows it on a terminal or in a notebook only, ``"always"`` in pipes
        and files too. A coordinate search shows one bar per round.

    Returns
    -------
    FairStarts
        The assignment with the smallest largest deviation from ``1/k`` (ties: the smallest
        handicap: fewest players moved or dice changed, fewest extra throws), its exact win
        chances, and, under a capture rule, its chances with the rule.

    Notes
    -----
    Two independent players on one start with the same dice are never even (the first
    player's edge is ``sum_n P(T = n)^2 / 2``, whatever the layout): a handicap is the only
    cure. Two players are searched over every pair of options at once (Milton Bradley's
    101 x 101 start squares at once; timings in ``benchmarks/bench_fairness.py``); three or
    more loop over the first players' options with the last two vectorised, or search
    pairs of players by turns (``search``). A round of the coordinate search costs
    ``k (k - 1) / 2`` pairs of ``k`` matrix products each, so time grows as ``k ** 3``
    (200 players on Milton Bradley's 100 start squares take hours a round). Ask for
    ``progress`` to see it; Ctrl-C (``KeyboardInterrupt``) stops the search within a pair.

    Under a capture rule the search itself runs with the rule only when the assignments'
    joint states together are at most 1,000,000
    (``snl_numeric.fairness.CAPTURE_SEARCH_WORK``: about 50 candidate squares for two
    players on a 100-square board); otherwise the assignment fairest for independent
    players is evaluated with the rule, and both answers are reported. Extra throws are
    searched and reported for independent players only
    (:func:`~snl_numeric.win_probabilities` does not model them).

    Examples
    --------
    >>> from snl_numeric import Board, boards, fair_starts
    >>> f = fair_starts(boards.get("milton-bradley"))
    >>> f.starts, f.win_probabilities.round(6).tolist(), f.deviation < 1e-5
    ((27, 39), [0.499993, 0.500007], True)

    On a short board where the first player wins two games in three, a smaller die for
    player 0:

    >>> g = fair_starts(Board(10), handicap="dice", dice=["1-4", "1-5", "1-6"])
    >>> g.unhandicapped.round(3).tolist(), [d.max_face for d in g.dice]
    ([0.661, 0.339], [5, 6])
    >>> g.win_probabilities.round(3).tolist()
    [0.518, 0.482]
    """
    k = _players(k)
    # per-player tables are built before the search: at least what the race of k players
    # it ends with needs for one round (players.check_race_memory; was a bare MemoryError)
    check_race_memory(k, 1)
    board = check_board(board)
    handicap = cast(Handicap, choice(handicap, "handicap", get_args(Handicap)))
    if dice is not None and handicap != "dice":
        raise ValueError(f"dice= lists the candidate dice of handicap='dice', not of "
                         f"handicap={handicap!r}; give the board its dice with board.replace")
    if squares is not None and handicap != "starts":
        raise ValueError(f"squares= is for handicap='starts', not {handicap!r}")
    search = cast(Search, choice(search, "search", get_args(Search)))
    move_first = flag(move_first, "move_first")
    progress = check_progress(progress)
    max_extra = positive_int(max_extra, "max_extra")
    tail = check_tail(tail, max_throws)
    max_throws = int(max_throws)
    alone = _independent(board)
    mode = capture_rule(board)[0]

    choices: list[Any]  # per option row: a start square, a Board with the die, extra throws
    if handicap == "starts":
        opt, squares_ = _starts_options(alone, k, squares, move_first, tail, max_throws)
        choices = squares_.tolist()
    elif handicap == "dice":
        choices = _dice_list(alone, dice)
        opt = Options(*stack_rows([one_start(b, tail, max_throws) for b in choices]),
                      np.array([float(b.dice != board.dice) for b in choices]),
                      (np.arange(len(choices)),) * k)
    else:
        base = one_start(alone, tail, max_throws)
        width = len(base[0])
        choices = list(range(max_extra + 1))
        opt = Options(*stack_rows([shifted(*base, e, width) for e in choices]),
                      np.arange(max_extra + 1, dtype=np.float64),
                      (np.arange(max_extra + 1),) * k)

    def configure(assign: Sequence[int]) -> tuple[list[int], list[Dice], list[int]]:
        """Each player's start, dice and extra throws under an assignment of option rows."""
        picked: list[Any] = [choices[r] for r in assign]
        return ([int(x) for x in picked] if handicap == "starts" else [board.start] * k,
                [x.dice for x in picked] if handicap == "dice" else [board.dice] * k,
                [int(x) for x in picked] if handicap == "throws" else [0] * k)

    searched = bool(mode) and handicap != "throws" and _capture_cheap(board, k, opt)
    if searched:
        assign, evaluated = _capture_search(board, opt, configure, tail, max_throws, progress)
    else:
        assign, evaluated = fairest_assignment(opt, search, progress)
    starts, the_dice, extra = configure(assign)
    if handicap == "throws":
        wins = race_wins(*stack_rows([shifted(*base, e, width) for e in extra]))
    else:
        wins = win_probabilities(alone, k, starts=starts, dice=the_dice, tail=tail,
                                 max_throws=max_throws)
    plain = win_probabilities(alone, k, tail=tail, max_throws=max_throws)
    cw = cdev = None
    if mode and handicap != "throws":
        cw = win_probabilities(board, k, starts=starts, dice=the_dice, tail=tail,
                               max_throws=max_throws)
        cdev = float(np.abs(cw - 1.0 / k).max())
        cw.flags.writeable = False
    for arr in (wins, plain):
        arr.flags.writeable = False
    return FairStarts(players=k, handicap=handicap, starts=tuple(starts), dice=tuple(the_dice),
                      extra_throws=tuple(extra), win_probabilities=wins,
                      deviation=float(np.abs(wins - 1.0 / k).max()), unhandicapped=plain,
                      evaluated=int(evaluated), capture_win_probabilities=cw,
                      capture_deviation=cdev, searched_under_capture=searched)


def _capture_cheap(board: Board, k: int, opt: Options) -> bool:
    """Whether every assignment's joint chain under capture fits ``CAPTURE_SEARCH_WORK``."""
    count = math.prod(len(r) for r in opt.rows)
    return count * k * (board.size + 1) ** k <= CAPTURE_SEARCH_WORK


def _capture_search(board: Board, opt: Options, configure: Any, tail: float,
                    max_throws: int, progress: bool | str = False) -> tuple[list[int], int]:
    """Every assignment evaluated by :func:`~snl_numeric.win_probabilities` with the board's
    capture rule (small boards only: :func:`_capture_cheap`)."""
    k = len(opt.rows)
    best: tuple[float, float] = (math.inf, math.inf)
    found: list[int] = [int(r[0]) for r in opt.rows]
    count = 0
    with Progress(math.prod(len(r) for r in opt.rows), "fair_starts (under capture)",
                  enabled=progress) as bar:
        for assign in itertools.product(*opt.rows):
            starts, the_dice, _ = configure(assign)
            w = win_probabilities(board, k, starts=starts, dice=the_dice, tail=tail,
                                  max_throws=max_throws)
            dev = float(np.abs(w - 1.0 / k).max())
            cost = float(sum(opt.cost[r] for r in assign))
            count += 1
            bar.update()
            if better(dev, cost, best):
                best, found = (dev, cost), [int(r) for r in assign]
    return found, count
