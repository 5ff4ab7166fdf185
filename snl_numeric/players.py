"""Several players racing on boards: win chances and game length, exactly.

Without a capture rule players never interact: each token moves on its own
board with its own dice, so the players' game lengths ``T_0 .. T_{k-1}``
(throws each needs to finish, ``inf`` if never) are independent, and every
multi-player question follows from the single-player distributions
``pmf_j[n] = P(T_j = n)`` (:func:`~snl_numeric.length_distribution`).

Players throw in turn, player 0 first; a round is one throw by each player
still racing, and the game ends as soon as someone reaches the goal. Player
``i`` wins in round ``n`` when ``T_i = n``, every earlier player has not
finished by their own ``n``-th throw (``T_j > n`` for ``j < i``) and every
later player has not finished in the ``n - 1`` rounds before
(``T_j > n - 1`` for ``j > i``). With survival functions
``S_j(n) = P(T_j > n)``

.. math::

    w_i(n) = \\mathrm{pmf}_i(n) \\prod_{j < i} S_j(n) \\prod_{j > i} S_j(n - 1),

vectorised over rounds with exclusive cumulative products over the players
(no division, so survival values of 0 are harmless). The game lasts
``R = min_j T_j`` rounds with ``P(R > n) = prod_j S_j(n)``; if player ``i``
wins in round ``n`` the players threw ``(n - 1) k + i + 1`` times. A player
who starts on the goal has ``T = 0`` and wins "in round 0" with no throw.

This costs ``O(k N)`` for ``N`` rounds, against the ``n^k`` states of the
joint chain over everyone's position (seed 004's pair recursion for two
players), which the tests keep as an independent check.

Accuracy: each ``pmf_j`` is cut where the mass that can still finish is
below ``tail``, so every probability is exact up to about ``tail`` per player,
plus the roundings of the push, which grow with the throws pushed (well within a
unit in the last place per throw: 1.5e-14 after 5,794 throws of a slow board): they
matter only for a ``tail`` far below the default.
The expected rounds and throws are sums ``sum n P(n)``: the cut tail's share of
them is missing, up to about ``tail`` times a player's expected remaining throws
at the cut (at most ``k * tail * max(t)``, ``t`` the expected throws from each
square): a board whose worst square expects 6,000 throws may leave a mean of 3
throws 1e-11 low with the default ``tail``. A smaller ``tail`` tightens them.
A capture rule on the board (``Board(..., capture=...)``) couples the players: those
games are answered by the joint chain of ``snl_numeric.meet`` instead, where a captured
token that a jump sends onto the goal wins on the mover's throw (so the throws of a game
come from the chain, not from the winner and the round).

When nobody is sure to finish the win probabilities sum to the chance that
someone ever wins; ``no_winner`` (exact, from
:func:`~snl_numeric.finish_probability`) is the rest, and the expected
length is ``inf``. Nothing is renormalised.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal, overload

import numpy as np

from ._core.equality import value_eq
from ._core.memory import check_memory
from ._core.progress import Progress, check_progress
from ._core.validation import DEFAULT_MAX_THROWS, DEFAULT_TAIL, check_tail
from .board import Board, check_start
from .chain import finish_probability, sure_states
from .dice import DiceLike, as_dice, per_player
from .exact import check_exact, exact_win
from .lineup import player_boards, player_count
from .distribution import Pushed, pushed_to_tail
from .meet import meet_game

__all__ = ["GameLength", "win_probabilities", "expected_game_length"]

#: Players assumed when neither ``players`` nor a per-player list says otherwise.
DEFAULT_PLAYERS = 2

@dataclass(frozen=True, eq=False)
class GameLength:
    """Outcome and length of a ``k``-player race.

    Attributes
    ----------
    players : int
        Number of players ``k``; player 0 throws first in every round.
    win_probabilities : ndarray of float64, shape (k,)
        ``P(player i wins)``. They sum to ``1 - no_winner`` (up to ``tail``).
    no_winner : float
        Probability that nobody ever reaches the goal (0 when some player
        finishes with probability 1).
    mean_rounds : float
        Expected number of rounds ``E[R]``; ``inf`` when ``no_winner > 0``.
        Low by the cut tail's share, at most about ``k * tail`` times the
        largest expected throws from any square (module docstring).
    mean_throws : float
        Expected total throws by all players until someone wins; ``inf``
        when ``no_winner > 0``. Low by the cut tail's share, as ``mean_rounds``.
    rounds_pmf : ndarray of float64
        ``rounds_pmf[n] = P(someone wins in round n)``.
    throws_pmf : ndarray of float64
        ``throws_pmf[m] = P(the game ends after m throws in total)``.
    win_pmf : ndarray of float64, shape (k, len(rounds_pmf))
        ``win_pmf[i, n] = P(player i wins in round n)``.
    starts : tuple of int
        Each player's start square.
    tail : float
        Tail tolerance of the single-player distributions.
    """

    __eq__ = value_eq  # (value equality: see snl_numeric._core.equality)
    __hash__ = None  # type: ignore[assignment]

    players: int
    win_probabilities: np.ndarray
    no_winner: float
    mean_rounds: float
    mean_throws: float
    rounds_pmf: np.ndarray = field(repr=False)
    throws_pmf: np.ndarray = field(repr=False)
    win_pmf: np.ndarray = field(repr=False)
    starts: tuple[int, ...] = field(repr=False, default=())
    tail: float = field(repr=False, default=DEFAULT_TAIL)

    def to_dict(self) -> dict[str, Any]:
        """A summary of Python numbers and lists (``math.inf`` when nobody surely wins)."""
        return {
            "players": self.players,
            "starts": list(self.starts),
            "win_probabilities": self.win_probabilities.tolist(),
            "no_winner": self.no_winner,
            "mean_rounds": self.mean_rounds,
            "mean_throws": self.mean_throws,
            "rounds_pmf": self.rounds_pmf.tolist(),
        }

    def __str__(self) -> str:
        from .display.text import game_length_text

        return game_length_text(self)

    def to_frame(self, kind: str = "players") -> Any:
        """A tidy pandas table.

        Parameters
        ----------
        kind : {"players", "rounds"}
            One row per player (``player`` from 1, ``start``,
            ``win_probability``) or per round (``pmf``: someone wins in that
            round; ``player_i``: player ``i`` wins in it).

        Examples
        --------
        >>> from snl_numeric import boards, expected_game_length
        >>> g = expected_game_length(boards.get("milton-bradley"), 2)
        >>> g.to_frame()["win_probability"].round(5).tolist()
        [0.50791, 0.49209]
        """
        from .display.frames import game_length_frame

        return game_length_frame(self, kind)

    def _repr_html_(self) -> str:
        from .display.html import game_length_html

        return game_length_html(self)


# -- validation ----------------------------------------------------------------
def _per_player(board: Any, players: Any, starts: Any, dice: Any
                ) -> tuple[list[Board], list[int]]:
    """One (board, start) per player, per-player dice applied (:mod:`snl_numeric.lineup`)."""
    if isinstance(board, Board):
        pass
    elif per_player(board):
        if len(board) == 0:
            raise ValueError("board list is empty; give a Board or one Board per player")
        for i, b in enumerate(board):
            if not isinstance(b, Board):
                raise TypeError(f"board[{i}] must be a Board, got {type(b).__name__}")
    else:
        raise TypeError(f"board must be a Board or a list of Boards, got {type(board).__name__}")
    k = player_count(players, DEFAULT_PLAYERS, board=board, starts=starts, dice=dice)
    return player_boards(board, k, starts, dice)


# -- the computation -------------------------------------------------------------
def _length_arrays(per_player: list[Pushed], players: int | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``(pmf, survival)``, each ``(k, N)``: the players' length distributions (zero-padded)
    and ``S[j, n] = P(T_j > n)``. Past a player's last throw computed, ``S`` is the mass
    that never finishes: the tail cut there (below ``tail``) is counted as finished, so it
    never multiplies the other players' longer distributions."""
    k = players or len(per_player)
    n = max(len(r.pmf) for r in per_player)
    check_race_memory(k, n)
    pmf = np.zeros((k, n))
    surv = np.empty((k, n))
    for i in range(k):
        r = per_player[i % len(per_player)]
        pmf[i, : len(r.pmf)] = r.pmf
        surv[i, : len(r.survival)] = r.survival
        surv[i, len(r.survival):] = r.never
    return pmf, surv


