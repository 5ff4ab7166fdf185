"""Numba options shared by every kernel in the package, and the notes around compiling.

Kernels are plain ``numba.njit(cache=True)`` functions, compiled lazily on first
call and kept on disk by Numba, so that later processes load them in a fraction
of a second; importing :mod:`snl_numeric` never compiles anything. ``fastmath``
is deliberately off: probabilities and Monte Carlo estimates must keep IEEE
semantics for NaN and infinity.

Where compiled kernels are kept
    Where Numba keeps them (its documented order): ``$NUMBA_CACHE_DIR`` when set
    and writable; else a ``__pycache__`` folder beside each module of the
    package; else Numba's per-user cache directory (``~/.cache/numba`` on
    Linux). :func:`cache_dir` says which. Numba drops an entry when its own
    module's source changes, but not when a kernel of *another* module that it
    inlines does (its documented limitation); so each cache folder also keeps a
    hash of the whole package's source (``snl_numeric.sources``), and the first
    kernel a process compiles or loads from a folder whose hash differs (an
    upgrade, an edit) removes the folder's entries first. When no folder can be
    written, kernels are compiled in memory for each process and a warning says
    so once, with how to set ``NUMBA_CACHE_DIR``.

A damaged entry heals
    An entry that fails to load (a truncated, empty or garbage file), or that
    loads the code of another signature (two ``.nbc`` files swapped), has its
    files removed, with a logged warning, and the kernel is compiled afresh, once.
    A folder that cannot be written never fails a computation: the kernel is
    kept in memory, with one warning per process. This is done by wrapping each
    kernel's public ``compile`` method, through which Numba compiles (or loads)
    every signature, for a call from Python and for a call from another kernel
    alike; the call of a compiled kernel costs nothing more.

Numba is imported on first use
    ``import snl_numeric`` imports no Numba (about half a second): :func:`njit` returns a
    :class:`Deferred` stand-in, and :func:`overload`, :func:`register_jitable` and
    :func:`intrinsic` wait likewise. The first call of any kernel (or :func:`cache_dir`)
    runs :func:`make_kernels`, once, under a lock: Numba is imported, every registration
    made and every kernel made by ``numba.njit``, and each module's name bound to a stand-in
    is bound to its dispatcher, so that kernels calling kernels see Numba's dispatchers and
    Numba compiles the same code as if they had been made at import. Kernels decorated
    after that are made at once. Only public Numba names are used.

The first compilation of a process prints one line on standard error
(:data:`COMPILE_NOTE`, from a :mod:`numba.core.event` listener), in a script, a notebook
or the ``snl`` command alike, so that a cold start is never a silent wait; ``SNL_QUIET=1``
leaves it out. The package's warnings go through its logger (``snl_numeric``), which
Python shows on standard error when no handler is configured. Nothing here changes
Numba's or Python's process-wide settings.
"""

from __future__ import annotations

import collections
import functools
import glob
import hashlib
import logging
import os
import sys
import tempfile
import threading

#: Options for serial kernels. No kernel is used as a first-class function (a C callback),
#: so none needs Numba's C wrapper: leaving it out saves ~10% of every cold compile.
JIT = {"nogil": True, "cache": True, "fastmath": False, "no_cfunc_wrapper": True}

#: The environment variable that silences :data:`COMPILE_NOTE` (any value but "" or "0").
QUIET_ENV = "SNL_QUIET"
#: The note printed on standard error once per process, when a kernel of the package
#: starts compiling (an empty or outdated cache; ``snl warmup`` compiles ahead of time).
COMPILE_NOTE = ("compiling kernels on first use (seconds to a minute; cached for later runs, "
                f"{QUIET_ENV}=1 hides this)...")
#: The package's logger (its warnings; the ``snl`` command shows them on standard error).
LOGGER = logging.getLogger("snl_numeric")

_PACKAGE = __name__.split(".")[0]
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ADVICE = "set NUMBA_CACHE_DIR to a writable directory"
#: The package's cached kernels, and what was said in this process (each note once).
_KERNELS: list = []
_SAID: set[str] = set()
#: Kernels kept nowhere ("nowhere") or not in NUMBA_CACHE_DIR (their folder), by id.
_PLACES: dict[int, str] = {}
#: Cache folders whose source hash this process has checked, and the package's hash.
_CHECKED: set[str] = set()
_SOURCES: list[str] = []
_LOCK = threading.Lock()


