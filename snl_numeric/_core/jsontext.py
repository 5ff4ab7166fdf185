"""Strict JSON text, the one dialect read and written here (board files, JSON lines,
``--json`` output).

:func:`json_text` writes non-finite numbers as the strings ``"inf"``, ``"-inf"`` and
``"nan"`` (JSON has no infinity); :func:`parse_json` refuses what Python's reader would
take silently or fail on in its own words: duplicate keys, ``NaN``/``Infinity``
literals, nesting deeper than :data:`MAX_JSON_DEPTH`, integers of more than
:data:`MAX_JSON_DIGITS` digits and bytes that are not UTF-8, each a ``ValueError``.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from .memory import check_memory
from .validation import positive_int, shown

__all__ = ["MAX_JSON_DEPTH", "MAX_JSON_DIGITS", "is_json", "json_indent", "json_text", "parse_json"]

#: Deepest JSON nesting read (a board needs 3 levels).
MAX_JSON_DEPTH = 64


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {shown(key)} in a JSON object")
        out[key] = value
    return out


def _json_ready(value: Any) -> Any:
    if isinstance(value, float | np.floating):
        x = float(value)
        return x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_ready(v) for v in value]
    if isinstance(value, np.integer | np.bool_):
        return value.item()
    return value


def json_text(data: Any, *, indent: int | None = None) -> str:
    """Strict JSON text of ``data``: the one place that encodes non-finite numbers.

    Results' ``to_dict`` hold Python numbers (``math.inf`` stays a float); JSON
    has no infinity, so here ``inf``, ``-inf`` and ``nan`` become the strings
    ``"inf"``, ``"-inf"`` and ``"nan"`` (never the bare literals ``Infinity``/``NaN``).

    Examples
    --------
    >>> json_text({"mean": math.inf, "ci": [1.5, float("nan")]})
    '{"mean": "inf", "ci": [1.5, "nan"]}'
    """
    return json.dumps(_json_ready(data), indent=indent, allow_nan=False)


def json_indent(indent: Any, data: Any) -> int | None:
    """``indent`` for ``json.dumps(data, indent=indent)``: None, or an integer >= 0 whose
    indentation's memory is checked first (``json.dumps`` took strings, raised
    OverflowError, or allocated what it was told).

    Examples
    --------
    >>> json_indent(2, {"a": [1, 2]}), json_indent(None, {"a": [1, 2]})
    (2, None)
    >>> json_indent(-1, {})
    Traceback (most recent call last):
    ...
    ValueError: indent must be at least 0, got -1
    """
    if indent is None:
        return None
    indent = positive_int(indent, "indent", low=0)
    if indent:
        check_memory(float(indent) * _levels(data), f"JSON indented by {indent:,} spaces")
    return indent


def _levels(data: Any, depth: int = 1) -> int:
    """Indentation levels over every line of ``data``'s indented text (one per level of
    each line: values, then the closing bracket of each container)."""
    items = data.values() if isinstance(data, dict) else data if isinstance(
        data, (list, tuple)) else ()
    return 2 * depth + sum(depth + _levels(v, depth + 1) for v in items)


def parse_json(text: str | bytes) -> Any:
    """Strict JSON: duplicate keys, nesting deeper than :data:`MAX_JSON_DEPTH`,
    ``NaN``/``Infinity`` literals and undecodable bytes are all ``ValueError``; a UTF-8
    byte order mark before bytes is skipped.

    Examples
    --------
    >>> parse_json('{"size": 10}')
    {'size': 10}
    >>> parse_json('{"3": 5, "3": 7}')
    Traceback (most recent call last):
    ...
    ValueError: invalid JSON: duplicate key '3' in a JSON object
    >>> try:
    ...     parse_json('{"size": ' + '1' * 5000 + '}')
    ... except ValueError as exc:
    ...     print(str(exc).split(" (")[0])
    invalid JSON: an integer of 5,000 digits
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ValueError(f"invalid JSON: not UTF-8 text ({exc.reason} at byte "
                             f"{exc.start})") from None
    depth = _depth(text)
    if depth > MAX_JSON_DEPTH:
        raise ValueError(f"invalid JSON: nested {depth} levels deep (at most {MAX_JSON_DEPTH})")

    def bad_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=bad_constant,
                          parse_int=_json_integer)
    except ValueError as exc:  # (a json.JSONDecodeError too)
        raise ValueError(f"invalid JSON: {exc}") from None


#: Integers in JSON text have at most this many digits (Python's own limit on reading one).
MAX_JSON_DIGITS = 4300


def _json_integer(text: str) -> int:
    """A JSON integer, or our own message where Python would advise
    ``sys.set_int_max_str_digits``: no square, face, count or seed has that many digits."""
    digits = len(text.lstrip("-"))
    if digits > MAX_JSON_DIGITS:
        raise ValueError(f"an integer of {digits:,} digits (numbers here have "
                         f"at most {MAX_JSON_DIGITS:,}; squares, faces and seeds far fewer)")
    return int(text)


def is_json(text: str | bytes) -> bool:
    """Whether :func:`parse_json` takes ``text``.

    Examples
    --------
    >>> is_json("null"), is_json("{"), is_json(b'{"a": 1}')
    (True, False, True)
    """
    try:
        parse_json(text)
    except ValueError:
        return False
    return True


def _depth(text: str) -> int:
    """Deepest bracket nesting outside strings (stops early once too deep)."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return 0
    depth = top = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > top:
                top = depth
                if top > MAX_JSON_DEPTH:
                    return top
        elif ch in "]}":
            depth -= 1
    return top
