"""Boards in: lists, batches, iterables, JSON Lines and Parquet files; boards out."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.table import OVERSHOOT_CODES
from ..board import OVERSHOOT_RULES, Board, board_fields
from .data import (
    D6_FACES,
    D6_PROBS,
    DEFAULT_CHUNK_SIZE,
    BoardBatch,
    offsets,
    require_pyarrow,
)


def raise_for_row(row: int, message: str) -> None:
    raise ValueError(f"board {row}: {message}")


@dataclass(frozen=True)
class Chunk:
    index: int
    offset: int
    batch: BoardBatch
    parse_errors: dict[int, str]  # local row -> message


D6_FACES_LIST = D6_FACES.tolist()
D6_PROBS_LIST = D6_PROBS.tolist()


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
        """A board dict, read by the one parser of the format (its rules: by the kernel)."""
        try:
            f = board_fields(data)
        except (ValueError, TypeError) as exc:
            self.add_error(str(exc))
            return
        faces, probs = (D6_FACES_LIST, D6_PROBS_LIST) if f.faces is None else (f.faces, f.probs)
        self.add(f.size, f.start, OVERSHOOT_CODES[f.overshoot], f.chain, f.src, f.dst, faces,
                 probs)

    def batch(self) -> BoardBatch:
        return BoardBatch.from_arrays(
            np.array(self.sizes, np.int64), starts=np.array(self.starts, np.int64),
            overshoot=np.array(self.codes, np.int8), chain=np.array(self.chain, bool),
            jump_ptr=offsets(np.array(self.n_jumps, np.int64)),
            jump_src=np.array(self.src, np.int64), jump_dst=np.array(self.dst, np.int64),
            dice_ptr=offsets(np.array(self.n_faces, np.int64)),
            faces=np.array(self.faces, np.int64), probs=np.array(self.probs, np.float64))


@dataclass(frozen=True)
class _Part:
    """Internal stream item: some boards with their row-level read errors."""

    batch: BoardBatch
    errors: dict[int, str]


@dataclass(frozen=True)
class _ReadError:
    """Internal stream item: one row that could not be read."""

    message: str


def _chunks_from_items(items: Iterable[Any], chunk_size: int) -> Iterator[Chunk]:
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

    def cut() -> Iterator[Chunk]:
        nonlocal index, pending_n
        while pending_n >= chunk_size:
            whole = merged()
            head = {k: v for k, v in whole.errors.items() if k < chunk_size}
            rest = {k - chunk_size: v for k, v in whole.errors.items() if k >= chunk_size}
            yield Chunk(index, index * chunk_size, whole.batch[:chunk_size], head)
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
        yield Chunk(index, index * chunk_size, whole.batch, whole.errors)


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
            ptr_old, ptr_new = offsets(dl), offsets(dl_new)
            f_new = np.empty(ptr_new[-1], np.int64)
            p_new = np.empty(ptr_new[-1])
            keep = np.repeat(~d6, dl_new)
            f_new[keep], p_new[keep] = faces, probs
            f_new[~keep] = np.tile(D6_FACES, int(d6.sum()))
            p_new[~keep] = np.tile(D6_PROBS, int(d6.sum()))
            del ptr_old
            faces, probs, dl = f_new, p_new, dl_new
    else:
        faces, probs = np.tile(D6_FACES, n), np.tile(D6_PROBS, n)
        dl = np.full(n, 6, np.int64)
    batch = BoardBatch.from_arrays(
        sizes.astype(np.int64), starts=starts.astype(np.int64), overshoot=codes,
        chain=chain.astype(bool), jump_ptr=offsets(jl), jump_src=src, jump_dst=dst,
        dice_ptr=offsets(dl), faces=faces, probs=probs)
    return _Part(batch, errs)


def _iter_parquet(path: str, chunk_size: int) -> Iterator[_Part]:
    _, pq = require_pyarrow()
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
        _, pq = require_pyarrow()
        return pq.ParquetFile(path).metadata.num_rows
    count = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            count += bool(line.strip())
    return count


@dataclass(frozen=True)
class _Source:
    chunks: Iterator[Chunk]
    total: int  # 0 when unknown
    fingerprint: str | None


def open_source(boards: Any, chunk_size: int) -> _Source:
    if isinstance(boards, BoardBatch):
        chunks = (Chunk(i, lo, boards[lo:lo + chunk_size], {})
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
        return open_source(batch, chunk_size)
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
    chunks = list(open_source(os.fspath(path), DEFAULT_CHUNK_SIZE).chunks)
    for c in chunks:
        if c.parse_errors:
            i = min(c.parse_errors)
            raise_for_row(c.offset + i, c.parse_errors[i])
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
    pa, _ = require_pyarrow()

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
    _, pq = require_pyarrow()
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