def _win_pmf(pmf: np.ndarray, surv: np.ndarray) -> np.ndarray:
    """``w[i, n] = P(player i wins in round n)`` from the ``(k, N)`` length pmfs and
    survival functions ``S[j, n] = P(T_j > n)``."""
    surv_prev = np.empty_like(surv)  # S[j, n - 1], with S[j, -1] = 1
    surv_prev[:, 0] = 1.0
    surv_prev[:, 1:] = surv[:, :-1]
    before = np.ones_like(surv)  # prod_{j < i} S[j, n]
    np.cumprod(surv[:-1], axis=0, out=before[1:])
    after = np.ones_like(surv)  # prod_{j > i} S[j, n - 1]
    np.cumprod(surv_prev[:0:-1], axis=0, out=after[-2::-1])
    return pmf * before * after


def check_race_memory(players: int, rounds: int) -> None:
    """Refuse a race whose ``(players, rounds)`` arrays would not fit (about eight of them
    live at once in :func:`_win_pmf`)."""
    check_memory(64.0 * players * rounds,
                 f"a race of {players:,} players over {rounds:,} rounds")


def _captures(board: Any) -> bool:
    """Whether the players may meet: a capture rule on the board (or on any board of a list)."""
    if isinstance(board, Board):
        return board.capture is not None
    return per_player(board) and any(getattr(b, "capture", None) is not None for b in board)