def _say_once(key: str, message: str, *args) -> None:
    if key not in _SAID:
        _SAID.add(key)
        LOGGER.warning(message, *args)


def _root(path: str) -> str:
    """The cache directory a kernel's cache folder is in (the package's folder for
    Numba's ``__pycache__`` beside each module)."""
    if os.path.basename(path) == "__pycache__":
        return _PACKAGE_ROOT
    return os.path.dirname(path)


def cache_dir() -> str | None:
    """Where Numba keeps the package's compiled kernels: ``$NUMBA_CACHE_DIR``, the
    package's folder (a ``__pycache__`` beside each module) or Numba's per-user cache
    directory; None when they cannot be kept (compiled in memory for each process).

    Examples
    --------
    >>> import os
    >>> os.path.isabs(cache_dir())
    True
    """
    roots = collections.Counter(_root(d.stats.cache_path) for d in make_kernels()
                                if d.stats.cache_path is not None
                                and d.py_func.__module__.split(".")[0] == _PACKAGE)
    if roots:
        return roots.most_common(1)[0][0]
    # no kernel module imported yet (the package imports its modules on first use): ask
    # Numba where it would keep a kernel of this module (made, never compiled)
    import numba

    try:
        stats = getattr(numba.njit(cache=True)(_where), "stats", None)  # none without JIT
    except RuntimeError:  # "cannot cache function": no folder can be written
        return None
    path = getattr(stats, "cache_path", None)
    return None if path is None else _root(path)


def _where() -> None:
    """The function :func:`cache_dir` asks Numba about, before any kernel is made."""


def unsaved() -> bool:
    """Whether a kernel of this process could not be kept where :func:`cache_dir`
    says (``snl warmup`` fails then)."""
    return bool(_SAID & {"unsaved", "nowhere", "elsewhere"})


def check_cache_writable() -> str:
    """The cache directory, after writing a file in it; ``OSError`` saying why when
    there is none or it cannot be written (``snl warmup`` fails then)."""
    folder = cache_dir()
    if folder is None:
        raise OSError(f"no kernel cache directory: Numba can write none; {_ADVICE}")
    if os.environ.get("NUMBA_CACHE_DIR"):
        folder = os.path.abspath(os.environ["NUMBA_CACHE_DIR"])
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder) as fh:
            fh.write(b"snl_numeric")
    except OSError as exc:
        raise OSError(f"cannot write the kernel cache directory {folder} "
                      f"({exc.strerror or exc}); {_ADVICE}") from None
    return folder


def _stem(dispatcher) -> str:
    """The start of the names of a kernel's cache files: ``<module>.<function>-<line>.pyXY``
    (``.nbi`` the index, ``.<n>.nbc`` the code), as Numba's ``Cache`` class describes them."""
    fn = dispatcher.py_func
    module = os.path.splitext(os.path.basename(fn.__code__.co_filename))[0]
    name = fn.__qualname__.replace("<", "").replace(">", "")
    version = f"py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
    return f"{module}.{name}-{fn.__code__.co_firstlineno}.{version}"


def _remove(base: str) -> int:
    removed = 0
    for path in [base + ".nbi", *glob.glob(glob.escape(base) + ".*.nbc")]:
        try:
            os.remove(path)
            removed += 1
        except FileNotFoundError:
            pass
    return removed


def _package_hash() -> str:
    """A hash of every source file of the package (computed once per process)."""
    if not _SOURCES:
        h = hashlib.sha256()
        for dirpath, dirnames, filenames in os.walk(_PACKAGE_ROOT):
            dirnames.sort()
            for name in sorted(f for f in filenames if f.endswith(".py")):
                path = os.path.join(dirpath, name)
                h.update(os.path.relpath(path, _PACKAGE_ROOT).encode() + b"\0")
                with open(path, "rb") as fh:
                    h.update(fh.read())
        _SOURCES.append(h.hexdigest())
    return _SOURCES[0]


def _check_sources(folder: str) -> None:
    """Empty a cache folder made from other sources of the package than these."""
    stamp = os.path.join(folder, f"{_PACKAGE}.sources")
    try:
        with open(stamp) as fh:
            if fh.read() == _package_hash():
                _CHECKED.add(folder)
                return
    except OSError:
        pass
    try:
        for path in glob.glob(os.path.join(glob.escape(folder), "*.nb[ic]")):
            os.remove(path)
        temporary = f"{stamp}.{os.getpid()}"
        with open(temporary, "w") as fh:
            fh.write(_package_hash())
        os.replace(temporary, stamp)
    except OSError:  # a folder that cannot be written: its kernels are kept in memory
        pass
    finally:
        _CHECKED.add(folder)


