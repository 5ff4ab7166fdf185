"""Batch analysis of many boards: stacked arrays, Numba kernels, Dask.

A :class:`BoardBatch` stores many boards (of any sizes and rules) as flat
arrays, CSR-style: the jumps of board ``b`` are
``jump_src[jump_ptr[b]:jump_ptr[b + 1]]`` -> ``jump_dst[...]`` and its dice
``faces[dice_ptr[b]:dice_ptr[b + 1]]`` with ``probs[...]`` (faces
increasing, as in :class:`~snl_numeric.Dice`).

:func:`analyze_many` answers the core questions for every board in one pass
of a parallel Numba kernel (``prange`` over boards, each thread writing its
own rows). Per board it

1. validates the board against the rules of :class:`~snl_numeric.Board`
   (rows flagged here are rebuilt as a ``Board`` only to word the error);
2. compiles the successor table (``_structured._fill_succ``);
3. finds the fewest throws by breadth-first propagation from the goal over
   the reversed successor table, and the *sure* squares (goal reached with
   probability 1) (``_structured._reach``);
4. solves ``(I - Q) t = 1`` and ``(I - Q) u = t`` by back-substitution over
   the forward moves plus a Woodbury correction for the few squares that
   snakes (and bounces) lead back to (``_structured._moments_kernel``):
   ``E[T] = t[start]``, ``Var T = 2 u - t - t**2``;
5. only when a median, percentile or mode is asked for, pushes the
   probability mass over the successor table one throw at a time (exactly
   as :func:`~snl_numeric.length_distribution` does) until the requested
   quantiles are known and the live mass is below the tail tolerance.

Results agree with the single-board API: ``min_throws`` is ``-1`` for an
unreachable goal, ``expected_throws``/``variance``/``std`` are ``inf``
when the goal is not reached with probability 1, and a median that the
distribution never reaches is missing (``<NA>``).

Input and output formats
------------------------
*JSON Lines*: one board per line as written by :meth:`Board.to_dict`
(blank lines are skipped; rows are numbered from 0 over the other lines).

*Parquet* (boards): one row per board with the columns

============  ====================  =========================================
column        type                  meaning (missing column / null: default)
============  ====================  =========================================
size          int64                 the goal square (required)
start         int64                 start square (0)
overshoot     string                "win", "exact" or "bounce" ("win")
chain         bool                  follow chained jumps (false)
jump_src      list<int64>           jump sources (no jumps)
jump_dst      list<int64>           jump destinations, same lengths
jumps         list<list<int64>>     alternative to jump_src/jump_dst: pairs
dice_faces    list<int64>           dice faces (fair d6)
dice_probs    list<double>          their probabilities, same lengths
============  ====================  =========================================

*Parquet* (results): ``analyze_to_parquet`` writes a directory ``OUT`` of
part files ``part-000000.parquet``, ... (one per chunk, each written to a
temporary file then renamed) with a ``row`` column (the board's position in
the input) and the requested columns, plus ``_manifest.json`` recording the
input fingerprint and the settings. A rerun with the same input and
settings skips the parts already written. :func:`read_results` reads the
directory back in row order.

Examples
--------
>>> from snl_numeric import Board, boards
>>> from snl_numeric.batch import BoardBatch, analyze_many
>>> batch = BoardBatch.from_boards([boards.get("milton-bradley"), Board(10)])
>>> df = analyze_many(batch, columns=("min_throws", "expected_throws", "median"))
>>> df["min_throws"].tolist(), df["median"].tolist()
([7, 2], [32, 3])
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numba
import numpy as np

from ._numba_config import njit, pjit
from ._progress import Progress
from ._structured import OVERSHOOT_CODES, _fill_succ, _moments_kernel, _reach
from .board import _DICT_KEYS, FORMAT_NAME, FORMAT_VERSION, OVERSHOOT_RULES, Board
from .chain import DEFAULT_MAX_THROWS, DEFAULT_TAIL, _check_tail, _push_step
from .dice import MAX_FACE, Dice

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BoardBatch",
    "BatchRun",
    "analyze_many",
    "analyze_to_parquet",
    "read_boards",
    "read_results",
    "write_jsonl",
    "write_parquet",
    "random_batch",
    "DEFAULT_COLUMNS",
    "COLUMNS",
    "MAX_SIZE",
]

#: Columns computed when ``columns`` is not given.
DEFAULT_COLUMNS = ("min_throws", "expected_throws", "variance", "std")
#: Every fixed column name; ``"p<q>"`` (e.g. ``"p90"``, ``"p99.9"``) adds a percentile.
COLUMNS = ("min_throws", "expected_throws", "variance", "std", "median", "mode",
           "size", "start", "n_snakes", "n_ladders", "n_faces")
#: Default number of boards per chunk.
DEFAULT_CHUNK_SIZE = 20_000
#: Largest board the batch kernels take (a larger ``size`` is reported as an
#: error row: it is most likely a typo, and would allocate gigabytes per thread).
MAX_SIZE = 10_000_000

_INT_COLUMNS = {"min_throws", "median", "mode", "size", "start", "n_snakes", "n_ladders",
                "n_faces"}
_RULE_NAMES = {v: k for k, v in OVERSHOOT_CODES.items()}
_D6_FACES = np.arange(1, 7, dtype=np.int64)
_D6_PROBS = np.full(6, 1.0 / 6.0)
# Numba's workqueue layer is not thread-safe; a Dask worker with several
# threads must not enter the parallel kernels concurrently.
_KERNEL_LOCK = threading.Lock()


def _require_pandas():
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "snl_numeric.batch needs pandas and pyarrow: pip install 'snl_numeric[batch]'"
        ) from None
    return pd


def _require_pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Parquet support needs pyarrow: pip install 'snl_numeric[batch]'"
        ) from None
    return pa, pq


# =============================================================================
# the batch representation
# =============================================================================
def _int_vector(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-d, got shape {arr.shape}")
    if arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer)):
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def _ptr_vector(values: Any, name: str, n: int, total: int) -> np.ndarray:
    ptr = _int_vector(values, name)
    if len(ptr) != n + 1:
        raise ValueError(f"{name} must have {n + 1} entries (boards + 1), got {len(ptr)}")
    if ptr[0] != 0 or ptr[-1] != total or np.any(np.diff(ptr) < 0):
        raise ValueError(f"{name} must rise from 0 to {total}, got {ptr.tolist()[:8]}...")
    return ptr


def _segment_ids(ptr: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(ptr) - 1, dtype=np.int64), np.diff(ptr))


@dataclass(frozen=True, eq=False)
class BoardBatch:
    """Many boards as stacked arrays (boards of different sizes and rules allowed).

    Build one with :meth:`from_boards`, :meth:`from_arrays`,
    :func:`read_boards` or :func:`random_batch`. A batch may hold invalid
    boards (e.g. read from a file); :func:`analyze_many` reports them row by
    row, and ``batch[i]`` raises the :class:`~snl_numeric.Board` error.

    Attributes
    ----------
    sizes, starts : ndarray of int64, shape (n,)
        Goal square and start square of each board.
    overshoot : ndarray of int8, shape (n,)
        Overshoot rule codes (``_structured.OVERSHOOT_CODES``: win 0,
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
                lookup = {**OVERSHOOT_CODES}
                try:
                    codes = np.array([lookup[str(v)] for v in ov.tolist()], dtype=np.int8)
                except KeyError as exc:
                    raise ValueError(f"overshoot must be one of {OVERSHOOT_RULES}, "
                                     f"got {exc.args[0]!r}") from None
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
            faces, probs = np.tile(_D6_FACES, n), np.tile(_D6_PROBS, n)
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
        owner = _segment_ids(dice_ptr)
        order = np.lexsort((faces, owner))
        if np.any(order[1:] < order[:-1]):
            faces, probs = faces[order], probs[order]
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
        from ._html import kv_table

        n = len(self)
        rules = ", ".join(f"{name} {int((self.overshoot == code).sum())}"
                          for name, code in OVERSHOOT_CODES.items())
        sizes = f"{int(self.sizes.min())} .. {int(self.sizes.max())}" if n else "-"
        jumps = np.diff(self.jump_ptr)
        return kv_table([("boards", f"{n:,}"), ("sizes", sizes),
                         ("jumps per board", f"{jumps.mean():.1f} on average" if n else "-"),
                         ("overshoot", rules), ("chained", f"{int(self.chain.sum()):,}")],
                        caption="BoardBatch")

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
        if code not in _RULE_NAMES:
            raise ValueError(f"overshoot must be one of {OVERSHOOT_RULES}, got code {code}")
        j0, j1 = self.jump_ptr[i], self.jump_ptr[i + 1]
        d0, d1 = self.dice_ptr[i], self.dice_ptr[i + 1]
        pairs = np.column_stack([self.jump_src[j0:j1], self.jump_dst[j0:j1]])
        return Board(int(self.sizes[i]), pairs, start=int(self.starts[i]),
                     overshoot=_RULE_NAMES[code], chain=bool(self.chain[i]),
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
                          self.chain[rows], _offsets(jl), self.jump_src[jsel],
                          self.jump_dst[jsel], _offsets(dl), self.faces[dsel], self.probs[dsel])

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


def _offsets(lengths: np.ndarray) -> np.ndarray:
    ptr = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=ptr[1:])
    return ptr


