"""Optional dependencies, imported when first needed with an error that names the extra."""

from __future__ import annotations

from typing import Any


def require_pandas() -> Any:
    """The pandas module, or an ``ImportError`` that says which extra to install."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "tables need pandas: pip install 'snl_numeric[batch]'"
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


def require_networkx() -> Any:
    """The networkx module, or an ``ImportError`` naming the extra."""
    try:
        import networkx
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("graphs need networkx: pip install 'snl_numeric[graph]'") from None
    return networkx
