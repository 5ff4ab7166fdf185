"""A player who follows given choices: policies read from every accepted form.

A fixed player is a table ``die[i, j]`` (the die thrown on square ``i`` when
the other player is on ``j``) and ``take[k, j]`` (follow jump ``k`` when the
other player is on ``j``). It is read from a :class:`~snl_numeric.PolicyResult`
(one die per square, jump decisions independent of the other player), a
:class:`RaceResult` (a choice per pair of squares), or an array of die indices
(one per square, shape ``(size + 1,)``, or one per pair of squares, shape
``(size + 1, size + 1)``; such a player follows every jump).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.text import dice_text
from .._core.validation import int_array
from ..board import Board
from ..dice import Dice
from ..policy import PolicyResult
from .result import RaceResult


@dataclass(frozen=True, eq=False)
class FixedPlayer:
    """A player's fixed choices on the pair states ``i, j < size``.

    ``die``: int32, shape ``(size, size)``; ``take``: bool, shape ``(n_jumps, size)``;
    ``optional``: whether the source makes jump decisions of its own; ``kind``
    names the source for messages and displays.
    """

    die: np.ndarray
    take: np.ndarray
    optional: bool
    kind: str


def same_rules(a: Board, b: Board) -> bool:
    """Whether two boards play by the same rules (start and dice aside)."""
    return (a.size, a.jumps, a.overshoot, a.chain) == (b.size, b.jumps, b.overshoot, b.chain)


def _die_map(actions: tuple[Dice, ...], dice: tuple[Dice, ...], used: np.ndarray,
             what: str) -> np.ndarray:
    """Index into ``dice`` of each of ``actions`` (-1 for one that is never thrown)."""
    out = np.full(len(actions), -1, dtype=np.int64)
    for a, d in enumerate(actions):
        match = [b for b, e in enumerate(dice) if e == d]
        if match:
            out[a] = match[0]
        elif a in used:
            raise ValueError(
                f"{what} throws die {dice_text(d)}, which is not among the dice of the race "
                f"({', '.join(dice_text(e) for e in dice)})")
    return out


def _check_board(source: Board, board: Board, what: str) -> None:
    if not same_rules(source, board):
        raise ValueError(
            f"{what} was computed for another board ({source!r}); the race is on {board!r}")


def fixed_player(obj: Any, board: Board, dice: tuple[Dice, ...], n_jumps: int,
                 what: str) -> FixedPlayer:
    """Read a fixed player from a PolicyResult, a RaceResult or an array of die indices."""
    size = board.size
    if isinstance(obj, PolicyResult):
        _check_board(obj.board, board, what)
        per_square = obj.policy[:size]
        mapping = _die_map(obj.actions, dice, np.unique(per_square), what)
        die = np.repeat(mapping[per_square].astype(np.int32)[:, None], size, axis=1)
        take = np.repeat(np.asarray(obj.take, dtype=np.bool_)[:, None], size, axis=1)
        kind = "fewest expected throws" if obj.objective == "min" else "most expected throws"
        return FixedPlayer(die, take, bool(obj.optional_jumps), f"{kind} (optimal_policy)")
    if isinstance(obj, RaceResult):
        _check_board(obj.board, board, what)
        table = obj.policy[:size, :size]
        mapping = _die_map(obj.dice, dice, np.unique(table), what)
        die = np.ascontiguousarray(mapping[table].astype(np.int32))
        take = np.ascontiguousarray(obj.take[:, :size], dtype=np.bool_)
        kind = "race-optimal" if obj.opponent == "optimal" else "best response (optimal_race)"
        return FixedPlayer(die, take, bool(obj.optional_jumps), kind)
    if isinstance(obj, (str, bytes, dict)) or obj is None:
        raise TypeError(f"{what} must be a PolicyResult, a RaceResult or an array of die "
                        f"indices, got {type(obj).__name__}")
    arr = int_array(obj, what)
    n = size + 1
    if arr.shape == (n,):
        inner = arr[:size]
        die = np.repeat(inner.astype(np.int32)[:, None], size, axis=1)
    elif arr.shape == (n, n):
        inner = arr[:size, :size]
        die = np.ascontiguousarray(inner.astype(np.int32))
    else:
        raise ValueError(
            f"{what} must hold one die index per square, shape ({n},), or per pair of "
            f"squares, shape ({n}, {n}); got shape {arr.shape}")
    bad = (inner < 0) | (inner >= len(dice))
    if np.any(bad):
        where = np.argwhere(bad)[0]
        sq = f"square {int(where[0])}" if inner.ndim == 1 else \
            f"squares ({int(where[0])}, {int(where[1])})"
        raise ValueError(f"{what} must hold die indices 0..{len(dice) - 1} off the goal; "
                         f"got {int(inner[tuple(where)])} on {sq}")
    return FixedPlayer(die, np.ones((n_jumps, size), dtype=np.bool_), False,
                       "given die per square" if arr.ndim == 1 else "given die per position")
