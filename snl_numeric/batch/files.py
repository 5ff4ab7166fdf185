"""Boards in: lists, batches, iterables, JSON Lines and Parquet files; boards out."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import warnings
from collections.abc import Iterable, Iterator, Sized
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._core.files import file_name, write_atomic
from .._core.table import OVERSHOOT_CODES
from .._core.validation import INT64_MAX, SUM_TOL
from ..board import Board, board_fields
from ..io import jsonl, parquet, require_pyarrow
from ..io.parquet import LABELS, BoardColumns
from ..io.store import file_fingerprint
from .data import D6_FACES, D6_PROBS, DEFAULT_CHUNK_SIZE, BoardBatch, offsets
from .kernels import board_rows, check_rows_kernel


class BoardRowError(ValueError):
    """A bad board of a batch, refused under ``errors="raise"``: ``"board <row>: <why>"``."""


def raise_for_row(row: int, message: str) -> None:
    raise BoardRowError(f"board {row}: {message}")


@dataclass(frozen=True)
class Chunk:
    index: int
    offset: int
    batch: BoardBatch
    parse_errors: dict[int, str]  # local row -> message
    labels: dict[str, np.ndarray] = field(default_factory=dict)  # e.g. "name" -> objects
    lines: np.ndarray | None = None  # the line of each row in its file (JSON Lines)

    def digest(self) -> str:
        """A digest of everything the chunk's result rows depend on (but the settings)."""
        h = hashlib.sha256(self.batch.fingerprint().encode())
        h.update(json.dumps([self.offset, sorted(self.parse_errors.items())]).encode())
        if self.labels:  # renamed boards: a new part
            h.update(json.dumps({k: v.tolist() for k, v in self.labels.items()},
                                default=str).encode())
        if self.lines is not None:
            h.update(b"lines")
            h.update(np.ascontiguousarray(self.lines, dtype=np.int64).tobytes())
        return h.hexdigest()

    def line_note(self, i: int) -> str:
        """`` (line N)`` for row ``i`` of a JSON Lines file, else empty."""
        return "" if self.lines is None else f" (line {int(self.lines[i])})"


def _nones(n: int) -> np.ndarray:
    return np.full(n, None, dtype=object)


