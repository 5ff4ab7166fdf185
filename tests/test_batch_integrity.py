"""Batch data integrity: no silent mixing of runs, honest error counts, one poison row
never sinks a coerce batch, writes stay inside the output folder."""

from __future__ import annotations

import json
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from subproc import run_python

from snl_numeric import Board, expected_throws, min_throws
from snl_numeric.batch import analyze_many, analyze_to_parquet, read_results
from snl_numeric.batch import store as batch_store

BIG = "1180591620717411303424"  # 2**70
COLS = ("min_throws", "mean")


def _dicts(n, base):
    return [{"size": base + i, "jumps": [[2, 3 + (i % 3)]]} for i in range(n)]


# -- 3: every input fingerprinted ---------------------------------------------------
@pytest.mark.parametrize("kind", ["list", "tuple"])
def test_a_second_list_of_dicts_is_not_mixed_with_the_first(tmp_path, kind):
    first, second = _dicts(50, 10), _dicts(20, 30)
    wrap = list if kind == "list" else tuple
    analyze_to_parquet(wrap(first), tmp_path, columns=COLS, chunk_size=10)
    with pytest.raises(ValueError, match="another input or other settings"):
        analyze_to_parquet(wrap(second), tmp_path, columns=COLS, chunk_size=10)
    assert len(read_results(tmp_path)) == 50  # the refused run left the results alone
    run = analyze_to_parquet(wrap(second), tmp_path, columns=COLS, chunk_size=10,
                             overwrite=True)
    assert (run.rows, run.chunks, run.computed) == (20, 2, 2)
    got = read_results(tmp_path)
    assert got.index.tolist() == list(range(20))
    assert got.equals(analyze_many(second, columns=COLS))
    # the same list again: every part reused
    again = analyze_to_parquet(wrap(second), tmp_path, columns=COLS, chunk_size=10)
    assert (again.reused, again.computed) == (2, 0)


def test_the_same_rows_give_the_same_fingerprint_whatever_their_container(tmp_path):
    rows = _dicts(25, 10)
    analyze_to_parquet(rows, tmp_path, columns=COLS, chunk_size=10)
    boards = [Board.from_dict(r) for r in rows]
    # Boards and dicts are different inputs (a list of Boards is a batch)...
    with pytest.raises(ValueError, match="another input"):
        analyze_to_parquet(boards, tmp_path, columns=COLS, chunk_size=10)
    # ...but an equal list of dicts is the same input: resumed, not refused
    assert analyze_to_parquet([dict(r) for r in rows], tmp_path, columns=COLS,
                              chunk_size=10).reused == 3


def test_an_iterator_into_a_folder_with_results_is_refused_unless_overwrite(tmp_path):
    first, second = _dicts(50, 10), _dicts(20, 30)
    run = analyze_to_parquet(iter(first), tmp_path, columns=COLS, chunk_size=10)
    assert (run.rows, run.computed) == (50, 5)
    assert read_results(tmp_path).equals(analyze_many(first, columns=COLS))
    with pytest.raises(ValueError, match="iterator of boards cannot be fingerprinted"):
        analyze_to_parquet((b for b in second), tmp_path, columns=COLS, chunk_size=10)
    with pytest.raises(ValueError, match="another input"):  # a list is not that iterator
        analyze_to_parquet(second, tmp_path, columns=COLS, chunk_size=10)
    run = analyze_to_parquet((b for b in second), tmp_path, columns=COLS, chunk_size=10,
                             overwrite=True)
    assert (run.rows, run.chunks) == (20, 2)
    assert sorted(os.listdir(tmp_path)) == ["_manifest.json", "part-000000.parquet",
                                            "part-000001.parquet"]
    assert read_results(tmp_path).equals(analyze_many(second, columns=COLS))
    manifest = json.loads((tmp_path / "_manifest.json").read_text())
    assert manifest["complete"] is True and manifest["input"].startswith("rows:")


def test_an_unfinished_run_is_not_read_as_a_result(tmp_path, monkeypatch):
    rows = _dicts(40, 10)

    class Stop(Exception):
        pass

    def stop_after_two(index):
        if index == 1:
            raise Stop

    monkeypatch.setattr(batch_store, "_after_part_written", stop_after_two)
    with pytest.raises(Stop):
        analyze_to_parquet(rows, tmp_path, columns=COLS, chunk_size=10)
    monkeypatch.setattr(batch_store, "_after_part_written", None)
    with pytest.raises(ValueError, match="unfinished run"):
        read_results(tmp_path)
    run = analyze_to_parquet(rows, tmp_path, columns=COLS, chunk_size=10)
    assert (run.reused, run.computed) == (2, 2)
    assert read_results(tmp_path).equals(analyze_many(rows, columns=COLS))