def _meet(board: Any, players: Any, starts: Any, dice: Any, tail: float, max_throws: int,
          bar: Progress | None = None
          ) -> tuple[np.ndarray, list[Board], list[int], float, np.ndarray] | None:
    """The game under a capture rule through the joint chain (``snl_numeric.meet``):
    ``(win_pmf, boards, starts, no_winner, throws_pmf)``; None without a capture rule or
    opponent."""
    if not _captures(board):
        return None
    boards_, starts_ = _per_player(board, players, starts, dice)
    if len(boards_) == 1:
        return None
    first = boards_[0].replace(name=None)
    for i, b in enumerate(boards_):
        if b.replace(dice=first.dice, name=None) != first:
            raise ValueError(f"board of player {i} differs from player 0's in more than its "
                             "dice: players who meet (a capture rule) race on one board")
    result = meet_game(boards_, starts_, tail, max_throws, bar)
    return result.win_pmf, boards_, starts_, result.no_winner, result.ends


def _game(board: Any, players: Any, starts: Any, dice: Any, tail: Any, max_throws: Any,
          bar: Progress | None = None
          ) -> tuple[np.ndarray, list[Board], list[int], float | None, np.ndarray | None]:
    """``(win_pmf, boards, starts, no_winner, throws_pmf)``; ``no_winner`` and
    ``throws_pmf`` are None for independent players (computed then by
    :func:`expected_game_length` only: player ``i`` winning in round ``n`` ends the game
    after ``(n - 1) k + i + 1`` throws, which a capture onto the goal breaks)."""
    tail = check_tail(tail, max_throws)
    max_throws = int(max_throws)
    joint = _meet(board, players, starts, dice, tail, max_throws, bar)
    if joint is not None:
        return joint
    if isinstance(board, Board) and starts is None and not per_player(dice):
        # every player alike: one distribution, and the memory known before any per-player work
        k = player_count(players, DEFAULT_PLAYERS)
        (one,), (start,) = _per_player(board, 1, None, dice)
        alone = pushed_to_tail(one.compiled, start, tail, max_throws, bar)
        pmf, surv = _length_arrays([alone], k)
        return _win_pmf(pmf, surv), [one] * k, [start] * k, None, None
    boards_, starts_ = _per_player(board, players, starts, dice)
    memo: dict[tuple[int, int], Pushed] = {}
    for b, s in zip(boards_, starts_, strict=True):
        if (id(b), s) not in memo:
            memo[id(b), s] = pushed_to_tail(b.compiled, s, tail, max_throws, bar)
    pmf, surv = _length_arrays([memo[id(b), s] for b, s in zip(boards_, starts_, strict=True)])
    return _win_pmf(pmf, surv), boards_, starts_, None, None


@overload
def win_probabilities(
    board: Board | Sequence[Board],
    players: int | None = None,
    *,
    starts: Sequence[int | None] | None = None,
    dice: DiceLike | Sequence[DiceLike | None] | None = None,
    tail: float = DEFAULT_TAIL,
    max_throws: int = DEFAULT_MAX_THROWS,
    exact: Literal[False] = ...,
    progress: bool | str = ...,
) -> np.ndarray: ...


@overload
def win_probabilities(
    board: Board | Sequence[Board],
    players: int | None = None,
    *,
    starts: Sequence[int | None] | None = None,
    dice: DiceLike | Sequence[DiceLike | None] | None = None,
    tail: float = DEFAULT_TAIL,
    max_throws: int = DEFAULT_MAX_THROWS,
    exact: Literal[True],
    progress: bool | str = ...,
) -> tuple[Fraction, Fraction]: ...