def _gather_segments(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Indices ``starts[i] + 0 .. lengths[i] - 1``, concatenated."""
    total = int(lengths.sum())
    if total == 0:
        return np.empty(0, np.int64)
    ptr = _offsets(lengths)
    return np.repeat(starts - ptr[:-1], lengths) + np.arange(total, dtype=np.int64)


def random_batch(
    n: int,
    size: int = 100,
    *,
    snakes: int = 10,
    ladders: int = 10,
    rng: np.random.Generator | int | None = None,
    overshoot: str = "win",
    chain: bool = False,
) -> BoardBatch:
    """``n`` random boards of one size with fixed numbers of snakes and ladders (fair d6).

    Sources are distinct squares in ``1 .. size - 1``; a snake from ``s``
    lands uniformly on ``0 .. s - 1``, a ladder on ``s + 1 .. size``, never
    on a jump source (so the boards are valid under ``chain=True`` too).
    Vectorised: a million boards take a few seconds (generate them in
    chunks to bound memory).

    Examples
    --------
    >>> b = random_batch(3, 50, snakes=4, ladders=2, rng=0)
    >>> len(b), b.jump_ptr.tolist()
    (3, [0, 6, 12, 18])
    >>> len(b[0].snakes), len(b[0].ladders)
    (4, 2)
    """
    gen = np.random.default_rng(rng)
    k = snakes + ladders
    if size < 3 or snakes < 0 or ladders < 0 or 2 * k > size - 1:
        raise ValueError(f"need size >= 3 and 2 * (snakes + ladders) <= size - 1, got size "
                         f"{size}, {snakes} snakes, {ladders} ladders")
    if overshoot not in OVERSHOOT_CODES:
        raise ValueError(f"overshoot must be one of {OVERSHOOT_RULES}, got {overshoot!r}")
    # k distinct sources per board: the k smallest of random keys on 1..size-1
    keys = gen.random((n, size - 1))
    src = np.argpartition(keys, k - 1, axis=1)[:, :k] + 1 if k else np.empty((n, 0), np.int64)
    src = src.astype(np.int64)
    # which sources are snakes: a random choice of ``snakes`` of them per board
    is_snake = np.zeros((n, k), bool)
    is_snake[:, :snakes] = True
    is_snake = gen.permuted(is_snake, axis=1)
    source_mask = np.zeros((n, size + 1), bool)
    np.put_along_axis(source_mask, src, True, axis=1)
    dst = np.empty((n, k), np.int64)
    lo = np.where(is_snake, 0, src + 1)
    span = np.where(is_snake, src, size + 1) - lo
    rows, cols = np.repeat(np.arange(n), k), np.tile(np.arange(k), n)
    while len(rows):  # redraw the destinations that landed on a jump source
        cand = lo[rows, cols] + (gen.random(len(rows)) * span[rows, cols]).astype(np.int64)
        dst[rows, cols] = cand
        bad = source_mask[rows, cand]
        rows, cols = rows[bad], cols[bad]
    codes = np.full(n, OVERSHOOT_CODES[overshoot], np.int8)
    return BoardBatch.from_arrays(
        np.full(n, size), overshoot=codes, chain=np.full(n, bool(chain)),
        jump_ptr=np.arange(0, k * n + 1, k, dtype=np.int64) if k else np.zeros(n + 1, np.int64),
        jump_src=src.ravel(), jump_dst=dst.ravel())


# =============================================================================
# kernels
# =============================================================================
@njit()
def _board_succ(size, start, code, chain, src, dst, faces, probs, sum_tol):  # pragma: no cover
    """Validate one board and compile it: ``(problem, succ, probs)``.

    ``problem`` is 0 for a valid board, else 1 (size/start), 2 (overshoot
    code), 3 (dice, including a bounce face above ``size + 1`` and a sum
    farther than ``sum_tol`` from 1), 4 (jumps: range, duplicate source,
    cycle under chain) or 5 (``size`` above :data:`MAX_SIZE`). The checks
    cover every rule of ``Board`` (on the faces as given, zero
    probabilities included, as ``Dice`` does), so no
    invalid board reaches the other kernels. ``succ`` and the returned
    ``probs`` cover the faces of positive probability only.
    """
    empty = np.empty((0, 0), dtype=np.int64)
    none = probs[:0]
    if size < 1 or start < 0 or start > size:
        return 1, empty, none
    if size > MAX_SIZE:
        return 5, empty, none
    if code < 0 or code > 2:
        return 2, empty, none
    nf = faces.shape[0]
    total = 0.0
    used = 0
    top = 0
    for f in range(nf):
        p = probs[f]
        if faces[f] < 1 or faces[f] > MAX_FACE or p != p or p < 0.0 or p == np.inf:
            return 3, empty, none
        if f > 0 and faces[f] <= faces[f - 1]:
            return 3, empty, none
        total += p
        if p > 0.0:
            used += 1
            top = faces[f]
    if used == 0 or abs(total - 1.0) > sum_tol:
        return 3, empty, none
    if code == 2 and top > size + 1:
        return 3, empty, none
    k = src.shape[0]
    jump_to = np.full(size + 1, -1, dtype=np.int64)
    for j in range(k):
        s, d = src[j], dst[j]
        if s < 0 or s >= size or d < 0 or d > size or s == d or jump_to[s] >= 0:
            return 4, empty, none
        jump_to[s] = d
    if chain:
        for j in range(k):  # a walk of more than k jumps must revisit a square
            x = src[j]
            steps = 0
            while jump_to[x] >= 0:
                x = jump_to[x]
                steps += 1
                if steps > k:
                    return 4, empty, none
    if used < nf:  # drop the faces of probability zero
        fc = np.empty(used, dtype=np.int64)
        pc = np.empty(used)
        i = 0
        for f in range(nf):
            if probs[f] > 0.0:
                fc[i] = faces[f]
                pc[i] = probs[f]
                i += 1
    else:
        fc = faces
        pc = probs
    succ = np.empty((size + 1, used), dtype=np.int64)
    _fill_succ(size, jump_to, code, chain, fc, succ)
    return 0, succ, pc


@njit()
def _quantiles_one(succ, probs, dist, start, levels, want_mode, tail, max_throws,
                   q_row):  # pragma: no cover - jitted
    """Quantiles (into ``q_row``) and mode of the number of throws: ``(mode, status)``.

    Pushes mass with ``chain._push_step``, as :func:`length_distribution` does, so ``q_row[i]`` is
    the smallest ``k`` with ``cdf[k] >= levels[i]`` over the pmf that
    :func:`length_distribution` returns (-1 when never reached) and ``mode``
    its first argmax (-1 when the pmf is all zero). Stops as soon as the
    answers cannot change; ``status`` is 1 when ``max_throws`` was exceeded.
    """
    n, nf = succ.shape
    goal = n - 1
    nq = levels.shape[0]
    for i in range(nq):
        q_row[i] = -1
    if start == goal:  # pmf = [1.0]
        for i in range(nq):
            q_row[i] = 0
        return 0, 0
    unresolved = 0
    for i in range(nq):
        if levels[i] <= 0.0:
            q_row[i] = 0
        else:
            unresolved += 1
    if dist[start] <= 0:  # pmf = [0.0]
        return -1, 0
    mass = np.zeros(n)
    nxt = np.zeros(n)
    mass[start] = 1.0
    live = dist > 0
    band = np.array([start, start])
    cum = 0.0
    best = 0.0
    mode = 0
    k = 0
    while True:
        k += 1
        if k > max_throws:
            return -1, 1
        p, remaining = _push_step(succ, probs, mass, nxt, live, goal, band)
        cum += p
        if p > best:
            best = p
            mode = k
        for i in range(nq):
            if q_row[i] < 0 and cum >= levels[i]:
                q_row[i] = k
                unresolved -= 1
        if remaining < tail:
            break
        if unresolved == 0 and (not want_mode or remaining * (1.0 + 1e-9) < best):
            break
    return (mode if best > 0.0 else -1), 0


@pjit()
def _batch_kernel(sizes, starts, overshoot, chain, jump_ptr, jump_src, jump_dst, dice_ptr,
                  faces, probs, sum_tol, moments, quantiles, levels, want_mode, tail,
                  max_throws, problem, min_out, mean_out, var_out, q_out, mode_out,
                  status):  # pragma: no cover - jitted
    """Every board in parallel: validate, compile, BFS, moments, quantiles."""
    for b in numba.prange(sizes.shape[0]):
        j0, j1 = jump_ptr[b], jump_ptr[b + 1]
        d0, d1 = dice_ptr[b], dice_ptr[b + 1]
        code, succ, pr = _board_succ(sizes[b], starts[b], overshoot[b], chain[b],
                                     jump_src[j0:j1], jump_dst[j0:j1], faces[d0:d1],
                                     probs[d0:d1], sum_tol)
        problem[b] = code
        if code != 0:
            continue
        n = succ.shape[0]
        dist = np.empty(n, dtype=np.int64)
        sure = np.empty(n, dtype=np.bool_)
        _reach(succ, dist, sure)
        start = starts[b]
        min_out[b] = dist[start]
        if moments:
            mean = np.empty(n)
            var = np.empty(n)
            _moments_kernel(succ, pr, sure, mean, var)
            mean_out[b] = mean[start]
            var_out[b] = var[start]
        if quantiles:
            mode_out[b], status[b] = _quantiles_one(succ, pr, dist, start, levels,
                                                    want_mode, tail, max_throws, q_out[b])


# =============================================================================
# analysis of one chunk (runs locally or on a Dask worker)
# =============================================================================
def _percentile_value(name: str) -> float | None:
    if name == "median":
        return 50.0
    if name.startswith("p") and len(name) > 1:
        try:
            q = float(name[1:])
        except ValueError:
            return None
        return q if math.isfinite(q) else None
    return None


def _check_columns(columns: Any) -> tuple[str, ...]:
    if isinstance(columns, str):
        columns = (columns,)
    try:
        cols = tuple(columns)
    except TypeError:
        raise TypeError(f"columns must be a sequence of names, got {columns!r}") from None
    if not cols:
        raise ValueError("columns must name at least one column")
    for c in cols:
        if not isinstance(c, str):
            raise TypeError(f"column names must be strings, got {c!r}")
        if c in COLUMNS:
            continue
        q = _percentile_value(c)
        if q is None:
            raise ValueError(f"unknown column {c!r}; expected one of {COLUMNS} or 'p<q>' "
                             f"such as 'p90'")
        if not 0 < q < 100:
            raise ValueError(f"percentile column {c!r} must name q in (0, 100) "
                             "(the distribution's tail is cut at the tolerance)")
    if len(set(cols)) != len(cols):
        raise ValueError(f"columns must be distinct, got {list(cols)}")
    return cols


@dataclass(frozen=True)
class _Settings:
    columns: tuple[str, ...]
    errors: str
    tail: float
    max_throws: int

    def to_json(self) -> dict[str, Any]:
        return {"columns": list(self.columns), "errors": self.errors, "tail": self.tail,
                "max_throws": self.max_throws}


@dataclass(frozen=True)
class _Chunk:
    index: int
    offset: int
    batch: BoardBatch
    parse_errors: dict[int, str]  # local row -> message


def _raise_for(row: int, message: str) -> None:
    raise ValueError(f"board {row}: {message}")


def _problem_message(batch: BoardBatch, i: int, code: int) -> str | None:
    """The Board's own error for a flagged row, or None if the Board is in fact valid."""
    if code == 2:
        return (f"overshoot must be one of {OVERSHOOT_RULES}, "
                f"got code {int(batch.overshoot[i])}")
    if code == 5:
        return f"size {int(batch.sizes[i])} is too large for batch analysis (at most {MAX_SIZE})"
    try:
        batch._board(i)
    except (ValueError, TypeError) as exc:
        return str(exc)
    return None


@dataclass
class _Out:
    problem: np.ndarray
    min_throws: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    q: np.ndarray
    mode: np.ndarray
    status: np.ndarray

    def put(self, rows: np.ndarray, other: _Out) -> None:
        for name in ("problem", "min_throws", "mean", "var", "q", "mode", "status"):
            getattr(self, name)[rows] = getattr(other, name)


def _run_kernel(batch: BoardBatch, settings: _Settings, sum_tol: float) -> _Out:
    cols = settings.columns
    levels = np.array([_percentile_value(c) / 100.0 - 1e-12 for c in cols
                       if _percentile_value(c) is not None])
    want_mode = "mode" in cols
    n = len(batch)
    out = _Out(np.zeros(n, np.int8), np.full(n, -1, np.int64), np.full(n, np.nan),
               np.full(n, np.nan), np.full((n, len(levels)), -1, np.int64),
               np.full(n, -1, np.int64), np.zeros(n, np.int8))
    if n:
        with _KERNEL_LOCK:
            _batch_kernel(batch.sizes, batch.starts, batch.overshoot, batch.chain,
                          batch.jump_ptr, batch.jump_src, batch.jump_dst, batch.dice_ptr,
                          batch.faces, batch.probs, sum_tol,
                          any(c in cols for c in ("expected_throws", "variance", "std")),
                          bool(len(levels)) or want_mode, levels, want_mode,
                          float(settings.tail), int(settings.max_throws), out.problem,
                          out.min_throws, out.mean, out.var, out.q, out.mode, out.status)
    return out


def _analyze_chunk(chunk: _Chunk, settings: _Settings) -> pd.DataFrame:
    """Result rows of one chunk: a DataFrame with a ``row`` column."""
    pd = _require_pandas()
    batch, cols = chunk.batch, settings.columns
    n = len(batch)
    # flag borderline dice sums too: the Board (numpy's sum) is the judge for flagged rows
    out = _run_kernel(batch, settings, 1e-12 * (1 - 1e-3))
    error = np.zeros(n, bool)
    messages: dict[int, str] = {}
    for i, msg in chunk.parse_errors.items():
        error[i] = True
        messages[i] = msg
    recheck = []
    for i in np.flatnonzero((out.problem != 0) & ~error).tolist():
        msg = _problem_message(batch, i, int(out.problem[i]))
        if msg is None:
            recheck.append(i)
        else:
            error[i] = True
            messages[i] = msg
    if recheck:  # valid after all (a dice sum right at the tolerance): compute them
        rows = np.array(recheck, np.int64)
        out.put(rows, _run_kernel(batch.take(rows), settings, np.inf))
        for i in rows[out.problem[rows] != 0].tolist():  # never a silently wrong row
            error[i] = True
            messages[i] = "internal error: the batch kernel refused a valid board"
    for i in np.flatnonzero(out.status & ~error).tolist():
        error[i] = True
        messages[i] = (f"the tail did not fall below {settings.tail} within max_throws="
                       f"{settings.max_throws} throws; raise max_throws or tail")
    if error.any() and settings.errors == "raise":
        i = int(np.flatnonzero(error)[0])
        _raise_for(chunk.offset + i, messages[i])
    ok = ~error
    q_cols = [c for c in cols if _percentile_value(c) is not None]
    q_values = {c: out.q[:, j] for j, c in enumerate(q_cols)}
    min_out, mean_out, var_out, mode = out.min_throws, out.mean, out.var, out.mode

    def int_col(values: np.ndarray, missing: np.ndarray | None = None) -> Any:
        mask = ~ok if missing is None else (~ok | missing)
        return pd.arrays.IntegerArray(values.astype(np.int64), mask)

    def float_col(values: np.ndarray) -> np.ndarray:
        return np.where(ok, values, np.nan)

    data: dict[str, Any] = {"row": np.arange(chunk.offset, chunk.offset + n, dtype=np.int64)}
    jl = np.diff(batch.jump_ptr)
    owner = _segment_ids(batch.jump_ptr)
    for c in cols:
        if c == "min_throws":
            data[c] = int_col(min_out)
        elif c == "expected_throws":
            data[c] = float_col(mean_out)
        elif c == "variance":
            data[c] = float_col(var_out)
        elif c == "std":
            with np.errstate(invalid="ignore"):
                data[c] = float_col(np.sqrt(var_out))
        elif c == "mode":
            data[c] = int_col(mode, mode < 0)
        elif c in q_values:
            data[c] = int_col(q_values[c], q_values[c] < 0)
        elif c == "size":
            data[c] = int_col(batch.sizes)
        elif c == "start":
            data[c] = int_col(batch.starts)
        elif c == "n_snakes":
            down = batch.jump_dst < batch.jump_src
            data[c] = int_col(np.bincount(owner[down], minlength=n) if n else jl)
        elif c == "n_ladders":
            up = batch.jump_dst > batch.jump_src
            data[c] = int_col(np.bincount(owner[up], minlength=n) if n else jl)
        elif c == "n_faces":
            used = batch.probs > 0
            data[c] = int_col(np.bincount(_segment_ids(batch.dice_ptr)[used], minlength=n))
    if settings.errors == "coerce":
        err = np.full(n, None, dtype=object)
        for i, msg in messages.items():
            err[i] = msg
        data["error"] = err
    return pd.DataFrame(data)


# =============================================================================
# input: boards from lists, batches, iterables and files
# =============================================================================
class _Collector:
    """Accumulates boards (as plain fields) into a BoardBatch."""

    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.starts: list[int] = []
        self.codes: list[int] = []
        self.chain: list[bool] = []
        self.n_jumps: list[int] = []
        self.src: list[int] = []
        self.dst: list[int] = []
        self.n_faces: list[int] = []
        self.faces: list[int] = []
        self.probs: list[float] = []
        self.parse_errors: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self.sizes)

    def add_board(self, b: Board) -> None:
        self.add(b.size, b.start, OVERSHOOT_CODES[b.overshoot], b.chain,
                 list(b.jumps.keys()), list(b.jumps.values()), b.dice.faces.tolist(),
                 b.dice.probs.tolist())

    def add(self, size: int, start: int, code: int, chain: bool, src: list[int],
            dst: list[int], faces: list[int], probs: list[float]) -> None:
        self.sizes.append(size)
        self.starts.append(start)
        self.codes.append(code)
        self.chain.append(chain)
        self.n_jumps.append(len(src))
        self.src.extend(src)
        self.dst.extend(dst)
        self.n_faces.append(len(faces))
        self.faces.extend(faces)
        self.probs.extend(probs)

    def add_error(self, message: str) -> None:
        self.parse_errors[len(self.sizes)] = message
        self.add(0, 0, 0, False, [], [], [1], [1.0])

    def add_dict(self, data: Any) -> None:
        fields = _fast_fields(data)
        if fields is not None:
            self.add(*fields)
            return
        try:
            board = Board.from_dict(data)
        except (ValueError, TypeError) as exc:
            self.add_error(str(exc))
        else:
            self.add_board(board)

    def batch(self) -> BoardBatch:
        return BoardBatch.from_arrays(
            np.array(self.sizes, np.int64), starts=np.array(self.starts, np.int64),
            overshoot=np.array(self.codes, np.int8), chain=np.array(self.chain, bool),
            jump_ptr=_offsets(np.array(self.n_jumps, np.int64)),
            jump_src=np.array(self.src, np.int64), jump_dst=np.array(self.dst, np.int64),
            dice_ptr=_offsets(np.array(self.n_faces, np.int64)),
            faces=np.array(self.faces, np.int64), probs=np.array(self.probs, np.float64))


