"""The batch representation: many boards as stacked arrays."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

import numpy as np

from .._core.fields import overshoot_rule
from .._core.memory import check_memory
from .._core.progress import Progress, check_progress
from .._core.table import OVERSHOOT_CODES
from .._core.validation import (
    choice_message,
    flag,
    generator,
    int_array,
    integer,
    positive_int,
    shown,
)
from ..board import OVERSHOOT_RULES, Board
from ..dice import Dice

#: Default number of boards per chunk.
DEFAULT_CHUNK_SIZE = 20_000
#: Work arrays of one chunk of :func:`random_batch`: 7,326 boards of 100 squares with 20
#: jumps (faster than larger chunks, which leave the caches), fewer on larger boards.
RANDOM_CHUNK_BYTES = 1 << 24
#: Largest board the batch kernels take (a larger ``size`` is reported as an
#: error row: it is most likely a typo, and would allocate gigabytes per thread).
MAX_SIZE = 10_000_000

RULE_NAMES = {v: k for k, v in OVERSHOOT_CODES.items()}
D6_FACES = np.arange(1, 7, dtype=np.int64)
D6_PROBS = np.full(6, 1.0 / 6.0)


def _int_vector(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values) if isinstance(values, np.ndarray) else int_array(values, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-d, got shape {arr.shape}")
    if arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer)):
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    return np.ascontiguousarray(int_array(arr, name), dtype=np.int64)


def _ptr_vector(values: Any, name: str, n: int, total: int) -> np.ndarray:
    ptr = _int_vector(values, name)
    if len(ptr) != n + 1:
        raise ValueError(f"{name} must have {n + 1} entries (boards + 1), got {len(ptr)}")
    if ptr[0] != 0 or ptr[-1] != total or np.any(np.diff(ptr) < 0):
        raise ValueError(f"{name} must rise from 0 to {total}, got {ptr.tolist()[:8]}...")
    return ptr


def segment_ids(ptr: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(ptr) - 1, dtype=np.int64), np.diff(ptr))


def _rule_codes(names: np.ndarray) -> np.ndarray:
    """Overshoot rule names (a string or object array) as codes, one vectorised comparison
    per rule; ``ValueError`` naming the first other value."""
    codes = np.full(names.shape, -1, dtype=np.int8)
    for name, code in OVERSHOOT_CODES.items():
        codes[names == name] = code
    bad = np.flatnonzero(codes < 0)
    if len(bad):
        raise ValueError(choice_message("overshoot", OVERSHOOT_RULES,
                                        shown(str(names[bad[0]]))))
    return codes


#: Faces checked for their order (and sorted, where out of order) a block of about this
#: many at a time: every pass over a block is short, so Ctrl-C stops between two.
ORDER_BLOCK = 1 << 18


def _faces_in_order(ptr: np.ndarray, faces: np.ndarray, probs: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Each board's faces increasing (``probs`` along), by a stable sort of the blocks of
    boards where a face is below the one before it: one comparison per face elsewhere.
    ``faces`` is the caller's own copy, written in place; ``probs`` is copied first."""
    starts = np.searchsorted(ptr, np.arange(0, len(faces), ORDER_BLOCK), side="right") - 1
    bounds = np.unique(np.append(starts, len(ptr) - 1))
    copied = False
    for b0, b1 in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        lo, hi = int(ptr[b0]), int(ptr[b1])
        f = faces[lo:hi]
        down = f[1:] < f[:-1]
        cuts = ptr[b0 + 1: b1] - lo - 1  # (the last face of a board, the next board's first)
        down[cuts[(cuts >= 0) & (cuts < len(down))]] = False
        if not down.any():
            continue
        if not copied:
            probs, copied = probs.copy(), True
        owner = np.repeat(np.arange(b1 - b0), np.diff(ptr[b0: b1 + 1]))
        order = np.lexsort((f, owner))
        faces[lo:hi], probs[lo:hi] = f[order], probs[lo:hi][order]
    return faces, probs


