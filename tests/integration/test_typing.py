"""Typing that works for users (issue 27): mypy is clean on the package, and a user script
of the README's examples type-checks under ``mypy --strict`` (and runs)."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "typing" / "readme_examples.py"


def _mypy(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", *args], cwd=ROOT,
                          capture_output=True, text=True)


@pytest.mark.slow
def test_package_is_mypy_clean():
    proc = _mypy("snl_numeric")  # the settings in pyproject.toml
    assert proc.returncode == 0, proc.stdout[-4000:]


@pytest.mark.slow
def test_readme_examples_type_check_strictly():
    # as a user sees the package: their own settings (none), errors inside it not theirs
    proc = _mypy("--strict", "--follow-imports=silent", "--config-file=", str(SCRIPT))
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert "Success: no issues found in 1 source file" in proc.stdout


def test_readme_examples_script_runs():
    runpy.run_path(str(SCRIPT), run_name="__main__")


def test_batch_inputs_are_typed():
    # issue 55, item 5: a type checker sees what `boards` and `client` may be
    import inspect

    from snl_numeric.batch import analyze_many, analyze_to_parquet

    for fn in (analyze_many, analyze_to_parquet):
        params = inspect.signature(fn).parameters
        assert params["boards"].annotation == "BoardsInput", fn.__name__
        assert params["client"].annotation == "DaskClient | None", fn.__name__
        assert params["chunk_size"].annotation == "int | None", fn.__name__
