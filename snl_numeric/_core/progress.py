"""Progress bars that fit where they run: ``tqdm.auto`` behind one small class.

Library functions take ``progress=False`` by default; the command line turns
it on. With ``progress=True`` a bar shows

- as a widget in Jupyter (a plain-text bar there when ``ipywidgets`` is
  missing),
- as a terminal bar when standard error is a terminal,
- nowhere otherwise (a pipe or a log file gets no ``\\r`` frames), unless
  asked for with ``progress="always"``.

The count never passes the total and the bar ends with a single final line.
"""

from __future__ import annotations

import os
import sys
from importlib.util import find_spec
from typing import Any, TextIO

import numpy as np

from .validation import shown

#: Values of the ``progress=`` switches.
ALWAYS = "always"


def check_progress(value: Any) -> bool | str:
    """Validate a ``progress=`` argument: ``True``, ``False`` or ``"always"``.

    Examples
    --------
    >>> check_progress(True), check_progress("always")
    (True, 'always')
    """
    if isinstance(value, str) and value == ALWAYS:  # (an array compared element by element)
        return ALWAYS
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"progress must be True, False or 'always', got {shown(value)}")


def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel."""
    shell = sys.modules.get("IPython")
    if shell is None or "ipykernel" not in sys.modules:
        return False
    ip = shell.get_ipython() if hasattr(shell, "get_ipython") else None
    return ip is not None and hasattr(ip, "kernel")


def _widgets() -> bool:
    """Whether a widget bar can show: the kernel's front end is not a Qt console or Spyder
    (they show no widgets) and tqdm found ipywidgets' progress widget, as
    ``tqdm.autonotebook`` decides (ipywidgets looked up first: where it is missing,
    importing ``tqdm.notebook`` would swap the warning filters)."""
    if find_spec("ipywidgets") is None:
        return False
    if any(k == "QT_API" or k.startswith("SPYDER") for k in os.environ):
        return False
    shell = sys.modules["IPython"].get_ipython().__class__.__name__.lower()
    if "qt" in shell or "spyder" in shell:
        return False
    from tqdm import notebook  # (None where ipywidgets does not load: no widget then)

    return notebook.IProgress is not None


def _tqdm_class() -> Any:
    """tqdm's widget bar in a notebook that can show it, else its text bar.

    Chosen here rather than by ``tqdm.auto``, whose import warns in a notebook without
    ipywidgets: silencing that needs ``warnings.catch_warnings``, which swaps the
    process-wide filters and so races with other threads' warnings.
    """
    if in_notebook() and _widgets():
        from tqdm.notebook import tqdm
    else:
        from tqdm.std import tqdm
    return tqdm


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


class Progress:
    """Context manager: ``with Progress(total, "simulate") as bar: bar.update(n)``.

    Parameters
    ----------
    total : int
        Units of work expected (``0`` for unknown: the bar then counts).
    label : str
        Shown before the bar.
    enabled : bool or "always"
        False: every method is a no-op. True: a bar in Jupyter or on a
        terminal, silence in pipes and files. ``"always"``: a bar in any case.
    stream : file, optional
        Defaults to ``sys.stderr``.

    Examples
    --------
    >>> with Progress(10, "work", enabled=False) as bar:
    ...     bar.update(25)
    >>> bar.done
    10
    """

    def __init__(self, total: int, label: str = "", *, enabled: bool | str = True,
                 stream: TextIO | None = None) -> None:
        self.total = max(int(total), 0)
        self.label = label
        self.done = 0
        enabled = check_progress(enabled)
        stream = stream if stream is not None else sys.stderr
        show = enabled == ALWAYS or (enabled and (_is_tty(stream) or in_notebook()))
        self._bar = None
        if show:
            self._bar = _tqdm_class()(total=self.total or None, desc=label, file=stream,
                                      unit_scale=True, dynamic_ncols=True, leave=True)

    @property
    def enabled(self) -> bool:
        """Whether a bar is shown."""
        return self._bar is not None

    def update(self, n: int = 1) -> None:
        """Record ``n`` more units of work (the count stops at the total)."""
        n = int(n)
        if self.total:
            n = min(n, self.total - self.done)
        if n <= 0:
            return
        self.done += n
        if self._bar is None:
            return
        if self.done == self.total:  # drawn once, by close(): a slow last step would draw it twice
            self._bar.n = self.done
        else:
            self._bar.update(n)

    def close(self) -> None:
        """End the bar (one final line); later calls do nothing."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
