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
import stat
import threading
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ._core.fields import (
    capture_value,
    dice_lists,
    directed_jumps,
    file_jumps,
    json_int,
    jump_pairs,
    label,
    overshoot_rule,
    safe_squares,
    square,
)
from ._core.files import write_text_atomic
from ._core.jsontext import is_json, parse_json
from ._core.sizes import check_table_entries
from ._core.table import OVERSHOOT_CODES
from ._core.validation import (
    INT64_MAX,
    OVERSHOOT_RULES,
    few,
    find_board_problem,
    flag,
    int_array,
    probability,
    problem_message,
    shown,
)
from .dice import Dice, DiceLike, as_dice, face_value, parse_dice, shared_dice, string_faces

if TYPE_CHECKING:
    from .compile import CompiledBoard
    from .markov import Chain

__all__ = ["Board", "BoardFields", "OVERSHOOT_RULES", "FORMAT_NAME", "FORMAT_VERSION", "board_fields",
           "capture_rule", "check_board", "check_model", "check_start"]

_COMPILE_LOCK = threading.RLock()

FORMAT_NAME = "snl_numeric.board"
FORMAT_VERSION = 1
#: The types of a board file's dice faces and probabilities (anything else is read value
#: by value, to name a bad one).
_INT, _FLOAT = frozenset({int}), frozenset({float})
DICT_KEYS = frozenset({"format", "version", "name", "size", "jumps", "snakes", "ladders",
                       "start", "overshoot", "chain", "dice", "capture", "safe"})


def _rules(size: Any, start: Any, overshoot: Any, chain: Any, dice: Any, name: Any,
           capture: Any = None, safe: Any = ()
           ) -> tuple[int, int, str, bool, Dice, str | None, str | int | None, tuple[int, ...]]:
    """A board's fields other than its jumps, types checked (values by the board rules)."""
    size, start = square(size, "size"), square(start, "start")
    overshoot, chain, name = overshoot_rule(overshoot), flag(chain, "chain"), label(name)
    _check_string_dice(size, dice)
    capture = capture_value(capture)
    return (size, start, overshoot, chain, as_dice(dice), name, capture,
            safe_squares(safe, size, capture))


def _check_string_dice(size: int, dice: Any) -> None:
    """A die given as a string: its face count and the board's table entries checked before
    the die is built (``"1-100000000"`` on 100 squares: 10^10 entries, refused at once)."""
    if isinstance(dice, str):
        count = string_faces(dice)
        if count is not None:
            check_table_entries(size, count)


class BoardFields(NamedTuple):
    """What a board dict holds, types checked (the values are checked by the Board rules)."""

    size: int
    src: list[int]
    dst: list[int]
    start: int
    overshoot: str
    chain: bool
    faces: list[int] | None
    probs: list[float] | None
    name: str | None
    capture: str | int | None = None
    safe: tuple[int, ...] = ()


