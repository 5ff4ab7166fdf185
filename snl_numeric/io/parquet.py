"""Parquet board files as NumPy columns (the schema is documented in :mod:`snl_numeric.batch`).

Rows whose fields cannot be read (a null size, an unknown rule, list columns of
unequal lengths, ...) come back as per-row messages, never as a failed file;
a file whose columns have the wrong types is refused as a whole.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._core.table import OVERSHOOT_CODES
from .._core.validation import OVERSHOOT_RULES, choice_message, int64_values, shown
from . import require_pyarrow

__all__ = ["LABELS", "RULE_COLUMNS", "BoardColumns", "board_table", "check_names",
           "count_rows", "iter_columns", "read_columns", "schema_names"]

D6_FACES = np.arange(1, 7, dtype=np.int64)
D6_PROBS = np.full(6, 1.0 / 6.0)


@dataclass(frozen=True)
class BoardColumns:
    """Boards as columns: per board its size, start, overshoot code and chain flag,
    the numbers of its jumps and faces, and those flattened; ``errors`` maps a row to
    why it could not be read; ``labels`` holds the file's :data:`LABELS` columns (object
    arrays), carried through to the results."""

    sizes: np.ndarray
    starts: np.ndarray
    codes: np.ndarray
    chain: np.ndarray
    n_jumps: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    n_faces: np.ndarray
    faces: np.ndarray
    probs: np.ndarray
    errors: dict[int, str]
    labels: dict[str, np.ndarray] = field(default_factory=dict)


#: Columns that name a board (any type), carried from a board file to its results.
LABELS = ("id", "name")
#: The columns of a board's rules (a missing one takes its default).
RULE_COLUMNS = ("size", "start", "overshoot", "chain", "jump_src", "jump_dst", "jumps",
                "dice_faces", "dice_probs")
#: Board file keys the Parquet schema spells otherwise (a column by that name is refused).
_OTHER_SPELLING = {"snakes": "jump_src/jump_dst", "ladders": "jump_src/jump_dst",
                   "dice": "dice_faces/dice_probs", "faces": "dice_faces",
                   "probs": "dice_probs"}


def check_names(names: list[str]) -> None:
    """``ValueError`` for a board file key the schema spells otherwise (``snakes``: it would
    be read past); a ``UserWarning`` for a near miss of a rule column the file lacks
    (``overshot``: its boards take the default rule). Other columns are carried or ignored."""
    import difflib

    given = set(names)
    if given & {"jumps", "jump_src", "jump_dst"}:  # (one way to give the jumps is enough)
        given |= {"jumps", "jump_src", "jump_dst"}
    missing = [c for c in RULE_COLUMNS if c not in given]
    for name in names:
        if name in RULE_COLUMNS or name in LABELS:
            continue
        if name in _OTHER_SPELLING:
            raise ValueError(f"a board Parquet file spells {name!r} as "
                             f"{_OTHER_SPELLING[name]!r} (column {name!r} would be ignored)")
        near = difflib.get_close_matches(name, missing, n=1, cutoff=0.8)
        if near:  # (a warning: it may be a label that happens to look like one)
            warnings.warn(f"unknown column {name!r} in a board Parquet file, read past; did "
                          f"you mean {near[0]!r}? (its boards take the default {near[0]})",
                          UserWarning, stacklevel=2)


def _flag_rows(errs: dict[int, str], owner: np.ndarray, bad: np.ndarray, values: np.ndarray,
               what: str, nulls: np.ndarray | None = None) -> None:
    """A per-row error for every row owning a value that is not an int64 integer (or is
    null, where ``nulls``)."""
    for k in np.flatnonzero(bad).tolist():
        v = None if nulls is not None and nulls[k] else values[k].item()
        why = ("must fit in a 64-bit integer" if isinstance(v, int) or v is not None and
               (np.isfinite(v) and v == round(v)) else "must be an integer")
        errs.setdefault(int(owner[k]), f"{what} {why}, got {shown(v)}")


def _flat(col: Any) -> tuple[np.ndarray, np.ndarray | None, bool]:
    """The values of a list column flattened, their null mask (None without nulls), and
    whether the column holds integers (by its Arrow type: integers with nulls read as
    floats, NaN the null)."""
    import pyarrow.types as pat

    flat = col.flatten()
    nulls = flat.is_null().to_numpy(zero_copy_only=False) if flat.null_count else None
    return flat.to_numpy(zero_copy_only=False), nulls, pat.is_integer(flat.type)


def _list_column(rb: Any, name: str, dtype: Any, errs: dict[int, str], what: str
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Lengths (-1 for null) and flattened values of a list column; integers beyond
    int64 are per-row errors (their values read as 0)."""
    import pyarrow.compute as pc

    col = rb.column(rb.schema.get_field_index(name))
    lengths = pc.list_value_length(col).fill_null(-1).to_numpy(zero_copy_only=False)
    values, nulls, integers = _flat(col)
    if values.size and (values.dtype == bool or values.dtype == object or
                        not np.issubdtype(values.dtype, np.number) or
                        (dtype is np.int64 and not integers)):
        raise TypeError(f"Parquet column {name!r} must hold lists of "
                        f"{'integers' if dtype is np.int64 else 'numbers'}, "
                        f"got {col.type}")
    lengths = lengths.astype(np.int64)
    if dtype is np.int64:
        out, bad = int64_values(values)
        if bad.any():  # (a null among them is NaN)
            owner = np.repeat(np.arange(len(lengths)), np.maximum(lengths, 0))
            _flag_rows(errs, owner, bad, values, what, nulls)
        return lengths, out
    return lengths, values.astype(dtype)