def _is_int(v: Any) -> bool:
    return type(v) is int


def _fast_fields(data: Any) -> tuple | None:
    """Fields of a plain ``Board.to_dict`` dict, or None to let ``Board.from_dict`` decide.

    Only types are checked here; values are checked by the batch kernel.
    """
    if type(data) is not dict or not data.keys() <= _DICT_KEYS:
        return None
    if "snakes" in data or "ladders" in data:
        return None
    if data.get("format", FORMAT_NAME) != FORMAT_NAME or \
            data.get("version", FORMAT_VERSION) != FORMAT_VERSION:
        return None
    size, start = data.get("size"), data.get("start", 0)
    overshoot, chain = data.get("overshoot", "win"), data.get("chain", False)
    if not (_is_int(size) and _is_int(start) and type(chain) is bool
            and overshoot in OVERSHOOT_CODES):
        return None
    jumps = data.get("jumps") or []
    if type(jumps) is not list:
        return None
    src, dst = [], []
    for pair in jumps:
        if type(pair) is not list or len(pair) != 2 or not (_is_int(pair[0]) and
                                                             _is_int(pair[1])):
            return None
        src.append(pair[0])
        dst.append(pair[1])
    dice = data.get("dice")
    if dice is None:
        faces, probs = _D6_FACES.tolist(), _D6_PROBS.tolist()
    else:
        if type(dice) is not dict or set(dice) != {"faces", "probs"}:
            return None
        faces, probs = dice["faces"], dice["probs"]
        if type(faces) is not list or type(probs) is not list or len(faces) != len(probs) \
                or not faces:
            return None
        if not all(_is_int(f) for f in faces) or \
                not all(type(p) in (float, int) for p in probs):
            return None
    return size, start, OVERSHOOT_CODES[overshoot], chain, src, dst, faces, probs


