"""The results store: a directory of Parquet parts plus a manifest, resumable.

``OUT/_manifest.json`` records what the results are for (the input's
fingerprint and the settings), the package versions that computed them and
whether the run finished; ``OUT/part-<index>.parquet`` holds the rows of one
chunk, tagged in its schema metadata with a digest of the chunk's input, its
number of error rows and the version that computed it. Every file is written to a
fresh temporary file created in ``OUT`` (a unique name created exclusively: never
a link planted in advance, and with the permissions the umask gives, as any new
file) and renamed into place, so a part is whole or absent and no write ever
lands outside ``OUT``.

A run first records its manifest as unfinished and finishes it last, so
:func:`read_results` never returns the rows of a run that stopped halfway, nor
parts left by another input. A run holds a lock on ``OUT`` (released when it
ends, however it ends), so a second writer is refused instead of interleaving
its parts. A folder holding results of another version of the
package is refused too (unless mixing is allowed explicitly).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from typing import TYPE_CHECKING, Any

from .._core.files import file_name, write_atomic
from . import require_pandas, require_pyarrow
from .parquet import open_file

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ResultStore", "file_fingerprint", "read_results", "results_folder", "write_atomic"]

MANIFEST = "_manifest.json"
#: Schema metadata key of a part's input digest.
PART_KEY = b"snl_numeric.chunk"
#: Schema metadata key of a part's number of error rows.
ERRORS_KEY = b"snl_numeric.errors"
#: Schema metadata key of the package version that computed a part.
VERSION_KEY = b"snl_numeric.version"
#: Manifest keys that describe the state of a run, not what it is for.
_STATE_KEYS = ("complete", "parts", "errors", "versions")


def file_fingerprint(path: str | os.PathLike[str]) -> str:
    """``"sha256:<hex>"`` of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()


def _lock(folder: str) -> int | None:
    """Hold the lock of ``folder`` (an advisory ``flock`` on the folder itself, released when
    its descriptor is closed or the process ends, however it ends), or refuse: another run
    is writing there. None where folders cannot be locked (Windows, some network disks)."""
    try:
        import fcntl
        fd = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):  # pragma: no cover - Windows
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ValueError(f"{folder!r} is being written by another run; wait for it to end or "
                         "use another output folder") from None
    except OSError:  # pragma: no cover - no locks on this file system
        os.close(fd)
        return None
    return fd


