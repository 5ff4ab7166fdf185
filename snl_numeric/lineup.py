"""Who races: how many players, and each player's board (with the player's own die) and start.

The multi-player questions (:func:`~snl_numeric.win_probabilities`,
:func:`~snl_numeric.expected_game_length`, ``simulate(..., players=k)``) take a number of
players, one board or one per player, one die or one per player, and a list of starts.
This module reads those arguments once, for all of them, with one set of messages naming
the player at fault: ``players`` and the lists must agree, a die is applied to its
player's board (players with the same board and die share one :class:`Board`), and each
start must be a square of its board.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._core.validation import positive_int
from .board import Board, check_start
from .dice import Dice, DiceLike, as_dice, check_player_dice, per_player

__all__ = ["player_count", "player_boards"]


def player_count(players: Any, default: int | None, *, board: Any = None, starts: Any = None,
                 dice: Any = None) -> int:
    """The number of players, with ``starts`` and ``dice`` checked to be of the accepted kinds.

    ``players`` if given, else the length of the first of ``board``, ``starts``, ``dice``
    given as a list (one entry per player: :func:`~snl_numeric.dice.per_player`), else
    ``default``; ``ValueError`` when they disagree, or when nothing says and ``default`` is
    None.

    Examples
    --------
    >>> player_count(None, 2), player_count(None, 2, starts=[0, 0, 5]), player_count(4, None)
    (2, 3, 4)
    >>> player_count(None, 2, starts=[0, 0], dice=[None] * 3)
    Traceback (most recent call last):
    ...
    ValueError: dice has 3 entries but starts has 2; give one entry per player
    >>> player_count(None, None, dice="1-4")
    Traceback (most recent call last):
    ...
    ValueError: dice= without players=: say how many players race (players=k)
    """
    if players is not None:
        players = positive_int(players, "players")
    if starts is not None and not per_player(starts):
        raise TypeError(f"starts must be a list of squares (one per player), got {starts!r}")
    check_player_dice(dice)
    given = {"board": board, "starts": starts, "dice": dice}
    lengths = {name: len(v) for name, v in given.items() if per_player(v)}
    if players is not None:
        k, source = int(players), f"players={int(players)}"
    elif lengths:
        source, k = next(iter(lengths.items()))
        source = f"{source} has {k}"
    elif default is None:
        said = " ".join(f"{name}=" for name, v in given.items() if v is not None) or "nothing"
        raise ValueError(f"{said} without players=: say how many players race (players=k)")
    else:
        return default
    for name, n in lengths.items():
        if n != k:
            raise ValueError(f"{name} has {n} entries but {source}; give one entry per player")
    return k


def player_boards(board: Board | Sequence[Board], k: int, starts: Any, dice: Any
                  ) -> tuple[list[Board], list[int]]:
    """Each of the ``k`` players' board, its die applied, and start square.

    ``board`` is one :class:`Board` or ``k`` of them, ``starts`` None or ``k`` squares (None
    in a list: that board's own start), ``dice`` None, one die or ``k`` of them (None in a
    list: that board's own dice), as :func:`player_count` checked them. Players on the same
    board with equal dice share one Board object (its compiled tables built once). A bad
    die or start raises the error it would alone, prefixed by the player: "dice for player
    1: ...", "start of player 0: ...".

    Examples
    --------
    >>> from snl_numeric import Board
    >>> b = Board(10, {3: 8})
    >>> boards, starts = player_boards(b, 3, [0, 2, None], [None, "1-4", "1-4"])
    >>> starts, boards[0] is b, boards[1] is boards[2], str(boards[1].dice)
    ([0, 2, 0], True, True, 'Dice.fair(4)')
    >>> player_boards(b, 2, [0, 11], None)
    Traceback (most recent call last):
    ...
    ValueError: start of player 1: start must be a square in 0..10, got 11
    """
    per_board: list[Board] = [board] * k if isinstance(board, Board) else list(board)
    per_dice: list[DiceLike | None] = list(dice) if per_player(dice) else [dice] * k
    per_start = list(starts) if starts is not None else [None] * k
    cache: dict[tuple[int, Dice], Board] = {}
    out_boards, out_starts = [], []
    for i in range(k):
        b, d = per_board[i], per_dice[i]
        if d is not None:
            try:  # (the die, then the board with it: a face too large for a bounce)
                d = as_dice(d)
                if d != b.dice and (id(b), d) not in cache:
                    cache[id(b), d] = b.replace(dice=d)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"dice for player {i}: {exc}") from None
            b = cache.get((id(b), d), b)
        try:
            s = check_start(b, per_start[i])
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"start of player {i}: {exc}") from None
        out_boards.append(b)
        out_starts.append(s)
    return out_boards, out_starts
