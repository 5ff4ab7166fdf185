"""JSON Lines: one JSON value per line, read strictly, one bad line never sinks the rest."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .._core.validation import json_text, parse_json

__all__ = ["Line", "ReadError", "count_lines", "iter_lines", "iter_numbered", "write_lines"]


@dataclass(frozen=True)
class ReadError:
    """A line that could not be read, in place of its value."""

    message: str


@dataclass(frozen=True)
class Line:
    """The value (or :class:`ReadError`) of line ``number`` (counted from 1) of a file."""

    number: int
    value: Any


def iter_numbered(path: str | os.PathLike[str]) -> Iterator[Line]:
    """Every non-blank line of ``path`` as a :class:`Line`: its value, or a
    :class:`ReadError` for a line that is not strict JSON (or not UTF-8, or nested too
    deeply, ...): every line is accounted for exactly once."""
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, start=1):
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
    with open(path, "rb") as fh:
        for line in fh:
            count += bool(line.strip())
    return count


def write_lines(values: Iterable[Any], path: str | os.PathLike[str]) -> None:
    """Write each value as one line of compact JSON."""
    with open(path, "w", encoding="utf-8") as fh:
        for value in values:
            fh.write(json_text(value) + "\n")
