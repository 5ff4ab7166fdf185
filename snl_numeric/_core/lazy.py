"""Lazy namespaces: a package's public names imported on first use (PEP 562).

``import snl_numeric`` then costs what its own ``__init__`` costs, not what every
question's module imports (SciPy's solvers, Numba, matplotlib): ``snl_numeric.analyze``
or ``from snl_numeric import analyze`` imports :mod:`snl_numeric.analysis` the first
time and binds the name in the package, so later accesses are ordinary attribute
look-ups. These first imports run one at a time in a process (:data:`IMPORTING`): threads
that touch names at once import each module once and all get the same objects.

A package lists where each name lives, ``{".module": ("name", ...)}``; type checkers and
Sphinx read the same names from the package's ``if TYPE_CHECKING:`` imports, and the
tests check that the two lists agree.
"""

from __future__ import annotations

import importlib
import sys
import threading
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: Held while a lazy name's module is imported. Threads touching names at once would
#: otherwise import at once the modules those import, and SciPy's import one another in
#: circles (``scipy.linalg``): concurrent first imports of them fail ("cannot import name
#: ... from partially initialized module", or importlib's ``_DeadlockError``). Re-entrant:
#: an import may touch another lazy name.
IMPORTING = threading.RLock()

#: Package name -> its functions named like one of its submodules (see :class:`Package`).
SHADOWED: dict[str, frozenset[str]] = {}


class Package(types.ModuleType):
    """The module type of a lazy package: a function named like its submodule stays the
    package's attribute when the submodule is imported.

    ``snl_numeric.simulate``, the function, lives in ``snl_numeric/simulate/``. Python binds
    a submodule as an attribute of its package when anyone first imports it; an eager
    ``__init__`` rebinds the function right after, once for all, but in a lazy package the
    submodule may first be imported later, by another module. Binding one of those names to
    a module is therefore ignored: the name stays (or becomes, on first use) the function.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType) and name in SHADOWED.get(self.__name__, ()):
            return
        super().__setattr__(name, value)


def attach(package: str, sources: Mapping[str, Iterable[str]],
           submodules: Iterable[str] = ()) -> Callable[[str], Any]:
    """Make ``package`` lazy; returns its module ``__getattr__``.

    Parameters
    ----------
    package : str
        The package's ``__name__`` (it must be in ``sys.modules``: call this from its
        ``__init__``).
    sources : mapping
        Relative module name (``".analysis"``) -> the names the package exports from it.
    submodules : iterable of str
        Submodules that are public names themselves (``"boards"``).

    Returns
    -------
    callable
        ``__getattr__(name)``: imports the name's module, binds the name in the package
        (so its module is looked up once) and returns it; ``AttributeError`` for a name
        the package does not export.
    """
    where = {name: module for module, names in sources.items() for name in names}
    modules = frozenset(submodules)
    where.update({name: f".{name}" for name in modules})
    shadowed = frozenset(n for n, m in where.items() if m == f".{n}" and n not in modules)
    if shadowed:
        SHADOWED[package] = shadowed
        sys.modules[package].__class__ = Package
    namespace = vars(sys.modules[package])

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        with IMPORTING:
            loaded = importlib.import_module(module, package)
        value = loaded if name in modules else getattr(loaded, name)
        namespace[name] = value
        return value

    return __getattr__