# -- 4: error counts describe the whole result ----------------------------------------
def test_error_counts_after_resume_and_full_reuse(tmp_path, monkeypatch):
    rows = [{"size": 10, "jumps": [[10, 1]]} if i % 3 == 0 else {"size": 10 + i}
            for i in range(60)]
    n_bad = sum(1 for i in range(60) if i % 3 == 0)

    class Stop(Exception):
        pass

    def stop(index):
        if index == 2:
            raise Stop

    monkeypatch.setattr(batch_store, "_after_part_written", stop)
    with pytest.raises(Stop):
        analyze_to_parquet(rows, tmp_path, columns=COLS, chunk_size=10, errors="coerce")
    monkeypatch.setattr(batch_store, "_after_part_written", None)
    resumed = analyze_to_parquet(rows, tmp_path, columns=COLS, chunk_size=10, errors="coerce")
    assert (resumed.reused, resumed.computed, resumed.errors) == (3, 3, n_bad)
    again = analyze_to_parquet(rows, tmp_path, columns=COLS, chunk_size=10, errors="coerce")
    assert (again.reused, again.computed, again.errors) == (6, 0, n_bad)
    assert int(read_results(tmp_path)["error"].notna().sum()) == n_bad == 20
    assert json.loads((tmp_path / "_manifest.json").read_text())["errors"] == n_bad


# -- 5: one poison row never sinks a coerce batch ------------------------------------------
POISON = [line.replace("@", BIG).replace("#", "0" * 400) for line in [
    '{"size": @}',
    '{"size": 10, "start": @}',
    '{"size": 10, "jumps": [[3, @]]}',
    '{"size": 10, "jumps": {"@": 3}}',
    '{"size": 10, "ladders": [[@, 5]]}',
    '{"size": 10, "dice": {"faces": [@], "probs": [1.0]}}',
    '{"size": 10, "dice": {"@": 1.0}}',
    '{"size": 10, "dice": {"1": 1#}}',
    '{"size": 10, "dice": {"faces": [1], "probs": [1#]}}',
    '{"size": 10, "jumps": ' + "[" * 5000 + "]" * 5000 + "}",
    '{"size": 10, "name": @}',
    '{"size": 10, "version": 1.0}',
]]


def _poison_file(path):
    with open(path, "wb") as fh:
        fh.write(b'{"size": 10}\n\n')  # line 1, then a blank line 2
        for line in POISON:
            fh.write(line.encode() + b"\n")
        fh.write(b'{"size": 10, "name": "\xff\xfe"}\n')
        fh.write(b'{"size": 12}\n')
    return 2 + len(POISON) + 2  # lines in all


def test_poison_rows_become_error_rows_with_their_line(tmp_path):
    path = tmp_path / "poison.jsonl"
    n_lines = _poison_file(path)
    df = analyze_many(path, errors="coerce", columns=COLS)
    assert len(df) == n_lines - 1  # every non-blank line, exactly once
    assert df["min_throws"].iloc[0] == 2 and df["min_throws"].iloc[-1] == 2
    errors = df["error"].iloc[1:-1].tolist()
    assert all(isinstance(e, str) for e in errors)
    for row, message in enumerate(errors, start=1):
        assert message.endswith(f"(line {row + 2})"), message
        assert len(message) < 200
    assert errors[0].startswith("size must fit in a 64-bit integer, got 1180591620717411303424")
    assert errors[3].startswith("jumps start must fit in a 64-bit integer")
    assert errors[7].startswith("probability of face 1 is too large for a float, got 1000")
    assert errors[9].startswith("invalid board JSON: nested")
    assert errors[-1].startswith("invalid board JSON: not UTF-8 text")
    with pytest.raises(ValueError, match=r"^board 1: size must fit in a 64-bit integer, got "
                                         r"1180591620717411303424 \(line 3\)$"):
        analyze_many(path, columns=COLS)


def test_poison_rows_in_the_cli_in_a_subprocess(tmp_path):
    path = tmp_path / "poison.jsonl"
    n_lines = _poison_file(path)
    out = tmp_path / "out"
    proc = run_python("from snl_numeric.cli import main; import sys; sys.exit(main())",
                      args=("batch", str(path), "-o", str(out), "--errors", "coerce",
                            "--no-progress", "--json"), timeout=300)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert (summary["rows"], summary["errors"]) == (n_lines - 1, len(POISON) + 1)
    proc = run_python("from snl_numeric.cli import main; import sys; sys.exit(main())",
                      args=("batch", str(path), "-o", str(tmp_path / "o2"), "--no-progress"),
                      timeout=300)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "snl batch: error: board 1: size must fit in a 64-bit integer, got "
        "1180591620717411303424 (line 3)"]


