"""Results on disk: a resumable directory of Parquet parts."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from .._core import version
from .._core.progress import Progress, check_progress
from .._core.validation import DEFAULT_MAX_THROWS, DEFAULT_TAIL, flag
from ..io.store import MANIFEST, ResultStore, results_folder
from .files import BoardRowError, Chunk, open_source, stream_fingerprint
from .run import (
    BoardsInput,
    DaskClient,
    check_client,
    compile_kernels,
    default_chunk_size,
    execute,
    make_settings,
)

_RESULTS_FORMAT = "snl_numeric.batch-results"
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
        Rows with an error (``errors="coerce"``) in the whole result, reused parts
        included.
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


def _started_with(out: str | os.PathLike[str]) -> int | None:
    """The chunk size of the run whose manifest is in ``out`` (None: none readable)."""
    try:
        with open(os.path.join(out, MANIFEST), "rb") as fh:
            size = json.loads(fh.read(1 << 20).decode("utf-8")).get("chunk_size")
    except (OSError, ValueError, AttributeError):
        return None
    return size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else None


def analyze_to_parquet(
    boards: BoardsInput,
    out: str | os.PathLike[str],
    *,
    columns: Sequence[str] | None = None,
    errors: str = "raise",
    chunk_size: int | None = None,
    client: DaskClient | None = None,
    progress: bool | str = False,
    overwrite: bool = False,
    tail: float = DEFAULT_TAIL,
    max_throws: int = DEFAULT_MAX_THROWS,
    allow_mixed_versions: bool = False,
) -> BatchRun:
    """Analyse boards chunk by chunk into a resumable directory of Parquet parts.

    Each chunk is written to ``out/part-<index>.parquet`` (a temporary file
    renamed into place, so a part is whole or absent) tagged with a digest
    of its boards and the package version that computed it;
    ``out/_manifest.json`` records the input fingerprint, the settings, the
    package versions and whether the run finished. Run again with the same input
    and settings after an interruption, it keeps the parts already written and
    computes only the missing ones. A directory written for another input or
    other settings is refused unless ``overwrite=True``; one holding parts of
    another version of the package is refused unless ``overwrite=True`` (start
    afresh) or ``allow_mixed_versions=True`` (keep them). Every input is
    fingerprinted: a file by its bytes, a batch or a list by its boards; an
    iterator (read once) cannot be, so writing one into a directory that holds
    results is refused unless ``overwrite=True``. A run holds a lock on the
    directory: a second run writing there at the same time is refused. A run stopped by
    a bad board (``errors="raise"``) in a folder that held no results leaves nothing
    behind, not even the folders it created. Memory stays bounded by a few chunks
    whatever the input size. Parameters are those of :func:`~snl_numeric.analyze_many`;
    without ``chunk_size``, a run resuming in ``out`` keeps the chunks it was started with
    (so a resume on a cluster of another size reuses the parts).

    Returns
    -------
    BatchRun
        Its ``rows`` and ``errors`` describe the whole result, reused parts included.

    Examples
    --------
    >>> import tempfile
    >>> from snl_numeric import Board
    >>> from snl_numeric.batch import read_results
    >>> out = tempfile.mkdtemp()
    >>> run = analyze_to_parquet([Board(10), Board(20)], out, chunk_size=1)
    >>> run.computed, analyze_to_parquet([Board(10), Board(20)], out, chunk_size=1).reused
    (2, 2)
    >>> read_results(out)["min_throws"].tolist()
    [2, 4]
    """
    allow_mixed_versions = check_client(client, allow_mixed_versions)
    overwrite = flag(overwrite, "overwrite")  # (any value was taken as true or false)
    progress = check_progress(progress)  # (before it is tested for truth)
    out = results_folder(out)
    if chunk_size is None:
        chunk_size = _started_with(out) or default_chunk_size(boards, client)
    settings = make_settings(columns, errors, tail, max_throws, chunk_size)
    source = open_source(boards, int(chunk_size), fingerprint=True)
    stream = source.fingerprint is None
    manifest = {"format": _RESULTS_FORMAT, "version": 1,
                "input": "iterator" if stream else source.fingerprint,
                "chunk_size": int(chunk_size), "settings": settings.to_json()}
    counts = {"rows": 0, "chunks": 0, "reused": 0, "computed": 0, "errors": 0}
    digests: dict[int, str] = {}
    seen: list[str] = []  # every chunk's digest, in order (an iterator's fingerprint)

    with ResultStore(out, manifest, version=version.VERSION, overwrite=overwrite, fresh=stream,
                     allow_mixed_versions=allow_mixed_versions) as store:
        if progress and client is None:
            compile_kernels(settings)  # before the bar: compilation is not run time
        with Progress(source.total, "batch", enabled=progress) as bar:
            def todo() -> Iterator[Chunk]:
                for chunk in source.chunks:
                    counts["rows"] += len(chunk.batch)
                    counts["chunks"] += 1
                    digest = chunk.digest()
                    seen.append(digest)
                    reused = store.lookup(chunk.index, digest)
                    if reused is not None:
                        counts["reused"] += 1
                        counts["errors"] += reused
                        bar.update(len(chunk.batch))
                        continue
                    digests[chunk.index] = digest
                    yield chunk

            try:
                for chunk, frame, made_by in execute(todo(), settings, client,
                                                     allow_mixed_versions):
                    n_errors = int(frame["error"].notna().sum()) if "error" in frame else 0
                    store.write(chunk.index, frame, digests.pop(chunk.index), n_errors, made_by)
                    counts["computed"] += 1
                    counts["errors"] += n_errors
                    bar.update(len(chunk.batch))
                    if _after_part_written is not None:
                        _after_part_written(chunk.index)
            except BoardRowError:  # a bad input: its parts could never be resumed
                store.discard()
                raise
        final = {"input": stream_fingerprint(seen)} if stream else {}
        store.finish(counts["chunks"], counts["errors"], **final)
    return BatchRun(path=store.path, **counts)