def _healing(dispatcher, options: dict):
    """``dispatcher.compile``, healing a damaged cache entry and a failed save."""
    compile_ = dispatcher.compile
    stats = dispatcher.stats

    def attempt(sig, args):
        """Compile or load ``sig``: its entry point, or None when its entry in the
        cache is damaged (failed to load, or holds another signature's code)."""
        hits, misses = sum(stats.cache_hits.values()), sum(stats.cache_misses.values())
        try:
            entry = compile_(sig)
        except Exception as exc:
            if sum(stats.cache_misses.values()) == misses:  # raised loading: damaged
                return None, f"{type(exc).__name__}: {exc}"
            if args not in dispatcher.overloads:
                raise  # the compile itself failed
            _say_once("unsaved", "cannot save compiled kernels in %s (%s: %s); they are "
                      "compiled anew in each process: %s", stats.cache_path,
                      type(exc).__name__, exc, _ADVICE)
            return dispatcher.overloads[args].entry_point, None
        if sum(stats.cache_hits.values()) > hits and args not in dispatcher.overloads:
            return None, "it holds the code of another signature"
        return entry, None

    def compile(sig):
        if isinstance(sig, str):  # not from a call: no heal
            return compile_(sig)
        if stats.cache_path not in _CHECKED:
            with _LOCK:
                if stats.cache_path not in _CHECKED:
                    _check_sources(stats.cache_path)
        args = tuple(getattr(sig, "args", sig))
        entry, why = attempt(sig, args)
        if entry is not None:
            return entry
        base = os.path.join(stats.cache_path, _stem(dispatcher))
        _say_once(base, "dropped a damaged kernel cache entry %s (%s); recompiling it",
                  base + ".nbi", why)
        try:
            _remove(base)
            entry, why = attempt(sig, args)
        except OSError as exc:
            why = f"{type(exc).__name__}: {exc}"
        if entry is not None:
            return entry
        # the files cannot be removed or still fail: compile in memory, once
        _say_once("unsaved", "cannot use the kernel cache in %s (%s); kernels are compiled "
                  "anew in each process: %s", stats.cache_path, why, _ADVICE)
        import numba

        twin = numba.njit(**{**options, "cache": False})(dispatcher.py_func)
        twin.compile(sig)
        dispatcher.add_overload(twin.overloads[args])
        return twin.overloads[args].entry_point

    return compile


def _dispatcher(fn, options: dict):
    """``numba.njit(**options)(fn)``, its cache healing (Numba is imported by now)."""
    import numba

    try:
        dispatcher = numba.njit(**options)(fn)
    except RuntimeError:  # "cannot cache function": Numba can write no cache folder
        dispatcher = numba.njit(**{**options, "cache": False})(fn)
    if options["cache"] and hasattr(dispatcher, "stats"):  # not NUMBA_DISABLE_JIT
        _KERNELS.append(dispatcher)
        path, chosen = dispatcher.stats.cache_path, numba.config.CACHE_DIR
        if path is None:
            _PLACES[id(dispatcher)] = "nowhere"
        else:
            dispatcher.compile = _healing(dispatcher, options)
            if chosen and os.path.dirname(os.path.abspath(path)) != os.path.abspath(chosen):
                _PLACES[id(dispatcher)] = path
    return dispatcher


class Deferred:
    """A kernel (or another Numba object) not made yet: Numba is imported, and every
    deferred object of the process made, when the first of them is called or inspected
    (:func:`make_kernels`). Then each module's name bound to a deferred object is bound to
    what it stands for, so that kernels calling kernels see Numba's dispatchers."""

    def __init__(self, fn, make) -> None:
        functools.update_wrapper(self, fn)
        self._make = make
        self._made = None

    @property
    def made(self):
        """The dispatcher (or intrinsic) this stands for, made on first use."""
        if self._made is None:
            make_kernels()
        return self._made

    def __call__(self, *args, **kwargs):
        return self.made(*args, **kwargs)

    def __getattr__(self, name: str):  # the dispatcher's: stats, signatures, py_func, ...
        if name.startswith("__") or name in ("_make", "_made"):
            raise AttributeError(name)
        return getattr(self.made, name)

    def __repr__(self) -> str:
        return f"<deferred kernel {self.__module__}.{self.__qualname__}>"


