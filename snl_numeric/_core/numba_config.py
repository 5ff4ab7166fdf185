"""Numba options shared by every kernel in the package, and the notes around compiling.

Kernels are ``numba.njit(cache=True)`` functions (:data:`JIT`), compiled on first call and
kept where Numba keeps them (its documented order: ``$NUMBA_CACHE_DIR`` when set and
writable, else a ``__pycache__`` folder beside each module, else Numba's per-user cache
directory; :func:`cache_dir` says which). ``fastmath`` stays off: probabilities and Monte
Carlo estimates keep IEEE semantics for NaN and infinity. Only Numba's public interface is
used, and no process-wide setting of Numba or Python is changed.

- ``import snl_numeric`` imports no Numba: :func:`njit` and :func:`intrinsic` return a
  :class:`Deferred`, and :func:`overload` and :func:`register_jitable` wait, until the first
  kernel is called (:func:`make_kernels`).
- Numba drops a cache entry when its own module changes, not when a kernel of another
  module that it inlines does (its documented limitation): each cache folder keeps a hash of
  the package's source (``snl_numeric.sources``) and is emptied when the hash differs.
- An entry that fails to load, or loads another signature's code (two ``.nbc`` files
  swapped), is removed with a warning and compiled again, once. A kernel that cannot be
  kept is compiled in memory for each process, with one warning per process
  (:func:`unsaved`). Both go through each kernel's public ``compile`` method, by which Numba
  compiles or loads every signature, for a call from Python or from another kernel.
- The first compilation of a process prints :data:`COMPILE_NOTE` on standard error (a
  :mod:`numba.core.event` listener); ``SNL_QUIET=1`` leaves it out. Warnings go through the
  package's logger (``snl_numeric``).
"""

from __future__ import annotations

import contextlib
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
_KERNELS: list = []  # the cached kernels made so far
_ELSEWHERE: dict[int, str] = {}  # id -> cache folder of kernels not in NUMBA_CACHE_DIR
_SAID: set[str] = set()  # what this process said (each once)
_CHECKED: set[str] = set()  # cache folders whose source hash this process checked
_LOCK = threading.Lock()


def _say_once(key: str, message: str, *args) -> None:
    if key not in _SAID:
        _SAID.add(key)
        LOGGER.warning(message, *args)


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
    import numba

    try:  # where Numba would keep a kernel of this module (made, never compiled)
        path = numba.njit(cache=True)(_where).stats.cache_path
    except (RuntimeError, AttributeError):  # no folder can be written; NUMBA_DISABLE_JIT
        return None
    return _PACKAGE_ROOT if os.path.basename(path) == "__pycache__" else os.path.dirname(path)


def _where() -> None:
    """The function :func:`cache_dir` asks Numba about."""


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


def cache_stem(dispatcher) -> str:
    """The start of the names of a kernel's cache files: ``<module>.<function>-<line>.pyXY``
    (``.nbi`` the index, ``.<n>.nbc`` the code), as Numba's ``Cache`` class describes them."""
    fn = dispatcher.py_func
    module = os.path.splitext(os.path.basename(fn.__code__.co_filename))[0]
    name = fn.__qualname__.replace("<", "").replace(">", "")
    version = f"py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
    return f"{module}.{name}-{fn.__code__.co_firstlineno}.{version}"