@dataclass(frozen=True)
class _Part:
    """Internal stream item: some boards with their row-level read errors."""

    batch: BoardBatch
    errors: dict[int, str]


@dataclass(frozen=True)
class _ReadError:
    """Internal stream item: one row that could not be read."""

    message: str


def _chunks_from_items(items: Iterable[Any], chunk_size: int) -> Iterator[_Chunk]:
    """Chunk a stream of Board / dict / BoardBatch items.

    Chunk ``i`` holds rows ``i * chunk_size`` to ``(i + 1) * chunk_size - 1``
    whatever the grouping of the items, so a rerun cuts the same chunks.
    """
    index = 0
    coll = _Collector()
    pending: list[_Part] = []
    pending_n = 0

    def merged() -> _Part:
        errs: dict[int, str] = {}
        base = 0
        for p in pending:
            errs.update({base + k: v for k, v in p.errors.items()})
            base += len(p.batch)
        if len(pending) == 1:
            return _Part(pending[0].batch, errs)
        return _Part(BoardBatch.concat([p.batch for p in pending]), errs)

    def flush() -> None:
        nonlocal coll, pending_n
        if len(coll):
            pending.append(_Part(coll.batch(), coll.parse_errors))
            pending_n += len(coll)
            coll = _Collector()

    def cut() -> Iterator[_Chunk]:
        nonlocal index, pending_n
        while pending_n >= chunk_size:
            whole = merged()
            head = {k: v for k, v in whole.errors.items() if k < chunk_size}
            rest = {k - chunk_size: v for k, v in whole.errors.items() if k >= chunk_size}
            yield _Chunk(index, index * chunk_size, whole.batch[:chunk_size], head)
            tail_part = whole.batch[chunk_size:]
            pending[:] = [_Part(tail_part, rest)] if len(tail_part) else []
            pending_n = len(tail_part)
            index += 1

    for item in items:
        if isinstance(item, (BoardBatch, _Part)):
            flush()
            part = item if isinstance(item, _Part) else _Part(item, {})
            pending.append(part)
            pending_n += len(part.batch)
        else:
            if isinstance(item, Board):
                coll.add_board(item)
            elif isinstance(item, _ReadError):
                coll.add_error(item.message)
            else:  # a dict, or anything else for Board.from_dict to refuse
                coll.add_dict(item)
            if pending_n + len(coll) < chunk_size:
                continue
            flush()
        yield from cut()
    flush()
    if pending_n:
        whole = merged()
        yield _Chunk(index, index * chunk_size, whole.batch, whole.errors)


