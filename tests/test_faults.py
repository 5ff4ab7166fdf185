"""Faults a long-running user meets (issue 29): a kernel cache that heals, warmup and signals,
resumes that never mix versions, hostile inputs, one-line CLI warnings, maze memory.

Each test reproduces one failure of the audit; the whole fault run is described in the
issue's report.
"""

from __future__ import annotations

import importlib
import logging
import os
import shutil
import subprocess
import sys

import pytest

from snl_numeric import warmup
from snl_numeric._core import numba_config

POSIX = pytest.mark.skipif(os.name == "nt", reason="POSIX files and signals")


def snl(*args: str, env: dict[str, str] | None = None, timeout: float = 600
        ) -> subprocess.CompletedProcess:
    """``snl ARGS`` in a fresh process (as a user types it)."""
    return subprocess.run([sys.executable, "-m", "snl_numeric", *args], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


# -- the kernel cache heals (item 2) ------------------------------------------------------
KERNEL = "from snl_numeric._core.numba_config import njit\n@njit()\ndef f(x):\n    return x + 1\n"


def _damage(path: str, how: str) -> None:
    with open(path, "rb") as fh:
        data = fh.read()
    new = {"empty": b"", "truncated": data[: len(data) // 2], "one byte": data[:1],
           "garbage": bytes(range(256)) * 4}[how]
    with open(path, "wb") as fh:
        fh.write(new)


@pytest.mark.parametrize("suffix", [".nbi", ".nbc"])
@pytest.mark.parametrize("how", ["empty", "truncated", "one byte", "garbage"])
def test_a_damaged_cache_entry_is_dropped_and_recompiled(tmp_path, monkeypatch, caplog,
                                                         suffix, how):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "kern29.py").write_text(KERNEL)

    def fresh():  # a new process would import the module anew: a new dispatcher
        sys.modules.pop("kern29", None)
        return importlib.import_module("kern29").f

    assert fresh()(1) == 2
    [entry] = (tmp_path / "cache").rglob("*" + suffix)
    _damage(str(entry), how)
    with caplog.at_level(logging.WARNING, logger="snl_numeric"):
        f = fresh()
        assert f(2) == 3
    [record] = [r for r in caplog.records if r.name == "snl_numeric"]
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith("dropped a damaged kernel cache entry ")
    assert f.stats.cache_misses  # recompiled...
    caplog.clear()
    f = fresh()
    assert f(3) == 4 and f.stats.cache_hits and not caplog.records  # ... and saved whole
    sys.modules.pop("kern29", None)


def test_snl_analyze_heals_a_damaged_cache(tmp_path):
    """The audit's case: one truncated file made every later ``snl analyze`` fail."""
    from snl_numeric import analyze, boards
    from snl_numeric._core import table

    analyze(boards.get("milton-bradley"))  # its kernels are in the user's cache
    folder = table.push_kernel.stats.cache_path
    copy = tmp_path / "cache" / os.path.basename(folder)
    shutil.copytree(folder, copy)
    for entry in copy.glob("table.push_kernel-*.nbi"):
        _damage(str(entry), "truncated")
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = snl("analyze", "milton-bradley", "--json", env=env)
    assert first.returncode == 0, first.stderr
    note, warning = first.stderr.splitlines()  # one line each
    assert note == f"snl_numeric: {numba_config.COMPILE_NOTE}"
    assert warning.startswith("snl_numeric: warning: dropped a damaged kernel cache entry ")
    assert "table.push_kernel-" in warning and warning.endswith("; recompiling it")
    again = snl("analyze", "milton-bradley", "--json", env=env)
    assert again.returncode == 0 and again.stderr == "" and again.stdout == first.stdout


@pytest.mark.parametrize("env, where", [
    ({"HOME": "", "XDG_CACHE_HOME": ""}, "home"),  # the password database's home
    ({"HOME": "/"}, None),  # no home: never /.cache
    ({"XDG_CACHE_HOME": "relative/cache"}, "home"),  # ignored (the XDG rule)
    ({"XDG_CACHE_HOME": "/abs/cache"}, "/abs/cache/snl_numeric"),
])
def test_the_cache_never_lands_at_the_root_or_under_the_current_directory(monkeypatch, env,
                                                                          where):
    if sys.platform in ("win32", "darwin"):  # pragma: no cover - other layouts
        pytest.skip("XDG layout")
    import pwd

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    home = pwd.getpwuid(os.getuid()).pw_dir
    expected = os.path.join(home, ".cache", "snl_numeric") if where == "home" else where
    if expected == "/.cache/snl_numeric":  # pragma: no cover - a user whose home is /
        expected = None
    assert numba_config.cache_dir() == expected


def test_warmup_fails_when_it_cannot_write(tmp_path, monkeypatch, capsys):
    from snl_numeric.cli import main

    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocker / "cache"))
    with pytest.raises(OSError, match="cannot write the kernel cache directory .*a-file/cache"):
        warmup(["maze"], processes=1)
    assert main(["warmup", "maze", "--processes", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("snl warmup: error: cannot write the kernel cache directory ")
    assert err.count("\n") == 1 and "NUMBA_CACHE_DIR" in err
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("HOME", "/")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    with pytest.raises(OSError, match="no kernel cache directory"):
        warmup(["maze"], processes=1)


def test_warmup_fails_when_a_kernel_cannot_be_saved(tmp_path):
    """The directory can be written, but not the maze kernels' folder (a file is in the
    way): ``snl warmup`` says so and exits 2 instead of "kernels cached in ..."."""
    from snl_numeric import boards, maze, min_throws
    from snl_numeric._core import table

    min_throws(boards.get("milton-bradley"))
    maze.count_paths([[1, 1], [1, 1]], (0, 0), (1, 1))
    core = table.push_kernel.stats.cache_path
    shutil.copytree(core, tmp_path / "cache" / os.path.basename(core))  # compiled already
    (tmp_path / "cache" / os.path.basename(maze._dfs_kernel.stats.cache_path)).write_text("")
    out = snl("warmup", "maze", "--processes", "1", env={"NUMBA_CACHE_DIR": str(tmp_path / "cache")})
    assert out.returncode == 2 and "kernels cached in" not in out.stdout
    lines = out.stderr.strip().splitlines()
    assert lines[-1].startswith("snl warmup: error: some kernels could not be saved in ")
    assert any(line.startswith("snl_numeric: warning: cannot save compiled kernels in ")
               for line in lines)