@overload
def win_probabilities(
    board: Board | Sequence[Board],
    players: int | None = None,
    *,
    starts: Sequence[int | None] | None = None,
    dice: DiceLike | Sequence[DiceLike | None] | None = None,
    tail: float = DEFAULT_TAIL,
    max_throws: int = DEFAULT_MAX_THROWS,
    exact: bool,
    progress: bool | str = ...,
) -> np.ndarray | tuple[Fraction, Fraction]: ...


def win_probabilities(
    board: Board | Sequence[Board],
    players: int | None = None,
    *,
    starts: Sequence[int | None] | None = None,
    dice: DiceLike | Sequence[DiceLike | None] | None = None,
    tail: float = DEFAULT_TAIL,
    max_throws: int = DEFAULT_MAX_THROWS,
    exact: bool = False,
    progress: bool | str = False,
) -> np.ndarray | tuple[Fraction, Fraction]:
    """Chance that each player wins a race of ``players`` players (captures honoured).

    Parameters
    ----------
    board : Board or list of Board
        The board all players race on, or one board per player.
    players : int, optional
        Number of players ``k >= 1``; by default the length of whichever of
        ``board``, ``starts``, ``dice`` is a list, else 2.
    starts : list of int or None, optional
        Each player's start square (``None`` entries: the board's start).
    dice : Dice, mapping, str, None or list of them, optional
        The same dice for everybody, or one per player, e.g. a handicap. ``None`` (the
        default), or a ``None`` entry, is the player's board's own die (not a fair d6,
        unlike the dice to choose from of :func:`~snl_numeric.optimal_policy`).
    tail : float, default 1e-12
        Tail tolerance of the single-player distributions; results are
        exact up to about ``tail`` per player.
    max_throws : int, default 10_000_000
        Most throws a player's distribution is followed for (``ValueError`` if its
        tail is not below ``tail`` by then).
    exact : bool, default False
        The two chances as exact fractions, for two players on one board from one start
        (``starts`` equal or None, no per-player dice) whose dice are rational: a small-
        board tool (the pair chain of the board's squares is eliminated exactly;
        ``ValueError`` past ``snl_numeric.exact.MAX_WIN_WORK``, with the reason).
    progress : bool or "always", default False
        A progress bar on standard error counting the throws pushed (each distinct
        player's distribution in turn, or the joint chain's throws under a capture rule;
        their number is known only at the end): True shows it on a terminal or in a
        notebook only, ``"always"`` in pipes and files too. Ctrl-C
        (``KeyboardInterrupt``) stops the push between two throws.

    Returns
    -------
    ndarray of float64, shape (k,), or a pair of Fraction with ``exact``
        ``out[i]``: probability that the ``i``-th player to throw (0-based)
        wins. The sum is the probability that somebody ever wins: 1 when
        some player is sure to finish, less on boards where the goal may
        never be reached (never renormalised; see
        :func:`expected_game_length` for ``no_winner``).

    Notes
    -----
    Without a capture rule (``board.capture is None``) the players do not interact and
    the chances follow from the single-player distributions (module docstring). With
    one, players who meet are captured and the answer comes from the joint chain of
    everyone's position (``snl_numeric.meet``): ``O(m^k)`` memory for ``m`` squares,
    refused up front when it does not fit; the boards of a list may then differ only
    in their dice, and the push stops when the mass still racing is below ``tail`` and
    so is its share of the mean throws, certified by a bound on the throws left (each
    chance lies within ``tail`` above the value returned).

    Examples
    --------
    >>> from snl_numeric import Board, boards, win_probabilities
    >>> win_probabilities(Board(2, dice={1: 0.5, 2: 0.5})).tolist()
    [0.75, 0.25]
    >>> w = win_probabilities(boards.get("milton-bradley"), 2)
    >>> w.round(4).tolist(), bool(w[0] > w[1])
    ([0.5079, 0.4921], True)
    >>> win_probabilities(Board(4, dice="1-3"), 2, exact=True)
    (Fraction(559, 729), Fraction(170, 729))

    Players who meet: landing on the opponent sends it back to the start.

    >>> win_probabilities(boards.get("milton-bradley").replace(capture="start"), 2).round(4)
    array([0.5056, 0.4944])
    """
    progress = check_progress(progress)
    if check_exact(exact):
        return _exact_two(board, players, starts, dice)
    with Progress(0, "win_probabilities", enabled=progress) as bar:
        w = _game(board, players, starts, dice, tail, max_throws, bar)[0]
    return w.sum(axis=1)


