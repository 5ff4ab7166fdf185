"""A registry of well-known boards and a random board generator.

=====================  ==================================================
name                   board
=====================  ==================================================
``milton-bradley``     Milton Bradley *Chutes and Ladders* (1943 onwards):
                       9 ladders, 10 chutes, official rules: start off the
                       board (square 0), exact landing on 100 (a throw past
                       100 is lost), one jump per throw, fair d6 (the game
                       uses a spinner 1-6).
``milton-bradley-48``  The same with the chute from 48 instead of 47, as many
                       reprints and write-ups give it.
``seed004``            The board of seed 004's Java engine: ladder 2->38 in
                       place of 1->38, chute from 48; the token starts on
                       square 1 and a throw past 100 wins.
``seed-30``            The 30-cell example of the C++ BFS seeds (cells
                       0..29, goal 29, exact landing): 3 throws at best.
=====================  ==================================================

Examples
--------
>>> from snl_numeric import boards
>>> boards.names()
['milton-bradley', 'milton-bradley-48', 'seed-30', 'seed004']
>>> boards.get("milton-bradley").overshoot
'exact'
"""

from __future__ import annotations

import difflib
from typing import Any

import numpy as np

from ._core.memory import check_memory
from ._core.validation import generator, probability
from .board import Board

__all__ = ["get", "names", "describe", "random_board"]

_MB_LADDERS = {1: 38, 4: 14, 9: 31, 21: 42, 28: 84, 36: 44, 51: 67, 71: 91, 80: 100}
_MB_CHUTES = {16: 6, 47: 26, 49: 11, 56: 53, 62: 19, 64: 60, 87: 24, 93: 73, 95: 75, 98: 78}


def _mb48(chutes: dict[int, int]) -> dict[int, int]:
    out = dict(chutes)
    out[48] = out.pop(47)
    return out


def _seed30() -> Board:
    move = [-1] * 30
    for s, d in {2: 21, 4: 7, 10: 25, 19: 28, 26: 0, 20: 8, 16: 3, 18: 6}.items():
        move[s] = d
    return Board.from_moves(move, name="seed-30")


_REGISTRY: dict[str, tuple[str, Any]] = {
    "milton-bradley": (
        "Milton Bradley Chutes and Ladders; official rules: start 0, exact landing on 100.",
        lambda: Board.from_pairs(100, snakes=_MB_CHUTES, ladders=_MB_LADDERS,
                                 overshoot="exact", name="milton-bradley"),
    ),
    "milton-bradley-48": (
        "Milton Bradley board with the chute 48->26 instead of 47->26; start 0, exact landing.",
        lambda: Board.from_pairs(100, snakes=_mb48(_MB_CHUTES), ladders=_MB_LADDERS,
                                 overshoot="exact", name="milton-bradley-48"),
    ),
    "seed004": (
        "Seed 004's Java engine: ladder 2->38 (not 1->38), chute 48->26; "
        "start on square 1, overshoot wins.",
        lambda: Board.from_pairs(
            100, snakes=_mb48(_MB_CHUTES),
            ladders={(2 if s == 1 else s): d for s, d in _MB_LADDERS.items()},
            start=1, overshoot="win", name="seed004"),
    ),
    "seed-30": (
        "The C++ BFS seeds' 30-cell example: ladders 2->21, 4->7, 10->25, 19->28; "
        "snakes 26->0, 20->8, 16->3, 18->6; goal 29, exact landing.",
        _seed30,
    ),
}


def names() -> list[str]:
    """Names of the registered boards, sorted.

    Examples
    --------
    >>> "milton-bradley" in names()
    True
    """
    return sorted(_REGISTRY)


def describe(name: str) -> str:
    """The source and rules of a registered board.

    Examples
    --------
    >>> describe("seed-30")[:30]
    "The C++ BFS seeds' 30-cell exa"
    """
    return _REGISTRY[_check_name(name)][0]


def get(name: str, **rules: Any) -> Board:
    """A registered board, optionally with some rules replaced.

    Examples
    --------
    >>> get("seed004").start
    1
    >>> get("milton-bradley", overshoot="bounce").overshoot
    'bounce'
    """
    board = _REGISTRY[_check_name(name)][1]()
    return board.replace(**rules) if rules else board