def test_python_rows_deep_huge_and_strange_are_error_rows():
    deep: list = []
    node = deep
    for _ in range(5000):
        node.append([])
        node = node[0]

    class Weird(dict):
        def get(self, *args):
            raise RuntimeError("no get")

    rows = [{"size": 10, "jumps": deep}, {"size": 10, "dice": {1: 10**400}},
            {"size": 10, "jumps": [[3, 2**70]]}, {"size": 2**70}, Weird(size=10), None,
            {"size": 10}]
    df = analyze_many(iter(rows), errors="coerce", columns=COLS)
    assert len(df) == len(rows) and df["min_throws"].iloc[-1] == 2
    err = df["error"].tolist()
    assert err[0] == "each of the jumps must be a pair (from, to), got [[[[...]]]]"
    assert err[1].startswith("probability of face 1 is too large for a float")
    assert err[2] == "jumps destination must fit in a 64-bit integer, got 1180591620717411303424"
    assert err[3] == "size must fit in a 64-bit integer, got 1180591620717411303424"
    assert "RuntimeError: no get" in err[4]
    assert err[5] == "board data must be a mapping, got NoneType"


def test_parquet_integers_beyond_int64_are_error_rows(tmp_path):
    path = tmp_path / "b.parquet"
    pq.write_table(pa.table({
        "size": pa.array([10, 2**64 - 1, 10, 10, 10], pa.uint64()),
        "start": pa.array([0, 0, 2**63, 0, 0], pa.uint64()),
        "jump_src": pa.array([[3], [3], [3], [3], [3]], pa.list_(pa.uint64())),
        "jump_dst": pa.array([[5], [5], [5], [2**64 - 2], [5]], pa.list_(pa.uint64())),
    }), path)
    df = analyze_many(path, errors="coerce", columns=("min_throws",))
    assert df["error"].tolist()[1:4] == [
        "size must fit in a 64-bit integer, got 18446744073709551615",
        "start must fit in a 64-bit integer, got 9223372036854775808",
        "jumps destination must fit in a 64-bit integer, got 18446744073709551614"]
    assert df["min_throws"].iloc[0] == df["min_throws"].iloc[4] == min_throws(Board(10, {3: 5}))
    floats = tmp_path / "f.parquet"
    pq.write_table(pa.table({"size": pa.array([10.0, 1e30, 10.5, None])}), floats)
    df = analyze_many(floats, errors="coerce", columns=("mean",))
    assert df["error"].tolist()[1:] == ["size must fit in a 64-bit integer, got 1e+30",
                                        "size must be an integer, got 10.5",
                                        "board data needs a 'size'"]
    assert df["mean"].iloc[0] == pytest.approx(expected_throws(Board(10)))
    strings = tmp_path / "s.parquet"
    pq.write_table(pa.table({"size": pa.array(["10", "x"])}), strings)
    with pytest.raises(TypeError, match="Parquet column 'size' must hold integers, got string"):
        analyze_many(strings)
    # a null inside a list of integers is its row's error, not the file's (it read as a float
    # column: "must hold lists of integers, got list<element: int64>")
    nulls = tmp_path / "n.parquet"
    ints = pa.list_(pa.int64())
    for table, message in [
            ({"jump_src": pa.array([[2, None], [1]], ints), "jump_dst": [[3, 5], [4]]},
             "jumps start must be an integer, got None"),
            ({"jump_src": [[2, 4], [1]], "jump_dst": pa.array([[3, None], [4]], ints)},
             "jumps destination must be an integer, got None"),
            ({"jumps": pa.array([[[2, None]], [[1, 4]]], pa.list_(ints))},
             "jumps must be an integer, got None"),
            ({"dice_faces": pa.array([[1, None], [1]], ints), "dice_probs": [[0.5, 0.5], [1.0]]},
             "dice faces must be an integer, got None")]:
        pq.write_table(pa.table({"size": [10, 10], **table}), nulls)
        df = analyze_many(nulls, errors="coerce", columns=("mean",))
        assert df["error"].tolist()[0] == message
        second = Board(10, dice={1: 1.0}) if "dice_faces" in table else Board(10, {1: 4})
        assert df["mean"].iloc[1] == pytest.approx(expected_throws(second))
    # a column of strings is no column of booleans ("false" was read as chain=True)
    flags = tmp_path / "c.parquet"
    pq.write_table(pa.table({"size": [10, 10], "chain": ["false", "true"]}), flags)
    with pytest.raises(TypeError, match="Parquet column 'chain' must hold booleans, got string"):
        analyze_many(flags)
    pq.write_table(pa.table({"size": [10, 10], "jump_src": [[2, 3], [2, 3]],
                             "jump_dst": [[3, 8], [3, 8]], "chain": [None, True]}), flags)
    df = analyze_many(flags, columns=("mean",))  # a null is the default, False
    assert df["mean"].tolist() == pytest.approx(
        [expected_throws(Board(10, {2: 3, 3: 8}, chain=c)) for c in (False, True)])


