"""The board model: squares, jumps, rules and dice.

Squares are numbered ``0 .. size``; ``size`` is the goal and absorbing, and
a token starts on ``start`` (0 by default: off the board, before square 1).
``jumps`` maps a square to a destination: a ladder goes up, a snake goes
down. One throw draws a face ``d`` from ``dice`` and aims at
``position + d``. Past the goal the ``overshoot`` rule decides:

- ``"win"``: the token reaches the goal;
- ``"exact"``: the token stays where it is (the throw still counts);
- ``"bounce"``: the token counts back, ``2 * size - target`` (dice whose
  largest face exceeds ``size + 1`` are rejected: they could bounce a token
  below square 0).

Then, if the square it lands on starts a jump, the token follows it: once
(``chain=False``) or until it rests (``chain=True``; a jump cycle is an
error). A token placed on ``start`` does not take a jump starting there.
"""

from __future__ import annotations

import json
import numbers
import os
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from .dice import Dice, as_dice

if TYPE_CHECKING:
    from .compile import CompiledBoard

__all__ = ["Board", "OVERSHOOT_RULES", "FORMAT_NAME", "FORMAT_VERSION", "check_board", "check_start"]

OVERSHOOT_RULES = ("win", "exact", "bounce")
FORMAT_NAME = "snl_numeric.board"
FORMAT_VERSION = 1
DICT_KEYS = {"format", "version", "name", "size", "jumps", "snakes", "ladders",
              "start", "overshoot", "chain", "dice"}


