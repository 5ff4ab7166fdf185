"""Files in and out, below the questions: JSON Lines and Parquet board files, the results store.

This layer knows file formats, not the rules of a board: readers hand rows on as
plain Python objects (:mod:`.jsonl`) or NumPy columns (:mod:`.parquet`) with the
rows they could not read, and :mod:`snl_numeric.batch` turns them into boards.
:mod:`.store` keeps results as a resumable directory of Parquet parts.
"""

from __future__ import annotations

from typing import Any

__all__ = ["require_pandas", "require_pyarrow"]


def require_pandas() -> Any:
    """The pandas module, or an ``ImportError`` that says which extra to install."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "batch analysis needs pandas and pyarrow: pip install 'snl_numeric[batch]'"
        ) from None
    return pd


def require_pyarrow() -> tuple[Any, Any]:
    """``(pyarrow, pyarrow.parquet)``, or an ``ImportError`` naming the extra."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Parquet support needs pyarrow: pip install 'snl_numeric[batch]'"
        ) from None
    return pa, pq