def test_parquet_paired_list_columns_unequal_or_half_there():
    """jump_src/jump_dst and dice_faces/dice_probs go in pairs: a row whose two lists differ
    in length is that row's error (its entries dropped), a file with one of a pair is refused."""
    from snl_numeric.io.parquet import read_columns

    ints, floats = pa.list_(pa.int64()), pa.list_(pa.float64())
    cols = read_columns(pa.record_batch({
        "size": [10, 10, 12, 20],
        "jump_src": pa.array([[3], [2, 4], None, [5, 6]], ints),
        "jump_dst": pa.array([[8], [9], None, [1, 2]], ints),
        "dice_faces": pa.array([[1, 2], None, [1, 2, 3], [1]], ints),
        "dice_probs": pa.array([[0.5, 0.5], None, [0.5, 0.5], [1.0]], floats),
    }))
    assert cols.errors == {
        1: "jump_src and jump_dst must have equal lengths, got 2 and 1",
        2: "dice faces and probabilities must be 1-d arrays of equal length, got shapes (3,) "
           "and (2,)"}
    assert cols.n_jumps.tolist() == [1, 0, 0, 2]
    assert cols.src.tolist() == [3, 5, 6] and cols.dst.tolist() == [8, 1, 2]
    assert cols.n_faces.tolist() == [2, 6, 0, 1]  # a null pair: a fair d6
    assert cols.faces.tolist() == [1, 2, 1, 2, 3, 4, 5, 6, 1]
    assert cols.probs.tolist() == [0.5, 0.5] + [1 / 6] * 6 + [1.0]
    for half in ("jump_src", "jump_dst", "dice_faces", "dice_probs"):
        other = {"jump_src": "jump_dst", "jump_dst": "jump_src", "dice_faces": "dice_probs",
                 "dice_probs": "dice_faces"}[half]
        first, second = sorted((half, other), key=["jump_src", "jump_dst", "dice_faces",
                                                   "dice_probs"].index)
        with pytest.raises(ValueError, match=f"^a board Parquet file needs both '{first}' and "
                                             f"'{second}'$"):
            read_columns(pa.record_batch({"size": [3], half: pa.array([[1]], ints)}))


# -- 6: temporary files never follow a planted link -------------------------------------------
def test_planted_links_are_never_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "out"
    out.mkdir()
    for name in ("._manifest.json.tmp", ".part-000000.parquet.tmp", ".part-000001.parquet.tmp"):
        os.symlink(victim, out / name)
    analyze_to_parquet([Board(10), Board(12)], out, columns=COLS, chunk_size=1)
    assert victim.read_text() == "precious"
    # a link planted where a part goes is replaced, not written through, nor reused
    os.remove(out / "part-000001.parquet")
    os.symlink(victim, out / "part-000001.parquet")
    run = analyze_to_parquet([Board(10), Board(12)], out, columns=COLS, chunk_size=1)
    assert (run.reused, run.computed) == (1, 1)
    assert victim.read_text() == "precious"
    assert not os.path.islink(out / "part-000001.parquet")
    assert read_results(out)["min_throws"].tolist() == [2, 2]
    leftovers = [n for n in os.listdir(out) if n.endswith(".tmp") and not os.path.islink(out / n)]
    assert leftovers == []


def test_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    from snl_numeric.io import store

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", boom)
    with pytest.raises(OSError, match="disk full"):
        analyze_to_parquet([Board(10)], tmp_path, columns=COLS)
    assert sorted(os.listdir(tmp_path)) == [store.MANIFEST]
    assert np.isclose(expected_throws(Board(10)), analyze_many([Board(10)], columns=COLS)[
        "mean"].iloc[0])
