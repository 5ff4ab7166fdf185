"""Faults a long-running user meets (issue 29): a kernel cache that heals, warmup and signals,
resumes that never mix versions, hostile inputs, one-line CLI warnings, maze memory.

Each test reproduces one failure of the audit; the whole fault run is described in the
issue's report.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import pytest
from subproc import run_python, slowdown

from snl_numeric import warmup
from snl_numeric._core import numba_config

POSIX = pytest.mark.skipif(os.name == "nt", reason="POSIX files and signals")


def snl(*args: str, env: dict[str, str] | None = None, timeout: float = 600
        ) -> subprocess.CompletedProcess:
    """``snl ARGS`` in a fresh process (as a user types it); a hang fails the test."""
    return run_python("import sys; from snl_numeric.cli import main; sys.exit(main())",
                      args=args, env=env, timeout=timeout)


# -- the kernel cache heals (item 2; issue 54, items 6 and 9) -----------------------------
#: Two kernels, one calling the other, each compiled for two signatures (two ``.nbc`` files).
KERNELS = ("from snl_numeric._core.numba_config import njit\n"
           "@njit()\ndef g(x):\n    return x + 1\n"
           "@njit()\ndef f(x):\n    return g(x) * 2\n")
#: Run in a fresh process, for each case's module: the answers, and the kernels' cache
#: hits and misses (a warning of the package's logger goes to standard error).
CALL = """
import importlib, json, sys
import numpy as np
out = {}
for name in sys.argv[1:]:
    m = importlib.import_module(name)
    values = [m.f(np.arange(3)).tolist(), m.f(1.5), m.g(1)]
    out[name] = [values, sum(m.f.stats.cache_hits.values()), sum(m.f.stats.cache_misses.values())]
print(json.dumps(out))
"""
RIGHT = [[2, 4, 6], 5.0, 2]


def _damage(path, how: str) -> None:
    with open(path, "rb") as fh:
        data = fh.read()
    new = {"empty": b"", "truncated": data[: len(data) // 2], "one byte": data[:1],
           "garbage": bytes(range(256)) * 4}[how]
    with open(path, "wb") as fh:
        fh.write(new)


def _swap(a, b) -> None:
    a.rename(a.with_name("swap")); b.rename(a); a.with_name("swap").rename(b)


def test_a_damaged_cache_entry_is_dropped_and_recompiled(tmp_path):
    """Every way an entry of ``f`` can be damaged (each case in its own module, all in three
    processes): the next process warns once, recompiles ``f`` and gives the right answers;
    the one after loads every kernel silently. Two ``.nbc`` files swapped load without an
    error but hold the other signature's code (issue 54, item 6): dropped too."""
    cases = {f"k{i}": case for i, case in enumerate(
        [(suffix, how) for suffix in ("nbi", "1.nbc") for how in
         ("empty", "truncated", "one byte", "garbage")] + [("nbc", "swapped")])}
    for name in cases:
        (tmp_path / f"{name}.py").write_text(KERNELS)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), os.environ.get("PYTHONPATH", "")])}

    def run():
        out = run_python(CALL, env=env, args=tuple(cases))
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout), out.stderr.splitlines()

    first, _ = run()
    assert all(v == [RIGHT, 0, 2] for v in first.values()), first  # compiled
    [folder] = {p.parent for p in (tmp_path / "cache").rglob("k0.f-*.nbi")}
    for name, (suffix, how) in cases.items():
        if how == "swapped":
            _swap(*sorted(folder.glob(f"{name}.f-*.nbc")))
        else:
            [entry] = folder.glob(f"{name}.f-*.{suffix}")
            _damage(entry, how)
    second, warnings = run()
    assert all(v[0] == RIGHT for v in second.values()), second
    assert len(warnings) == len(cases), warnings  # one each
    for name, (suffix, how) in cases.items():
        [line] = [w for w in warnings if f"/{name}.f-" in w]
        assert line.startswith("dropped a damaged kernel cache entry "), line
        assert line.endswith("; recompiling it") and str(folder) in line
        assert ("another signature" in line) == (how == "swapped"), line
        assert second[name][2] >= 1, (name, second[name])  # recompiled
    third, warnings = run()
    assert warnings == [], warnings
    for name, (suffix, how) in cases.items():  # saved whole (the swapped case: the
        # other signature came with the swapped load, and is saved on its next compile)
        assert third[name] == [RIGHT, 1, 1] if how == "swapped" else [RIGHT, 2, 0], name