def _paired_lists(rb: Any, errs: dict[int, str], first: tuple[str, Any, str],
                  second: tuple[str, Any, str], unequal: str
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Two list columns that go together, each ``(name, dtype, what)`` as
    :func:`_list_column` takes them: None when the file has neither; else ``(lengths, a, b,
    null)``, a row's lengths 0 and its values dropped where the two differ (the row's error
    is ``unequal`` formatted with both lengths), ``null`` where both are null."""
    names = rb.schema.names
    if first[0] not in names and second[0] not in names:
        return None
    if not (first[0] in names and second[0] in names):
        raise ValueError(f"a board Parquet file needs both {first[0]!r} and {second[0]!r}")
    la, a = _list_column(rb, first[0], first[1], errs, first[2])
    lb, b = _list_column(rb, second[0], second[1], errs, second[2])
    bad = la != lb
    for i in np.flatnonzero(bad).tolist():
        errs.setdefault(i, unequal.format(max(la[i], 0), max(lb[i], 0)))
    a = a[np.repeat(~bad, np.maximum(la, 0))]
    b = b[np.repeat(~bad, np.maximum(lb, 0))]
    return np.where(bad, 0, np.maximum(la, 0)), a, b, (la < 0) & (lb < 0)


def _scalar_column(rb: Any, name: str, default: Any, kind: str, errs: dict[int, str]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Values (nulls replaced by ``default``) and the null mask of a column; for
    integers, a value that is not an int64 integer (a float 10.5, an unsigned
    2**64 - 1) is a per-row error."""
    n = rb.num_rows
    if name not in rb.schema.names:
        return np.full(n, default), np.zeros(n, bool)
    col = rb.column(rb.schema.get_field_index(name))
    nulls = col.is_null().to_numpy(zero_copy_only=False)
    values = col.to_numpy(zero_copy_only=False)
    if kind == "int":
        if values.dtype == bool or not np.issubdtype(values.dtype, np.number) or \
                np.issubdtype(values.dtype, np.complexfloating):
            if n and not nulls.all():
                raise TypeError(f"Parquet column {name!r} must hold integers, got {col.type}")
            return np.full(n, default, np.int64), nulls
        out, bad = int64_values(values)
        bad &= ~nulls
        _flag_rows(errs, np.arange(n), bad, values, name)
        return np.where(nulls, default, out), nulls
    if kind == "bool" and str(col.type) not in ("bool", "null"):
        # (by its Arrow type: booleans with nulls read as objects, and so do strings)
        raise TypeError(f"Parquet column {name!r} must hold booleans, got {col.type}")
    if kind == "str" and values.dtype != object:
        raise TypeError(f"Parquet column {name!r} must hold strings, got {col.type}")
    values = np.where(nulls, default, values)
    return values, nulls


