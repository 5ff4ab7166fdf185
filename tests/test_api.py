"""The public API: every exported name importable and documented."""

from __future__ import annotations

import importlib
import inspect

import pytest

import snl_numeric

PUBLIC_MODULES = ["snl_numeric", "snl_numeric.batch", "snl_numeric.maze", "snl_numeric.plot",
                  "snl_numeric.boards"]


def _exports():
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        for attr in module.__all__:
            yield name, attr, getattr(module, attr)


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_all_names_are_importable(module):
    mod = importlib.import_module(module)
    assert len(set(mod.__all__)) == len(mod.__all__)
    for attr in mod.__all__:
        exec(f"from {module} import {attr}", {})  # noqa: S102 - the import users write


def test_every_export_is_documented():
    missing = [f"{m}.{a}" for m, a, obj in _exports()
               if (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismodule(obj))
               and len(inspect.getdoc(obj) or "") < 20]
    assert not missing, missing


def test_every_exported_function_has_a_runnable_example():
    missing = [f"{m}.{a}" for m, a, obj in _exports()
               if inspect.isfunction(obj) and ">>> " not in (inspect.getdoc(obj) or "")]
    assert not missing, missing


def test_cli_entry_point_and_version(capsys):
    import importlib.metadata
    import pathlib
    import re

    from snl_numeric.cli import main

    # the version the package states is the one in pyproject.toml and the installed one,
    # and `snl --version` prints it
    pyproject = pathlib.Path(__file__).parents[1] / "pyproject.toml"
    declared = re.search(r'^version = "([^"]+)"$', pyproject.read_text(), re.M).group(1)
    assert snl_numeric.__version__ == declared == importlib.metadata.version("snl_numeric")
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"snl {declared}\n"