@dataclass(frozen=True, eq=False)
class BoardBatch:
    """Many boards as stacked arrays (boards of different sizes and rules allowed).

    Build one with :meth:`from_boards`, :meth:`from_arrays`,
    :func:`~snl_numeric.batch.read_boards` or :func:`~snl_numeric.batch.random_batch`.
    A batch may hold invalid boards (e.g. read from a file); :func:`analyze_many` reports
    them row by row, and ``batch[i]`` raises the :class:`~snl_numeric.Board` error.

    Attributes
    ----------
    sizes, starts : ndarray of int64, shape (n,)
        Goal square and start square of each board.
    overshoot : ndarray of int8, shape (n,)
        Overshoot rule codes (``_core.table.OVERSHOOT_CODES``: win 0,
        exact 1, bounce 2).
    chain : ndarray of bool, shape (n,)
        Whether jumps chain.
    jump_ptr : ndarray of int64, shape (n + 1,)
        Board ``b``'s jumps are entries ``jump_ptr[b]:jump_ptr[b + 1]`` of
        ``jump_src`` / ``jump_dst`` (int64).
    dice_ptr : ndarray of int64, shape (n + 1,)
        Board ``b``'s dice are entries ``dice_ptr[b]:dice_ptr[b + 1]`` of
        ``faces`` (int64, increasing) and ``probs`` (float64; faces of
        probability zero are ignored, as :class:`~snl_numeric.Dice` does).

    Examples
    --------
    >>> from snl_numeric import Board
    >>> batch = BoardBatch.from_boards([Board(10, {3: 8}), Board(20, overshoot="exact")])
    >>> len(batch), batch.sizes.tolist(), batch.jump_ptr.tolist()
    (2, [10, 20], [0, 1, 1])
    >>> batch[1] == Board(20, overshoot="exact")
    True
    >>> len(BoardBatch.concat([batch, batch[:1]]))
    3
    """

    sizes: np.ndarray
    starts: np.ndarray
    overshoot: np.ndarray
    chain: np.ndarray
    jump_ptr: np.ndarray
    jump_src: np.ndarray
    jump_dst: np.ndarray
    dice_ptr: np.ndarray
    faces: np.ndarray
    probs: np.ndarray

    # -- constructors -------------------------------------------------------
    @classmethod
    def from_arrays(
        cls,
        sizes: Any,
        *,
        starts: Any = None,
        overshoot: Any = None,
        chain: Any = None,
        jump_ptr: Any = None,
        jump_src: Any = None,
        jump_dst: Any = None,
        dice_ptr: Any = None,
        faces: Any = None,
        probs: Any = None,
    ) -> BoardBatch:
        """A batch from raw arrays (see the class Attributes).

        ``overshoot`` may hold codes or rule names; missing jumps mean none,
        missing dice a fair d6 for every board. Only the layout is checked
        here (lengths and pointers); the boards' rules are checked by
        :func:`analyze_many`.
        """
        sizes = _int_vector(sizes, "sizes")
        n = len(sizes)
        starts = np.zeros(n, np.int64) if starts is None else _int_vector(starts, "starts")
        if overshoot is None:
            codes = np.zeros(n, np.int8)
        else:
            ov = np.asarray(overshoot)
            if ov.dtype.kind in "UO":
                codes = _rule_codes(ov)
            else:
                codes = _int_vector(ov, "overshoot")
                # invalid codes become -1 (a per-row error), never wrap around in int8
                codes = np.where((codes >= 0) & (codes <= 2), codes, -1).astype(np.int8)
        chain_arr = np.zeros(n, bool) if chain is None else np.asarray(chain)
        if chain_arr.dtype != bool:
            raise TypeError(f"chain must hold booleans, got dtype {chain_arr.dtype}")
        if jump_ptr is None:
            if jump_src is not None or jump_dst is not None:
                raise ValueError("jump_src/jump_dst need jump_ptr")
            jump_ptr, jump_src, jump_dst = np.zeros(n + 1, np.int64), (), ()
        jump_src = _int_vector(jump_src, "jump_src")
        jump_dst = _int_vector(jump_dst, "jump_dst")
        if len(jump_src) != len(jump_dst):
            raise ValueError(f"jump_src and jump_dst must have equal lengths, "
                             f"got {len(jump_src)} and {len(jump_dst)}")
        jump_ptr = _ptr_vector(jump_ptr, "jump_ptr", n, len(jump_src))
        if dice_ptr is None:
            if faces is not None or probs is not None:
                raise ValueError("faces/probs need dice_ptr")
            dice_ptr = np.arange(0, 6 * n + 1, 6, dtype=np.int64)
            faces, probs = np.tile(D6_FACES, n), np.tile(D6_PROBS, n)
        faces = _int_vector(faces, "faces")
        probs = np.asarray(probs)
        if probs.ndim != 1 or len(probs) != len(faces):
            raise ValueError(f"probs must be 1-d with one entry per face ({len(faces)}), "
                             f"got shape {probs.shape}")
        if probs.size and (probs.dtype == bool or not np.issubdtype(probs.dtype, np.number)):
            raise TypeError(f"probs must hold numbers, got dtype {probs.dtype}")
        probs = np.ascontiguousarray(probs, dtype=np.float64)
        dice_ptr = _ptr_vector(dice_ptr, "dice_ptr", n, len(faces))
        for name, arr in (("starts", starts), ("overshoot", codes), ("chain", chain_arr)):
            if len(arr) != n:
                raise ValueError(f"{name} must have one entry per board ({n}), got {len(arr)}")
        # faces increasing within each board (as Dice stores them); faces of
        # probability zero are kept so that validation sees the dice as given
        faces, probs = _faces_in_order(dice_ptr, faces, probs)
        return cls(sizes, starts, codes, np.ascontiguousarray(chain_arr), jump_ptr, jump_src,
                   jump_dst, dice_ptr, np.ascontiguousarray(faces), probs)

    @classmethod
    def from_boards(cls, boards: Iterable[Board]) -> BoardBatch:
        """Stack :class:`~snl_numeric.Board` objects."""
        boards = list(boards)
        for i, b in enumerate(boards):
            if not isinstance(b, Board):
                raise TypeError(f"board {i}: expected a Board, got {type(b).__name__}")
        n = len(boards)
        n_jumps = np.fromiter((len(b.jumps) for b in boards), np.int64, count=n)
        n_faces = np.fromiter((len(b.dice.faces) for b in boards), np.int64, count=n)
        jump_ptr = np.zeros(n + 1, np.int64)
        dice_ptr = np.zeros(n + 1, np.int64)
        np.cumsum(n_jumps, out=jump_ptr[1:])
        np.cumsum(n_faces, out=dice_ptr[1:])
        chain = itertools.chain.from_iterable
        src = np.fromiter(chain(b.jumps.keys() for b in boards), np.int64, count=jump_ptr[-1])
        dst = np.fromiter(chain(b.jumps.values() for b in boards), np.int64, count=jump_ptr[-1])
        faces = np.concatenate([b.dice.faces for b in boards]) if n else np.empty(0, np.int64)
        probs = np.concatenate([b.dice.probs for b in boards]) if n else np.empty(0)
        return cls(
            np.fromiter((b.size for b in boards), np.int64, count=n),
            np.fromiter((b.start for b in boards), np.int64, count=n),
            np.fromiter((OVERSHOOT_CODES[b.overshoot] for b in boards), np.int8, count=n),
            np.fromiter((b.chain for b in boards), bool, count=n),
            jump_ptr, src, dst, dice_ptr, faces.astype(np.int64), probs.astype(np.float64),
        )

    @classmethod
    def concat(cls, batches: Sequence[BoardBatch]) -> BoardBatch:
        """One batch holding the boards of ``batches`` in order."""
        batches = list(batches)
        if not batches:
            return cls.from_arrays(np.empty(0, np.int64))
        for b in batches:
            if not isinstance(b, BoardBatch):
                raise TypeError(f"expected BoardBatch objects, got {type(b).__name__}")

        def ptrs(name: str) -> np.ndarray:
            parts, base = [np.zeros(1, np.int64)], 0
            for b in batches:
                p = getattr(b, name)
                parts.append(p[1:] + base)
                base += p[-1]
            return np.concatenate(parts)

        def cat(name: str) -> np.ndarray:
            return np.concatenate([getattr(b, name) for b in batches])

        return cls(cat("sizes"), cat("starts"), cat("overshoot"), cat("chain"),
                   ptrs("jump_ptr"), cat("jump_src"), cat("jump_dst"),
                   ptrs("dice_ptr"), cat("faces"), cat("probs"))

    # -- access -------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.sizes)

    def _repr_html_(self) -> str:
        from ..display.html import kv_table

        n = len(self)
        rules = ", ".join(f"{name} {int((self.overshoot == code).sum())}"
                          for name, code in OVERSHOOT_CODES.items())
        sizes = f"{int(self.sizes.min())} .. {int(self.sizes.max())}" if n else "-"
        jumps = np.diff(self.jump_ptr)
        return kv_table([("boards", f"{n:,}"), ("sizes", sizes),
                         ("jumps per board", f"{jumps.mean():.1f} on average" if n else "-"),
                         ("overshoot", rules), ("chained", f"{int(self.chain.sum()):,}")],
                        caption="BoardBatch")

    @overload
    def __getitem__(self, index: int | np.integer) -> Board: ...

    @overload
    def __getitem__(self, index: slice | Sequence[int] | np.ndarray) -> BoardBatch: ...

    def __getitem__(self, index: Any) -> Board | BoardBatch:
        if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
            i = int(index)
            n = len(self)
            if not -n <= i < n:
                raise IndexError(f"board index {i} out of range for a batch of {n}")
            return self._board(i % n if n else i)
        rows = np.arange(len(self))[index]
        return self.take(rows)

    def __iter__(self) -> Iterator[Board]:
        for i in range(len(self)):
            yield self._board(i)

    def _board(self, i: int) -> Board:
        code = int(self.overshoot[i])
        if code not in RULE_NAMES:
            raise ValueError(choice_message("overshoot", OVERSHOOT_RULES, f"code {code}"))
        j0, j1 = self.jump_ptr[i], self.jump_ptr[i + 1]
        d0, d1 = self.dice_ptr[i], self.dice_ptr[i + 1]
        pairs = np.column_stack([self.jump_src[j0:j1], self.jump_dst[j0:j1]])
        return Board(int(self.sizes[i]), pairs, start=int(self.starts[i]),
                     overshoot=RULE_NAMES[code], chain=bool(self.chain[i]),
                     dice=Dice(self.faces[d0:d1], self.probs[d0:d1]))

    def take(self, rows: Any) -> BoardBatch:
        """The boards at positions ``rows`` (an integer array), in that order."""
        rows = _int_vector(rows, "rows")
        n = len(self)
        bad = (rows < -n) | (rows >= n)
        if bad.any():
            raise IndexError(f"row {rows[bad][0]} is out of range for a batch of {n} boards")
        rows = np.where(rows < 0, rows + n, rows)
        jl = self.jump_ptr[rows + 1] - self.jump_ptr[rows]
        dl = self.dice_ptr[rows + 1] - self.dice_ptr[rows]
        jsel = _gather_segments(self.jump_ptr[rows], jl)
        dsel = _gather_segments(self.dice_ptr[rows], dl)
        return BoardBatch(self.sizes[rows], self.starts[rows], self.overshoot[rows],
                          self.chain[rows], offsets(jl), self.jump_src[jsel],
                          self.jump_dst[jsel], offsets(dl), self.faces[dsel], self.probs[dsel])

    def fingerprint(self) -> str:
        """A SHA-256 digest of the batch's arrays (used to resume written runs)."""
        h = hashlib.sha256()
        for name in ("sizes", "starts", "overshoot", "chain", "jump_ptr", "jump_src",
                     "jump_dst", "dice_ptr", "faces", "probs"):
            arr = np.ascontiguousarray(getattr(self, name))
            h.update(name.encode())
            h.update(arr.dtype.str.encode())
            h.update(arr.tobytes())
        return h.hexdigest()

    def __repr__(self) -> str:
        if len(self) == 0:
            return "BoardBatch(0 boards)"
        return (f"BoardBatch({len(self)} boards, sizes {int(self.sizes.min())}.."
                f"{int(self.sizes.max())}, {len(self.jump_src)} jumps)")


