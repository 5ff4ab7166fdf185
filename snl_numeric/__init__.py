"""snl_numeric: exact and fast analysis of Snakes-and-Ladders race games."""

from __future__ import annotations

__version__ = "0.1.0"

__all__: list[str] = ["__version__"]
