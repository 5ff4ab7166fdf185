"""Files written whole or not at all: the one writer of every file the package makes.

:func:`write_atomic` fills a new temporary file beside the target (created exclusively
under a random name, so a file or link planted in advance is never followed), flushes it
to the disk (``fsync``), then renames it over the target (a link there is replaced, not
followed) and flushes the folder. An exception, a signal or a kill at any moment leaves
the old file as it was (a kill may leave a ``.NAME.*.tmp`` file beside it).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from typing import IO

from .validation import shown

__all__ = ["file_name", "write_atomic", "write_text_atomic"]


def file_name(path: object, name: str = "path", kind: str = "file") -> str:
    """``path`` as the name of a ``kind`` (``os.fspath``), in our words when it names
    none: ``TypeError`` for what is no path, ``ValueError`` for an empty one (``name``:
    the argument's name in the messages).

    Examples
    --------
    >>> import pathlib
    >>> file_name(pathlib.Path("a.jsonl"))
    'a.jsonl'
    >>> try:
    ...     file_name(float("nan"))
    ... except TypeError as exc:
    ...     print(exc)
    path must be a file name (str or path-like), got nan
    """
    try:
        text = os.fspath(path)  # type: ignore[call-overload]
        if isinstance(text, bytes):
            text = os.fsdecode(text)
    except TypeError:  # Python's words would not say which argument
        raise TypeError(f"{name} must be a {kind} name (str or path-like), got {shown(path)}"
                        ) from None
    if not text:  # (was FileNotFoundError naming the temporary file)
        raise ValueError(f"{name} must name a {kind}, got ''")
    return text


def _create_new(folder: str, prefix: str, suffix: str) -> tuple[int, str]:
    """A new file in ``folder``, opened for writing: created exclusively under a random
    name (a file or link planted in advance is never followed), mode 0666 less the umask."""
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_BINARY", 0))
    for _ in range(100):
        path = os.path.join(folder, f"{prefix}{secrets.token_hex(8)}{suffix}")
        try:
            return os.open(path, flags, 0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder!r}")  # pragma: no cover


def _sync_folder(folder: str) -> None:
    """Flush a folder's entries (the rename) to the disk, where folders can be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - Windows
        return
    try:
        with contextlib.suppress(OSError):  # some file systems cannot sync a folder
            os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: str | os.PathLike[str], write: Callable[[IO[bytes]], object]) -> None:
    """Write ``path`` whole or not at all: ``write(fh)`` fills a new temporary file beside
    ``path`` (binary; ``write`` may close it), which is synced to the disk and then
    replaces ``path``.

    Examples
    --------
    >>> import os, pathlib, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> write_atomic(path, lambda fh: fh.write(b"old"))
    >>> def fail(fh):
    ...     fh.write(b"half")
    ...     raise OSError("disk full")
    >>> try:
    ...     write_atomic(path, fail)
    ... except OSError as exc:
    ...     print(exc)
    disk full
    >>> pathlib.Path(path).read_bytes(), sorted(os.listdir(os.path.dirname(path)))
    (b'old', ['a.txt'])
    """
    path = file_name(path)
    folder, name = os.path.split(path)
    folder = folder or "."
    fd, tmp = _create_new(folder, f".{name}.", ".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            if not fh.closed:
                fh.flush()
        sync = os.open(tmp, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            os.fsync(sync)
        finally:
            os.close(sync)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    _sync_folder(folder)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """:func:`write_atomic` of ``text`` in UTF-8."""
    data = text.encode("utf-8")
    write_atomic(path, lambda fh: fh.write(data))
