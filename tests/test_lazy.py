"""The lazy namespaces (``snl_numeric._core.lazy``): what type checkers and Sphinx read
(the ``if TYPE_CHECKING:`` imports) is what the packages give at run time.

Fresh-interpreter behaviour (what ``import snl_numeric`` loads, threads) is tested in
``tests/integration/test_lazy_import.py``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import sys
import types

import pytest

import snl_numeric
from snl_numeric import plot

LAZY = [snl_numeric, plot]


def _checked_imports(package: types.ModuleType) -> dict[str, tuple[str, str]]:
    """Name -> (module, attribute) of the package's ``if TYPE_CHECKING:`` imports."""
    tree = ast.parse(inspect.getsource(package))
    block = next(node for node in tree.body if isinstance(node, ast.If)
                 and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
    out = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom), ast.dump(node)
        base = importlib.util.resolve_name("." * node.level + (node.module or ""),
                                           package.__name__)
        for alias in node.names:
            out[alias.asname or alias.name] = (base, alias.name)
    return out


@pytest.mark.parametrize("package", LAZY, ids=lambda p: p.__name__)
def test_type_checking_imports_are_the_runtime_names(package):
    """Every name of ``__all__`` is imported for type checkers, and the package gives the
    very object that import names (a submodule for ``from . import boards``)."""
    checked = _checked_imports(package)
    assert sorted(checked) == sorted(package.__all__)
    for name, (module, attr) in checked.items():
        try:  # ``from . import boards``: the submodule
            expected = importlib.import_module(f"{module}.{attr}")
        except ModuleNotFoundError:  # ``from .chain import expected_throws``
            expected = getattr(importlib.import_module(module), attr)
        assert getattr(package, name) is expected, name


@pytest.mark.parametrize("package", LAZY, ids=lambda p: p.__name__)
def test_dir_lists_the_public_names(package):
    assert set(package.__all__) <= set(dir(package))
    assert not [n for n in dir(package) if n.startswith("_") and n != "__version__"]
    with pytest.raises(AttributeError, match=f"module '{package.__name__}' has no attribute"):
        package.no_such_name  # noqa: B018


def test_functions_shadow_their_modules():
    """``snl_numeric.simulate`` is the function though ``snl_numeric/simulate/`` was imported
    (by this test session, in any order); the submodule stays in ``sys.modules``."""
    for name in ("simulate", "report", "sensitivity", "warmup"):
        assert inspect.isfunction(getattr(snl_numeric, name)), name
        assert isinstance(sys.modules[f"snl_numeric.{name}"], types.ModuleType)
    function = snl_numeric.simulate
    try:
        snl_numeric.simulate = sys.modules["snl_numeric.simulate"]  # a module: ignored
        assert snl_numeric.simulate is function
    finally:
        vars(snl_numeric)["simulate"] = function