#: What was decorated before Numba was imported: deferred objects and registrations.
_PENDING: list = []
_MADE = threading.Event()
_MAKING = threading.RLock()


def _defer(fn, make):
    """``make()`` now when Numba is imported already, else a :class:`Deferred` for it."""
    with _MAKING:
        if _MADE.is_set():
            return make()
        deferred = Deferred(fn, make)
        _PENDING.append(deferred)
        return deferred


def _register(action) -> None:
    """Run ``action()`` (a registration with Numba) now, or when Numba is imported."""
    with _MAKING:
        if _MADE.is_set():
            action()
        else:
            _PENDING.append(action)


def make_kernels() -> list:
    """Import Numba and make every kernel decorated so far (what the first call of a kernel
    does; later decorations make their kernel at once); the package's cached kernels.

    Importing :mod:`snl_numeric` imports no Numba: the NumPy/SciPy paths never need it.
    Call this before compiling your own Numba function that calls the package's kernels
    or overloads.
    """
    if not _MADE.is_set():
        with _MAKING:
            if not _MADE.is_set():
                from numba.core import event

                event.register("numba:compile", _compile_note())
                for item in _PENDING:
                    if isinstance(item, Deferred):
                        item._made = item._make()
                    else:
                        item()
                for module in list(sys.modules.values()):  # rebind names to the made objects
                    try:
                        names = vars(module)
                    except TypeError:
                        continue
                    for name, value in list(names.items()):
                        if type(value) is Deferred:
                            names[name] = value._made
                _PENDING.clear()
                _MADE.set()
    return list(_KERNELS)


def njit(**overrides):
    """``numba.njit`` with the package defaults (:data:`JIT`), its cache healing, made on
    first use (:class:`Deferred`)."""
    options = {**JIT, **overrides}

    def decorate(fn):
        return _defer(fn, lambda: _dispatcher(fn, options))

    return decorate


def intrinsic(fn):
    """``numba.extending.intrinsic(fn)``, made on first use."""

    def make():
        from numba.extending import intrinsic as numba_intrinsic

        return numba_intrinsic(fn)

    return _defer(fn, make)


def overload(func, **options):
    """``numba.extending.overload(func, **options)``, registered when Numba is imported."""

    def decorate(impl):
        def action():
            from numba.extending import overload as numba_overload

            numba_overload(func, **options)(impl)

        _register(action)
        return impl

    return decorate


def register_jitable(fn):
    """``numba.extending.register_jitable(fn)``, registered when Numba is imported."""

    def action():
        from numba.extending import register_jitable as numba_register_jitable

        numba_register_jitable(fn)

    _register(action)
    return fn


def _say_compiling() -> None:
    """Print :data:`COMPILE_NOTE` on standard error, unless ``$SNL_QUIET`` says not to."""
    if os.environ.get(QUIET_ENV, "").strip() not in ("", "0"):
        return
    try:
        print(f"{_PACKAGE}: {COMPILE_NOTE}", file=sys.stderr, flush=True)
    except (AttributeError, OSError, ValueError):  # no standard error, or closed
        pass


def skip_compile_note() -> None:
    """Print no :data:`COMPILE_NOTE` in this process (``warmup``'s worker processes: their
    parent reports)."""
    _SAID.add("note")


def _compile_note():
    """A :mod:`numba.core.event` listener: prints :data:`COMPILE_NOTE` when the first of the
    package's kernels starts compiling in this process, and warns once when a kernel
    cannot be kept (or not where ``NUMBA_CACHE_DIR`` says); observes, changes nothing."""
    from numba.core import event

    class CompileNote(event.Listener):
        def on_start(self, ev) -> None:
            dispatcher = ev.data["dispatcher"]
            module = getattr(dispatcher.py_func, "__module__", "") or ""
            if module.split(".")[0] == _PACKAGE and "note" not in _SAID:
                _SAID.add("note")
                _say_compiling()
            where = _PLACES.get(id(dispatcher))
            if where == "nowhere":
                _say_once(where, "compiled kernels cannot be kept: Numba can write no cache "
                          "folder (NUMBA_CACHE_DIR, a __pycache__ beside the modules, its "
                          "per-user cache directory); they are compiled anew in each "
                          "process: %s", _ADVICE)
            elif where is not None:
                _say_once("elsewhere", "cannot write the kernel cache directory "
                          "NUMBA_CACHE_DIR; Numba keeps kernels in %s instead", where)

        def on_end(self, ev) -> None:
            pass

    return CompileNote()