def _read_manifest(path: str) -> dict[str, Any] | None:
    """The manifest in ``path`` (None if absent), ``{}`` if it cannot be read."""
    mpath = os.path.join(path, MANIFEST)
    if not os.path.lexists(mpath):
        return None
    try:
        with open(mpath, "rb") as fh:
            data = json.loads(fh.read(1 << 20).decode("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def results_folder(out: Any) -> str:
    """``out`` as the path of a results folder (existing or not): ``TypeError`` for what is
    no path, ``ValueError`` for an empty path or one naming a file."""
    path = file_name(out, "out", kind="folder")
    if os.path.lexists(path) and not os.path.isdir(path):  # (was FileExistsError)
        raise ValueError(f"out {path!r} is a file, not a folder")
    return path


def _missing_folders(path: str) -> list[str]:
    """The folders that creating ``path`` would create, deepest first."""
    missing = []
    path = os.path.abspath(path)
    while not os.path.lexists(path):
        missing.append(path)
        path = os.path.dirname(path)
    return missing


def _part_names(path: str) -> list[str]:
    return sorted(n for n in os.listdir(path) if n.startswith("part-") and n.endswith(".parquet"))


class ResultStore:
    """A results directory for one input and one set of settings (the ``manifest``),
    written by package ``version``; it holds the folder's lock until :meth:`close`.

    Opening it with another manifest is refused unless ``overwrite``, which
    removes the old parts; part files without a manifest are refused the same
    way. ``fresh=True`` (an input that cannot be fingerprinted before it is read,
    such as an iterator) refuses any results already there unless ``overwrite``.
    Parts written by another version (or one not recorded) are refused unless
    ``allow_mixed_versions``. The manifest is written as unfinished; :meth:`finish`
    completes it.
    """

    def __init__(self, out: str | os.PathLike[str], manifest: dict[str, Any], *,
                 version: str, overwrite: bool = False, fresh: bool = False,
                 allow_mixed_versions: bool = False) -> None:
        self.path = results_folder(out)
        self._created = _missing_folders(self.path)  # deepest first
        self._was_empty = False
        os.makedirs(self.path, exist_ok=True)
        self._lock = _lock(self.path)
        try:
            self._open(manifest, version, overwrite, fresh, allow_mixed_versions)
        except BaseException:
            self.close()
            raise

    def _open(self, manifest: dict[str, Any], version: str, overwrite: bool, fresh: bool,
              allow_mixed: bool) -> None:
        self.manifest = dict(manifest)
        old = _read_manifest(self.path)
        parts = self.part_names()
        same = (old is not None and not fresh and
                {k: v for k, v in old.items() if k not in _STATE_KEYS} == self.manifest)
        kept = same and bool(parts)
        self._was_empty = old is None and not parts
        self.versions: set[str] = (set((old or {}).get("versions") or ["unknown"]) if kept
                                   else set())
        others = sorted(self.versions - {version})  # of the parts a resume would keep
        if (old is not None or parts) and not same and not overwrite:
            if fresh:
                why = ("holds results, and an iterator of boards cannot be fingerprinted "
                       "before it is read (pass a list or a file to resume)")
            elif old is None:
                why = "holds part files but no manifest"
            else:
                why = "holds results for another input or other settings (see its _manifest.json)"
            raise ValueError(f"{self.path!r} {why}; use a new output folder or overwrite=True")
        if others and not overwrite and not allow_mixed:
            raise ValueError(f"{self.path!r} holds results of snl_numeric {', '.join(others)} "
                             f"and this is {version}: the results would mix versions; use a new "
                             "output folder, overwrite=True, or allow_mixed_versions=True")
        if not same or (others and overwrite):  # start afresh
            for name in parts:
                os.remove(os.path.join(self.path, name))
            self.versions = set()
        self._write_manifest(complete=False)

    def discard(self) -> None:
        """Remove what this run wrote and release the lock, if the folder held no results
        before it: its parts, its manifest and the folders it created (a run refused for a
        bad input leaves nothing behind). A folder that held results is left as it is."""
        if self._was_empty:
            for name in [*self.part_names(), MANIFEST]:
                with contextlib.suppress(FileNotFoundError):
                    os.remove(os.path.join(self.path, name))
        self.close()
        if self._was_empty:
            for folder in self._created:
                with contextlib.suppress(OSError):  # not empty: something else is there
                    os.rmdir(folder)

    def close(self) -> None:
        """Release the folder's lock."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write_manifest(self, **state: Any) -> None:
        state = {"versions": sorted(self.versions), **state}
        text = json.dumps({**self.manifest, **state}, indent=2).encode()
        write_atomic(os.path.join(self.path, MANIFEST), lambda fh: fh.write(text))

    def part_names(self) -> list[str]:
        """The part files present, sorted."""
        return _part_names(self.path)

    def _part_path(self, index: int) -> str:
        return os.path.join(self.path, f"part-{index:06d}.parquet")

    def lookup(self, index: int, digest: str) -> int | None:
        """The number of error rows of part ``index`` if it is written for an input with
        this digest, else None (absent, damaged or for other input: to be computed)."""
        _, pq = require_pyarrow()
        path = self._part_path(index)
        if not os.path.isfile(path) or os.path.islink(path):
            return None
        try:
            schema = pq.read_schema(path)
            meta = schema.metadata or {}
            if meta.get(PART_KEY) != digest.encode():
                return None
            if ERRORS_KEY in meta:
                return int(meta[ERRORS_KEY])
            if "error" not in schema.names:  # errors="raise": a written part has none
                return 0
            return int(pq.read_table(path, columns=["error"]).column(0).is_valid().sum().as_py())
        except Exception:  # a damaged part is simply recomputed
            return None

    def has(self, index: int, digest: str) -> bool:
        """Whether part ``index`` is written for an input with this digest."""
        return self.lookup(index, digest) is not None

    def write(self, index: int, frame: pd.DataFrame, digest: str, errors: int, version: str
              ) -> None:
        """Write ``frame`` as part ``index``, tagged with ``digest``, its error count and the
        package ``version`` that computed it (recorded in the manifest before the part)."""
        pa, pq = require_pyarrow()
        if version not in self.versions:
            self.versions.add(version)
            self._write_manifest(complete=False)
        table = pa.Table.from_pandas(frame, preserve_index=False)
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               PART_KEY: digest.encode(),
                                               ERRORS_KEY: str(int(errors)).encode(),
                                               VERSION_KEY: version.encode()})
        write_atomic(self._part_path(index), lambda fh: pq.write_table(table, fh))

    def finish(self, parts: int, errors: int, **final: Any) -> None:
        """Mark the run complete: parts ``0 .. parts - 1`` are the results (any other part
        is removed), with ``errors`` error rows in all; ``final`` updates the manifest
        (e.g. the fingerprint of an input known only once read)."""
        for name in self.part_names():
            try:
                index = int(name[len("part-"):-len(".parquet")])
            except ValueError:
                continue
            if index >= parts:
                os.remove(os.path.join(self.path, name))
        self.manifest.update(final)
        self._write_manifest(complete=True, parts=int(parts), errors=int(errors))


def read_results(out: str | os.PathLike[str]) -> pd.DataFrame:
    """The results written by :func:`~snl_numeric.batch.analyze_to_parquet`, in row order.

    Raises ``ValueError`` for a folder whose run has not finished (rerun it to
    complete the results).

    Examples
    --------
    >>> import tempfile
    >>> from snl_numeric import Board
    >>> from snl_numeric.batch import analyze_to_parquet
    >>> out = tempfile.mkdtemp()
    >>> _ = analyze_to_parquet([Board(6)], out, columns=["min_throws", "median"])
    >>> read_results(out).to_dict("list")
    {'min_throws': [1], 'median': [2]}
    """
    pd = require_pandas()
    out = results_folder(out)
    if not os.path.isdir(out):  # (was FileNotFoundError, NotADirectoryError)
        raise ValueError(f"no results folder {out!r}: run analyze_to_parquet first")
    manifest = _read_manifest(out)
    if manifest is not None and manifest.get("complete") is False:
        raise ValueError(f"{out!r} holds an unfinished run (it stopped before writing every "
                         "part); run it again to complete the results")
    names = _part_names(out)
    if manifest and isinstance(manifest.get("parts"), int):
        names = [n for n in names if n[len("part-"):-len(".parquet")].isdigit()
                 and int(n[len("part-"):-len(".parquet")]) < manifest["parts"]]
    if not names:
        raise ValueError(f"no result parts in {out!r}")
    frames = [open_file(os.path.join(out, n)).read().to_pandas() for n in names]
    df = pd.concat(frames, ignore_index=True).sort_values("row", kind="stable")
    df.index = pd.Index(df.pop("row").to_numpy(), name="row")
    return df