def _objects(values: list[Any]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


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
        self.names: list[Any] = []
        self.parse_errors: dict[int, str] = {}
        self.lines: list[int] = []

    def __len__(self) -> int:
        return len(self.sizes)

    def add_board(self, b: Board) -> None:
        self.add(b.size, b.start, OVERSHOOT_CODES[b.overshoot], b.chain,
                 list(b.jumps.keys()), list(b.jumps.values()), b.dice.faces.tolist(),
                 b.dice.probs.tolist(), b.name)

    def add(self, size: int, start: int, code: int, chain: bool, src: list[int],
            dst: list[int], faces: list[int], probs: list[float], name: Any = None) -> None:
        self.names.append(name)
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

    def add_error(self, message: str, name: Any = None) -> None:
        self.parse_errors[len(self.sizes)] = message
        self.add(0, 0, 0, False, [], [], [1], [1.0], name)

    def add_dict(self, data: Any) -> None:
        """A board dict, read by the one parser of the format (its rules: by the kernel)."""
        try:
            f = board_fields(data)
        except (ValueError, TypeError) as exc:
            name = data.get("name") if isinstance(data, dict) else None
            self.add_error(str(exc), name if isinstance(name, str) else None)
            return
        except Exception as exc:  # one strange row must not sink the batch  # noqa: BLE001
            self.add_error(f"cannot read this board ({type(exc).__name__}: {exc})")
            return
        faces, probs = (D6_FACES_LIST, D6_PROBS_LIST) if f.faces is None or f.probs is None \
            else (f.faces, f.probs)
        self.add(f.size, f.start, OVERSHOOT_CODES[f.overshoot], f.chain, f.src, f.dst, faces,
                 probs, f.name)

    def batch(self) -> BoardBatch:
        return BoardBatch.from_arrays(
            np.array(self.sizes, np.int64), starts=np.array(self.starts, np.int64),
            overshoot=np.array(self.codes, np.int8), chain=np.array(self.chain, bool),
            jump_ptr=offsets(np.array(self.n_jumps, np.int64)),
            jump_src=np.array(self.src, np.int64), jump_dst=np.array(self.dst, np.int64),
            dice_ptr=offsets(np.array(self.n_faces, np.int64)),
            faces=np.array(self.faces, np.int64), probs=np.array(self.probs, np.float64))

    def part(self) -> _Part:
        lines = (np.array(self.lines, np.int64) if self.lines and len(self.lines) == len(self)
                 else None)
        return _Part(self.batch(), self.parse_errors, {"name": _objects(self.names)}, lines)


@dataclass(frozen=True)
class _Part:
    """Internal stream item: some boards with their row-level read errors and labels."""

    batch: BoardBatch
    errors: dict[int, str]
    labels: dict[str, np.ndarray] = field(default_factory=dict)
    lines: np.ndarray | None = None

    def label(self, name: str) -> np.ndarray:
        return self.labels.get(name, _nones(len(self.batch)))


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
        lines = (np.concatenate([p.lines for p in pending])
                 if all(p.lines is not None for p in pending) else None)
        if len(pending) == 1:
            return _Part(pending[0].batch, errs, pending[0].labels, lines)
        keys = {k for p in pending for k in p.labels}
        labels = {k: np.concatenate([p.label(k) for p in pending]) for k in keys}
        return _Part(BoardBatch.concat([p.batch for p in pending]), errs, labels, lines)

    def flush() -> None:
        nonlocal coll, pending_n
        if len(coll):
            pending.append(coll.part())
            pending_n += len(coll)
            coll = _Collector()

    def cut() -> Iterator[Chunk]:
        nonlocal index, pending_n
        while pending_n >= chunk_size:
            whole = merged()
            head = {k: v for k, v in whole.errors.items() if k < chunk_size}
            rest = {k - chunk_size: v for k, v in whole.errors.items() if k >= chunk_size}
            lines = whole.lines
            yield Chunk(index, index * chunk_size, whole.batch[:chunk_size], head,
                        {k: v[:chunk_size] for k, v in whole.labels.items()},
                        None if lines is None else lines[:chunk_size])
            tail_part = whole.batch[chunk_size:]
            tail_labels = {k: v[chunk_size:] for k, v in whole.labels.items()}
            tail_lines = None if lines is None else lines[chunk_size:]
            pending[:] = ([_Part(tail_part, rest, tail_labels, tail_lines)] if len(tail_part)
                          else [])
            pending_n = len(tail_part)
            index += 1

    for item in items:
        if isinstance(item, (BoardBatch, _Part)):
            flush()
            part = item if isinstance(item, _Part) else _Part(item, {})
            pending.append(part)
            pending_n += len(part.batch)
        else:
            if isinstance(item, jsonl.Line):
                coll.lines.append(item.number)
                item = item.value
            if isinstance(item, Board):
                coll.add_board(item)
            elif isinstance(item, jsonl.ReadError):
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
        yield Chunk(index, index * chunk_size, whole.batch, whole.errors, whole.labels,
                    whole.lines)


def _file_kind(path: str) -> str:
    lower = path.lower()
    for suffix in ("", ".gz", ".zst", ".bz2", ".xz"):  # compressed: read or refused by jsonl
        if lower.endswith(tuple(ext + suffix for ext in (".jsonl", ".ndjson", ".json"))):
            return "jsonl"
    if lower.endswith((".parquet", ".pq")):
        return "parquet"
    raise ValueError(f"cannot tell the format of {path!r}: expected a .jsonl (or .jsonl.gz) "
                     "or .parquet file")


def _check_file(path: str) -> None:
    """A board file must be a regular file: it is read more than once (to count its rows,
    fingerprint it and read it), which a pipe or a device cannot be."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise ValueError(f"no such board file: {path!r}") from None
    if not stat.S_ISREG(mode):
        what = "a directory" if stat.S_ISDIR(mode) else "not a regular file (a pipe or device)"
        raise ValueError(f"board file {path!r} is {what}: boards are read from a file, read "
                         "more than once; save them to a file first")


def _part(columns: BoardColumns) -> _Part:
    return _Part(BoardBatch.from_arrays(
        columns.sizes, starts=columns.starts, overshoot=columns.codes, chain=columns.chain,
        jump_ptr=offsets(columns.n_jumps), jump_src=columns.src, jump_dst=columns.dst,
        dice_ptr=offsets(columns.n_faces), faces=columns.faces, probs=columns.probs),
        columns.errors, columns.labels)


@dataclass(frozen=True)
class _Source:
    chunks: Iterator[Chunk]
    total: int  # 0 when unknown
    fingerprint: str | None  # None: an iterator, known only once read (stream_fingerprint)


def _keep_labels(chunks: Iterator[Chunk], keep: tuple[str, ...] | None) -> Iterator[Chunk]:
    """Chunks with exactly the label columns ``keep`` (None: those of the first chunk that
    hold any value, then the same for every chunk, so every part has one schema)."""
    for chunk in chunks:
        if keep is None:
            keep = tuple(k for k in LABELS if k in chunk.labels
                         and any(v is not None for v in chunk.labels[k]))
        n = len(chunk.batch)
        labels = {k: chunk.labels.get(k, _nones(n)) for k in keep}
        yield Chunk(chunk.index, chunk.offset, chunk.batch, chunk.parse_errors, labels,
                    chunk.lines)


def _jsonl_names(path: str, key: bytes = b'"name"') -> bool:
    """Whether a JSON Lines file may name its boards (a ``"name"`` key somewhere; or
    another ``key``)."""
    with jsonl.open_bytes(path) as fh:
        tail = b""
        while block := fh.read(1 << 20):
            if key in tail + block:
                return True
            tail = block[-len(key) + 1:]
    return False


def _capture_left_out(row: int, capture: Any, where: str, stacklevel: int = 3) -> None:
    """Say that board ``row``'s capture rule is not kept (a BoardBatch holds none)."""
    warnings.warn(f"board {row}'s capture rule (capture={capture!r}) {where}: a "
                  "BoardBatch holds the one-player game (the answers of analyze_many do not "
                  "depend on the rule)", UserWarning, stacklevel=stacklevel)


def _first_capture(path: str) -> tuple[int, Any] | None:
    """The first row of a JSON Lines file holding a capture rule, and the rule; None if
    none does."""
    if not _jsonl_names(path, b'"capture"'):
        return None
    rows, _ = jsonl.open_rows(path)
    for i, row in enumerate(rows):
        value = row.value if isinstance(row, jsonl.Line) else row
        if isinstance(value, dict) and value.get("capture") is not None:
            return i, value["capture"]
    return None


def stream_fingerprint(digests: Iterable[str]) -> str:
    """The fingerprint of an input from the digests of its chunks, in order."""
    h = hashlib.sha256()
    for d in digests:
        h.update(d.encode())
    return "rows:" + h.hexdigest()


def open_source(boards: Any, chunk_size: int, *, fingerprint: bool = False) -> _Source:
    """The chunks of ``boards``; with ``fingerprint``, a digest of the whole input when it
    can be had before reading it for good (a file, a batch, a list; not an iterator)."""
    if isinstance(boards, BoardBatch):
        # a batch of one chunk is that chunk (slicing would copy every array)
        chunks = (Chunk(i, lo, boards if len(boards) <= chunk_size
                        else boards[lo:lo + chunk_size], {})
                  for i, lo in enumerate(range(0, len(boards), chunk_size)))
        return _Source(chunks, len(boards),
                       "batch:" + boards.fingerprint() if fingerprint else None)
    if isinstance(boards, (str, os.PathLike)):
        path = os.fspath(boards)
        kind = _file_kind(path)
        items: Iterable[Any]
        keep: tuple[str, ...]
        _check_file(path)
        if kind == "jsonl":
            items, total = jsonl.open_rows(path)
            keep = ("name",) if _jsonl_names(path) else ()
        else:
            items = map(_part, parquet.iter_columns(path, chunk_size))
            total = parquet.count_rows(path)
            keep = tuple(k for k in LABELS if k in parquet.schema_names(path))
        return _Source(_keep_labels(_chunks_from_items(items, chunk_size), keep), total,
                       file_fingerprint(path) if fingerprint else None)
    if isinstance(boards, Board):
        raise TypeError("analyze_many expects many boards; wrap a single Board in a list")
    if isinstance(boards, (list, tuple)) and all(isinstance(b, Board) for b in boards):
        batch = BoardBatch.from_boards(boards)
        names = _objects([b.name for b in boards])
        if not any(n is not None for n in names):
            return open_source(batch, chunk_size, fingerprint=fingerprint)
        chunks = (Chunk(i, lo, batch[lo:lo + chunk_size], {}, {"name": names[lo:lo + chunk_size]})
                  for i, lo in enumerate(range(0, len(batch), chunk_size)))
        return _Source(chunks, len(batch), "batch:" + batch.fingerprint() if fingerprint
                       else None)
    if isinstance(boards, (bytes, dict)) or not isinstance(boards, Iterable):
        raise TypeError("boards must be a list of Board, a BoardBatch, a file path or an "
                        f"iterable of boards, got {type(boards).__name__}")
    total = len(boards) if isinstance(boards, Sized) else 0
    digest = None
    if fingerprint and iter(boards) is not boards:  # a collection: read it twice
        digest = stream_fingerprint(c.digest() for c in
                                    _keep_labels(_chunks_from_items(boards, chunk_size), None))
    return _Source(_keep_labels(_chunks_from_items(boards, chunk_size), None), total, digest)


def read_boards(path: str | os.PathLike[str]) -> BoardBatch:
    """Read a JSON Lines or Parquet board file (see the module docstring) into one batch.

    Every row is checked as a :class:`~snl_numeric.Board` checks itself (the batch
    kernel runs the rules): ``ValueError`` names the first row that cannot be read or is
    no board, its line (JSON Lines) or row (Parquet) and the file, in the Board's words;
    use :func:`~snl_numeric.analyze_many` with ``errors="coerce"`` to get per-row
    messages.
    A BoardBatch holds the one-player game: boards' names and capture rules are not kept
    (a ``UserWarning`` names the first board with a capture rule; read such a file line
    by line with :meth:`~snl_numeric.Board.from_dict` to keep the rule).

    Examples
    --------
    >>> import os, tempfile
    >>> from snl_numeric import boards
    >>> path = os.path.join(tempfile.mkdtemp(), "b.jsonl")
    >>> write_jsonl([boards.get("seed-30")], path)
    >>> read_boards(path)[0] == boards.get("seed-30")
    True
    """
    path = file_name(path)
    chunks: list[Chunk] = []
    for c in open_source(path, DEFAULT_CHUNK_SIZE).chunks:
        bad = _first_bad_row(c)
        if bad is not None:
            i, why = bad
            where = (f"line {int(c.lines[i])} of" if c.lines is not None else
                     f"row {c.offset + i} of" if _file_kind(path) == "parquet" else "in")
            raise_for_row(c.offset + i, f"{why} ({where} {path!r})")
        chunks.append(c)
    if _file_kind(path) == "jsonl":
        found = _first_capture(path)
        if found is not None:
            _capture_left_out(*found, "is not kept (read each board of the file with "
                              "Board.from_dict to keep it)")
    # (one chunk, the file's own arrays: nothing to copy)
    return chunks[0].batch if len(chunks) == 1 else BoardBatch.concat([c.batch for c in chunks])


def _first_bad_row(chunk: Chunk) -> tuple[int, str] | None:
    """The first row of ``chunk`` that is no Board, and why: it could not be read, or it
    breaks a rule of the game or is too large for any board (found by the batch kernel:
    a broken rule, a size past batch analysis's or a table past the Board's limit;
    worded as the Board words it)."""
    batch = chunk.batch
    problem = np.zeros(len(batch), np.int8)
    check_rows_kernel(board_rows(batch), SUM_TOL, INT64_MAX, problem)
    for i in np.flatnonzero(problem).tolist():
        if i in chunk.parse_errors:
            return i, chunk.parse_errors[i]
        try:
            batch[i]
        except (ValueError, TypeError) as exc:
            return i, str(exc)
    if chunk.parse_errors:  # (a row read as a valid placeholder)
        i = min(chunk.parse_errors)
        return i, chunk.parse_errors[i]
    return None


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


def _check_boards(boards: Any) -> None:
    """What the writers take: a BoardBatch, or an iterable (no string) of Boards and
    BoardBatches; else ``TypeError`` (was Python's "'float' object is not iterable")."""
    if not isinstance(boards, BoardBatch) and (isinstance(boards, (str, bytes, Board))
                                               or not isinstance(boards, Iterable)):
        raise TypeError("boards must be a BoardBatch or an iterable of Boards and BoardBatches, "
                        f"got {type(boards).__name__}")


def _boards(boards: Any) -> Iterator[Board]:
    """Every board, each Board as given (its name and capture rule kept: a BoardBatch holds
    neither), the boards of a BoardBatch one by one."""
    if isinstance(boards, BoardBatch):
        yield from boards
        return
    for item in boards:
        if isinstance(item, Board):
            yield item
        elif isinstance(item, BoardBatch):
            yield from item
        else:
            raise TypeError(f"expected Boards or BoardBatches, got {type(item).__name__}")


def write_jsonl(boards: Any, path: str | os.PathLike[str]) -> None:
    """Write boards (a BoardBatch, Boards, or an iterable of either) as JSON Lines.

    One :meth:`~snl_numeric.Board.to_dict` per line (names included), the format
    :func:`read_boards` and :func:`~snl_numeric.analyze_many` read.

    Examples
    --------
    >>> import os, tempfile
    >>> from snl_numeric import Board
    >>> path = os.path.join(tempfile.mkdtemp(), "b.jsonl")
    >>> write_jsonl([Board(10), Board(20)], path)
    >>> read_boards(path).sizes.tolist()
    [10, 20]
    """
    _check_boards(boards)
    jsonl.write_lines((board.to_dict() for board in _boards(boards)), path)


def _arrow_table(batch: BoardBatch) -> Any:
    return parquet.board_table(batch.sizes, batch.starts, batch.overshoot, batch.chain,
                               batch.jump_ptr, batch.jump_src, batch.jump_dst, batch.dice_ptr,
                               batch.faces, batch.probs)


def _said(items: Iterable[Any], where: str) -> Iterator[Any]:
    """``items`` as they come, the first Board with a capture rule named on the way."""
    row, said = 0, False
    for item in items:
        if isinstance(item, Board) and item.capture is not None and not said:
            said = True
            _capture_left_out(row, item.capture, where, stacklevel=4)
        row += len(item) if isinstance(item, BoardBatch) else 1
        yield item


def write_parquet(boards: Any, path: str | os.PathLike[str]) -> None:
    """Write boards (a BoardBatch, Boards, or an iterable of either, streamed) as Parquet.

    The schema is the one documented in :mod:`snl_numeric.batch` (with
    ``jump_src``/``jump_dst``, and ``name`` when Boards with names are
    given); each batch becomes a row group. :func:`read_boards` and
    :func:`~snl_numeric.analyze_many` read it back. The file is written whole or not at all:
    a stream that fails leaves the previous file as it was. The schema has no capture rule:
    a ``UserWarning`` names the first Board with one (:func:`write_jsonl` keeps it).

    Examples
    --------
    >>> import os, tempfile
    >>> from snl_numeric import boards
    >>> path = os.path.join(tempfile.mkdtemp(), "b.parquet")
    >>> write_parquet([boards.get("milton-bradley"), boards.get("seed-30")], path)
    >>> read_boards(path)[1] == boards.get("seed-30")
    True
    """
    _check_boards(boards)
    pa, pq = require_pyarrow()
    names = None
    where = ("is not written (the Parquet board schema has no place for it; write_jsonl "
             "keeps it)")
    if isinstance(boards, (list, tuple)) and all(isinstance(b, Board) for b in boards):
        names = [b.name for b in boards]
        names = names if any(n is not None for n in names) else None
        boards = list(_said(boards, where))
    elif not isinstance(boards, BoardBatch):
        boards = _said(boards, where)

    def write(fh: Any) -> None:
        writer = None
        try:
            for batch in _as_batches(boards):
                table = _arrow_table(batch)
                if names is not None:  # one batch for a list of Boards
                    table = table.append_column("name", pa.array(names, pa.string()))
                if writer is None:
                    writer = pq.ParquetWriter(fh, table.schema)
                writer.write_table(table)
            if writer is None:
                pq.write_table(_arrow_table(BoardBatch.from_arrays(np.empty(0, np.int64))), fh)
        finally:
            if writer is not None:
                writer.close()

    write_atomic(path, write)
