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

import snl_numeric
from snl_numeric import cache_dir, warmup
from snl_numeric._core.numba_config import (
    COMPILE_GC_THRESHOLD,
    COMPILE_NOTE,
    PER_BOARD_OPT,
    user_cache_dir,
)

HERE = Path(__file__).resolve().parent


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


def test_compile_note_once_then_kernels_load_silently(tmp_path):
    first = run_python(SMALL, NUMBA_CACHE_DIR=str(tmp_path))
    assert first.stdout.split() == ["2"]
    assert first.stderr == COMPILE_NOTE + "\n"  # one line, once per process
    assert list(tmp_path.rglob("*.nbi")), "nothing cached"
    second = run_python(SMALL, NUMBA_CACHE_DIR=str(tmp_path))
    assert second.stdout.split() == ["2"] and second.stderr == ""


GC_DURING_COMPILES = """
import gc
from numba.core import event
from snl_numeric import Board, min_throws
seen = set()
class Watch(event.Listener):
    def on_start(self, ev):
        seen.add(gc.get_threshold())
    def on_end(self, ev):
        pass
event.register("numba:compile", Watch())
gc.set_threshold(500, 5, 5)  # the user's own thresholds
min_throws(Board(10, {3: 8}))
print(sorted(seen), gc.get_threshold(), gc.isenabled())
"""


def test_garbage_collector_runs_less_often_while_compiling_then_as_it_was(tmp_path):
    out = run_python(GC_DURING_COMPILES, NUMBA_CACHE_DIR=str(tmp_path))
    assert out.stdout.split("] ") == [f"[{COMPILE_GC_THRESHOLD!r}",
                                      "(500, 5, 5) True\n"]


