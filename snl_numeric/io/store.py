"""The results store: a directory of Parquet parts plus a manifest, resumable.

``OUT/_manifest.json`` records what the results are for (the input's
fingerprint and the settings); ``OUT/part-<index>.parquet`` holds the rows of
one chunk, tagged in its schema metadata with a digest of the chunk's input.
Every file is written to a temporary file created in ``OUT`` and renamed into
place, so a part is whole or absent.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import require_pandas, require_pyarrow

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ResultStore", "file_fingerprint", "read_results"]

MANIFEST = "_manifest.json"
#: Schema metadata key of a part's input digest.
PART_KEY = b"snl_numeric.chunk"


def file_fingerprint(path: str | os.PathLike[str]) -> str:
    """``"sha256:<hex>"`` of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return "sha256:" + h.hexdigest()


def _write_atomic(path: str, write: Callable[[str], None]) -> None:
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    write(tmp)
    os.replace(tmp, path)


class ResultStore:
    """A results directory for one input and one set of settings (the ``manifest``).

    Opening it with another manifest is refused unless ``overwrite``, which
    removes the old parts; part files without a manifest are refused the same way.
    """

    def __init__(self, out: str | os.PathLike[str], manifest: dict[str, Any], *,
                 overwrite: bool = False) -> None:
        self.path = os.fspath(out)
        os.makedirs(self.path, exist_ok=True)
        mpath = os.path.join(self.path, MANIFEST)
        if os.path.exists(mpath):
            with open(mpath, encoding="utf-8") as fh:
                try:
                    old = json.load(fh)
                except json.JSONDecodeError:
                    old = None
            if old != manifest:
                if not overwrite:
                    raise ValueError(f"{self.path!r} holds results for another input or other "
                                     "settings (see its _manifest.json); use a new path or "
                                     "overwrite=True")
                for name in self.part_names():
                    os.remove(os.path.join(self.path, name))
        elif self.part_names() and not overwrite:
            raise ValueError(f"{self.path!r} holds part files but no manifest; use a new path "
                             "or overwrite=True")

        def write_manifest(tmp: str) -> None:
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(manifest, fh, indent=2)

        _write_atomic(mpath, write_manifest)

    def part_names(self) -> list[str]:
        """The part files present, sorted."""
        return sorted(n for n in os.listdir(self.path)
                      if n.startswith("part-") and n.endswith(".parquet"))

    def _part_path(self, index: int) -> str:
        return os.path.join(self.path, f"part-{index:06d}.parquet")

    def has(self, index: int, digest: str) -> bool:
        """Whether part ``index`` is written for an input with this digest."""
        _, pq = require_pyarrow()
        path = self._part_path(index)
        if not os.path.exists(path):
            return False
        try:
            meta = pq.read_schema(path).metadata or {}
        except Exception:  # a damaged part is simply recomputed
            return False
        return meta.get(PART_KEY) == digest.encode()

    def write(self, index: int, frame: pd.DataFrame, digest: str) -> None:
        """Write ``frame`` as part ``index``, tagged with ``digest``."""
        pa, pq = require_pyarrow()
        table = pa.Table.from_pandas(frame, preserve_index=False)
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               PART_KEY: digest.encode()})
        _write_atomic(self._part_path(index), lambda tmp: pq.write_table(table, tmp))


def read_results(out: str | os.PathLike[str]) -> pd.DataFrame:
    """The results written by :func:`~snl_numeric.batch.analyze_to_parquet`, in row order.

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
    _, pq = require_pyarrow()
    out = os.fspath(out)
    names = sorted(n for n in os.listdir(out) if n.startswith("part-") and n.endswith(".parquet"))
    if not names:
        raise ValueError(f"no result parts in {out!r}")
    frames = [pq.read_table(os.path.join(out, n)).to_pandas() for n in names]
    df = pd.concat(frames, ignore_index=True).sort_values("row", kind="stable")
    df.index = pd.Index(df.pop("row").to_numpy(), name="row")
    return df