def test_a_damaged_callee_heals_inside_its_caller(tmp_path):
    """``g`` is loaded while ``f`` compiles (``f``'s entries are gone): its damaged entry
    is dropped there, and ``f`` compiles."""
    for name in ("c1", "c2"):
        (tmp_path / f"{name}.py").write_text(KERNELS)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    assert run_python(CALL, env=env, args=("c1", "c2")).returncode == 0
    [folder] = {p.parent for p in (tmp_path / "cache").rglob("c1.f-*.nbi")}
    for name in ("c1", "c2"):
        for entry in folder.glob(f"{name}.f-*"):
            entry.unlink()
    _damage(next(folder.glob("c1.g-*.1.nbc")), "truncated")
    _swap(*sorted(folder.glob("c2.g-*.[12].nbc")))
    out = run_python(CALL, env=env, args=("c1", "c2"))
    assert out.returncode == 0, out.stderr
    assert all(v[0] == RIGHT for v in json.loads(out.stdout).values())
    warnings = out.stderr.splitlines()
    assert len(warnings) == 2 and all("/c1.g-" in w or "/c2.g-" in w for w in warnings)


def test_a_changed_package_empties_its_cache_folders(tmp_path):
    """Numba keys an entry on its own module's source only; a folder whose record of the
    package's source differs (an upgrade, an edit of a kernel another inlines) is emptied
    before its first use."""
    (tmp_path / "s1.py").write_text(KERNELS)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    assert run_python(CALL, env=env, args=("s1",)).returncode == 0
    [stamp] = (tmp_path / "cache").rglob("snl_numeric.sources")
    out = run_python(CALL, env=env, args=("s1",))
    assert json.loads(out.stdout)["s1"] == [RIGHT, 2, 0]  # loaded
    stamp.write_text("another version")
    out = run_python(CALL, env=env, args=("s1",))
    assert out.stderr == "" and json.loads(out.stdout)["s1"] == [RIGHT, 0, 2]  # compiled
    assert stamp.read_text() != "another version"


def _copy_cache(dispatcher, root) -> pathlib.Path:
    """Copy the folder of ``dispatcher``'s cache entries to where a process with
    ``NUMBA_CACHE_DIR=root`` looks for them: a folder named after the module's folder and
    a hash of its path, as Numba names it (this process may keep them elsewhere, e.g. in a
    ``__pycache__`` beside the module when NUMBA_CACHE_DIR is not set, as in CI).

    Only the entries and the package's source stamp are copied: the folder is shared with
    the other test workers, and one compiling a kernel or importing a module there writes
    a temporary file and renames it (``*.tmp.*`` from Numba, ``*.pyc.<id>`` from Python),
    which copytree may list and then not find."""
    src = os.path.dirname(os.path.abspath(dispatcher.py_func.__code__.co_filename))
    dest = pathlib.Path(root) / f"{os.path.basename(src)}_{hashlib.sha1(src.encode()).hexdigest()}"
    def others(folder, names):
        return [n for n in names if not n.endswith((".nbi", ".nbc", "snl_numeric.sources"))]

    shutil.copytree(dispatcher.stats.cache_path, dest, ignore=others)
    return dest


def test_snl_simulate_heals_a_damaged_cache(tmp_path):
    """The audit's case: one truncated file made every later run fail (``snl analyze`` then;
    it compiles nothing now, ``snl simulate`` does)."""
    from snl_numeric import boards, simulate
    from snl_numeric.simulate import kernel

    simulate(boards.get("milton-bradley"), 100, rng=1)  # its kernels are in the user's cache
    copy = _copy_cache(kernel.simulate_kernel, tmp_path / "cache")
    for entry in copy.glob("kernel.simulate_kernel-*.nbi"):
        _damage(str(entry), "truncated")
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    command = ("simulate", "milton-bradley", "--games", "100", "--seed", "1", "--json")
    first = snl(*command, env=env)
    assert first.returncode == 0, first.stderr
    warning, note = first.stderr.splitlines()  # one line each: the load fails first
    assert note == f"snl_numeric: {numba_config.COMPILE_NOTE}"
    assert warning.startswith("snl_numeric: warning: dropped a damaged kernel cache entry ")
    assert "kernel.simulate_kernel-" in warning and warning.endswith("; recompiling it")
    again = snl(*command, env=env)
    assert again.returncode == 0 and again.stderr == ""
    strip = ("elapsed", "throws_per_second")
    assert ({k: v for k, v in json.loads(again.stdout).items() if k not in strip}
            == {k: v for k, v in json.loads(first.stdout).items() if k not in strip})