def _square(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an integer square, got {value!r}")
    return int(value)


def _pairs(jumps: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Jumps given as a mapping, pairs or a (k, 2) integer array, as two int arrays."""
    if jumps is None:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    if isinstance(jumps, np.ndarray):
        if jumps.ndim != 2 or jumps.shape[1] != 2:
            if jumps.size == 0 and jumps.ndim == 1:
                return np.empty(0, np.int64), np.empty(0, np.int64)
            raise ValueError(f"{what} array must have shape (k, 2), got {jumps.shape}")
        if jumps.size == 0:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        if jumps.dtype == bool or not np.issubdtype(jumps.dtype, np.integer):
            raise TypeError(f"{what} must hold integer squares, got dtype {jumps.dtype}")
        return jumps[:, 0].astype(np.int64), jumps[:, 1].astype(np.int64)
    if isinstance(jumps, Mapping):
        items: Iterable[Any] = jumps.items()
    elif isinstance(jumps, (str, bytes)) or not isinstance(jumps, Iterable):
        raise TypeError(
            f"{what} must be a mapping square -> destination or pairs, got {type(jumps).__name__}"
        )
    else:
        items = jumps
    src, dst = [], []
    for item in items:
        try:
            a, b = item
        except (TypeError, ValueError):
            raise TypeError(f"each of the {what} must be a pair (from, to), got {item!r}") from None
        src.append(_square(a, f"{what} start"))
        dst.append(_square(b, f"{what} destination"))
    return np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


class Board:
    """A Snakes-and-Ladders board with its rules.

    Parameters
    ----------
    size : int
        Number of the goal square (squares are ``0 .. size``).
    jumps : mapping or iterable of pairs, optional
        ``square -> destination``; up is a ladder, down a snake.
    start : int, default 0
        Starting square.
    overshoot : {"win", "exact", "bounce"}, default "win"
        What a throw past the goal does.
    chain : bool, default False
        Follow chained jumps until the token rests.
    dice : Dice or mapping, optional
        The throw's distribution; a fair d6 by default.
    name : str, optional
        A label used in reports.

    Attributes
    ----------
    size, start, overshoot, chain, dice, name
        As given (``dice`` normalised to a :class:`~snl_numeric.Dice`).
    jumps : mapping
        Read-only ``square -> destination``, sorted by square.

    Examples
    --------
    >>> b = Board(10, {3: 8, 9: 2}, overshoot="exact")
    >>> b.ladders, b.snakes
    ({3: 8}, {9: 2})
    >>> Board.from_json(b.to_json()) == b
    True
    """

    __slots__ = ("size", "jumps", "start", "overshoot", "chain", "dice", "name", "_compiled",
                 "_arrays")

    def __init__(
        self,
        size: int,
        jumps: Mapping[int, int] | Iterable[tuple[int, int]] | None = None,
        *,
        start: int = 0,
        overshoot: str = "win",
        chain: bool = False,
        dice: Dice | Mapping[int, float] | None = None,
        name: str | None = None,
    ) -> None:
        size = _square(size, "size")
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        start = _square(start, "start")
        if not 0 <= start <= size:
            raise ValueError(f"start must be a square in 0..{size}, got {start}")
        if not isinstance(overshoot, str):
            raise TypeError(f"overshoot must be a string, got {overshoot!r}")
        if overshoot not in OVERSHOOT_RULES:
            raise ValueError(f"overshoot must be one of {OVERSHOOT_RULES}, got {overshoot!r}")
        if not isinstance(chain, (bool, np.bool_)):
            raise TypeError(f"chain must be True or False, got {chain!r}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a string, got {name!r}")
        dice = as_dice(dice)
        if overshoot == "bounce" and dice.max_face > size + 1:
            # from square size - 1, face d bounces to size + 1 - d
            raise ValueError(
                f"face {dice.max_face} is too large for a bounce on a board of size {size}: "
                f"it could carry the token below square 0 (faces must be <= {size + 1})"
            )
        src, dst = _pairs(jumps, "jumps")
        for mask, why in (
            (src == size, f"leaves the goal {size}; no jump may leave it"),
            ((src < 0) | (src >= size), f"starts outside the board 0..{size}"),
            ((dst < 0) | (dst > size), f"ends outside the board 0..{size}"),
            (src == dst, "goes nowhere"),
        ):
            if mask.any():
                i = _first(mask)
                raise ValueError(f"jump {src[i]}->{dst[i]} {why}")
        order = np.argsort(src, kind="stable")
        src, dst = src[order], dst[order]
        dup = src[1:] == src[:-1]
        if dup.any():
            i = _first(dup)
            raise ValueError(f"two jumps start on square {src[i]} "
                             f"({src[i]}->{dst[i]} and {src[i]}->{dst[i + 1]})")
        table = dict(zip(src.tolist(), dst.tolist(), strict=False))
        if chain and _may_cycle(src, dst, size):
            _check_no_cycle(table)  # finds the cycle and raises
        set_ = object.__setattr__
        set_(self, "size", size)
        set_(self, "jumps", MappingProxyType(table))
        set_(self, "start", start)
        set_(self, "overshoot", overshoot)
        set_(self, "chain", bool(chain))
        set_(self, "dice", dice)
        set_(self, "name", name)
        set_(self, "_compiled", None)
        for arr in (src, dst):
            arr.flags.writeable = False
        set_(self, "_arrays", (src, dst))  # jump sources (increasing) and destinations

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"Board is immutable; use board.replace({key}=...)")

    # -- derived views ------------------------------------------------------
    @property
    def ladders(self) -> dict[int, int]:
        """Jumps that go up."""
        return {s: d for s, d in self.jumps.items() if d > s}

    @property
    def snakes(self) -> dict[int, int]:
        """Jumps that go down."""
        return {s: d for s, d in self.jumps.items() if d < s}

    @property
    def compiled(self) -> CompiledBoard:
        """The successor table and transition matrix, built once and cached."""
        if self._compiled is None:
            from .compile import compile_board

            object.__setattr__(self, "_compiled", compile_board(self))
        return self._compiled

    def replace(self, **changes: Any) -> Board:
        """A copy with some fields changed, e.g. ``board.replace(overshoot="bounce")``."""
        fields = {k: getattr(self, k) for k in ("size", "jumps", "start", "overshoot",
                                                 "chain", "dice", "name")}
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"unknown Board fields: {sorted(unknown)}")
        fields.update(changes)
        size = fields.pop("size")
        jumps = fields.pop("jumps")
        return Board(size, jumps, **fields)

    # -- constructors -------------------------------------------------------
    @classmethod
    def from_pairs(
        cls,
        size: int,
        *,
        snakes: Mapping[int, int] | Iterable[tuple[int, int]] | None = None,
        ladders: Mapping[int, int] | Iterable[tuple[int, int]] | None = None,
        **rules: Any,
    ) -> Board:
        """A board from separate snakes (must go down) and ladders (must go up).

        Examples
        --------
        >>> Board.from_pairs(30, snakes={26: 0}, ladders=[(2, 21)]).jumps[2]
        21
        >>> Board.from_pairs(30, ladders={20: 8})
        Traceback (most recent call last):
        ...
        ValueError: ladder 20->8 goes down; ladders must go up
        """
        s_src, s_dst = _pairs(snakes, "snakes")
        l_src, l_dst = _pairs(ladders, "ladders")
        if (s_dst >= s_src).any():
            i = _first(s_dst >= s_src)
            way = "up" if s_dst[i] > s_src[i] else "nowhere"
            raise ValueError(f"snake {s_src[i]}->{s_dst[i]} goes {way}; snakes must go down")
        if (l_dst <= l_src).any():
            i = _first(l_dst <= l_src)
            way = "down" if l_dst[i] < l_src[i] else "nowhere"
            raise ValueError(f"ladder {l_src[i]}->{l_dst[i]} goes {way}; ladders must go up")
        pairs = np.column_stack([np.concatenate([s_src, l_src]), np.concatenate([s_dst, l_dst])])
        return cls(size, pairs, **rules)

    @classmethod
    def from_moves(cls, move: Iterable[int], **rules: Any) -> Board:
        """A board in the C++ seeds' format.

        Cells are ``0 .. len(move) - 1``; ``move[j]`` is the destination of the
        jump on ``j`` or ``-1`` (or ``j`` itself) for none. Start 0, goal
        ``len(move) - 1``, overshoot ``"exact"``; ``rules`` may override these.

        Examples
        --------
        >>> move = [-1] * 30
        >>> move[2], move[26] = 21, 0
        >>> Board.from_moves(move).jumps
        mappingproxy({2: 21, 26: 0})
        """
        arr = _int_array(move, "move")
        if arr.ndim != 1 or arr.size < 2:
            raise ValueError(f"move must be a 1-d list of at least 2 cells, got shape {arr.shape}")
        size = arr.size - 1
        jumps = {j: int(m) for j, m in enumerate(arr) if m != -1 and m != j}
        for j, m in jumps.items():
            if m < -1:
                raise ValueError(f"move[{j}] = {m}: expected -1 or a cell in 0..{size}")
        rules.setdefault("overshoot", "exact")
        return cls(size, jumps, **rules)

    @classmethod
    def from_grid(cls, grid: Iterable[Iterable[int]], **rules: Any) -> Board:
        """A board from an n x n grid numbered boustrophedon from the bottom-left.

        Square 1 is the bottom-left cell; the bottom row runs left to right,
        the next right to left, and so on. A cell holds ``-1`` or the
        destination square (its own number means no jump). Start 1, goal
        ``n * n``, overshoot ``"win"``, one jump per throw.

        Examples
        --------
        >>> grid = [[-1, -1, -1],
        ...         [-1,  9, -1],
        ...         [-1,  -1, -1]]
        >>> Board.from_grid(grid).jumps
        mappingproxy({5: 9})
        """
        arr = _int_array(grid, "grid")
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.size == 0:
            raise ValueError(f"grid must be a non-empty square n x n array, got shape {arr.shape}")
        n = arr.shape[0]
        size = n * n
        jumps = {}
        for k in range(1, size + 1):
            r, c = divmod(k - 1, n)
            col = c if r % 2 == 0 else n - 1 - c
            value = int(arr[n - 1 - r, col])
            if value == -1 or value == k:
                continue
            if not 1 <= value <= size:
                raise ValueError(
                    f"grid cell for square {k} holds {value}: expected -1 or a square in 1..{size}"
                )
            jumps[k] = value
        rules.setdefault("start", 1)
        rules.setdefault("overshoot", "win")
        return cls(size, jumps, **rules)

    # -- serialisation ------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict in the versioned ``snl_numeric.board`` format."""
        out: dict[str, Any] = {"format": FORMAT_NAME, "version": FORMAT_VERSION}
        if self.name is not None:
            out["name"] = self.name
        out.update(
            size=self.size,
            jumps=[[s, d] for s, d in self.jumps.items()],
            start=self.start,
            overshoot=self.overshoot,
            chain=self.chain,
            dice={"faces": self.dice.faces.tolist(), "probs": self.dice.probs.tolist()},
        )
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Board:
        """Inverse of :meth:`to_dict`.

        ``jumps`` may be replaced by ``snakes`` and ``ladders`` (each a list of
        pairs); ``dice`` may be ``{"faces": [...], "probs": [...]}`` or a
        mapping ``face -> probability``. Missing rules take their defaults.
        """
        if not isinstance(data, Mapping):
            raise TypeError(f"board data must be a mapping, got {type(data).__name__}")
        unknown = set(data) - DICT_KEYS
        if unknown:
            raise ValueError(f"unknown board keys {sorted(unknown)}; expected {sorted(DICT_KEYS)}")
        fmt = data.get("format", FORMAT_NAME)
        if fmt != FORMAT_NAME:
            raise ValueError(f"format must be {FORMAT_NAME!r}, got {fmt!r}")
        version = data.get("version", FORMAT_VERSION)
        if version != FORMAT_VERSION:
            raise ValueError(f"unsupported board format version {version!r}; "
                             f"this is version {FORMAT_VERSION}")
        if "size" not in data:
            raise ValueError("board data needs a 'size'")
        rules = {k: data[k] for k in ("start", "overshoot", "chain", "name") if k in data}
        dice = data.get("dice")
        if isinstance(dice, Mapping) and set(dice) == {"faces", "probs"}:
            dice = Dice(np.asarray(dice["faces"]), np.asarray(dice["probs"]))
        elif isinstance(dice, Mapping):
            dice = Dice.from_probs({_json_int(f): p for f, p in dice.items()})
        rules["dice"] = dice
        if "snakes" in data or "ladders" in data:
            if "jumps" in data:
                raise ValueError("give either 'jumps' or 'snakes'/'ladders', not both")
            return cls.from_pairs(data["size"], snakes=data.get("snakes"),
                                  ladders=data.get("ladders"), **rules)
        jumps = data.get("jumps")
        if isinstance(jumps, Mapping):  # JSON objects have string keys
            jumps = {_json_int(s): d for s, d in jumps.items()}
        return cls(data["size"], jumps, **rules)

    def to_json(self, path: str | os.PathLike[str] | None = None, *, indent: int | None = None
                ) -> str:
        """The board as JSON text; also written to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=indent)
        if path is not None:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
        return text

    @classmethod
    def from_json(cls, source: str | os.PathLike[str]) -> Board:
        """A board from JSON text or from the path of a JSON file."""
        if isinstance(source, os.PathLike) or (
            isinstance(source, str) and not source.lstrip().startswith("{")
        ):
            with open(source, encoding="utf-8") as fh:
                source = fh.read()
        try:
            data = json.loads(source)
        except json.JSONDecodeError as exc:
            raise ValueError(f"invalid board JSON: {exc}") from None
        return cls.from_dict(data)

    # -- dunder -------------------------------------------------------------
    def _key(self) -> tuple[Any, ...]:
        return (self.size, tuple(self.jumps.items()), self.start, self.overshoot,
                self.chain, self.dice)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        label = f"{self.name!r}, " if self.name else ""
        return (f"Board({label}size={self.size}, ladders={len(self.ladders)}, "
                f"snakes={len(self.snakes)}, start={self.start}, "
                f"overshoot={self.overshoot!r}, chain={self.chain}, dice={self.dice!r})")

    def _repr_html_(self) -> str:
        from .display.html import board_html

        return board_html(self)

    def __reduce__(self):
        return (_from_dict_pickle, (self.to_dict(),))


def _from_dict_pickle(data: dict[str, Any]) -> Board:
    return Board.from_dict(data)


def _json_int(key: Any) -> int:
    if isinstance(key, str) and key.strip().lstrip("+").isdigit():
        return int(key)
    return key


def _int_array(values: Any, what: str) -> np.ndarray:
    try:
        arr = np.asarray(values)
    except ValueError:
        raise ValueError(f"{what} must be a rectangular array of integers (ragged rows?)") from None
    if arr.dtype == object:
        raise ValueError(f"{what} must be a rectangular array of integers (ragged rows?)")
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        if arr.size and np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.round(arr)):
            return arr.astype(np.int64)
        raise TypeError(f"{what} must hold integers, got dtype {arr.dtype}")
    return arr.astype(np.int64)


def _may_cycle(src: np.ndarray, dst: np.ndarray, size: int) -> bool:
    """Whether following jumps can loop, by pointer doubling (vectorised)."""
    if len(src) == 0:
        return False
    is_src = np.zeros(size + 1, dtype=bool)
    is_src[src] = True
    hop = np.arange(size + 1)
    hop[src] = dst
    for _ in range(int(np.ceil(np.log2(len(src) + 1))) + 1):  # 2**rounds > longest chain
        hop[src] = hop[hop[src]]
    return bool(is_src[hop[src]].any())


def _check_no_cycle(table: Mapping[int, int]) -> None:
    state: dict[int, int] = {}  # 1 = on the current walk, 2 = done
    for first in table:
        walk = []
        node = first
        while node in table and state.get(node) is None:
            state[node] = 1
            walk.append(node)
            node = table[node]
        if state.get(node) == 1:
            cycle = walk[walk.index(node):] + [node]
            raise ValueError("jump cycle under chain=True: " + "->".join(map(str, cycle)))
        for w in walk:
            state[w] = 2


def check_start(board: Board, start: int | None) -> int:
    if start is None:
        return board.start
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)):
        raise TypeError(f"start must be an integer square, got {start!r}")
    if not 0 <= start <= board.size:
        raise ValueError(f"start must be a square in 0..{board.size}, got {start}")
    return int(start)


def check_board(board: Board) -> Board:
    if not isinstance(board, Board):
        raise TypeError(f"expected a Board, got {type(board).__name__}")
    return board
