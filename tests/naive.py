"""Slow, obvious reference implementations.

Every fast path in :mod:`snl_numeric` is compared with a twin in this file.
Nothing here is optimised; clarity is the point.
"""

from __future__ import annotations