def test_garbage_collector_switched_off_by_threshold_stays_off(tmp_path):
    code = GC_DURING_COMPILES.replace("gc.set_threshold(500, 5, 5)", "gc.set_threshold(0)")
    out = run_python(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert out.stdout.split("] ")[0] == "[(0, 10, 10)"


OPT_LEVELS = """
import os, numba
from numba.core import codegen
from snl_numeric import boards
from snl_numeric._core.moments import structured_moments
{before}
used, building = {{}}, []  # the level of each library's optimisation passes, as LLVM gets it
final = codegen.CPUCodeLibrary._optimize_final_module
def optimize_final_module(self):
    building.append(self.name.split(".")[-1])
    try:
        return final(self)
    finally:
        building.pop()
passes = codegen.CPUCodegen._pass_builder
def pass_builder(self, **kwargs):
    if building and "opt" not in kwargs:  # the full pipeline (the cheap one is always 0)
        used.setdefault(building[-1], set()).add(int(numba.config.OPT))
    return passes(self, **kwargs)
codegen.CPUCodeLibrary._optimize_final_module = optimize_final_module
codegen.CPUCodegen._pass_builder = pass_builder
cb = boards.get("milton-bradley").compiled
structured_moments(cb.succ, cb.probs)
o = numba.config.OPT
print(*(sorted(used[k]) for k in ("moments_kernel", "_unit_solve", "gth_factor_kernel",
                                  "reach_kernel")), (int(o), getattr(o, "is_opt_max", False)))
"""


RELOAD_DURING_MOMENTS = """
from numba.core import event
class Reload(event.Listener):  # registered after the package's listener: runs after it
    def on_start(self, ev):
        if ev.data["dispatcher"].py_func.__name__ == "moments_kernel":
            numba.config.OPT = type(numba.config.OPT)(2)
    def on_end(self, ev):
        pass
event.register("numba:compile", Reload())
"""


@pytest.mark.parametrize("user, before, expected", [
    (None, None, f"[{PER_BOARD_OPT}] [{PER_BOARD_OPT}] [3] [3] (3, False)"),
    ("max", None, "[3] [3] [3] [3] (3, True)"),
    # the user lowers the level after the import: nothing is compiled above it
    (None, 'os.environ["NUMBA_OPT"] = "0"', "[0] [0] [0] [0] (0, False)"),
    # Numba reloads a level during moments_kernel's compilation: that level stays
    (None, RELOAD_DURING_MOMENTS, "[2] [1] [3] [3] (2, False)")])
def test_kernels_are_optimised_at_their_level_then_numba_is_as_it_was(tmp_path, user, before,
                                                                     expected):
    # moments_kernel and its _unit_solve are lowered; gth_factor_kernel, which it calls,
    # and reach_kernel, called alone, keep the user's level; the level is put back
    out = run_python(OPT_LEVELS.format(before=before or ""), NUMBA_CACHE_DIR=str(tmp_path),
                     NUMBA_OPT=user)
    assert out.stdout.strip() == expected


def test_cache_dir_is_per_user_unless_numba_cache_dir_is_set(tmp_path):
    code = "import snl_numeric; print(snl_numeric.cache_dir())"
    out = run_python(code, NUMBA_CACHE_DIR=None, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    expected = tmp_path / "xdg" / "snl_numeric"
    if sys.platform in ("win32", "darwin"):  # pragma: no cover - other layouts
        expected = Path(out.stdout.strip())
    assert out.stdout.strip() == str(expected)
    out = run_python(code, NUMBA_CACHE_DIR=str(tmp_path / "mine"))
    assert out.stdout.strip() == str(tmp_path / "mine")
    assert os.path.isabs(cache_dir()) and os.path.isabs(user_cache_dir())


def test_import_writes_nothing(tmp_path):
    run_python("import snl_numeric, snl_numeric.cli", NUMBA_CACHE_DIR=str(tmp_path / "c"))
    assert not (tmp_path / "c").exists()


def test_unwritable_cache_dir_still_computes(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    out = run_python(SMALL, NUMBA_CACHE_DIR=str(blocker / "cache"))
    assert out.stdout.split() == ["2"]


COUNT_COMPILES = """
import importlib, json, pkgutil
from numba.core import event
from numba.core.registry import CPUDispatcher
compiled = []
class Count(event.Listener):
    def on_start(self, ev):
        fn = ev.data["dispatcher"].py_func
        if fn.__module__.startswith("snl_numeric"):
            compiled.append(fn.__module__ + "." + fn.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Count())
import nojit_check, snl_numeric
nojit_check.results()
groups = importlib.import_module("snl_numeric.warmup").GROUPS
for name, fn in groups.items():
    fn()
signatures = {}
for m in pkgutil.walk_packages(snl_numeric.__path__, "snl_numeric."):
    if m.name.endswith("__main__") or ".plot" in m.name:
        continue
    for name, obj in vars(importlib.import_module(m.name)).items():
        if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == m.name:
            signatures[m.name + "." + name] = len(obj.signatures)
print(json.dumps({"compiled": sorted(set(compiled)), "signatures": signatures}))
"""

#: Kernels called with two signatures on purpose: the race's diagonal packing of integer
#: (policies) and float (values) tables.
TWO_SIGNATURES = {"snl_numeric.race.kernels.to_diag_kernel",
                  "snl_numeric.race.kernels.from_diag_kernel"}


@pytest.mark.slow
def test_warmup_compiles_every_kernel_once():
    """After ``warmup`` a new process compiles nothing, whatever it runs, and each kernel
    was compiled for one signature (the first run of a suite pays for compiling here,
    two processes at a time, and the rest of the suite loads the kernels)."""
    env = {"NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR")}
    out = run_python("import snl_numeric, json; print(json.dumps(snl_numeric.warmup()))", **env)
    times = json.loads(out.stdout)
    assert set(times) == {"core", "simulate", "batch", "policy", "race", "design", "maze", "total"}
    report = json.loads(run_python(COUNT_COMPILES, **env).stdout)
    assert report["compiled"] == []
    several = {k: v for k, v in report["signatures"].items()
               if v > 1 and k not in TWO_SIGNATURES}
    assert several == {}
    assert sum(v > 0 for v in report["signatures"].values()) >= 20  # the kernels did run


def test_warmup_arguments():
    with pytest.raises(ValueError, match="unknown warmup group 'bogus'"):
        warmup(["bogus"])
    with pytest.raises(ValueError, match="processes must be a positive integer"):
        warmup(["maze"], processes=0)
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
