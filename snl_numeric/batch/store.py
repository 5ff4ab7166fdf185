"""Results on disk: a resumable directory of Parquet parts."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._core.progress import Progress
from ..chain import DEFAULT_MAX_THROWS, DEFAULT_TAIL
from .data import DEFAULT_CHUNK_SIZE, require_pandas, require_pyarrow
from .files import Chunk, open_source
from .run import execute, make_settings

if TYPE_CHECKING:
    import pandas as pd

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
        from ..display.html import kv_table

        return kv_table([("output", self.path), ("boards", f"{self.rows:,}"),
                         ("parts", f"{self.chunks} ({self.computed} computed, "
                                   f"{self.reused} reused)"),
                         ("rows with errors", f"{self.errors:,}")], caption="BatchRun")


def _chunk_fingerprint(chunk: Chunk) -> str:
    h = hashlib.sha256(chunk.batch.fingerprint().encode())
    h.update(json.dumps([chunk.offset, sorted(chunk.parse_errors.items())]).encode())
    return h.hexdigest()


def _part_path(out: str, index: int) -> str:
    return os.path.join(out, f"part-{index:06d}.parquet")


def _part_matches(path: str, fingerprint: str) -> bool:
    _, pq = require_pyarrow()
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
    pa, pq = require_pyarrow()
    settings = make_settings(columns, errors, tail, max_throws, chunk_size)
    out = os.fspath(out)
    source = open_source(boards, int(chunk_size))
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
        def todo() -> Iterator[Chunk]:
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

        for chunk, frame in execute(todo(), settings, client):
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
    pd = require_pandas()
    _, pq = require_pyarrow()
    out = os.fspath(out)
    names = sorted(n for n in os.listdir(out) if n.startswith("part-") and n.endswith(".parquet"))
    if not names:
        raise ValueError(f"no result parts in {out!r}")
    frames = [pq.read_table(os.path.join(out, n)).to_pandas() for n in names]
    df = pd.concat(frames, ignore_index=True).sort_values("row", kind="stable")
    df.index = pd.Index(df.pop("row").to_numpy(), name="row")
    return df