def _file_kind(path: str) -> str:
    lower = path.lower()
    if lower.endswith((".jsonl", ".ndjson", ".json", ".jsonl.gz")):
        return "jsonl"
    if lower.endswith((".parquet", ".pq")):
        return "parquet"
    raise ValueError(f"cannot tell the format of {path!r}: expected a .jsonl or .parquet file")


def _iter_jsonl(path: str) -> Iterator[Any]:
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                yield _ReadError(f"invalid board JSON: {exc}")


def _list_column(rb: Any, name: str, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """Lengths (-1 for null) and flattened values of a list column."""
    import pyarrow.compute as pc

    col = rb.column(rb.schema.get_field_index(name))
    lengths = pc.list_value_length(col).fill_null(-1).to_numpy(zero_copy_only=False)
    values = col.flatten().to_numpy(zero_copy_only=False)
    if values.size and (values.dtype == bool or values.dtype == object or
                        (dtype is np.int64 and not np.issubdtype(values.dtype, np.integer))):
        raise TypeError(f"Parquet column {name!r} must hold lists of "
                        f"{'integers' if dtype is np.int64 else 'numbers'}, "
                        f"got {col.type}")
    return lengths.astype(np.int64), values.astype(dtype)


def _scalar_column(rb: Any, name: str, default: Any, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Values (nulls replaced by ``default``) and the null mask of a column."""
    n = rb.num_rows
    if name not in rb.schema.names:
        return np.full(n, default), np.zeros(n, bool)
    col = rb.column(rb.schema.get_field_index(name))
    nulls = col.is_null().to_numpy(zero_copy_only=False)
    values = col.to_numpy(zero_copy_only=False)
    if kind == "int" and values.dtype != object and not np.issubdtype(values.dtype, np.integer):
        if not (np.issubdtype(values.dtype, np.floating) and np.all(nulls | (values == np.round(
                np.nan_to_num(values))))):
            raise TypeError(f"Parquet column {name!r} must hold integers, got {col.type}")
    if kind == "bool" and values.dtype not in (bool, object):
        raise TypeError(f"Parquet column {name!r} must hold booleans, got {col.type}")
    values = np.where(nulls, default, values)
    return values, nulls


def _part_from_arrow(rb: Any) -> _Part:
    """One Arrow record batch of boards (see the module docstring) as a _Part."""
    n = rb.num_rows
    names = rb.schema.names
    if "size" not in names:
        raise ValueError(f"a board Parquet file needs a 'size' column, got columns {names}")
    errs: dict[int, str] = {}
    sizes, null_size = _scalar_column(rb, "size", 0, "int")
    for i in np.flatnonzero(null_size).tolist():
        errs.setdefault(i, "board data needs a 'size'")
    starts, _ = _scalar_column(rb, "start", 0, "int")
    rules, _ = _scalar_column(rb, "overshoot", "win", "str")
    codes = np.full(n, -1, np.int8)
    for name, code in OVERSHOOT_CODES.items():
        codes[rules == name] = code
    for i in np.flatnonzero(codes < 0).tolist():
        errs.setdefault(i, f"overshoot must be one of {OVERSHOOT_RULES}, got {rules[i]!r}")
    codes[codes < 0] = 0
    chain, _ = _scalar_column(rb, "chain", False, "bool")
    # jumps
    if "jump_src" in names or "jump_dst" in names:
        if not ("jump_src" in names and "jump_dst" in names):
            raise ValueError("a board Parquet file needs both 'jump_src' and 'jump_dst'")
        ls, src = _list_column(rb, "jump_src", np.int64)
        ld, dst = _list_column(rb, "jump_dst", np.int64)
        bad = ls != ld
        for i in np.flatnonzero(bad).tolist():
            errs.setdefault(i, f"jump_src and jump_dst must have equal lengths, got "
                               f"{max(ls[i], 0)} and {max(ld[i], 0)}")
        keep_s = np.repeat(~bad, np.maximum(ls, 0))
        keep_d = np.repeat(~bad, np.maximum(ld, 0))
        src, dst = src[keep_s], dst[keep_d]
        jl = np.where(bad, 0, np.maximum(ls, 0))
    elif "jumps" in names:
        import pyarrow.compute as pc

        col = rb.column(names.index("jumps"))
        lj = pc.list_value_length(col).fill_null(0).to_numpy(zero_copy_only=False)
        pairs = col.flatten()
        lp = pc.list_value_length(pairs).fill_null(0).to_numpy(zero_copy_only=False)
        values = pairs.flatten().to_numpy(zero_copy_only=False)
        if values.size and not np.issubdtype(values.dtype, np.integer):
            raise TypeError(f"Parquet column 'jumps' must hold integer pairs, got {col.type}")
        owner = np.repeat(np.arange(n), lj)
        bad_pair = lp != 2
        bad_rows = np.zeros(n, bool)
        bad_rows[owner[bad_pair]] = True
        for i in np.flatnonzero(bad_rows).tolist():
            errs.setdefault(i, "each of the jumps must be a pair (from, to)")
        keep_pair = ~bad_rows[owner]
        keep_vals = np.repeat(keep_pair, lp)
        vals = values[keep_vals].astype(np.int64)
        src, dst = vals[0::2], vals[1::2]
        jl = np.where(bad_rows, 0, lj)
    else:
        src = dst = np.empty(0, np.int64)
        jl = np.zeros(n, np.int64)
    # dice
    if "dice_faces" in names or "dice_probs" in names:
        if not ("dice_faces" in names and "dice_probs" in names):
            raise ValueError("a board Parquet file needs both 'dice_faces' and 'dice_probs'")
        lf, faces = _list_column(rb, "dice_faces", np.int64)
        lq, probs = _list_column(rb, "dice_probs", np.float64)
        bad = lf != lq
        for i in np.flatnonzero(bad).tolist():
            errs.setdefault(i, "dice faces and probabilities must be 1-d arrays of equal "
                               f"length, got shapes ({max(lf[i], 0)},) and ({max(lq[i], 0)},)")
        d6 = (lf < 0) & (lq < 0)
        keep_f = np.repeat(~bad, np.maximum(lf, 0))
        keep_q = np.repeat(~bad, np.maximum(lq, 0))
        faces, probs = faces[keep_f], probs[keep_q]
        dl = np.where(bad, 0, np.maximum(lf, 0))
        if d6.any():  # null dice: a fair d6
            dl_new = np.where(d6, 6, dl)
            ptr_old, ptr_new = _offsets(dl), _offsets(dl_new)
            f_new = np.empty(ptr_new[-1], np.int64)
            p_new = np.empty(ptr_new[-1])
            keep = np.repeat(~d6, dl_new)
            f_new[keep], p_new[keep] = faces, probs
            f_new[~keep] = np.tile(_D6_FACES, int(d6.sum()))
            p_new[~keep] = np.tile(_D6_PROBS, int(d6.sum()))
            del ptr_old
            faces, probs, dl = f_new, p_new, dl_new
    else:
        faces, probs = np.tile(_D6_FACES, n), np.tile(_D6_PROBS, n)
        dl = np.full(n, 6, np.int64)
    batch = BoardBatch.from_arrays(
        sizes.astype(np.int64), starts=starts.astype(np.int64), overshoot=codes,
        chain=chain.astype(bool), jump_ptr=_offsets(jl), jump_src=src, jump_dst=dst,
        dice_ptr=_offsets(dl), faces=faces, probs=probs)
    return _Part(batch, errs)


def _iter_parquet(path: str, chunk_size: int) -> Iterator[_Part]:
    _, pq = _require_pyarrow()
    pf = pq.ParquetFile(path)
    for rb in pf.iter_batches(batch_size=chunk_size):
        yield _part_from_arrow(rb)


def _file_fingerprint(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()


def _count_rows(path: str, kind: str) -> int:
    if kind == "parquet":
        _, pq = _require_pyarrow()
        return pq.ParquetFile(path).metadata.num_rows
    count = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            count += bool(line.strip())
    return count


@dataclass(frozen=True)
class _Source:
    chunks: Iterator[_Chunk]
    total: int  # 0 when unknown
    fingerprint: str | None


def _open_source(boards: Any, chunk_size: int) -> _Source:
    if isinstance(boards, BoardBatch):
        chunks = (_Chunk(i, lo, boards[lo:lo + chunk_size], {})
                  for i, lo in enumerate(range(0, len(boards), chunk_size)))
        return _Source(chunks, len(boards), "batch:" + boards.fingerprint())
    if isinstance(boards, (str, os.PathLike)):
        path = os.fspath(boards)
        kind = _file_kind(path)
        if not os.path.exists(path):
            raise ValueError(f"no such board file: {path!r}")
        items = _iter_jsonl(path) if kind == "jsonl" else _iter_parquet(path, chunk_size)
        return _Source(_chunks_from_items(items, chunk_size), _count_rows(path, kind),
                       _file_fingerprint(path))
    if isinstance(boards, Board):
        raise TypeError("analyze_many expects many boards; wrap a single Board in a list")
    if isinstance(boards, (list, tuple)) and all(isinstance(b, Board) for b in boards):
        batch = BoardBatch.from_boards(boards)
        return _open_source(batch, chunk_size)
    if isinstance(boards, (bytes, dict)) or not isinstance(boards, Iterable):
        raise TypeError("boards must be a list of Board, a BoardBatch, a file path or an "
                        f"iterable of boards, got {type(boards).__name__}")
    total = len(boards) if hasattr(boards, "__len__") else 0
    return _Source(_chunks_from_items(boards, chunk_size), total, None)


def read_boards(path: str | os.PathLike[str]) -> BoardBatch:
    """Read a JSON Lines or Parquet board file (see the module docstring) into one batch.

    Raises ``ValueError`` naming the first row that cannot be read; use
    :func:`analyze_many` with ``errors="coerce"`` to get per-row messages.

    Examples
    --------
    >>> import os, tempfile
    >>> from snl_numeric import boards
    >>> path = os.path.join(tempfile.mkdtemp(), "b.jsonl")
    >>> write_jsonl([boards.get("seed-30")], path)
    >>> read_boards(path)[0] == boards.get("seed-30")
    True
    """
    chunks = list(_open_source(os.fspath(path), DEFAULT_CHUNK_SIZE).chunks)
    for c in chunks:
        if c.parse_errors:
            i = min(c.parse_errors)
            _raise_for(c.offset + i, c.parse_errors[i])
    return BoardBatch.concat([c.batch for c in chunks])


def _as_batches(boards: Any) -> Iterator[BoardBatch]:
    if isinstance(boards, BoardBatch):
        yield boards
    elif isinstance(boards, (list, tuple)) and all(isinstance(b, Board) for b in boards):
        yield BoardBatch.from_boards(boards)
    else:
        for item in boards:
            if isinstance(item, BoardBatch):
                yield item
            elif isinstance(item, Board):
                yield BoardBatch.from_boards([item])
            else:
                raise TypeError(f"expected Boards or BoardBatches, got {type(item).__name__}")


def write_jsonl(boards: Any, path: str | os.PathLike[str]) -> None:
    """Write boards (a BoardBatch, Boards, or an iterable of either) as JSON Lines."""
    with open(path, "w", encoding="utf-8") as fh:
        for batch in _as_batches(boards):
            for board in batch:
                fh.write(json.dumps(board.to_dict()) + "\n")


def _arrow_table(batch: BoardBatch) -> Any:
    pa, _ = _require_pyarrow()

    def lists(ptr: np.ndarray, values: np.ndarray, typ: Any) -> Any:
        return pa.ListArray.from_arrays(pa.array(ptr.astype(np.int32)), pa.array(values, typ))

    names = np.array(list(OVERSHOOT_CODES), dtype=object)
    return pa.table({
        "size": pa.array(batch.sizes, pa.int64()),
        "start": pa.array(batch.starts, pa.int64()),
        "overshoot": pa.array(names[batch.overshoot], pa.string()),
        "chain": pa.array(batch.chain, pa.bool_()),
        "jump_src": lists(batch.jump_ptr, batch.jump_src, pa.int64()),
        "jump_dst": lists(batch.jump_ptr, batch.jump_dst, pa.int64()),
        "dice_faces": lists(batch.dice_ptr, batch.faces, pa.int64()),
        "dice_probs": lists(batch.dice_ptr, batch.probs, pa.float64()),
    })


def write_parquet(boards: Any, path: str | os.PathLike[str]) -> None:
    """Write boards (a BoardBatch, Boards, or an iterable of either, streamed) as Parquet.

    The schema is the one documented in the module docstring (with
    ``jump_src``/``jump_dst``); each batch becomes a row group.
    """
    _, pq = _require_pyarrow()
    writer = None
    try:
        for batch in _as_batches(boards):
            if np.any((batch.overshoot < 0) | (batch.overshoot > 2)):
                raise ValueError("cannot write boards with an unknown overshoot code")
            table = _arrow_table(batch)
            if writer is None:
                writer = pq.ParquetWriter(os.fspath(path), table.schema)
            writer.write_table(table)
        if writer is None:
            pq.write_table(_arrow_table(BoardBatch.from_arrays(np.empty(0, np.int64))),
                           os.fspath(path))
    finally:
        if writer is not None:
            writer.close()


# =============================================================================
# running chunks: locally or on a Dask cluster
# =============================================================================
def _execute(chunks: Iterable[_Chunk], settings: _Settings, client: Any
             ) -> Iterator[tuple[_Chunk, pd.DataFrame]]:
    """Results of ``chunks`` in order: here, or as Dask tasks keyed by chunk index."""
    if client is None:
        for chunk in chunks:
            yield chunk, _analyze_chunk(chunk, settings)
        return
    import collections
    import uuid

    token = uuid.uuid4().hex[:12]
    threads = sum(client.nthreads().values()) or 1
    window = max(2 * threads, 4)
    inflight: collections.deque = collections.deque()
    for chunk in chunks:
        # the key names the chunk: a chunk is one task, whatever retries happen
        fut = client.submit(_analyze_chunk, chunk, settings,
                            key=f"snl-batch-{token}-{chunk.index:09d}")
        inflight.append((chunk, fut))
        if len(inflight) >= window:
            c, f = inflight.popleft()
            yield c, f.result()
            f.release()
    while inflight:
        c, f = inflight.popleft()
        yield c, f.result()
        f.release()


def _settings(columns: Any, errors: str, tail: float, max_throws: int,
              chunk_size: int) -> _Settings:
    cols = _check_columns(DEFAULT_COLUMNS if columns is None else columns)
    if errors not in ("raise", "coerce"):
        raise ValueError(f"errors must be 'raise' or 'coerce', got {errors!r}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)):
        raise TypeError(f"chunk_size must be an integer, got {chunk_size!r}")
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    _check_tail(tail, max_throws)
    return _Settings(cols, errors, float(tail), int(max_throws))


def _empty_frame(settings: _Settings) -> pd.DataFrame:
    return _analyze_chunk(_Chunk(0, 0, BoardBatch.from_arrays(np.empty(0, np.int64)), {}),
                          settings)


def analyze_many(
    boards: Any,
    *,
    columns: Sequence[str] | None = None,
    errors: str = "raise",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    client: Any = None,
    progress: bool = False,
    tail: float = DEFAULT_TAIL,
    max_throws: int = DEFAULT_MAX_THROWS,
) -> pd.DataFrame:
    """The core numbers of every board in a batch, as a table.

    Parameters
    ----------
    boards : BoardBatch, list of Board, path, or iterable
        A :class:`BoardBatch`; a list of :class:`~snl_numeric.Board`; the
        path of a JSON Lines or Parquet board file; or any iterable of
        Boards, ``Board.to_dict`` dicts or BoardBatches (streamed in chunks).
    columns : sequence of str, optional
        Any of ``min_throws``, ``expected_throws``, ``variance``, ``std``,
        ``median``, ``mode``, ``p<q>`` (e.g. ``p90``: the smallest ``k``
        with ``P(T <= k) >= q / 100``), ``size``, ``start``, ``n_snakes``,
        ``n_ladders``, ``n_faces``. Default :data:`DEFAULT_COLUMNS`. The
        distribution is computed only for ``median``/``mode``/``p<q>``.
    errors : {"raise", "coerce"}
        ``"raise"``: a bad board raises ``ValueError("board <row>: <why>")``
        with the :class:`~snl_numeric.Board` message. ``"coerce"``: an
        ``error`` column holds the message (missing for good rows) and the
        bad rows' values are missing.
    chunk_size : int
        Boards per chunk (the unit of streaming, of Dask tasks and of
        progress).
    client : dask.distributed.Client, optional
        Run the chunks as tasks on this Dask cluster (one task per chunk,
        keyed by its index; results gathered in order). Default: here.
    progress : bool
        Show a progress bar on standard error.
    tail, max_throws : float, int
        As in :func:`~snl_numeric.length_distribution` (quantile columns).

    Returns
    -------
    pandas.DataFrame
        One row per board, indexed by its position in the input (``row``).
        Integer columns are nullable (``Int64``); ``min_throws`` is -1 for
        an unreachable goal, ``expected_throws``/``variance``/``std`` are
        ``inf`` when the goal is not reached with probability 1, and a
        quantile the distribution never reaches is ``<NA>``.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> df = analyze_many([Board(10), Board(10, {9: 0}, overshoot="exact")],
    ...                   columns=["min_throws", "expected_throws", "p90"])
    >>> df.round(3).to_dict("list")
    {'min_throws': [2, 2], 'expected_throws': [3.324, 9.301], 'p90': [4, 19]}
    >>> bad = {"size": 10, "jumps": [[10, 2]]}
    >>> analyze_many([{"size": 10}, bad], errors="coerce")["error"].tolist()[1]
    'jump 10->2 leaves the goal 10; no jump may leave it'
    """
    pd = _require_pandas()
    settings = _settings(columns, errors, tail, max_throws, chunk_size)
    source = _open_source(boards, int(chunk_size))
    frames = []
    with Progress(source.total, "batch", enabled=progress) as bar:
        for chunk, frame in _execute(source.chunks, settings, client):
            frames.append(frame)
            bar.update(len(chunk.batch))
    df = pd.concat(frames, ignore_index=True) if frames else _empty_frame(settings)
    df.index = pd.Index(df.pop("row").to_numpy(), name="row")
    return df


# =============================================================================
# results on disk: resumable Parquet parts
# =============================================================================
_MANIFEST = "_manifest.json"
_RESULTS_FORMAT = "snl_numeric.batch-results"
_PART_KEY = b"snl_numeric.chunk"
#: Test hook: called with the chunk index after each part file is written.
_after_part_written: Callable[[int], None] | None = None


@dataclass(frozen=True)
class BatchRun:
    """What :func:`analyze_to_parquet` did.

    Attributes
    ----------
    path : str
        The output directory.
    rows : int
        Boards in the input.
    chunks : int
        Part files making up the result.
    computed, reused : int
        Chunks computed in this run, and chunks found already written.
    errors : int
        Rows with an error (``errors="coerce"``).
    """

    path: str
    rows: int
    chunks: int
    computed: int
    reused: int
    errors: int

    def _repr_html_(self) -> str:
        from ._html import kv_table

        return kv_table([("output", self.path), ("boards", f"{self.rows:,}"),
                         ("parts", f"{self.chunks} ({self.computed} computed, "
                                   f"{self.reused} reused)"),
                         ("rows with errors", f"{self.errors:,}")], caption="BatchRun")


def _chunk_fingerprint(chunk: _Chunk) -> str:
    h = hashlib.sha256(chunk.batch.fingerprint().encode())
    h.update(json.dumps([chunk.offset, sorted(chunk.parse_errors.items())]).encode())
    return h.hexdigest()


def _part_path(out: str, index: int) -> str:
    return os.path.join(out, f"part-{index:06d}.parquet")


def _part_matches(path: str, fingerprint: str) -> bool:
    _, pq = _require_pyarrow()
    if not os.path.exists(path):
        return False
    try:
        meta = pq.read_schema(path).metadata or {}
    except Exception:  # a damaged part is simply recomputed
        return False
    return meta.get(_PART_KEY) == fingerprint.encode()


def _write_atomic(path: str, write: Callable[[str], None]) -> None:
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    write(tmp)
    os.replace(tmp, path)


def analyze_to_parquet(
    boards: Any,
    out: str | os.PathLike[str],
    *,
    columns: Sequence[str] | None = None,
    errors: str = "raise",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    client: Any = None,
    progress: bool = False,
    overwrite: bool = False,
    tail: float = DEFAULT_TAIL,
    max_throws: int = DEFAULT_MAX_THROWS,
) -> BatchRun:
    """Analyse boards chunk by chunk into a resumable directory of Parquet parts.

    Each chunk is written to ``out/part-<index>.parquet`` (a temporary file
    renamed into place, so a part is whole or absent) tagged with a digest
    of its boards; ``out/_manifest.json`` records the input fingerprint and
    the settings. Run again with the same input and settings after an
    interruption, it keeps the parts already written and computes only the
    missing ones. A directory written for another input or other settings
    is refused unless ``overwrite=True``. Memory stays bounded by a few
    chunks whatever the input size. Parameters are those of
    :func:`analyze_many`.

    Examples
    --------
    >>> import tempfile
    >>> from snl_numeric import Board
    >>> out = tempfile.mkdtemp()
    >>> run = analyze_to_parquet([Board(10), Board(20)], out, chunk_size=1)
    >>> run.computed, analyze_to_parquet([Board(10), Board(20)], out, chunk_size=1).reused
    (2, 2)
    >>> read_results(out)["min_throws"].tolist()
    [2, 4]
    """
    pa, pq = _require_pyarrow()
    settings = _settings(columns, errors, tail, max_throws, chunk_size)
    out = os.fspath(out)
    source = _open_source(boards, int(chunk_size))
    manifest = {"format": _RESULTS_FORMAT, "version": 1, "input": source.fingerprint,
                "chunk_size": int(chunk_size), "settings": settings.to_json()}
    os.makedirs(out, exist_ok=True)
    mpath = os.path.join(out, _MANIFEST)
    if os.path.exists(mpath):
        with open(mpath, encoding="utf-8") as fh:
            try:
                old = json.load(fh)
            except json.JSONDecodeError:
                old = None
        if old != manifest:
            if not overwrite:
                raise ValueError(f"{out!r} holds results for another input or other settings "
                                 "(see its _manifest.json); use a new path or overwrite=True")
            for name in os.listdir(out):
                if name.startswith("part-") and name.endswith(".parquet"):
                    os.remove(os.path.join(out, name))
    elif any(n.startswith("part-") for n in os.listdir(out)) and not overwrite:
        raise ValueError(f"{out!r} holds part files but no manifest; use a new path or "
                         "overwrite=True")

    def write_manifest(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(manifest, fh, indent=2)

    _write_atomic(mpath, write_manifest)
    counts = {"rows": 0, "chunks": 0, "reused": 0, "computed": 0, "errors": 0}
    digests: dict[int, str] = {}

    with Progress(source.total, "batch", enabled=progress) as bar:
        def todo() -> Iterator[_Chunk]:
            for chunk in source.chunks:
                counts["rows"] += len(chunk.batch)
                counts["chunks"] += 1
                digest = _chunk_fingerprint(chunk)
                if _part_matches(_part_path(out, chunk.index), digest):
                    counts["reused"] += 1
                    bar.update(len(chunk.batch))
                    continue
                digests[chunk.index] = digest
                yield chunk

        for chunk, frame in _execute(todo(), settings, client):
            table = pa.Table.from_pandas(frame, preserve_index=False)
            table = table.replace_schema_metadata(
                {**(table.schema.metadata or {}), _PART_KEY: digests.pop(chunk.index).encode()})
            _write_atomic(_part_path(out, chunk.index),
                          lambda tmp, t=table: pq.write_table(t, tmp))
            counts["computed"] += 1
            if "error" in frame:
                counts["errors"] += int(frame["error"].notna().sum())
            bar.update(len(chunk.batch))
            if _after_part_written is not None:
                _after_part_written(chunk.index)
    return BatchRun(path=out, **counts)


def read_results(out: str | os.PathLike[str]) -> pd.DataFrame:
    """The results written by :func:`analyze_to_parquet`, in row order.

    Examples
    --------
    >>> import tempfile
    >>> from snl_numeric import Board
    >>> out = tempfile.mkdtemp()
    >>> _ = analyze_to_parquet([Board(6)], out, columns=["min_throws", "median"])
    >>> read_results(out).to_dict("list")
    {'min_throws': [1], 'median': [2]}
    """
    pd = _require_pandas()
    _, pq = _require_pyarrow()
    out = os.fspath(out)
    names = sorted(n for n in os.listdir(out) if n.startswith("part-") and n.endswith(".parquet"))
    if not names:
        raise ValueError(f"no result parts in {out!r}")
    frames = [pq.read_table(os.path.join(out, n)).to_pandas() for n in names]
    df = pd.concat(frames, ignore_index=True).sort_values("row", kind="stable")
    df.index = pd.Index(df.pop("row").to_numpy(), name="row")
    return df


# =============================================================================
# command line
# =============================================================================
def add_batch_parser(sub: Any) -> None:
    """Register ``snl batch IN -o OUT``."""
    p = sub.add_parser(
        "batch", help="analyse many boards from a JSON Lines or Parquet file",
        description="Analyse every board of IN (JSON Lines: one Board.to_dict per line; or "
                    "Parquet: columns size, start, overshoot, chain, jump_src, jump_dst, "
                    "dice_faces, dice_probs) into OUT, a directory of Parquet parts that a "
                    "rerun resumes.")
    p.add_argument("input", metavar="IN", help="board file (.jsonl or .parquet)")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="output directory of Parquet parts")
    p.add_argument("--columns", default=",".join(DEFAULT_COLUMNS),
                   help="comma-separated columns, e.g. min_throws,expected_throws,median,p90 "
                        f"(default {','.join(DEFAULT_COLUMNS)})")
    p.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_SIZE,
                   help=f"boards per chunk/part (default {DEFAULT_CHUNK_SIZE})")
    p.add_argument("--errors", choices=("raise", "coerce"), default="raise",
                   help="stop at the first bad board, or record it in an 'error' column")
    p.add_argument("--overwrite", action="store_true",
                   help="replace results of another input or other settings")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on a Dask cluster (e.g. tcp://host:8786)")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="hide the progress bar")
    p.add_argument("--json", action="store_true", help="print the run summary as JSON")
    p.set_defaults(func=_run_batch)


def _run_batch(args: Any) -> int:
    columns = [c.strip() for c in args.columns.split(",") if c.strip()]
    client = None
    if args.scheduler:
        try:
            from distributed import Client
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("--scheduler needs Dask: pip install 'snl_numeric[dask]'"
                              ) from None
        client = Client(args.scheduler)
    try:
        run = analyze_to_parquet(args.input, args.output, columns=columns, errors=args.errors,
                                 chunk_size=args.chunk_size, client=client,
                                 progress=args.progress, overwrite=args.overwrite)
    finally:
        if client is not None:
            client.close()
    if args.json:
        print(json.dumps(run.__dict__))
    else:
        print(f"{run.rows} boards -> {run.path} ({run.chunks} parts: {run.computed} computed, "
              f"{run.reused} reused; {run.errors} errors)")
    return 0
