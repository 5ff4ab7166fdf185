"""Files in and out, below the questions: JSON Lines and Parquet board files, the results store.

This layer knows file formats, not the rules of a board: readers hand rows on as
plain Python objects (:mod:`.jsonl`) or NumPy columns (:mod:`.parquet`) with the
rows they could not read, and :mod:`snl_numeric.batch` turns them into boards.
:mod:`.store` keeps results as a resumable directory of Parquet parts.
"""

from __future__ import annotations

from .._core.optional import require_pandas, require_pyarrow

__all__ = ["require_pandas", "require_pyarrow"]