@POSIX
def test_no_cache_folder_at_all_is_said_once(tmp_path):
    """Issue 54, item 9: ``HOME=/``, no ``NUMBA_CACHE_DIR``, and no ``__pycache__`` beside the
    module can be written (a file in the way; as root ``/.cache`` could be written, so
    ``XDG_CACHE_HOME`` stands for it, blocked too): Numba can keep nothing. The kernels
    compile in memory, and one warning says so and how to set ``NUMBA_CACHE_DIR``."""
    (tmp_path / "n1.py").write_text(KERNELS)
    (tmp_path / "__pycache__").write_text("not a folder")
    (tmp_path / "blocked").write_text("not a folder")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(HOME="/", XDG_CACHE_HOME=str(tmp_path / "blocked" / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    code = CALL + ("from snl_numeric._core import numba_config\n"
                   "print(numba_config.unsaved())\n")
    for _ in range(2):  # and again: nothing was kept
        out = subprocess.run([sys.executable, "-c", code, "n1"], env=env, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        result, lost = out.stdout.splitlines()
        assert json.loads(result)["n1"] == [RIGHT, 0, 2] and lost == "True"
        [warning] = out.stderr.splitlines()
        assert warning.startswith("compiled kernels cannot be kept: ")
        assert warning.endswith("set NUMBA_CACHE_DIR to a writable directory")


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


def test_warmup_fails_when_a_kernel_cannot_be_saved(tmp_path):
    """The maze kernels' index cannot be written (a folder is in the way, put there after the
    import): the kernels compile in memory, and ``snl warmup`` says so and exits 2 instead
    of "kernels cached in ..."."""
    from snl_numeric import boards, maze, min_throws
    from snl_numeric._core import table

    min_throws(boards.get("milton-bradley"))
    _copy_cache(table.succ_table_kernel, tmp_path / "cache")  # compiled already
    code = """
        import os, sys
        from snl_numeric import maze
        from snl_numeric._core import numba_config
        from snl_numeric.cli import main
        for k in numba_config.make_kernels():
            if k.py_func.__module__ == maze.__name__:
                os.makedirs(os.path.join(k.stats.cache_path, numba_config.cache_stem(k) + ".nbi"))
        sys.exit(main(["warmup", "maze", "--processes", "1"]))
        """
    out = run_python(code, env={"NUMBA_CACHE_DIR": str(tmp_path / "cache")}, timeout=600)
    assert out.returncode == 2 and "kernels cached in" not in out.stdout, out.stderr
    lines = out.stderr.strip().splitlines()
    assert lines[-1].startswith("snl warmup: error: some kernels could not be saved in ")
    assert any(line.startswith("snl_numeric: warning: cannot use the kernel cache in ")
               for line in lines), lines


def test_numba_only_through_its_public_interface():
    """No module imports ``numba.core.caching`` (or another private part of Numba's cache)
    or assigns a private attribute of a dispatcher (issue 49)."""
    import re
    from pathlib import Path

    import snl_numeric

    root = Path(snl_numeric.__file__).parent
    private = re.compile(r"numba\.core\.caching|from numba\.core import [^\n]*caching"
                         r"|\b\w+\._(cache|compiler|can_compile|cache_hits|cache_misses)\s*=")
    found = [f"{p.relative_to(root)}: {m.group(0)}" for p in root.rglob("*.py")
             for m in private.finditer(p.read_text())]
    assert found == []


# -- warmup and signals (item 4) ----------------------------------------------------------
def _read(path: str) -> str:
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:  # the process has just ended
        return ""


def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (Linux /proc), but Python's resource tracker."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        fields = _read(f"/proc/{entry}/stat").rsplit(")", 1)[-1].split()
        if len(fields) > 1 and int(fields[1]) == pid and \
                "resource_tracker" not in _read(f"/proc/{entry}/cmdline"):
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    state = _read(f"/proc/{pid}/stat").rsplit(")", 1)[-1].split()
    return bool(state) and state[0] != "Z"  # a zombie has ended


def _gone_within(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while any(_alive(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def compiling_warmup(tmp_path):
    """``snl warmup design batch --processes 2`` in a fresh cache, once both workers exist
    and have saved a first kernel (they are compiling): the process and its workers."""
    from subproc import hear_ctrl_c

    from snl_numeric import boards, min_throws
    from snl_numeric._core import table

    min_throws(boards.get("milton-bradley"))
    cache = tmp_path / "cache"
    _copy_cache(table.reach_kernel, cache)  # the parent's own kernels: loaded, not compiled
    proc = subprocess.Popen([sys.executable, "-m", "snl_numeric", "warmup", "design", "batch",
                             "--processes", "2"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=hear_ctrl_c,
                            env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 600
        while not (len(workers) == 2 and any(not p.parent.name.startswith("_core")
                                             for p in cache.rglob("*.nbi"))):
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the workers did not start compiling"
            time.sleep(0.1)
            workers = _children(proc.pid)
        yield proc, workers
    finally:
        for pid in [proc.pid, *workers]:
            if _alive(pid):  # only when the test failed
                os.kill(pid, signal.SIGKILL)
        proc.communicate()


@POSIX
@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_warmup_workers_end_with_their_parent(compiling_warmup, sig):
    proc, workers = compiling_warmup
    busy = slowdown()  # limits are quiet-machine seconds times this
    os.kill(proc.pid, sig)
    proc.wait(timeout=30)
    assert _gone_within(workers, 5.0 * busy), f"workers still compiling after {sig!r} to the parent"
    if sig == signal.SIGTERM:  # stopped as by Ctrl-C: nothing left for Python to clean up
        assert proc.returncode == 128 + signal.SIGTERM and proc.stderr.read() == b""


@POSIX
@pytest.mark.slow
def test_warmup_stops_on_ctrl_c_within_a_second(compiling_warmup):
    proc, workers = compiling_warmup
    busy = slowdown()  # limits are quiet-machine seconds times this
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    took = time.perf_counter() - t0
    busy = max(busy, slowdown())
    assert proc.returncode == 130 and proc.stderr.read().decode().endswith(
        "snl warmup: interrupted\n")
    assert took < 2.0 * busy, f"stopped after {took:.1f} s (machine {busy:.1f}x slower than quiet)"
    assert _gone_within(workers, 1.0 * busy)


# -- resumes never mix versions (item 3) --------------------------------------------------
BOARDS = [{"size": 10 + i, "jumps": [[2, 3 + (i % 3)]]} for i in range(40)]


def _stop_after(monkeypatch, index: int) -> type[Exception]:
    """Make the next run stop (as if killed) after writing part ``index``."""
    from snl_numeric.batch import store as batch_store

    class Killed(Exception):
        pass

    def hook(i: int) -> None:
        if i == index:
            raise Killed

    monkeypatch.setattr(batch_store, "_after_part_written", hook)
    return Killed


def test_a_resume_under_another_version_is_refused_unless_asked(tmp_path, monkeypatch, capsys):
    import pyarrow.parquet as pq

    from snl_numeric._core import version
    from snl_numeric.batch import analyze_many, analyze_to_parquet, read_results
    from snl_numeric.cli import main
    from snl_numeric.io import store

    source, out = tmp_path / "in.jsonl", tmp_path / "out"
    source.write_text("".join(json.dumps(b) + "\n" for b in BOARDS))
    with pytest.raises(_stop_after(monkeypatch, 1)):  # killed after two parts of four
        analyze_to_parquet(source, out, chunk_size=10)
    monkeypatch.setattr("snl_numeric.batch.store._after_part_written", None)
    manifest = json.loads((out / store.MANIFEST).read_text())
    assert manifest["versions"] == [version.VERSION] and manifest["complete"] is False
    assert pq.read_schema(out / "part-000000.parquet").metadata[store.VERSION_KEY] == \
        version.VERSION.encode()
    monkeypatch.setattr(version, "VERSION", "99.0.0")  # the package upgraded meanwhile
    with pytest.raises(ValueError, match=r"holds results of snl_numeric 0\.1\.0 and this is "
                                         r"99\.0\.0: the results would mix versions"):
        analyze_to_parquet(source, out, chunk_size=10)
    assert main(["batch", str(source), "-o", str(out), "--chunk-size", "10",
                 "--no-progress"]) == 2
    # one line, besides the compile note when a kernel compiles first (an empty cache)
    err = [line for line in capsys.readouterr().err.splitlines()
           if line != f"snl_numeric: {numba_config.COMPILE_NOTE}"]
    assert len(err) == 1 and err[0].endswith(
        "use a new output folder, --overwrite, or --allow-mixed-versions")
    assert main(["batch", str(source), "-o", str(out), "--chunk-size", "10", "--no-progress",
                 "--allow-mixed-versions"]) == 0
    assert "(4 parts: 2 computed, 2 reused; 0 errors)" in capsys.readouterr().out
    manifest = json.loads((out / store.MANIFEST).read_text())
    assert manifest["versions"] == ["0.1.0", "99.0.0"] and manifest["complete"] is True
    assert read_results(out).equals(analyze_many(BOARDS))
    run = analyze_to_parquet(source, out, chunk_size=10, overwrite=True)
    assert run.computed == 4
    assert json.loads((out / store.MANIFEST).read_text())["versions"] == ["99.0.0"]


def test_results_of_a_version_that_recorded_none_are_refused(tmp_path):
    from snl_numeric.batch import analyze_to_parquet
    from snl_numeric.io import store

    analyze_to_parquet(BOARDS, tmp_path, chunk_size=10)
    path = tmp_path / store.MANIFEST
    old = json.loads(path.read_text())
    del old["versions"]  # as written before versions were recorded
    path.write_text(json.dumps(old))
    with pytest.raises(ValueError, match="holds results of snl_numeric unknown"):
        analyze_to_parquet(BOARDS, tmp_path, chunk_size=10)
    assert analyze_to_parquet(BOARDS, tmp_path, chunk_size=10,
                              allow_mixed_versions=True).reused == 4


@pytest.mark.slow
def test_a_dask_worker_of_another_version_is_refused(tmp_path):
    import distributed
    import pyarrow.parquet as pq

    from snl_numeric.batch import analyze_many, analyze_to_parquet
    from snl_numeric.io import store

    local = analyze_many(BOARDS)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=50) as cluster, \
            distributed.Client(cluster) as client:
        # the worker's process pretends to run another version of the package
        client.run(exec, "from snl_numeric._core import version; version.VERSION = '99.0.0'")
        with pytest.raises(ValueError, match=r"a Dask worker runs snl_numeric 99\.0\.0 and this "
                                             r"process 0\.1\.0: the results would mix"):
            analyze_many(BOARDS, chunk_size=10, client=client)
        with pytest.raises(ValueError, match="a Dask worker runs snl_numeric 99.0.0"):
            analyze_to_parquet(BOARDS, tmp_path, chunk_size=10, client=client)
        assert analyze_many(BOARDS, chunk_size=10, client=client,
                            allow_mixed_versions=True).equals(local)
        run = analyze_to_parquet(BOARDS, tmp_path, chunk_size=10, client=client,
                                 allow_mixed_versions=True)
    assert run.computed == 4
    assert json.loads((tmp_path / store.MANIFEST).read_text())["versions"] == ["99.0.0"]
    assert pq.read_schema(tmp_path / "part-000003.parquet").metadata[store.VERSION_KEY] == \
        b"99.0.0"


# -- one writer per folder; files others can read (item 5, issue 28) ----------------------
@POSIX
def test_a_second_writer_is_refused_while_the_first_runs(tmp_path, capsys):
    from snl_numeric.batch import analyze_to_parquet, read_results
    from snl_numeric.batch import store as batch_store
    from snl_numeric.cli import main

    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(b) + "\n" for b in BOARDS))
    out = tmp_path / "out"
    seen = []

    def second_writer(index: int) -> None:  # runs while the first run holds the folder
        if index == 0:
            with pytest.raises(ValueError, match="is being written by another run"):
                analyze_to_parquet(source, out, chunk_size=10)
            capsys.readouterr()  # (what the first run printed: a cold cache's notes)
            seen.append(main(["batch", str(source), "-o", str(out), "--chunk-size", "10",
                              "--no-progress"]))
            seen.append(capsys.readouterr().err)

    batch_store._after_part_written = second_writer
    try:
        run = analyze_to_parquet(source, out, chunk_size=10)
    finally:
        batch_store._after_part_written = None
    code, err = seen
    assert code == 2 and run.computed == 4
    assert err.count("\n") == 1 and "is being written by another run" in err
    assert analyze_to_parquet(source, out, chunk_size=10).reused == 4  # released at the end
    assert len(read_results(out)) == len(BOARDS)


@POSIX
def test_outputs_get_the_mode_the_umask_gives(tmp_path):
    from snl_numeric import Board
    from snl_numeric.batch import analyze_to_parquet, write_jsonl

    old = os.umask(0o022)
    try:
        analyze_to_parquet(BOARDS, tmp_path / "out", chunk_size=10)
        write_jsonl([Board(10)], tmp_path / "b.jsonl")
    finally:
        os.umask(old)
    files = sorted((tmp_path / "out").iterdir()) + [tmp_path / "b.jsonl"]
    assert [f.name for f in files] == ["_manifest.json", "part-000000.parquet",
                                       "part-000001.parquet", "part-000002.parquet",
                                       "part-000003.parquet", "b.jsonl"]
    assert {oct(f.stat().st_mode & 0o777) for f in files} == {"0o644"}  # not 0o600


def test_write_jsonl_is_whole_or_nothing(tmp_path):
    from snl_numeric import Board
    from snl_numeric.batch import read_boards, write_jsonl

    path = tmp_path / "b.jsonl"
    write_jsonl([Board(10), Board(20)], path)

    def boards_then_a_full_disk():
        yield Board(30)
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        write_jsonl(boards_then_a_full_disk(), path)
    assert read_boards(path).sizes.tolist() == [10, 20]  # the old file, whole
    assert os.listdir(tmp_path) == ["b.jsonl"]  # no temporary file left


# -- inputs (item 5) ----------------------------------------------------------------------
@POSIX
def test_a_fifo_is_refused_at_once(tmp_path):
    """Nobody writes to the FIFO: reading it to the end, or twice, would wait forever (a
    child process, so that a hang fails the test instead of stalling the suite)."""
    fifo = tmp_path / "boards.jsonl"
    os.mkfifo(fifo)
    api = run_python("""
        import sys
        from snl_numeric.batch import analyze_many
        try:
            analyze_many(sys.argv[1])
        except ValueError as exc:
            print(exc)
    """, args=(str(fifo),), timeout=60)
    assert api.stdout == (f"board file {str(fifo)!r} is not a regular file (a pipe or device): "
                          "boards are read from a file, read more than once; save them to a "
                          "file first\n")
    cli = snl("batch", str(fifo), "-o", str(tmp_path / "o"), "--no-progress", timeout=60)
    assert cli.returncode == 2 and cli.stderr == f"snl batch: error: {api.stdout}"


def _jsonl_text(boards) -> str:
    return "".join(json.dumps(b) + "\n" for b in boards)


@pytest.mark.parametrize("how", ["gzip", "bom", "bom, blank line", "bom, blank line, list",
                                 "indented list", "one indented board", "one-line list",
                                 "plain"])
def test_board_files_as_users_write_them(tmp_path, how):
    import gzip

    from snl_numeric.batch import analyze_many

    boards = BOARDS[:3]
    path = tmp_path / ("b.jsonl.gz" if how == "gzip" else "b.json")
    data = {"gzip": gzip.compress(_jsonl_text(boards).encode()),
            "bom": b"\xef\xbb\xbf" + _jsonl_text(boards).encode(),
            # (the mark alone on line 1 was read as a bad board row)
            "bom, blank line": b"\xef\xbb\xbf\n" + _jsonl_text(boards).encode(),
            # (and then a document was taken for JSON Lines: its "[" line a bad row)
            "bom, blank line, list": b"\xef\xbb\xbf\n" + json.dumps(boards, indent=2).encode(),
            "indented list": json.dumps(boards, indent=2).encode(),
            "one indented board": json.dumps(boards[0], indent=2).encode(),
            "one-line list": json.dumps(boards).encode(),
            "plain": _jsonl_text(boards).encode()}[how]
    path.write_bytes(data)
    df = analyze_many(path, errors="coerce")
    expected = analyze_many(boards[:1] if how == "one indented board" else boards,
                            errors="coerce")
    assert df.equals(expected) and df["error"].isna().all()


def test_snl_design_output_is_a_batch_input(tmp_path, capsys):
    from snl_numeric.cli import main

    board = tmp_path / "designed.json"
    assert main(["design", "--size", "30", "--snakes", "1", "--ladders", "1", "--max",
                 "--iterations", "20", "--chains", "1", "--seed", "0", "-o", str(board),
                 "--no-progress"]) == 0
    assert "\n  " in board.read_text()  # indented
    capsys.readouterr()
    assert main(["batch", str(board), "-o", str(tmp_path / "o"), "--errors", "coerce",
                 "--no-progress", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["rows"], summary["errors"]) == (1, 0)  # not 36 error rows


@pytest.mark.parametrize("magic, name", [(b"\x28\xb5\x2f\xfd", "zstd"), (b"BZh91AY", "bzip2"),
                                         (b"\xfd7zXZ\x00", "xz")])
def test_other_compressions_are_refused_with_exit_2(tmp_path, capsys, magic, name):
    from snl_numeric.cli import main

    path = tmp_path / "b.jsonl.zst"
    path.write_bytes(magic + b"\x00" * 64)
    assert main(["batch", str(path), "-o", str(tmp_path / "o"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == (f"snl batch: error: {str(path)!r} is {name}-compressed: only gzip is read; "
                   "decompress it first\n")


# -- one-line CLI warnings (item 6) -------------------------------------------------------
@pytest.mark.filterwarnings("default::RuntimeWarning")  # as at a terminal, not as errors
def test_a_warning_in_the_cli_is_one_line_of_ours(monkeypatch, capsys):
    from snl_numeric._core.warn import warn_user
    from snl_numeric.cli import analyze as analyze_cli
    from snl_numeric.cli import main

    real = analyze_cli.analyze

    def noisy(board):  # e.g. a mean certified only to a relative error of 1e-9
        warn_user("means on this board are certified only to a relative error\nof 1e-09")
        return real(board)

    monkeypatch.setattr(analyze_cli, "analyze", noisy)
    assert main(["analyze", "seed-30"]) == 0
    err = capsys.readouterr().err.replace(f"snl_numeric: {numba_config.COMPILE_NOTE}\n", "")
    assert err == ("snl analyze: warning: means on this board are certified only to a "
                   "relative error of 1e-09\n")


# -- maze memory (item 1) -----------------------------------------------------------------
def _peak_bytes(fn) -> int:
    import tracemalloc

    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("kind", ["ones", "random", "zeros"])
def test_shortest_path_memory_estimate_holds(kind):
    import numpy as np

    from snl_numeric import maze

    n = 600
    m = {"ones": np.ones((n, n), np.int64), "zeros": np.zeros((n, n), np.int64),
         "random": np.random.default_rng(0).integers(0, 4, (n, n))}[kind]
    maze.shortest_path([[1, 1], [1, 1]], (0, 0), (1, 1))  # SciPy's first-call allocations
    peak = _peak_bytes(lambda: maze.shortest_path(m, (0, 0), (n // 2, n // 2)))
    estimate = maze.SHORTEST_PATH_BYTES * m.size
    # four moves from every cell is the worst case, estimated within 1.5x; dead ends need less
    assert peak <= estimate <= (1.5 if kind != "zeros" else 2.0) * peak


def test_shortest_path_refuses_before_allocating(tmp_path, monkeypatch, capsys):
    import numpy as np

    from snl_numeric import maze
    from snl_numeric._core.memory import MemoryLimitError
    from snl_numeric.cli import main

    monkeypatch.setenv("SNL_NUMERIC_MAX_MEMORY", "200M")
    m = np.ones((1000, 1000), np.int64)  # 264 MB: refused at once

    def attempt():
        with pytest.raises(MemoryLimitError, match=r"the shortest path in a 1,000 x 1,000 maze "
                                                    r"needs about 251\.8 MiB of memory"):
            maze.shortest_path(m, (0, 0), (500, 500))

    assert _peak_bytes(attempt) <= 9 * m.size  # refused before allocating (but the checked copy)
    path = tmp_path / "big.txt"
    path.write_text("\n".join(" ".join("1" * 1000) for _ in range(1000)))
    assert main(["maze", str(path), "--shortest", "--start", "0", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        "snl maze: error: the shortest path in a 1,000 x 1,000 maze needs about 251.8 MiB")