def read_columns(rb: Any) -> BoardColumns:
    """One Arrow record batch of boards (the schema of :mod:`snl_numeric.batch`) as columns."""
    n = rb.num_rows
    names = rb.schema.names
    check_names(names)
    if "size" not in names:
        raise ValueError(f"a board Parquet file needs a 'size' column, got columns {names}")
    errs: dict[int, str] = {}
    sizes, null_size = _scalar_column(rb, "size", 0, "int", errs)
    for i in np.flatnonzero(null_size).tolist():
        errs.setdefault(i, "board data needs a 'size'")
    starts, _ = _scalar_column(rb, "start", 0, "int", errs)
    rules, _ = _scalar_column(rb, "overshoot", "win", "str", errs)
    codes = np.full(n, -1, np.int8)
    for name, code in OVERSHOOT_CODES.items():
        codes[rules == name] = code
    for i in np.flatnonzero(codes < 0).tolist():
        errs.setdefault(i, choice_message("overshoot", OVERSHOOT_RULES, shown(rules[i])))
    codes[codes < 0] = 0
    chain, _ = _scalar_column(rb, "chain", False, "bool", errs)
    # jumps
    pair = _paired_lists(rb, errs, ("jump_src", np.int64, "jumps start"),
                         ("jump_dst", np.int64, "jumps destination"),
                         "jump_src and jump_dst must have equal lengths, got {} and {}")
    if pair is not None:
        jl, src, dst, _ = pair
    elif "jumps" in names:
        import pyarrow.compute as pc

        col = rb.column(names.index("jumps"))
        lj = pc.list_value_length(col).fill_null(0).to_numpy(zero_copy_only=False)
        pairs = col.flatten()
        lp = pc.list_value_length(pairs).fill_null(0).to_numpy(zero_copy_only=False)
        raw, nulls, integers = _flat(pairs)
        if raw.size and not integers:
            raise TypeError(f"Parquet column 'jumps' must hold integer pairs, got {col.type}")
        owner = np.repeat(np.arange(n), lj)
        values, big = int64_values(raw)
        if big.any():  # (a null among them is NaN)
            _flag_rows(errs, np.repeat(owner, lp), big, raw, "jumps", nulls)
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
    pair = _paired_lists(rb, errs, ("dice_faces", np.int64, "dice faces"),
                         ("dice_probs", np.float64, "dice probabilities"),
                         "dice faces and probabilities must be 1-d arrays of equal length, "
                         "got shapes ({},) and ({},)")
    if pair is not None:
        dl, faces, probs, d6 = pair
        if d6.any():  # null dice: a fair d6
            dl_new = np.where(d6, 6, dl)
            f_new = np.empty(int(dl_new.sum()), np.int64)
            p_new = np.empty(len(f_new))
            keep = np.repeat(~d6, dl_new)
            f_new[keep], p_new[keep] = faces, probs
            f_new[~keep] = np.tile(D6_FACES, int(d6.sum()))
            p_new[~keep] = np.tile(D6_PROBS, int(d6.sum()))
            faces, probs, dl = f_new, p_new, dl_new
    else:
        faces, probs = np.tile(D6_FACES, n), np.tile(D6_PROBS, n)
        dl = np.full(n, 6, np.int64)
    labels = {}
    for name in LABELS:
        if name in names:
            labels[name] = np.empty(n, dtype=object)
            labels[name][:] = rb.column(names.index(name)).to_pylist()
    return BoardColumns(sizes.astype(np.int64), starts.astype(np.int64), codes,
                        chain.astype(bool), jl.astype(np.int64), src, dst, dl.astype(np.int64),
                        faces, probs, errs, labels)



def open_file(path: str | os.PathLike[str]) -> Any:
    """``pyarrow.parquet.ParquetFile(path)``; a file that is not Parquet (or is damaged) is
    refused with a ``ValueError`` that names it, pyarrow's error chained."""
    pa, pq = require_pyarrow()
    try:
        return pq.ParquetFile(os.fspath(path))
    except pa.ArrowInvalid as err:
        raise ValueError(f"cannot read {os.fspath(path)!r}: it is not a Parquet file "
                         "(or it is damaged)") from err


def iter_columns(path: str | os.PathLike[str], chunk_size: int) -> Iterator[BoardColumns]:
    """The boards of a Parquet file, ``chunk_size`` rows at a time."""
    for rb in open_file(path).iter_batches(batch_size=chunk_size):
        yield read_columns(rb)


def schema_names(path: str | os.PathLike[str]) -> list[str]:
    """The column names of a Parquet file."""
    return list(open_file(path).schema_arrow.names)


def count_rows(path: str | os.PathLike[str]) -> int:
    """Rows of a Parquet file (from its metadata)."""
    return open_file(path).metadata.num_rows


def board_table(sizes: np.ndarray, starts: np.ndarray, codes: np.ndarray, chain: np.ndarray,
                jump_ptr: np.ndarray, src: np.ndarray, dst: np.ndarray, dice_ptr: np.ndarray,
                faces: np.ndarray, probs: np.ndarray) -> Any:
    """An Arrow table of boards in the documented schema (``jump_src``/``jump_dst``)."""
    pa, _ = require_pyarrow()
    if np.any((codes < 0) | (codes > 2)):
        raise ValueError("cannot write boards with an unknown overshoot code")

    def lists(ptr: np.ndarray, values: np.ndarray, typ: Any) -> Any:
        return pa.ListArray.from_arrays(pa.array(ptr.astype(np.int32)), pa.array(values, typ))

    names = np.array(OVERSHOOT_RULES, dtype=object)
    return pa.table({
        "size": pa.array(sizes, pa.int64()),
        "start": pa.array(starts, pa.int64()),
        "overshoot": pa.array(names[codes], pa.string()),
        "chain": pa.array(chain, pa.bool_()),
        "jump_src": lists(jump_ptr, src, pa.int64()),
        "jump_dst": lists(jump_ptr, dst, pa.int64()),
        "dice_faces": lists(dice_ptr, faces, pa.int64()),
        "dice_probs": lists(dice_ptr, probs, pa.float64()),
    })
