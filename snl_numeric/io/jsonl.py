"""JSON Lines: one JSON value per line, read strictly, one bad line never sinks the rest.

A file may also hold one JSON document (a board, or a list of boards, indented or not:
what ``snl design -o`` writes), be gzip-compressed (other compressions are refused
with a message saying so) and start with a UTF-8 byte order mark.
"""

from __future__ import annotations

import gzip
import itertools
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, cast

from .._core.files import write_atomic
from .._core.jsontext import is_json, json_text, parse_json


__all__ = ["Line", "ReadError", "count_lines", "iter_lines", "iter_numbered", "open_bytes",
           "open_rows", "write_lines"]

#: The first bytes of compressed files, and the compression.
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"\x28\xb5\x2f\xfd", "zstd"), (b"BZh", "bzip2"),
          (b"\xfd7zXZ\x00", "xz"), (b"PK\x03\x04", "zip"))
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class ReadError:
    """A line that could not be read, in place of its value."""

    message: str


@dataclass(frozen=True)
class Line:
    """The value (or :class:`ReadError`) of line ``number`` (counted from 1) of a file."""

    number: int
    value: Any


def open_bytes(path: str | os.PathLike[str]) -> IO[bytes]:
    """``path`` opened to read bytes, decompressed as it is read when gzip-compressed;
    ``ValueError`` for another compression (zstd, bzip2, xz, zip: decompress it first)."""
    with open(path, "rb") as fh:
        head = fh.read(6)
    kind = next((name for magic, name in _MAGIC if head.startswith(magic)), None)
    if kind == "gzip":
        return cast(IO[bytes], gzip.open(path, "rb"))
    if kind is not None:
        raise ValueError(f"{os.fspath(path)!r} is {kind}-compressed: only gzip is read; "
                         "decompress it first")
    return open(path, "rb")


def _document(path: str | os.PathLike[str]) -> list[Any] | None:
    """The rows of ``path`` when it holds one JSON document rather than JSON Lines: its
    list, or its one value; None for JSON Lines. A document starts with ``[``, or with a
    ``{`` line that is no JSON value by itself (an indented object)."""
    with open_bytes(path) as fh:
        first = next((line for _, line in _numbered(fh) if line.strip()), b"").strip()
        if not first.startswith(b"[") and not (first.startswith(b"{") and not is_json(first)):
            return None
    with open_bytes(path) as fh:
        text = fh.read()
    try:
        value = parse_json(text)
    except ValueError as exc:
        if first.startswith(b"{"):
            return None  # JSON Lines whose first line is bad
        return [ReadError(str(exc).replace("invalid JSON", "invalid board JSON", 1))]
    return value if isinstance(value, list) else [value]


def open_rows(path: str | os.PathLike[str]) -> tuple[Iterator[Any], int]:
    """The rows of ``path`` and their number: :func:`iter_numbered` of a JSON Lines file,
    or the values of a JSON document (a board, or a list of boards).

    Examples
    --------
    >>> import json, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "board.json")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write(json.dumps([{"size": 10}, {"size": 20}], indent=2))
    >>> rows, n = open_rows(path)
    >>> list(rows), n
    ([{'size': 10}, {'size': 20}], 2)
    """
    rows = _document(path)
    if rows is not None:
        return iter(rows), len(rows)
    return iter_numbered(path), count_lines(path)


def _numbered(fh: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """The lines of ``fh`` numbered from 1, the first without its byte order mark (a file
    that starts with one and a blank line has no row there)."""
    return itertools.chain([(1, fh.readline().removeprefix(_BOM))], enumerate(fh, start=2))


def iter_numbered(path: str | os.PathLike[str]) -> Iterator[Line]:
    """Every non-blank line of ``path`` as a :class:`Line`: its value, or a
    :class:`ReadError` for a line that is not strict JSON (or not UTF-8, or nested too
    deeply, ...): every line is accounted for exactly once."""
    with open_bytes(path) as fh:
        for number, line in _numbered(fh):
            if not line.strip():
                continue
            try:
                value = parse_json(line)
            except ValueError as exc:
                value = ReadError(str(exc).replace("invalid JSON", "invalid board JSON", 1))
            yield Line(number, value)


def iter_lines(path: str | os.PathLike[str]) -> Iterator[Any]:
    """The value of every non-blank line of ``path`` (or a :class:`ReadError`)."""
    for line in iter_numbered(path):
        yield line.value


def count_lines(path: str | os.PathLike[str]) -> int:
    """Non-blank lines of ``path`` (the rows :func:`iter_lines` yields)."""
    count = 0
    with open_bytes(path) as fh:
        for _, line in _numbered(fh):
            count += bool(line.strip())
    return count


def write_lines(values: Iterable[Any], path: str | os.PathLike[str]) -> None:
    """Write each value as one line of compact JSON: the whole file or, when anything fails
    (a full disk), nothing (``path`` is left as it was)."""

    def write(fh: IO[bytes]) -> None:
        for value in values:
            fh.write(json_text(value).encode() + b"\n")

    write_atomic(path, write)
