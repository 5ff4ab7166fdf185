"""A minimal progress bar on standard error (no third-party dependency).

Library functions take ``progress=False`` by default; the CLI turns it on.
Updates are throttled to a few per second, so the bar costs nothing in a
hot loop that reports in chunks.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Context manager: ``with Progress(total, "simulate") as bar: bar.update(n)``.

    Parameters
    ----------
    total : int
        Units of work expected (``0`` for unknown).
    label : str
        Shown before the bar.
    enabled : bool
        When False every method is a no-op.
    stream : file, optional
        Defaults to ``sys.stderr``.
    """

    def __init__(self, total: int, label: str = "", *, enabled: bool = True,
                 stream: TextIO | None = None, interval: float = 0.2) -> None:
        self.total = int(total)
        self.label = label
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.done = 0
        self._start = time.perf_counter()
        self._last = 0.0

    def update(self, n: int = 1) -> None:
        """Record ``n`` more units of work and redraw if due."""
        self.done += int(n)
        if self.enabled:
            now = time.perf_counter()
            if now - self._last >= self.interval:
                self._last = now
                self._draw(now)

    def _draw(self, now: float, end: str = "\r") -> None:
        elapsed = now - self._start
        if self.total > 0:
            frac = min(self.done / self.total, 1.0)
            filled = int(30 * frac)
            bar = "#" * filled + "-" * (30 - filled)
            eta = elapsed / frac - elapsed if frac > 0 else float("nan")
            text = (f"{self.label} [{bar}] {100 * frac:5.1f}% "
                    f"{self.done}/{self.total} {elapsed:6.1f}s eta {eta:6.1f}s")
        else:
            text = f"{self.label} {self.done} {elapsed:6.1f}s"
        self.stream.write(text + end)
        self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self._draw(time.perf_counter(), end="\n")