def board_fields(data: Any) -> BoardFields:
    """Parse a board dict (the ``snl_numeric.board`` format, version 1).

    The one reader of the format, used by :meth:`Board.from_dict` and by batch
    analysis for every row; it checks keys, the format and version and the
    types of the fields, and leaves the board's rules to :class:`Board`.
    """
    if not isinstance(data, Mapping):
        raise TypeError(f"board data must be a mapping, got {type(data).__name__}")
    unknown = set(data) - DICT_KEYS
    if unknown:
        raise ValueError(f"unknown board keys {sorted(unknown)}; expected {sorted(DICT_KEYS)}")
    fmt = data.get("format", FORMAT_NAME)
    if fmt != FORMAT_NAME:
        raise ValueError(f"format must be {FORMAT_NAME!r}, got {shown(fmt)}")
    version = data.get("version", FORMAT_VERSION)
    if type(version) is not int or version != FORMAT_VERSION:
        raise ValueError(f"unsupported board format version {shown(version)}; "
                         f"this is version {FORMAT_VERSION} (the integer {FORMAT_VERSION})")
    if "size" not in data:
        raise ValueError("board data needs a 'size'")
    size = square(data["size"], "size")
    start = square(data.get("start", 0), "start")
    overshoot = overshoot_rule(data.get("overshoot", "win"))
    chain = flag(data.get("chain", False), "chain")
    name = label(data.get("name"))
    if "snakes" in data or "ladders" in data:
        if "jumps" in data:
            raise ValueError("give either 'jumps' or 'snakes'/'ladders', not both")
        src, dst = directed_jumps(*(file_jumps(data.get(k), k) for k in ("snakes", "ladders")))
    else:
        src, dst = jump_pairs(file_jumps(data.get("jumps"), "jumps"), "jumps")
    faces = probs = None
    dice = data.get("dice")
    if dice_lists(dice):
        faces, probs = dice["faces"], dice["probs"]
        if not isinstance(faces, list | tuple) or not isinstance(probs, list | tuple):
            raise TypeError("dice faces and probs must be lists, got "
                            f"{type(faces).__name__} and {type(probs).__name__}")
        if len(faces) != len(probs):
            raise ValueError("dice faces and probabilities must be 1-d arrays of equal length, "
                             f"got shapes ({len(faces)},) and ({len(probs)},)")
        check_table_entries(size, len(faces))
        if (set(map(type, faces)) == _INT and set(map(type, probs)) == _FLOAT
                and -INT64_MAX - 1 <= min(faces) and max(faces) <= INT64_MAX):
            faces, probs = list(faces), list(probs)  # (a file's plain ints and floats: as is)
        else:
            faces = [face_value(f) for f in faces]
            if not all(isinstance(q, numbers.Real) and not isinstance(q, bool) for q in probs):
                raise TypeError(f"dice probabilities must be numbers, got {few(probs)}")
            probs = [probability(q, "dice probabilities") for q in probs]
    elif isinstance(dice, Mapping):
        faces = [json_int(f, "dice faces") for f in dice]
        probs = [probability(q, f"probability of face {f}") for f, q in zip(faces, dice.values(),
                                                                          strict=True)]
    elif isinstance(dice, str):
        _check_string_dice(size, dice)
        parsed = parse_dice(dice)
        faces, probs = parsed.faces.tolist(), parsed.probs.tolist()
    elif dice is not None:
        raise TypeError("dice must be {'faces': [...], 'probs': [...]}, a mapping face -> "
                        f"probability or a string such as '2d6', got {type(dice).__name__}")
    capture = capture_value(data.get("capture"))
    return BoardFields(size, src, dst, start, overshoot, chain, faces, probs, name, capture,
                       safe_squares(data.get("safe", ()), size, capture))