def offsets(lengths: np.ndarray) -> np.ndarray:
    ptr = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=ptr[1:])
    return ptr


def _gather_segments(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Indices ``starts[i] + 0 .. lengths[i] - 1``, concatenated."""
    total = int(lengths.sum())
    if total == 0:
        return np.empty(0, np.int64)
    ptr = offsets(lengths)
    return np.repeat(starts - ptr[:-1], lengths) + np.arange(total, dtype=np.int64)


def random_batch(
    n: int,
    size: int = 100,
    *,
    snakes: int = 10,
    ladders: int = 10,
    rng: np.random.Generator | np.random.SeedSequence | int | None = None,
    overshoot: str = "win",
    chain: bool = False,
    progress: bool | str = False,
) -> BoardBatch:
    """``n`` random boards of one size with fixed numbers of snakes and ladders (fair d6).

    Sources are distinct squares in ``1 .. size - 1``; a snake from ``s``
    lands uniformly on ``0 .. s - 1``, a ladder on ``s + 1 .. size``, never
    on a jump source (so the boards are valid under ``chain=True`` too).
    Vectorised, in chunks of ``RANDOM_CHUNK_BYTES`` of work arrays (7,326
    boards of 100 squares): a million such boards take a few seconds, ``progress``
    shows them and Ctrl-C (``KeyboardInterrupt``) stops within a chunk.

    Parameters
    ----------
    n : int
        Number of boards.
    size : int, default 100
        The goal square of every board.
    snakes, ladders : int, default 10
        Jumps per board; ``2 * (snakes + ladders) <= size - 1``.
    rng : Generator, SeedSequence or int, optional
        The random numbers; the chunks draw from it in turn (a seed gives the same
        boards whatever ``progress`` says).
    overshoot : {"win", "exact", "bounce"}, default "win"
        The overshoot rule of every board.
    chain : bool, default False
        Whether jumps chain.
    progress : bool or "always", default False
        A progress bar on standard error counting the boards made (a widget in Jupyter):
        True shows it on a terminal or in a notebook only, ``"always"`` in pipes and
        files too.

    Returns
    -------
    BoardBatch

    Examples
    --------
    >>> b = random_batch(3, 50, snakes=4, ladders=2, rng=0)
    >>> len(b), b.jump_ptr.tolist()
    (3, [0, 6, 12, 18])
    >>> len(b[0].snakes), len(b[0].ladders)
    (4, 2)
    """
    gen = generator(rng)
    n, size = positive_int(n, "n", 0), integer(size, "size")
    snakes, ladders = integer(snakes, "snakes"), integer(ladders, "ladders")
    k = snakes + ladders
    if size < 3 or snakes < 0 or ladders < 0 or 2 * k > size - 1:
        raise ValueError(f"need size >= 3 and 2 * (snakes + ladders) <= size - 1, got size "
                         f"{size}, {snakes} snakes, {ladders} ladders")
    overshoot, chain = overshoot_rule(overshoot), flag(chain, "chain")
    progress = check_progress(progress)
    # boards a chunk: a random key (8 bytes) and a source flag (1) per square, 64 bytes of
    # work per jump; at its peak a chunk also holds argpartition's int64 index of every key
    # (16 bytes a square with the keys); the result holds 16 bytes per jump and 130 per board
    per = max(1, RANDOM_CHUNK_BYTES // ((size + 1) * 10 + 64 * k))
    check_memory(float(min(n, per)) * ((size - 1) * 16 + 64 * k) + float(n) * (16 * k + 130),
                 f"{n:,} random boards of {size:,} squares (generate them in chunks)")
    src = np.empty((n, k), np.int64)
    dst = np.empty((n, k), np.int64)
    keys = np.empty((min(n, per) if k else 0, size - 1))  # (one buffer for every chunk)
    with Progress(n, "random_batch", enabled=progress) as bar:
        for lo in range(0, n, per):  # (the chunks draw from ``gen`` in turn)
            hi = min(lo + per, n)
            _random_jumps(gen, size, snakes, keys[: hi - lo], src[lo:hi], dst[lo:hi])
            bar.update(hi - lo)
    # the arrays as ``from_arrays`` leaves them (int64, contiguous, the d6's faces in
    # order), built directly: its checks take seconds on millions of boards, in calls
    # that Ctrl-C cannot stop
    return BoardBatch(
        np.full(n, size, np.int64), np.zeros(n, np.int64),
        np.full(n, OVERSHOOT_CODES[overshoot], np.int8), np.full(n, bool(chain)),
        np.arange(0, k * n + 1, k, dtype=np.int64) if k else np.zeros(n + 1, np.int64),
        src.ravel(), dst.ravel(), np.arange(0, 6 * n + 1, 6, dtype=np.int64),
        np.tile(D6_FACES, n), np.tile(D6_PROBS, n))


def _random_jumps(gen: np.random.Generator, size: int, snakes: int, keys: np.ndarray,
                  src: np.ndarray, dst: np.ndarray) -> None:
    """Fill ``src`` and ``dst`` (``boards x k``) with the jumps of :func:`random_batch`;
    ``keys`` (``boards x (size - 1)``) is work space."""
    n, k = src.shape
    if k == 0:
        return
    # k distinct sources per board: the k smallest of random keys on 1..size-1
    gen.random(out=keys)
    np.add(np.argpartition(keys, k - 1, axis=1)[:, :k], 1, out=src)
    # which sources are snakes: a random choice of ``snakes`` of them per board
    is_snake = np.zeros((n, k), bool)
    is_snake[:, :snakes] = True
    is_snake = gen.permuted(is_snake, axis=1)
    source_mask = np.zeros((n, size + 1), bool)
    np.put_along_axis(source_mask, src, True, axis=1)
    lo = np.where(is_snake, 0, src + 1)
    span = np.where(is_snake, src, size + 1) - lo
    rows, cols = np.repeat(np.arange(n), k), np.tile(np.arange(k), n)
    while len(rows):  # redraw the destinations that landed on a jump source
        cand = lo[rows, cols] + (gen.random(len(rows)) * span[rows, cols]).astype(np.int64)
        dst[rows, cols] = cand
        bad = source_mask[rows, cand]
        rows, cols = rows[bad], cols[bad]
