"""Cold start (issue 16, item 2): where kernels are cached, the compile note, ``warmup``.

Compile *times* are measured in ``benchmarks/bench_coldstart.py``; here: the behaviour.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from subproc import COMPILE_LISTENER

import snl_numeric
from snl_numeric import cache_dir, warmup
from snl_numeric._core.numba_config import COMPILE_NOTE

HERE = Path(__file__).resolve().parents[1]  # tests/: the helper scripts


def run_python(code: str, **env: str | None) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(HERE)}
    for key, value in env.items():
        if value is None:
            full.pop(key, None)
        else:
            full[key] = value
    out = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return out


SMALL = ("from snl_numeric import Board, min_throws\n"
         "print(min_throws(Board(10, {3: 8})))\n")


#: A kernel that compiles on any input, and compiles in a second (the maze search's),
#: called twice.
COMPILING = ("from snl_numeric.maze import count_paths\n"
             "print(count_paths([[1, 1], [1, 1]], (0, 0), (1, 1)).count)\n"
             "print(count_paths([[1, 2, 1], [1, 1, 1]], (0, 0), (1, 2)).count)\n")
NOTE = f"snl_numeric: {COMPILE_NOTE}\n"


def test_compile_note_is_printed_once_then_kernels_load_silently(tmp_path):
    """A script (or a notebook) sees one line on standard error while the kernels compile,
    none once they are cached, and none with ``SNL_QUIET=1``."""
    first = run_python(COMPILING, NUMBA_CACHE_DIR=str(tmp_path), SNL_QUIET=None)
    assert first.stdout.split() == ["2", "1"]
    assert first.stderr == NOTE  # one line, once per process
    assert list(tmp_path.rglob("*.nbi")), "nothing cached"
    second = run_python(COMPILING, NUMBA_CACHE_DIR=str(tmp_path), SNL_QUIET=None)
    assert second.stdout.split() == ["2", "1"] and second.stderr == ""
    quiet = run_python(COMPILING, NUMBA_CACHE_DIR=str(tmp_path / "q"), SNL_QUIET="1")
    assert quiet.stdout.split() == ["2", "1"] and quiet.stderr == ""
    assert list((tmp_path / "q").rglob("*.nbi")), "nothing cached"
    loud = run_python(COMPILING, NUMBA_CACHE_DIR=str(tmp_path / "l"), SNL_QUIET="0")
    assert loud.stderr == NOTE


def test_the_cli_shows_the_note_once(tmp_path):
    (tmp_path / "maze.txt").write_text("1 1\n1 1\n")
    cli = run_python("import sys; from snl_numeric.cli import main\n"
                     f"sys.exit(main(['maze', {str(tmp_path / 'maze.txt')!r}, '--count', "
                     "'--start', '0', '0', '--goal', '1', '1']))",
                     NUMBA_CACHE_DIR=str(tmp_path / "b"), SNL_QUIET=None)
    assert cli.stdout.split()[-1] == "2"
    assert cli.stderr == NOTE


def test_import_loads_no_numba(tmp_path):
    """Numba is imported when a kernel is first needed, not by ``import snl_numeric``; the
    NumPy/SciPy paths (an ordinary board) never import it."""
    code = ("import sys, snl_numeric as snl\n"
            "print('numba' in sys.modules, 'llvmlite' in sys.modules)\n"
            "print(snl.expected_throws(snl.boards.get('milton-bradley')))\n"
            "print('numba' in sys.modules)\n"
            "print(snl.maze.count_paths([[1, 1], [1, 1]], (0, 0), (1, 1)).count)\n"
            "print('numba' in sys.modules)\n")
    out = run_python(code, NUMBA_CACHE_DIR=str(tmp_path))
    lines = out.stdout.split("\n")
    assert lines[0] == "False False" and lines[2] == "False"
    assert abs(float(lines[1]) - 39.225122) < 1e-6  # Milton Bradley's official rules: Althoen,
    # King and Schilling's (1993) fraction, checked in tests/test_exact.py
    assert lines[3:5] == ["2", "True"]


def test_two_threads_calling_a_cold_kernel_at_once(tmp_path):
    """Two threads make the first calls of a process together, with an empty cache: Numba
    is imported and the kernels made once, both get the right answer, one note."""
    code = ("import threading\n"
            "from snl_numeric.maze import count_paths\n"
            "grids = [[[1, 1], [1, 1]], [[1, 2, 1], [1, 1, 1]]]\n"
            "goals = [(1, 1), (1, 2)]\n"
            "out = [None, None]\n"
            "go = threading.Barrier(2)\n"
            "def run(i):\n"
            "    go.wait()\n"
            "    out[i] = count_paths(grids[i], (0, 0), goals[i]).count\n"
            "threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]\n"
            "[t.start() for t in threads]\n"
            "[t.join() for t in threads]\n"
            "print(out)\n")
    for run in ("cold", "cached"):
        out = run_python(code, NUMBA_CACHE_DIR=str(tmp_path), SNL_QUIET=None)
        assert out.stdout.strip() == "[2, 1]", run  # by hand: 2 paths, then 1
        assert out.stderr == (NOTE if run == "cold" else ""), run


def test_cache_dir_is_where_numba_keeps_the_kernels(tmp_path):
    """Numba's documented order: ``$NUMBA_CACHE_DIR``, else a ``__pycache__`` beside each
    module (here the checkout can be written: the package's folder)."""
    code = "import snl_numeric; print(snl_numeric.cache_dir())"
    out = run_python(code, NUMBA_CACHE_DIR=str(tmp_path / "mine"))
    assert out.stdout.strip() == str(tmp_path / "mine")
    out = run_python(code, NUMBA_CACHE_DIR=None)
    assert out.stdout.strip() == os.path.dirname(snl_numeric.__file__)
    assert os.path.isabs(cache_dir())


def test_import_writes_no_kernel(tmp_path):
    """Importing compiles nothing and writes no cache entry (Numba makes its folders)."""
    run_python("import snl_numeric, snl_numeric.cli", NUMBA_CACHE_DIR=str(tmp_path / "c"))
    assert not list((tmp_path / "c").rglob("*.nb[ic]"))


def test_unwritable_cache_dir_still_computes(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    out = run_python(SMALL, NUMBA_CACHE_DIR=str(blocker / "cache"))
    assert out.stdout.split() == ["2"]


COUNT_COMPILES = COMPILE_LISTENER + """
import importlib, json
import nojit_check
from snl_numeric._core.numba_config import make_kernels
nojit_check.results()
groups = importlib.import_module("snl_numeric.warmup").GROUPS
for name, fn in groups.items():
    fn()
signatures = {f"{k.py_func.__module__}.{k.py_func.__qualname__}": len(k.signatures)
              for k in make_kernels()}  # the package's own list of its kernels
print(json.dumps({"compiled": sorted(set(compiled)), "signatures": signatures}))
"""

#: Kernels compiled for several signatures on purpose: the simulation's fair and other dice,
#: with and without per-game records (None arguments, compile-time switches), and a chain's
#: alias table per row (a 2-D table); races with fair dice only, and with others, and
#: races with captures where a game can strand (fair dice).
SIGNATURES = {"snl_numeric.simulate.kernel.simulate_kernel": 5,
              "snl_numeric.simulate.kernel.race_kernel": 3}


@pytest.mark.slow
def test_warmup_compiles_every_kernel_once():
    """After ``warmup`` a new process compiles nothing, whatever it runs, and each kernel
    was compiled for one signature but those of :data:`SIGNATURES` (the first run of a
    suite pays for compiling here, two processes at a time, and the rest of the suite
    loads the kernels)."""
    env = {"NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR")}
    out = run_python("import snl_numeric, json; print(json.dumps(snl_numeric.warmup()))", **env)
    times = json.loads(out.stdout)
    assert set(times) == {"core", "simulate", "batch", "policy", "race", "design", "maze", "total"}
    report = json.loads(run_python(COUNT_COMPILES, **env).stdout)
    assert report["compiled"] == []
    several = {k: v for k, v in report["signatures"].items() if v > 1}
    assert several == SIGNATURES
    assert sum(v > 0 for v in report["signatures"].values()) >= 20  # the kernels did run


def test_warmup_arguments():
    with pytest.raises(ValueError, match="^each group must be one of 'core', .*, got 'bogus'$"):
        warmup(["bogus"])
    with pytest.raises(TypeError, match="^each group must be one of .*, got 1$"):
        warmup([1])
    with pytest.raises(ValueError, match="^processes must be at least 1, got 0$"):
        warmup(["maze"], processes=0)
    with pytest.raises(TypeError, match="^processes must be an integer, got 1.5$"):
        warmup(["maze"], processes=1.5)
    times = warmup(["maze"], processes=1)
    assert sorted(times) == ["maze", "total"] and times["total"] >= times["maze"] > 0


def test_snl_warmup_cli(capsys):
    from snl_numeric.cli import main

    assert main(["warmup", "maze", "--processes", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cache_dir"] == cache_dir() and set(data["seconds"]) == {"maze", "total"}
    assert main(["warmup", "maze", "--processes", "1"]) == 0
    assert f"kernels cached in {cache_dir()}" in capsys.readouterr().out


def test_namespace_is_public_only():
    names = dir(snl_numeric)
    assert "annotations" not in names and not [n for n in names if n.startswith("_")
                                                 and n != "__version__"]
    assert {"warmup", "cache_dir", "simulate", "Board"} <= set(names)
    assert set(names) == set(snl_numeric.__all__) | {"__version__"}