def closest(name: str) -> str | None:
    """The known board name closest to a mistyped ``name`` (None: none is close); what
    ``get`` and the command line suggest.

    Examples
    --------
    >>> closest("milton bradley"), closest("zzz")
    ('milton-bradley', None)
    """
    close = difflib.get_close_matches(name, names(), n=1, cutoff=0.6)
    if not close:  # spaces, underscores or capitals for the hyphens
        folded = "-".join(name.lower().replace("_", " ").split())
        close = [n for n in names() if n == folded]
    return close[0] if close else None


def _check_name(name: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"board name must be a string, got {type(name).__name__}")
    if name not in _REGISTRY:
        near = closest(name)
        hint = f"; did you mean {near!r}?" if near else ""
        raise ValueError(f"unknown board {name!r}{hint} (known boards: {', '.join(names())})")
    return name


#: The rules :func:`random_board` passes on to the :class:`Board`.
_RULES = ("start", "overshoot", "chain", "dice", "name")


def random_board(
    size: int,
    jump_fraction: float = 0.1,
    *,
    snake_fraction: float = 0.5,
    rng: np.random.Generator | int | None = None,
    **rules: Any,
) -> Board:
    """A random board for tests and benchmarks.

    Parameters
    ----------
    size : int
        The goal square.
    jump_fraction : float, default 0.1
        Fraction of the squares ``1 .. size - 1`` that start a jump
        (rounded to the nearest count).
    snake_fraction : float, default 0.5
        Fraction of those jumps that are snakes; the rest are ladders.
    rng : Generator, int or None
        Passed to ``numpy.random.default_rng`` (bools are refused).
    **rules
        ``start``, ``overshoot``, ``chain``, ``dice``, ``name`` for the Board.

    Notes
    -----
    Sources are distinct squares in ``1 .. size - 1``. A snake from ``s``
    lands uniformly on ``0 .. s - 1``, a ladder uniformly on ``s + 1 .. size``;
    destinations never start another jump, so boards are valid under
    ``chain=True`` too. Vectorised: 10^7 squares take about a second.

    Examples
    --------
    >>> b = random_board(100, 0.2, rng=1)
    >>> len(b.jumps)
    20
    """
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"size must be an integer, got {size!r}")
    if size < 2:
        raise ValueError(f"size must be at least 2 for a random board, got {size}")
    jump_fraction = probability(jump_fraction, "jump_fraction")  # (bools refused)
    snake_fraction = probability(snake_fraction, "snake_fraction")
    for value, what in ((jump_fraction, "jump_fraction"), (snake_fraction, "snake_fraction")):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{what} must be in [0, 1], got {value!r}")
    unknown = sorted(set(rules) - set(_RULES))
    if unknown:
        raise TypeError(f"random_board() got an unexpected keyword argument {unknown[0]!r} "
                        f"(the board's rules are {', '.join(_RULES)})")
    gen = generator(rng)
    # the candidate sources and their permutation, the source flags, the jumps
    check_memory(25.0 * size, f"a random board of {size:,} squares")
    n_jumps = min(int(round(jump_fraction * (size - 1))), (size - 1) // 2)
    src = np.sort(gen.choice(np.arange(1, size), size=n_jumps, replace=False))
    is_source = np.zeros(size + 1, dtype=bool)
    is_source[src] = True
    snake = gen.random(n_jumps) < snake_fraction
    # a snake from 1 can only go to 0, which may itself be a source: make it a ladder
    dst = np.empty(n_jumps, dtype=np.int64)
    todo = np.arange(n_jumps)
    while len(todo):
        s = src[todo]
        lo = np.where(snake[todo], 0, s + 1)
        hi = np.where(snake[todo], s, size + 1)  # exclusive
        dst[todo] = lo + np.floor(gen.random(len(todo)) * (hi - lo)).astype(np.int64)
        bad = is_source[dst[todo]]
        snake[todo[bad]] = gen.random(int(bad.sum())) < snake_fraction
        todo = todo[bad]
    return Board.from_arrays(size, src, dst, **rules)