def _read_board_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a board file: a regular file (a pipe or device is refused, as ``snl
    batch`` does: a FIFO with no writer would block forever), not gzip-compressed."""
    mode = os.stat(path).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # (a directory: said by open)
        raise ValueError("not a regular file (a pipe or device): a board is read from a "
                         "file, as snl batch does; save it to a file first")
    with open(path, "rb") as fh:
        data = fh.read()
    if data[:2] == b"\x1f\x8b":
        raise ValueError("gzip-compressed: gzip is read for JSON Lines only (snl batch, "
                         "read_boards); decompress it first")
    return data


class Board:
    """A Snakes-and-Ladders board with its rules.

    Parameters
    ----------
    size : int
        Number of the goal square (squares are ``0 .. size``). A board whose successor
        table (``size + 1`` squares x faces) would pass 500,000,000 entries could not be
        analysed and is refused (``ValueError``).
    jumps : mapping or iterable of pairs, optional
        ``square -> destination``; up is a ladder, down a snake.
    start : int, default 0
        Starting square.
    overshoot : {"win", "exact", "bounce"}, default "win"
        What a throw past the goal does.
    chain : bool, default False
        Follow chained jumps until the token rests.
    dice : Dice, mapping, str or None, optional
        The throw's distribution: a :class:`~snl_numeric.Dice`, a mapping
        ``face -> probability`` or a string such as ``"2d6"``, ``"1-3"`` or
        ``"1:0.5,2:0.5"`` (see :func:`~snl_numeric.dice.parse_dice`); ``None`` (the
        default) is a fair d6, in :meth:`replace` too.
    name : str, optional
        A label used in reports.
    capture : None, "start" or int, optional
        What happens when players meet (several players only): ``None``, nothing; ``"start"``,
        a token coming to rest on opponents' square sends them to their start square; ``k``,
        back ``k`` squares (then the jump there applies; one to the goal wins for the captured
        player at once). See ``snl_numeric.board.capture_rule``.
    safe : collection of int, optional
        Squares in ``1 .. size - 1`` where nobody is captured (needs ``capture``).

    Attributes
    ----------
    size, start, overshoot, chain, dice, name, capture
        As given (``dice`` normalised to a :class:`~snl_numeric.Dice`).
    safe : tuple of int
        The safe squares, sorted.
    jumps : mapping
        Read-only ``square -> destination``, sorted by square.

    Examples
    --------
    >>> b = Board(10, {3: 8, 9: 2}, overshoot="exact")
    >>> b.ladders, b.snakes
    ({3: 8}, {9: 2})
    >>> Board.from_json(b.to_json()) == b
    True
    >>> Board(100, dice="2d6").replace(dice="1-3").dice
    Dice.fair(3)
    """

    __slots__ = ("size", "_jumps", "start", "overshoot", "chain", "dice", "name", "capture",
                 "safe", "_compiled", "_jump_arrays")

    # the slots' types, for type checkers (set once in ``__init__``; a Board is immutable)
    size: int
    _jumps: Mapping[int, int] | None  # built from the arrays when first asked for
    start: int
    overshoot: str
    chain: bool
    dice: Dice
    name: str | None
    capture: str | int | None
    safe: tuple[int, ...]
    _compiled: CompiledBoard | None
    _jump_arrays: tuple[np.ndarray, np.ndarray]

    def __init__(
        self,
        size: int,
        jumps: Mapping[int, int] | Iterable[tuple[int, int]] | None = None,
        *,
        start: int = 0,
        overshoot: str = "win",
        chain: bool = False,
        dice: DiceLike | None = None,
        name: str | None = None,
        capture: str | int | None = None,
        safe: Iterable[int] = (),
    ) -> None:
        rules = _rules(size, start, overshoot, chain, dice, name, capture, safe)
        src, dst = jump_pairs(jumps, "jumps")
        self._init(np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), *rules)

    def _init(self, src: np.ndarray, dst: np.ndarray, size: int, start: int, overshoot: str,
              chain: bool, dice: Dice, name: str | None, capture: str | int | None,
              safe: tuple[int, ...]) -> None:
        """Check the board rules and set the fields (``src``, ``dst``: int64 arrays; the
        other fields as :func:`_rules` returns them)."""
        problem, i, j = find_board_problem(size, start, OVERSHOOT_CODES[overshoot], chain, src,
                                           dst, dice.faces, dice.probs)
        if problem:
            raise ValueError(problem_message(
                problem, i, j, size=size, start=start, code=OVERSHOOT_CODES[overshoot], src=src,
                dst=dst, faces=dice.faces, probs=dice.probs))
        check_table_entries(size, len(dice.faces))  # (a board nothing could analyse)
        order = np.argsort(src, kind="stable")
        src, dst = src[order], dst[order]
        for arr in (src, dst):
            arr.flags.writeable = False
        set_ = object.__setattr__
        set_(self, "size", size)
        set_(self, "_jumps", None)  # the mapping, built when first asked for
        set_(self, "start", start)
        set_(self, "overshoot", overshoot)
        set_(self, "chain", chain)
        set_(self, "dice", dice)
        set_(self, "name", name)
        set_(self, "capture", capture)
        set_(self, "safe", safe)
        set_(self, "_compiled", None)
        set_(self, "_jump_arrays", (src, dst))

    @classmethod
    def from_arrays(cls, size: int, src: Any, dst: Any, *, start: int = 0,
                    overshoot: str = "win", chain: bool = False,
                    dice: DiceLike | None = None, name: str | None = None,
                    capture: str | int | None = None, safe: Iterable[int] = ()) -> Board:
        """A board whose jumps are ``src[i] -> dst[i]``, given as two integer arrays.

        The constructor for large boards: the jumps stay arrays (no Python objects per
        jump; :attr:`jumps` is built only if asked for), and the rules are checked as
        :class:`Board` checks them, in ``O(k log k)`` for ``k`` jumps.

        Examples
        --------
        >>> import numpy as np
        >>> b = Board.from_arrays(10**6, np.array([999_999, 5]), np.array([3, 500_000]))
        >>> b == Board(10**6, {5: 500_000, 999_999: 3}), b.jump_arrays[0].tolist()
        (True, [5, 999999])
        """
        rules = _rules(size, start, overshoot, chain, dice, name, capture, safe)
        arrays = []
        for values, what in ((src, "src"), (dst, "dst")):
            arr = np.asarray(values)
            if arr.ndim != 1:
                raise ValueError(f"{what} must be a 1-d array of squares, got shape {arr.shape}")
            if arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer)):
                raise TypeError(f"{what} must hold integer squares, got dtype {arr.dtype}")
            arrays.append(int_array(arr, what) if arr.size else np.empty(0, dtype=np.int64))
        if len(arrays[0]) != len(arrays[1]):
            raise ValueError(f"src and dst must have the same length, got {len(arrays[0])} "
                             f"and {len(arrays[1])}")
        board = cls.__new__(cls)
        board._init(arrays[0].astype(np.int64), arrays[1].astype(np.int64), *rules)
        return board

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"Board is immutable; use board.replace({key}=...)")

    # -- derived views ------------------------------------------------------
    @property
    def jumps(self) -> Mapping[int, int]:
        """Read-only ``square -> destination``, sorted by square."""
        jumps = self._jumps
        if jumps is None:
            src, dst = self._jump_arrays
            jumps = MappingProxyType(dict(zip(src.tolist(), dst.tolist(), strict=True)))
            object.__setattr__(self, "_jumps", jumps)
        return jumps

    @property
    def ladders(self) -> dict[int, int]:
        """Jumps that go up."""
        return {s: d for s, d in self.jumps.items() if d > s}

    @property
    def snakes(self) -> dict[int, int]:
        """Jumps that go down."""
        return {s: d for s, d in self.jumps.items() if d < s}

    @property
    def jump_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Read-only arrays of the jump sources (increasing) and their destinations."""
        return self._jump_arrays

    @property
    def compiled(self) -> CompiledBoard:
        """The successor table and transition matrix, built once (thread-safe) and cached."""
        compiled = self._compiled
        if compiled is None:
            from .compile import compile_board

            with _COMPILE_LOCK:
                compiled = self._compiled
                if compiled is None:
                    compiled = compile_board(self)
                    object.__setattr__(self, "_compiled", compiled)
        return compiled

    def to_chain(self) -> Chain:
        """The board as a :class:`~snl_numeric.Chain` of :func:`~snl_numeric.transition_matrix`
        (the goal absorbing), labelled by square, starting on the board's start: every
        question gives it the board's answers (within their certified bounds).

        Examples
        --------
        >>> from snl_numeric import boards, expected_throws
        >>> chain = boards.get("seed-30").to_chain()
        >>> chain.n_states, chain.absorbing.tolist(), chain.start, round(expected_throws(chain), 9)
        (30, [29], 0, 14.323608706)
        """
        from .markov import Chain
        return Chain(self.compiled.matrix, absorbing=[self.size],
                     labels=range(self.size + 1), start=self.start)

    def replace(self, **changes: Any) -> Board:
        """A copy with some fields changed, e.g. ``board.replace(overshoot="bounce")``
        (``capture=None`` drops the safe squares too)."""
        fields = {k: getattr(self, k) for k in ("size", "start", "overshoot", "chain", "dice",
                                                 "name", "capture", "safe")}
        if changes.get("capture", 0) is None and "safe" not in changes:
            fields["safe"] = ()  # capture=None drops the safe squares with it
        unknown = set(changes) - set(fields) - {"jumps"}
        if unknown:
            raise TypeError(f"unknown Board fields: {sorted(unknown)}")
        fields.update(changes)
        size = fields.pop("size")
        if "jumps" in changes:
            return Board(size, fields.pop("jumps"), **fields)
        return Board.from_arrays(size, *self._jump_arrays, **fields)

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
        src, dst = directed_jumps(snakes, ladders)
        return cls(size, list(zip(src, dst, strict=True)), **rules)

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
        arr = int_array(move, "move")
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
        arr = int_array(grid, "grid")
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
        if self.capture is not None:  # (absent: the game without capture, as before)
            out.update(capture=self.capture, safe=list(self.safe))
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Board:
        """Inverse of :meth:`to_dict`.

        ``jumps`` may be replaced by ``snakes`` and ``ladders`` (each, as ``jumps``,
        pairs or an object ``{"16": 6}``); ``dice`` may be ``{"faces": [...], "probs":
        [...]}``, a mapping ``face -> probability`` or a string such as ``"2d6"``.
        Missing rules take their defaults.
        """
        f = board_fields(data)  # (every field read and checked once: no _rules again)
        dice = Dice.fair(6) if f.faces is None else shared_dice(tuple(f.faces), tuple(f.probs or ()))
        board = cls.__new__(cls)
        board._init(np.array(f.src, dtype=np.int64), np.array(f.dst, dtype=np.int64), f.size,
                    f.start, f.overshoot, f.chain, dice, f.name, f.capture, f.safe)
        return board

    def to_json(self, path: str | os.PathLike[str] | None = None, *, indent: int | None = None
                ) -> str:
        """The board as JSON text; also written to ``path`` when given (whole or not at
        all: a planted link is replaced, not followed)."""
        from ._core.jsontext import json_indent  # (json.dumps took indent='x', 2.5, 2**62)
        data = self.to_dict()
        text = json.dumps(data, indent=json_indent(indent, data))
        if path is not None:
            write_text_atomic(path, text + "\n")
        return text

    @classmethod
    def from_json(cls, source: str | os.PathLike[str]) -> Board:
        """A board from JSON text or from the path of a JSON file: a JSON object, as
        :meth:`from_dict` takes (other JSON, such as ``null``, is a ``TypeError``)."""
        if isinstance(source, bytes):
            return cls.from_dict(parse_json(source))
        text: str | bytes
        # (text saved with a byte order mark is text too)
        body = source.removeprefix("\ufeff") if isinstance(source, str) else ""
        if isinstance(source, os.PathLike) or (
            isinstance(source, str) and not body.lstrip().startswith(("{", "[", '"'))
            and "\n" not in source
        ):
            try:
                text = _read_board_file(source)
            except FileNotFoundError:
                if not (isinstance(source, str) and is_json(body)):  # (null, 3: said below)
                    raise ValueError(f"no such board file: {os.fspath(source)!r} (and not JSON "
                                     "text either)") from None
                text = body
            except (OSError, ValueError) as exc:  # a directory, no permission, a NUL byte
                raise ValueError(f"cannot read board file {os.fspath(source)!r}: "
                                 f"{getattr(exc, 'strerror', None) or exc}") from None
        elif isinstance(source, str):
            text = body
        else:
            raise TypeError(f"source must be JSON text or a path, got {type(source).__name__}")
        try:
            data = parse_json(text)
        except ValueError as exc:
            raise ValueError(f"invalid board JSON: {str(exc).removeprefix('invalid JSON: ')}"
                             ) from None
        if not isinstance(data, dict):  # valid JSON, but no board
            kinds = {list: "an array", str: "a string", int: "a number", float: "a number"}
            got = kinds.get(type(data)) or json.dumps(data)  # or null, true, false
            raise TypeError(f"expected a JSON object describing a board, got {got}")
        return cls.from_dict(data)

    # -- dunder -------------------------------------------------------------
    def _key(self) -> tuple[Any, ...]:
        src, dst = self._jump_arrays
        return (self.size, src.tobytes(), dst.tobytes(), self.start, self.overshoot,
                self.chain, self.dice, self.capture, self.safe)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        label = f"{self.name!r}, " if self.name else ""
        src, dst = self._jump_arrays
        return (f"Board({label}size={self.size}, ladders={np.count_nonzero(dst > src)}, "
                f"snakes={np.count_nonzero(dst < src)}, start={self.start}, "
                f"overshoot={self.overshoot!r}, chain={self.chain}, dice={self.dice!r}"
                + (f", capture={self.capture!r}, safe={self.safe}" * (self.capture is not None))
                + ")")

    def _repr_html_(self) -> str:
        from .display.html import board_html

        return board_html(self)

    def __reduce__(self):
        return (_from_dict_pickle, (self.to_dict(),))


