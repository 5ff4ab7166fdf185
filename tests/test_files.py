"""The one atomic writer (issue 54): every file the package writes is whole or absent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from snl_numeric import Board, boards, report
from snl_numeric._core import files
from snl_numeric.batch import read_boards, write_jsonl, write_parquet
from snl_numeric.io.store import write_atomic as store_write_atomic

MB = boards.get("milton-bradley")


def stream(n_ok: int, fail: bool = True):
    """``n_ok`` boards, then (when ``fail``) an error, as a generator feeding a writer."""
    for i in range(n_ok):
        yield Board(10 + i)
    if fail:
        raise RuntimeError("the source failed")


WRITERS = {
    "parquet": lambda path, fail: write_parquet(stream(3, fail), path),
    "jsonl": lambda path, fail: write_jsonl(stream(3, fail), path),
    "report": lambda path, fail: report(Board(8, {3: 6}), path),
    "board": lambda path, fail: Board(8, {3: 6}).to_json(path),
    "manifest": lambda path, fail: store_write_atomic(path, lambda fh: fh.write(b"{}\n")),
}


def _old(path) -> bytes:
    path.write_bytes(b"the previous good file\n")
    return path.read_bytes()


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_failure_while_writing_leaves_the_old_file(tmp_path, monkeypatch, name):
    """The disk fails at the last moment (fsync) for every writer: the old file stays,
    no temporary file is left (and so every writer goes through the one writer)."""
    path = tmp_path / f"out.{name}"
    old = _old(path)

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        WRITERS[name](path, False)
    assert path.read_bytes() == old
    assert sorted(os.listdir(tmp_path)) == [path.name]


@pytest.mark.parametrize("name", ["parquet", "jsonl"])
def test_a_stream_that_fails_leaves_the_old_file(tmp_path, name):
    """Issue 54: a Parquet stream failing after three batches left a shorter file that read
    as valid, the previous one gone."""
    path = tmp_path / f"out.{name}"
    WRITERS[name](path, False)
    good = read_boards(path).sizes.tolist()
    assert good == [10, 11, 12]
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="source failed"):
        (write_parquet if name == "parquet" else write_jsonl)(stream(5), path)
    assert path.read_bytes() == before and read_boards(path).sizes.tolist() == good
    assert sorted(os.listdir(tmp_path)) == [path.name]


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_planted_link_is_replaced_not_followed(tmp_path, name):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"not yours")
    path = tmp_path / f"out.{name}"
    path.symlink_to(victim)
    WRITERS[name](path, False)
    assert victim.read_bytes() == b"not yours"
    assert path.is_file() and not path.is_symlink() and path.stat().st_size > 0


def test_a_kill_while_writing_leaves_the_old_file(tmp_path):
    """SIGKILL in the middle of a Parquet stream (two batches written, the third never
    comes): the old file reads as before."""
    path = tmp_path / "out.parquet"
    write_parquet([MB, Board(30)], path)
    before = path.read_bytes()
    code = textwrap.dedent(f"""
        import sys, time
        from snl_numeric import Board
        from snl_numeric.batch import BoardBatch, write_parquet

        def slow():
            for i in range(3):
                yield BoardBatch.from_boards([Board(10 + i)] * 1000)
            print("written", flush=True)
            time.sleep(600)

        write_parquet(slow(), {str(path)!r})
    """)
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "written"
        assert len([f for f in os.listdir(tmp_path) if f.endswith(".tmp")]) == 1
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
        child.stdout.close()
    assert path.read_bytes() == before
    assert read_boards(path).sizes.tolist() == [100, 30]


def test_write_atomic_syncs_before_the_rename(tmp_path, monkeypatch):
    """The order that makes a crash safe: the data reaches the disk, then the name moves."""
    calls = []
    monkeypatch.setattr(files.os, "fsync", lambda fd: calls.append("fsync"))
    real = files.os.replace
    monkeypatch.setattr(files.os, "replace",
                        lambda a, b: (calls.append("replace"), real(a, b))[1])
    files.write_text_atomic(tmp_path / "x.txt", "text")
    assert calls == ["fsync", "replace", "fsync"]  # the file, the rename, the folder
    assert (tmp_path / "x.txt").read_text() == "text"