@functools.cache
def _package_hash() -> str:
    """A hash of every source file of the package."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(_PACKAGE_ROOT):
        dirnames.sort()
        for name in sorted(f for f in filenames if f.endswith(".py")):
            path = os.path.join(dirpath, name)
            h.update(os.path.relpath(path, _PACKAGE_ROOT).encode() + b"\0")
            with open(path, "rb") as fh:
                h.update(fh.read())
    return h.hexdigest()


def _check_sources(folder: str) -> None:
    """Empty a cache folder made from other sources of the package than these, once per
    process (a folder that cannot be written is left as it is)."""
    with _LOCK:
        if folder in _CHECKED:
            return
        _CHECKED.add(folder)
        stamp = os.path.join(folder, f"{_PACKAGE}.sources")
        try:
            with open(stamp) as fh:
                if fh.read() == _package_hash():
                    return
        except OSError:
            pass
        try:
            for path in glob.glob(os.path.join(glob.escape(folder), "*.nb[ic]")):
                os.remove(path)
            with open(f"{stamp}.{os.getpid()}", "w") as fh:
                fh.write(_package_hash())
            os.replace(fh.name, stamp)
        except OSError:
            pass


def _healing(dispatcher, options: dict):
    """``dispatcher.compile``, healing a damaged cache entry and a failed save."""
    compile_, stats = dispatcher.compile, dispatcher.stats

    def attempt(sig, args):
        """Compile or load ``sig``: its entry point, or None and why when its cache entry
        is damaged (fails to load, or holds another signature's code)."""
        hits, misses = sum(stats.cache_hits.values()), sum(stats.cache_misses.values())
        try:
            entry = compile_(sig)
        except Exception as exc:
            if sum(stats.cache_misses.values()) == misses:  # raised loading
                return None, f"{type(exc).__name__}: {exc}"
            if args not in dispatcher.overloads:
                raise  # the compilation failed
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
        _check_sources(stats.cache_path)
        args = tuple(getattr(sig, "args", sig))
        entry, why = attempt(sig, args)
        if entry is not None:
            return entry
        base = os.path.join(stats.cache_path, cache_stem(dispatcher))
        _say_once(base, "dropped a damaged kernel cache entry %s (%s); recompiling it",
                  base + ".nbi", why)
        try:
            for path in [base + ".nbi", *glob.glob(glob.escape(base) + ".*.nbc")]:
                with contextlib.suppress(FileNotFoundError):
                    os.remove(path)
            entry, why = attempt(sig, args)
        except OSError as exc:
            why = f"{type(exc).__name__}: {exc}"
        if entry is not None:
            return entry
        _say_once("unsaved", "cannot use the kernel cache in %s (%s); kernels are compiled "
                  "anew in each process: %s", stats.cache_path, why, _ADVICE)
        import numba

        twin = numba.njit(**{**options, "cache": False})(dispatcher.py_func)
        twin.compile(sig)
        dispatcher.add_overload(twin.overloads[args])
        return twin.overloads[args].entry_point

    return compile


def _dispatcher(fn, options: dict):
    """``numba.njit(**options)(fn)`` with its cache healing (Numba is imported by now)."""
    import numba

    try:
        dispatcher = numba.njit(**options)(fn)
    except RuntimeError:  # "cannot cache function": Numba can write no cache folder
        _say_once("nowhere", "compiled kernels cannot be kept: Numba can write no cache "
                  "folder (NUMBA_CACHE_DIR, a __pycache__ beside the modules, its per-user "
                  "cache directory); they are compiled anew in each process: %s", _ADVICE)
        return numba.njit(**{**options, "cache": False})(fn)
    if options["cache"] and hasattr(dispatcher, "stats"):  # not NUMBA_DISABLE_JIT
        _KERNELS.append(dispatcher)
        dispatcher.compile = _healing(dispatcher, options)
        path, chosen = dispatcher.stats.cache_path, numba.config.CACHE_DIR
        if chosen and os.path.dirname(os.path.abspath(path)) != os.path.abspath(chosen):
            _ELSEWHERE[id(dispatcher)] = path
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


_PENDING: list = []  # deferred objects and registrations waiting for Numba
_MADE = threading.Event()
_MAKING = threading.RLock()


def _later(action, fn=None):
    """Run ``action`` (it makes or registers a Numba object) now when :func:`make_kernels`
    has run, else then; with ``fn``, return what stands for the made object meanwhile."""
    with _MAKING:
        if _MADE.is_set():
            return action()
        item = action if fn is None else Deferred(fn, action)
        _PENDING.append(item)
        return item


def make_kernels() -> list:
    """Import Numba and make every kernel decorated so far (what the first call of a kernel
    does; later decorations make their kernel at once); the package's cached kernels.

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
    """``numba.njit`` with the package defaults (:data:`JIT`) and its cache healing, made on
    first use (:class:`Deferred`)."""
    options = {**JIT, **overrides}
    return lambda fn: _later(lambda: _dispatcher(fn, options), fn)


def _extending():
    from numba import extending

    return extending


def intrinsic(fn):
    """``numba.extending.intrinsic(fn)``, made on first use."""
    return _later(lambda: _extending().intrinsic(fn), fn)


def overload(func, **options):
    """``numba.extending.overload(func, **options)``, registered when Numba is imported."""

    def decorate(impl):
        _later(lambda: _extending().overload(func, **options)(impl))
        return impl

    return decorate


def register_jitable(fn):
    """``numba.extending.register_jitable(fn)``, registered when Numba is imported."""
    _later(lambda: _extending().register_jitable(fn))
    return fn


def skip_compile_note() -> None:
    """Print no :data:`COMPILE_NOTE` in this process (``warmup``'s worker processes: their
    parent reports)."""
    _SAID.add("note")


def _compile_note():
    """A :mod:`numba.core.event` listener that prints :data:`COMPILE_NOTE` when the first of
    the package's kernels starts compiling in this process (unless ``$SNL_QUIET`` says not
    to), and warns once when a kernel compiles outside ``NUMBA_CACHE_DIR``."""
    from numba.core import event

    class CompileNote(event.Listener):
        def on_start(self, ev) -> None:
            dispatcher = ev.data["dispatcher"]
            module = getattr(dispatcher.py_func, "__module__", "") or ""
            if module.split(".")[0] == _PACKAGE and "note" not in _SAID:
                _SAID.add("note")
                if os.environ.get(QUIET_ENV, "").strip() in ("", "0"):
                    try:
                        print(f"{_PACKAGE}: {COMPILE_NOTE}", file=sys.stderr, flush=True)
                    except (AttributeError, OSError, ValueError):  # no stderr, or closed
                        pass
            if id(dispatcher) in _ELSEWHERE:
                _say_once("elsewhere", "cannot write the kernel cache directory "
                          "NUMBA_CACHE_DIR; Numba keeps kernels in %s instead",
                          _ELSEWHERE[id(dispatcher)])

        def on_end(self, ev) -> None:
            pass

    return CompileNote()
