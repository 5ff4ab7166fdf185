"""Numba options shared by every kernel in the package, and where compiled kernels live.

Kernels are compiled lazily, on first call, and kept on disk so that later
processes load them in a fraction of a second; importing :mod:`snl_numeric`
never compiles anything. ``fastmath`` is deliberately off: probabilities and
Monte Carlo estimates must keep IEEE semantics for NaN and infinity.

Where compiled kernels are kept
    Never inside the installed package (a file left there survives
    ``pip uninstall`` and can shadow a later install). The directory is, in
    order:

    1. ``$NUMBA_CACHE_DIR`` when set (Numba's own setting, honoured as Numba
       does);
    2. the per-user cache directory given by :mod:`platformdirs`:
       ``$XDG_CACHE_HOME/snl_numeric`` or ``~/.cache/snl_numeric`` on Linux,
       ``~/Library/Caches/snl_numeric`` on macOS,
       ``%LOCALAPPDATA%\\snl_numeric\\Cache`` on Windows. A relative
       ``$XDG_CACHE_HOME`` is ignored (the XDG rule); a home directory that is
       not one (``HOME=/``, or no home at all) gives no directory: kernels are
       then compiled in memory for each process, and :func:`cache_dir` is None.

    :func:`cache_dir` returns it. Inside, each installed copy of the package
    gets its own sub-directory (named after its location), and every cached
    kernel is keyed by a hash of the whole package's source (kernels inline
    kernels of other modules), so an upgrade or an edit never loads stale
    code. Nothing is written until a kernel is first compiled; when the
    directory cannot be written, kernels are compiled in memory for the
    process instead (with one logged warning). A damaged entry (a truncated,
    empty or garbage file) is dropped, with a logged warning, and the kernel
    compiled and saved afresh. ``snl warmup`` (or :func:`snl_numeric.warmup`)
    compiles every kernel ahead of time, for container images and CI.

The first compilation in a process is logged once (logger ``snl_numeric``, level
INFO: ``compiling kernels (first run only)...``); the ``snl`` command shows it on
standard error so that a cold start is never a silent wait. Library code prints
nothing itself: its notes and warnings (a damaged entry, a directory that cannot be
written) go through that logger, whose warnings Python shows on standard error when
no handler is configured. Nothing here changes Numba's or Python's process-wide
settings.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import os
import pathlib
import sys
import tempfile
from functools import cache
from typing import cast

import numba
import platformdirs
from numba.core import caching, event

#: Options for serial kernels. No kernel is used as a first-class function (a C callback),
#: so none needs Numba's C wrapper: leaving it out saves ~10% of every cold compile.
JIT = {"nogil": True, "cache": True, "fastmath": False, "no_cfunc_wrapper": True}

#: The note logged once per process when a kernel of the package is first compiled.
COMPILE_NOTE = "compiling kernels (first run only)..."
#: The package's logger (the ``snl`` command shows its INFO records on standard error).
LOGGER = logging.getLogger("snl_numeric")

_PACKAGE = __name__.split(".")[0]
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_cache_dir() -> str | None:
    """The per-user cache directory of the package (whether or not it exists yet), or None
    when there is no home directory to put it in."""
    try:
        path = platformdirs.user_cache_dir(_PACKAGE, appauthor=False)
    except RuntimeError:  # no home directory can be found
        return None
    parts = pathlib.PurePath(path).parts
    if not os.path.isabs(path) or (sys.platform != "win32" and len(parts) > 1
                                   and parts[1].startswith(".")):
        return None  # under the current directory, or at /.cache: HOME is "" or "/"
    return path


def cache_dir() -> str | None:
    """Where compiled kernels are kept: ``$NUMBA_CACHE_DIR`` if set, else
    ``platformdirs.user_cache_dir`` (None: nowhere, kernels are compiled in memory).

    Examples
    --------
    >>> import os
    >>> os.path.isabs(cache_dir())
    True
    """
    chosen = os.environ.get("NUMBA_CACHE_DIR") or user_cache_dir()
    return None if chosen is None else os.path.abspath(chosen)


def check_cache_writable() -> str:
    """The cache directory, created if need be, after writing a file in it; ``OSError``
    saying why when there is none or it cannot be written (``snl warmup`` fails then)."""
    folder = cache_dir()
    if folder is None:
        raise OSError("no kernel cache directory: there is no home directory (HOME is empty "
                      "or '/'); set NUMBA_CACHE_DIR to a writable directory")
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder) as fh:
            fh.write(b"snl_numeric")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise OSError(f"cannot write the kernel cache directory {folder} ({exc.strerror or exc})"
                      "; set NUMBA_CACHE_DIR to a writable directory") from None
    return folder


@cache
def _package_hash(root: str) -> bytes:
    """A hash of every source file of the package (read once per process)."""
    h = hashlib.sha256()
    for dirpath, _, filenames in sorted(os.walk(root)):
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                h.update(os.path.relpath(path, root).encode() + b"\0")
                with open(path, "rb") as fh:
                    h.update(fh.read())
    return h.digest()


class PackageCacheLocator:
    """A Numba cache locator that keeps a module's kernels under :func:`cache_dir`.

    The sub-directory is named after the module's folder and a hash of its
    path (as Numba names its own), so two installed copies never share files.
    Unlike Numba's default locators it neither falls back to the source tree
    nor creates anything before the first kernel is saved.
    """

    def __init__(self, py_func, py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        folder = os.path.dirname(os.path.abspath(py_file))
        digest = hashlib.sha1(folder.encode()).hexdigest()[:16]
        root = cast(str, cache_dir())  # installed only where there is a cache (see below)
        self._cache_path = os.path.join(root, f"{os.path.basename(folder)}_{digest}")

    @classmethod
    def from_function(cls, py_func, py_file: str):
        return cls(py_func, py_file) if os.path.exists(py_file) else None

    def ensure_cache_path(self) -> None:
        os.makedirs(self._cache_path, exist_ok=True)

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> bytes:
        # the whole package, not the kernel's file: a kernel inlines kernels of other
        # modules, and is stale when any of them changes (an upgrade, an edit)
        return _package_hash(_PACKAGE_ROOT)

    def get_disambiguator(self) -> str:
        return str(self._lineno)


class _CacheImpl(caching.CompileResultCacheImpl):
    _locator_classes = [PackageCacheLocator]


class PackageFunctionCache(caching.FunctionCache):
    """Numba's function cache with :class:`PackageCacheLocator`. A damaged entry is dropped
    (logged) and the kernel compiled afresh; a directory that cannot be written turns
    caching off for the function (logged once per process) instead of failing the compile."""

    _impl_class = _CacheImpl
    #: Whether a kernel could not be saved in this process (``warmup`` reports it).
    unsaved = False

    def load_overload(self, sig, target_context):
        try:
            return super().load_overload(sig, target_context)
        except OSError:  # e.g. the directory is a file: compile instead
            return None
        except Exception as exc:  # a truncated, empty or garbage file: drop it, recompile
            index = os.path.join(self.cache_path, self._impl.filename_base + ".nbi")
            LOGGER.warning("dropped a damaged kernel cache entry %s (%s: %s); recompiling it",
                           index, type(exc).__name__, exc)
            try:  # without its index, the entry's data files are overwritten when saved
                os.remove(index)
            except FileNotFoundError:
                pass
            except OSError:
                self.disable()
            return None

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        except Exception as exc:  # noqa: BLE001 - never fail a compile for want of a cache
            self.disable()
            if not PackageFunctionCache.unsaved:
                PackageFunctionCache.unsaved = True
                LOGGER.warning("cannot save compiled kernels in %s (%s: %s); they are compiled "
                               "anew in each process: set NUMBA_CACHE_DIR to a writable "
                               "directory", self.cache_path, type(exc).__name__, exc)


def _attach_cache(dispatcher) -> None:
    """Give ``dispatcher`` the package's disk cache (Numba's ``cache=True`` would use
    the source tree: inside the installed package)."""
    if (hasattr(dispatcher, "_cache") and cache_dir() is not None
            and os.path.exists(inspect.getfile(dispatcher.py_func))):
        dispatcher._cache = PackageFunctionCache(dispatcher.py_func)


def njit(**overrides):
    """``numba.njit`` with the package defaults (cached under :func:`cache_dir`)."""
    options = {**JIT, **overrides}
    cache = options.pop("cache")

    def decorate(fn):
        dispatcher = numba.njit(**options)(fn)
        if cache:
            _attach_cache(dispatcher)
        return dispatcher

    return decorate


class _CompileNote(event.Listener):
    """Logs :data:`COMPILE_NOTE` (logger ``snl_numeric``, level INFO) when the first of the
    package's kernels starts compiling in this process; observes, changes nothing."""

    def __init__(self) -> None:
        self.shown = False

    def on_start(self, ev) -> None:
        if self.shown:
            return
        module = getattr(ev.data["dispatcher"].py_func, "__module__", "") or ""
        if module.split(".")[0] == _PACKAGE:
            self.shown = True
            LOGGER.info(COMPILE_NOTE)

    def on_end(self, ev) -> None:
        pass


event.register("numba:compile", _CompileNote())
