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
    2. the per-user cache directory: ``$XDG_CACHE_HOME/snl_numeric`` or
       ``~/.cache/snl_numeric`` on Linux, ``~/Library/Caches/snl_numeric`` on
       macOS, ``%LOCALAPPDATA%\\snl_numeric\\Cache`` on Windows.

    :func:`cache_dir` returns it. Inside, each installed copy of the package
    gets its own sub-directory (named after its location), and every cached
    kernel is keyed by a hash of the whole package's source (kernels inline
    kernels of other modules), so an upgrade or an edit never loads stale
    code. Nothing is written until a kernel is first compiled; when the
    directory cannot be written, kernels are compiled in memory for the
    process instead. ``snl warmup`` (or :func:`snl_numeric.warmup`) compiles
    every kernel ahead of time, for container images and CI.

The first compilation in a process prints one line on standard error
(``snl_numeric: compiling kernels (first run only)...``) so that a cold start
is never a silent wait. While the package compiles, Python's cyclic garbage
collector runs less often, and a few kernels are optimised by LLVM at a lower
level (see :class:`_CompileWatch`).
"""

from __future__ import annotations

import gc
import hashlib
import inspect
import os
import sys
import threading
from collections.abc import Callable
from functools import cache

import numba
from numba.core import caching, event

#: Options for serial kernels. No kernel is used as a first-class function (a C callback),
#: so none needs Numba's C wrapper: leaving it out saves ~10% of every cold compile.
JIT = {"nogil": True, "cache": True, "fastmath": False, "no_cfunc_wrapper": True}

#: The note printed once per process when a kernel of the package is first compiled.
COMPILE_NOTE = "snl_numeric: compiling kernels (first run only)..."

_PACKAGE = __name__.split(".")[0]
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_cache_dir() -> str:
    """The per-user cache directory of the package (whether or not it exists yet)."""
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(base, _PACKAGE, "Cache")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Caches", _PACKAGE)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    return os.path.join(base, _PACKAGE)


def cache_dir() -> str:
    """Where compiled kernels are kept: ``$NUMBA_CACHE_DIR`` if set, else :func:`user_cache_dir`.

    Examples
    --------
    >>> import os
    >>> os.path.isabs(cache_dir())
    True
    """
    return os.path.abspath(numba.config.CACHE_DIR or user_cache_dir())


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
        self._cache_path = os.path.join(cache_dir(), f"{os.path.basename(folder)}_{digest}")

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
    """Numba's function cache with :class:`PackageCacheLocator`; a directory that cannot
    be written turns caching off for the function instead of failing the compile."""

    _impl_class = _CacheImpl

    def load_overload(self, sig, target_context):
        try:
            return super().load_overload(sig, target_context)
        except OSError:  # e.g. the directory is a file: compile instead
            return None

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        except OSError:
            self.disable()


def _attach_cache(dispatcher) -> None:
    """Give ``dispatcher`` the package's disk cache (Numba's ``cache=True`` would use
    the source tree: inside the installed package)."""
    if hasattr(dispatcher, "_cache") and os.path.exists(inspect.getfile(dispatcher.py_func)):
        dispatcher._cache = PackageFunctionCache(dispatcher.py_func)


#: LLVM's optimisation level for the per-board kernels of batch analysis and board
#: design (``njit(opt=PER_BOARD_OPT)``): measured as fast at 1 as at Numba's 3 on boards
#: of 100 and 10,000 squares (README, Performance), they compile faster. Level 1
#: everywhere was measured too, and refused: the large-board solver, ``throw_distances``,
#: race and policy kernels ran 7-45% slower.
PER_BOARD_OPT = 1
#: LLVM optimisation levels (``NUMBA_OPT``) of the kernels given one by :func:`njit`.
_KERNEL_OPT: dict[Callable, int] = {}


def njit(*, opt: int | None = None, **overrides):
    """``numba.njit`` with the package defaults (cached under :func:`cache_dir`).

    ``opt`` lowers LLVM's optimisation level (``NUMBA_OPT``, 3 by default) for this
    kernel's compilation, whoever triggers it (see :class:`_CompileWatch`): for kernels
    measured to run as fast at that level, which then compile faster. It never raises
    the user's level, and ``NUMBA_OPT=max`` is kept.
    """
    options = {**JIT, **overrides}
    cache = options.pop("cache")

    def decorate(fn):
        dispatcher = numba.njit(**options)(fn)
        if cache:
            _attach_cache(dispatcher)
        if opt is not None:
            _KERNEL_OPT[fn] = opt
        return dispatcher

    return decorate


#: A kernel's loop of up to about this many steps is cheaper to run as plain Python
#: (:func:`python_twin`) than to compile on a cold start.
SMALL_LOOP = 256


def python_twin(kernel):
    """The plain Python function a kernel compiles (the kernel itself when JIT is off):
    for callers that run a small input without compiling."""
    return getattr(kernel, "py_func", kernel)


#: Python's garbage-collector thresholds while the package compiles (see :class:`_CompileWatch`).
COMPILE_GC_THRESHOLD = (100_000, 50, 1000)


class _CompileWatch(event.Listener):
    """Prints :data:`COMPILE_NOTE` when the package's first kernel compilation starts;
    makes Python's cyclic garbage collector run less often while the package compiles;
    sets LLVM's optimisation level for each of the package's kernels it compiles.

    A compilation allocates millions of short-lived objects, and with the default
    thresholds the collections they trigger scan the compiler's large, long-lived object
    graph again and again. :data:`COMPILE_GC_THRESHOLD` makes a cold start about 10%
    faster (0.5 s of ``analyze_many``'s first call) for a few percent more peak memory
    (14 MB of its 308; young garbage is still collected). A higher threshold of the
    user's is kept, and a threshold of 0 (automatic collection off) is left alone; the
    thresholds are restored as soon as the outermost compilation ends (even by an
    error).

    A kernel given ``opt`` by :func:`njit` is optimised at that level, and every other
    kernel of the package at the user's: the level is set when a kernel's compilation
    starts and put back when it ends (the user's is first re-read from the environment,
    as Numba itself does; a level Numba reloads during a compilation stays). So a
    kernel's own compiled copy has one level, whoever triggers it; its copy linked into
    a lowered kernel, and any of Numba's helpers first compiled there, are optimised
    with that kernel. Numba holds its compiler lock through a compilation: no other thread
    compiles meanwhile. What follows the level is LLVM's optimisation passes, which
    Numba (0.68) builds for every compiled library from ``NUMBA_OPT``; the machine-code
    generator keeps the level Numba started with.
    """

    def __init__(self) -> None:
        self.shown = False
        self._lock = threading.Lock()
        self._threshold = gc.get_threshold()
        self._user_opt = numba.config.OPT
        self._running: list = []  # per compilation under way: (level before, level set)

    @staticmethod
    def _ours(ev) -> bool:
        module = getattr(ev.data["dispatcher"].py_func, "__module__", "") or ""
        return module.split(".")[0] == _PACKAGE

    def _opt_level(self, py_func):
        """The level to compile ``py_func``'s kernel at."""
        user = self._user_opt
        level = _KERNEL_OPT.get(py_func)
        if level is None or level >= user or getattr(user, "is_opt_max", False):
            return user
        return type(user)(level)  # Numba's own int type

    def on_start(self, ev) -> None:
        if not self._ours(ev):
            return
        with self._lock:
            if not self._running:  # the outermost compilation
                numba.config.reload_config()  # as Numba will: the user's current level
                self._threshold = gc.get_threshold()
                if self._threshold[0]:  # 0: the user turned automatic collection off
                    gc.set_threshold(*map(max, self._threshold, COMPILE_GC_THRESHOLD))
                self._user_opt = numba.config.OPT
            level = self._opt_level(ev.data["dispatcher"].py_func)
            self._running.append((numba.config.OPT, level))
            numba.config.OPT = level
            show = not self.shown
            self.shown = True
        if show:
            try:
                print(COMPILE_NOTE, file=sys.stderr, flush=True)
            except (OSError, ValueError):  # pragma: no cover - stderr closed
                pass

    def on_end(self, ev) -> None:
        if not self._ours(ev):
            return
        with self._lock:
            before, level = self._running.pop()
            if numba.config.OPT is level:
                numba.config.OPT = before
            if not self._running:
                gc.set_threshold(*self._threshold)


COMPILE_LISTENER = _CompileWatch()
event.register("numba:compile", COMPILE_LISTENER)