def _exact_two(board: Any, players: Any, starts: Any, dice: Any) -> tuple[Fraction, Fraction]:
    """``exact=True`` of :func:`win_probabilities`: two players, one board, one start."""
    if not isinstance(board, Board):
        raise ValueError("exact=True takes one Board for both players, got "
                         f"{type(board).__name__}")
    if board.capture is not None:
        raise ValueError(f"exact=True answers players who never meet; this board has "
                         f"capture={board.capture!r}: leave out exact for its joint chain")
    if (player_count(players, DEFAULT_PLAYERS, starts=starts) != 2
            or dice is not None and per_player(dice)):
        raise ValueError("exact=True answers two players with the same dice; got "
                         f"players={players!r}, dice={dice!r}")
    per = [None] if starts is None else list(starts)
    chosen = {check_start(board, s) for s in per}
    if len(chosen) != 1:
        raise ValueError(f"exact=True needs both players on one start square, got {starts!r}")
    if dice is not None:
        board = board.replace(dice=as_dice(dice))
    return exact_win(board.compiled, chosen.pop())


def expected_game_length(
    board: Board | Sequence[Board],
    players: int | None = None,
    *,
    starts: Sequence[int | None] | None = None,
    dice: DiceLike | Sequence[DiceLike | None] | None = None,
    tail: float = DEFAULT_TAIL,
    max_throws: int = DEFAULT_MAX_THROWS,
) -> GameLength:
    """Expected rounds and throws until somebody wins, with their distributions.

    Parameters are those of :func:`win_probabilities`.

    Returns
    -------
    GameLength
        Win probabilities, the chance that nobody ever wins, expected
        rounds and total throws (``inf`` if nobody may ever win), and the
        distributions of rounds, throws and (winner, round).

    Examples
    --------
    >>> from snl_numeric import Board, expected_game_length
    >>> g = expected_game_length(Board(2, dice={1: 0.5, 2: 0.5}), 2)
    >>> g.mean_rounds, g.mean_throws, g.rounds_pmf.tolist()
    (1.25, 1.75, [0.0, 0.75, 0.25])

    Players who meet (capture to the start) play longer:

    >>> from snl_numeric import boards
    >>> mb = boards.get("milton-bradley")
    >>> [round(expected_game_length(b, 2).mean_rounds, 3) for b in (mb, mb.replace(capture="start"))]
    [26.331, 28.047]

    Nobody may ever win: one throw of 4 wins, a 3 strands the token.

    >>> g = expected_game_length(Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5}))
    >>> g.win_probabilities.tolist(), g.no_winner, g.mean_rounds
    ([0.5, 0.25], 0.25, inf)
    """
    w, boards_, starts_, joint_no_winner, joint_throws = _game(board, players, starts, dice,
                                                                tail, max_throws)
    k, n = w.shape
    pairs = list(zip(boards_, starts_, strict=True))
    if joint_no_winner is not None:  # players who meet: from the joint chain
        no_winner = joint_no_winner
    elif any(sure_states(b.compiled)[s] for b, s in pairs):
        no_winner = 0.0
    else:
        no_winner = math.prod(1.0 - finish_probability(b, s) for b, s in pairs)
    rounds = w.sum(axis=0)
    throws = np.zeros((n - 1) * k + 1)
    if joint_throws is not None:  # (a captured player sent home wins on another's throw)
        throws[: len(joint_throws)] = joint_throws
    else:
        throws[0] = rounds[0]
        throws[1:] = w[:, 1:].T.ravel()  # round r, player i -> (r - 1) k + i + 1 throws
    if no_winner > 0.0:
        mean_rounds = mean_throws = math.inf
    else:
        mean_rounds = float(np.arange(n) @ rounds)
        mean_throws = float(np.arange(len(throws)) @ throws)
    for arr in (w, rounds, throws):
        arr.flags.writeable = False
    wins = w.sum(axis=1)
    wins.flags.writeable = False
    return GameLength(players=k, win_probabilities=wins, no_winner=float(no_winner),
                      mean_rounds=mean_rounds, mean_throws=mean_throws, rounds_pmf=rounds,
                      throws_pmf=throws, win_pmf=w, starts=tuple(starts_), tail=tail)
