"""A clean install (issue 16, item 1): nothing is written inside the installed package.

A non-editable install of this checkout goes into a fresh virtual environment
in a temporary directory; running the package there with ``NUMBA_CACHE_DIR`` set
(as the install page advises: without it Numba's documented cache is a
``__pycache__`` beside each module) must leave ``site-packages/snl_numeric``
exactly as pip wrote it, a second install over the first and then the
README's editable install must both work, and ``cd /tmp && python -c "from
snl_numeric import Board"`` must import the package.

Few downloads: the new environment sees this environment's dependencies (NumPy,
SciPy, Numba, pip) through a ``.pth`` file pointing at a folder of links to
them (this package's own entries left out) and pip runs with ``--no-deps``;
only the build backend (setuptools, as ``pyproject.toml`` asks) comes from the
configured index, as in any ``pip install .``. The wheel is built once and
installed twice.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _deps_folder(target: Path) -> Path:
    """Links to every entry of this environment's site-packages except this package's."""
    target.mkdir()
    purelib = Path(sysconfig.get_paths()["purelib"])
    for entry in purelib.iterdir():
        name = entry.name.lower()
        if "snl_numeric" in name or "snl-numeric" in name or name.endswith(".pth") \
                or name.startswith("__editable__"):
            continue
        (target / entry.name).symlink_to(entry)
    return target


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    base = tmp_path_factory.mktemp("install")
    src = base / "checkout"  # a copy: building never writes into the repository
    shutil.copytree(ROOT / "snl_numeric", src / "snl_numeric",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    env_dir = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                                "['purelib'])"], capture_output=True, text=True,
                               check=True).stdout.strip())
    deps = _deps_folder(base / "deps")
    (site / "_snl_test_deps.pth").write_text(str(deps) + "\n")
    home = base / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"),
               NUMBA_CACHE_DIR=str(home / ".cache" / "kernels"),
               PATH=str(bindir) + os.pathsep + env.get("PATH", ""))
    venv = {"src": src, "python": str(python), "site": site, "env": env, "home": home,
            "bindir": bindir, "tmp": base}
    wheels = base / "wheels"
    _run(venv, venv["python"], "-m", "pip", "wheel", "-q", "--no-deps",
         "--disable-pip-version-check", "-w", str(wheels), str(src))
    (venv["wheel"],) = wheels.glob("snl_numeric-*.whl")
    return venv


def _run(venv, *args, cwd=None, check=True):
    out = subprocess.run(list(args), env=venv["env"], cwd=cwd or venv["tmp"],
                         capture_output=True, text=True, timeout=600)
    if check and out.returncode != 0:
        raise AssertionError(f"{args} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    return out


def _pip(venv, *args):
    return _run(venv, venv["python"], "-m", "pip", "install", "-q", "--no-deps",
                "--disable-pip-version-check", *args)


def test_installed_package_stays_clean(venv):
    _pip(venv, str(venv["wheel"]))
    pkg = venv["site"] / "snl_numeric"
    assert (pkg / "__init__.py").exists()
    before = _files(pkg)
    # the README's first command compiles nothing (SciPy answers an ordinary board)
    out = _run(venv, str(venv["bindir"] / "snl"), "analyze", "milton-bradley")
    # (Althoen, King and Schilling's 1993 value: see tests/test_exact.py)
    assert "39.225122" in out.stdout and out.stderr == ""
    cache = venv["home"] / ".cache" / "kernels"
    assert not any(p.suffix == ".nbi" for p in cache.rglob("*")), "analyze compiled kernels"
    # a Numba entry point compiles (the note once, on stderr) and caches its kernels
    out = _run(venv, str(venv["bindir"] / "snl"), "simulate", "milton-bradley", "--games",
               "1000", "--seed", "1")
    assert "compiling kernels on first use" in out.stderr
    assert _files(pkg) == before, "files were written inside the installed package"
    assert any(p.suffix == ".nbi" for p in cache.rglob("*")), "kernels were not cached"
    # a second process loads them: no compile note
    again = _run(venv, str(venv["bindir"] / "snl"), "simulate", "milton-bradley", "--games",
                 "1000", "--seed", "1")
    assert "compiling kernels" not in again.stderr and again.stdout.split()[:8] == out.stdout.split()[:8]

    # a second install over the first, then the README's editable install
    _pip(venv, "--force-reinstall", str(venv["wheel"]))
    assert _files(pkg) == before
    out = _run(venv, venv["python"], "-c",
               "from snl_numeric import Board; import snl_numeric; print(snl_numeric.__file__)",
               cwd="/tmp" if os.name != "nt" else None)
    assert out.stdout.strip() == str(pkg / "__init__.py")
    _pip(venv, "-e", str(venv["src"]))
    assert not pkg.exists(), "the editable install left the old package folder behind"
    out = _run(venv, venv["python"], "-c",
               "from snl_numeric import Board; import snl_numeric; print(snl_numeric.__file__)",
               cwd="/tmp" if os.name != "nt" else None)
    assert out.stdout.strip() == str(venv["src"] / "snl_numeric" / "__init__.py")
    assert not list((venv["src"] / "snl_numeric").rglob("*.nb[ic]"))


def _mypy_strict(venv, where: str) -> None:
    """``mypy --strict`` on the README's examples as a user's script outside the checkout,
    with that environment's interpreter: it must find the installed package and its types."""
    script = venv["tmp"] / "user_script.py"
    shutil.copy(ROOT / "tests" / "typing" / "readme_examples.py", script)
    out = _run(venv, sys.executable, "-m", "mypy", "--strict", "--config-file=",
               "--python-executable", venv["python"], "--cache-dir",
               str(venv["tmp"] / f"mypy-cache-{where}"), str(script), check=False)
    assert out.returncode == 0, f"after {where}:\n{out.stdout[-4000:]}"
    assert "Success: no issues found in 1 source file" in out.stdout


def test_mypy_finds_the_package_after_either_install(venv):
    # issue 55, item 2: setuptools' default editable install of a flat layout is an import
    # hook that mypy cannot follow; pyproject's package-dir makes it a plain path file
    _pip(venv, "--force-reinstall", str(venv["wheel"]))
    _mypy_strict(venv, "a plain install")
    _pip(venv, "-e", str(venv["src"]))  # the README's editable install
    assert not list(venv["site"].glob("__editable__*finder*")), "an import-hook finder"
    _mypy_strict(venv, "the editable install")
