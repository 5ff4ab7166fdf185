"""The public names of snl_numeric and the API reference index listing them (used by
``conf.py`` at build time and by ``tests/integration/test_docs.py``)."""

from __future__ import annotations

import importlib
import types
from pathlib import Path

import snl_numeric

#: The submodules whose own ``__all__`` is documented, with a heading each.
SUBMODULES = {
    "boards": "The board registry",
    "dice": "Dice",
    "batch": "Many boards: tables, files, Dask (the ``batch`` extra)",
    "policy": "Optimal play",
    "race": "Races",
    "impact": "Jump impact",
    "maze": "Number mazes",
    "plot": "Plots (the ``plot`` extra)",
}


def _module(mod: str) -> types.ModuleType:
    return importlib.import_module(f"snl_numeric.{mod}")


def _reexported(mod: str, name: str) -> bool:
    """Whether ``snl_numeric.mod.name`` is the object ``snl_numeric.name`` (one page for both)."""
    return name in snl_numeric.__all__ and getattr(snl_numeric, name) is getattr(_module(mod), name)


def api_names() -> list[str]:
    """Every dotted name with a page: ``snl_numeric.X`` for X in ``__all__`` (modules
    excepted) and ``snl_numeric.M.Y`` for Y in each documented submodule's ``__all__``
    unless ``Y`` is the same object as ``snl_numeric.Y`` (its section links to that page)."""
    names = [f"snl_numeric.{n}" for n in snl_numeric.__all__
             if not isinstance(getattr(snl_numeric, n), types.ModuleType)]
    for mod in SUBMODULES:
        names += [f"snl_numeric.{mod}.{n}" for n in _module(mod).__all__
                  if not _reexported(mod, n)]
    return names


def _section(title: str, module: str, names: list[str], *, directive: str = "module",
             also: list[str] | None = None) -> list[str]:
    lines = [title, "-" * len(title), "", f".. {directive}:: {module}", ""]
    if also:  # the same objects as top-level names: listed here, documented there
        lines += ["Also here: " + ", ".join(f":obj:`~snl_numeric.{n}`" for n in also)
                  + " (the same objects as ``snl_numeric``'s).", ""]
    lines += [".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
    return lines + [f"   {n.removeprefix(module + '.')}" for n in names] + [""]


def api_index() -> str:
    """The text of ``api/index.rst``."""
    top = [n for n in api_names() if n.count(".") == 1]
    classes = [n for n in top if isinstance(getattr(snl_numeric, n.split(".")[1]), type)]
    functions = [n for n in top if n not in classes]
    lines = ["API reference", "=============", "",
             "Every public name of ``snl_numeric``; this page is generated from the "
             "package's ``__all__`` at each build.", ""]
    lines += _section("Functions", "snl_numeric", functions)
    lines += _section("Results and models", "snl_numeric", classes, directive="currentmodule")
    for mod, title in SUBMODULES.items():
        module = f"snl_numeric.{mod}"
        lines += _section(f"{title}: ``{module}``", module,
                          [n for n in api_names() if n.startswith(module + ".")],
                          also=[n for n in _module(mod).__all__ if _reexported(mod, n)])
    return "\n".join(lines)


def write_api_index(path: Path) -> None:
    """Write ``api/index.rst`` (only when it changed, so Sphinx rebuilds only what moved)."""
    text = api_index()
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