def _from_dict_pickle(data: dict[str, Any]) -> Board:
    return Board.from_dict(data)


def check_start(board: Board | Chain, start: Any) -> int:
    """``start``, or the board's own start when None, checked to be one of its squares (for
    a Chain: state ``start``'s index in its compiled table)."""
    if not isinstance(board, Board):
        return board.compiled_index(start)
    if start is None:
        return board.start
    start = square(start, "start")
    if not 0 <= start <= board.size:
        raise ValueError(f"start must be a square in 0..{board.size}, got {start}")
    return start


def check_model(board: Any) -> Board | Chain:
    """``board`` if it is a :class:`Board` or a :class:`~snl_numeric.Chain`, else ``TypeError``."""
    if type(board) is Board:  # (the common case: no import)
        return board
    from .markov import Chain

    if isinstance(board, Chain):
        return board
    return check_board(board, chain_ok=True)


def check_board(board: Any, *, chain_ok: bool = False) -> Board:
    """``board`` if it is a :class:`Board`, else ``TypeError`` (``chain_ok``: or a Chain)."""
    if isinstance(board, str):  # a name or a path, as the command line takes
        raise TypeError(f"expected a Board, got the string {board!r}: use "
                        f"snl_numeric.boards.get({board!r}) for a built-in board, "
                        "Board.from_json(path) for a board file")
    if not isinstance(board, Board):
        from .markov import Chain

        if not chain_ok and isinstance(board, Chain):
            raise TypeError("expected a Board, got a Chain: this question needs a board's "
                            "dice and jumps and does not take a Chain yet")
        kind = "a Board or a Chain" if chain_ok else "a Board"
        raise TypeError(f"expected {kind}, got {type(board).__name__}")
    return board


def capture_rule(board: Board) -> tuple[int, int, np.ndarray]:
    """The capture rule of ``board`` as ``(mode, back, safe_mask)``, the one reader of it.

    ``mode`` is 0 (players never interact), 1 (a captured token goes to its start square)
    or 2 (it goes back ``back`` squares, to ``max(0, p - back)``, and takes the jump
    there); ``back`` is 0 unless ``mode == 2``. ``safe_mask`` is a read-only bool array of
    length ``size + 1``, True where nobody can be captured: the safe squares, the board's
    start and the goal.

    Examples
    --------
    >>> mode, back, mask = capture_rule(Board(6, capture=2, safe=[3]))
    >>> mode, back, mask.nonzero()[0].tolist()
    (2, 2, [0, 3, 6])
    >>> capture_rule(Board(6))[:2]
    (0, 0)
    """
    board = check_board(board)
    mask = np.zeros(board.size + 1, dtype=bool)
    mask[list(board.safe)] = True
    mask[[board.start, board.size]] = True
    mask.flags.writeable = False
    capture = board.capture
    if capture is None:
        return 0, 0, mask
    if capture == "start":
        return 1, 0, mask
    return 2, int(capture), mask
