"""The public names of snl_numeric and the API reference index listing them (used by
``conf.py`` at build time and by ``tests/test_docs.py``)."""

from __future__ import annotations

import types
from pathlib import Path

import snl_numeric

#: The submodules whose own ``__all__`` is documented, with a heading each.
SUBMODULES = {
    "maze": "Number mazes",
    "boards": "The board registry",
    "plot": "Plots (the ``plot`` extra)",
}


def api_names() -> list[str]:
    """Every documented dotted name: ``snl_numeric.X`` for X in ``__all__`` (modules
    excepted) and ``snl_numeric.M.Y`` for Y in each documented submodule's ``__all__``."""
    names = [f"snl_numeric.{n}" for n in snl_numeric.__all__
             if not isinstance(getattr(snl_numeric, n), types.ModuleType)]
    for mod in SUBMODULES:
        module = getattr(snl_numeric, mod)
        names += [f"snl_numeric.{mod}.{n}" for n in module.__all__]
    return names


def _section(title: str, module: str, names: list[str]) -> list[str]:
    lines = [title, "-" * len(title), "", f".. currentmodule:: {module}", "",
             ".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
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
    lines += _section("Results and models", "snl_numeric", classes)
    for mod, title in SUBMODULES.items():
        module = f"snl_numeric.{mod}"
        lines += _section(f"{title}: ``{module}``", module,
                          [n for n in api_names() if n.startswith(module + ".")])
    return "\n".join(lines)


def write_api_index(path: Path) -> None:
    """Write ``api/index.rst`` (only when it changed, so Sphinx rebuilds only what moved)."""
    text = api_index()
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
