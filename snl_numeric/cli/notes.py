"""What a running ``snl`` command shows on standard error besides its output: the package's
log records (``snl_numeric: warning: ...``) and Python warnings (``snl CMD: warning: ...``),
one line each.

:func:`main` may run in several threads of one process at once (tests, notebooks, a
server). The logger, ``warnings.showwarning`` and the warning filters are process-wide,
so the calls share one handler and one warning hook: the first call to start installs
them, the last to end takes them away and puts back the logger's level, the hook and the
filters found before (a call's ``catch_warnings`` puts back the filters it found, which
hold another call's filter when the calls overlap). Each call's warnings carry its own
command name (looked up by thread).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import warnings
from collections.abc import Iterator

_LOCK = threading.Lock()
_LOCAL = threading.local()  # .commands: this thread's running commands, innermost last
#: calls running, their commands, and what the first one found (to put back after the last)
_STATE: dict = {"calls": 0, "running": [], "handler": None, "level": logging.NOTSET,
                "hook": warnings.showwarning, "filters": None}


def one_line(text: str) -> str:
    """``text`` with every run of white space made one space."""
    return " ".join(text.split())


def stderr_line(line: str) -> None:
    """Print ``line`` on standard error; say nothing if standard error is closed."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # standard error closed too
        pass


class _Formatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        level = "warning: " if record.levelno >= logging.WARNING else ""
        return one_line(f"{record.name}: {level}{record.getMessage()}")


class _StderrNotes(logging.StreamHandler):
    """The package's INFO records on standard error, one line each (``snl_numeric: ...``,
    ``snl_numeric: warning: ...``); standard error looked up at each record (tests and
    callers may replace it)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(_Formatter())

    @property  # type: ignore[override]
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass

    def handleError(self, record) -> None:  # standard error closed: say nothing
        pass


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``warnings.showwarning`` while commands run: ``snl CMD: warning: MESSAGE``, CMD the
    command this thread runs (else the only command running: the warning comes from one of
    its workers); with several running and none in this thread, the hook found before."""
    mine = getattr(_LOCAL, "commands", None)
    running = _STATE["running"][:]  # (a copy: another call may end meanwhile)
    command = mine[-1] if mine else running[0] if len(running) == 1 else None
    if command is None:
        _STATE["hook"](message, category, filename, lineno, file, line)
    else:
        stderr_line(one_line(f"snl {command}: warning: {message}"))


@contextlib.contextmanager
def command_notes(command: str) -> Iterator[None]:
    """While the ``with`` block runs the command ``command``, show the package's notes and
    the command's warnings on standard error, one line each; afterwards the logger,
    ``warnings.showwarning`` and the warning filters are as they were (once no other
    command runs)."""
    logger = logging.getLogger("snl_numeric")
    with _LOCK:
        if _STATE["calls"] == 0:
            if warnings.showwarning is not _show_warning:  # (left by a catch_warnings
                _STATE["hook"] = warnings.showwarning      # that outlived a command)
            # the filters list and what it holds: put back as they are by the last to end
            _STATE.update(handler=None, level=logger.level,
                          filters=(warnings.filters, list(warnings.filters)))
            if not any(isinstance(h, _StderrNotes) for h in logger.handlers):
                _STATE["handler"] = _StderrNotes()
                logger.addHandler(_STATE["handler"])
            if logger.level == logging.NOTSET or logger.level > logging.INFO:
                logger.setLevel(logging.INFO)
            warnings.showwarning = _show_warning
        _STATE["calls"] += 1
        _STATE["running"].append(command)
    mine = _LOCAL.__dict__.setdefault("commands", [])
    mine.append(command)
    try:
        yield
    finally:
        mine.pop()
        with _LOCK:
            _STATE["running"].remove(command)
            _STATE["calls"] -= 1
            if _STATE["calls"] == 0:
                if _STATE["handler"] is not None:
                    logger.removeHandler(_STATE["handler"])
                if logger.level == logging.INFO:  # (unless a command set its own)
                    logger.setLevel(_STATE["level"])
                if warnings.showwarning is _show_warning:  # (unless someone replaced it)
                    warnings.showwarning = _STATE["hook"]
                found, held = _STATE["filters"]
                found[:] = held
                warnings.filters = found
