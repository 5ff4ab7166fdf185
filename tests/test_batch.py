"""Batch analysis: agreement with the single-board API, I/O, errors, resume, Dask."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import threading
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snl_numeric import (
    Board,
    Dice,
    analyze,
    boards,
    expected_throws,
    finish_probability,
    min_throws,
    throws_variance,
)
from snl_numeric.batch import (
    MAX_SIZE,
    BoardBatch,
    analyze_many,
    analyze_to_parquet,
    random_batch,
    read_boards,
    read_results,
    write_jsonl,
    write_parquet,
)
from snl_numeric.batch import files as batch_files
from snl_numeric.batch import run as batch_run
from snl_numeric.batch import store as batch_store
from snl_numeric.cli import main
from tests import naive

ALL = ("min_throws", "mean", "variance", "std", "median", "mode", "p10", "p90",
       "p99.5", "size", "start", "n_snakes", "n_ladders", "n_faces")


def _expected_row(board: Board) -> dict:
    a = analyze(board, percentiles=(10, 50, 90, 99.5))
    return {
        "min_throws": None if min_throws(board) < 0 else min_throws(board),  # <NA>
        "mean": expected_throws(board),
        "variance": throws_variance(board),
        "std": math.sqrt(throws_variance(board)),
        "median": a.median,
        "mode": a.mode,
        "p10": a.percentiles[10],
        "p90": a.percentiles[90],
        "p99.5": a.percentiles[99.5],
        "size": board.size,
        "start": board.start,
        "n_snakes": len(board.snakes),
        "n_ladders": len(board.ladders),
        "n_faces": len(board.dice.faces),
    }


def _value(v):
    return None if v is pd.NA or v is None else v


def _assert_matches(df: pd.DataFrame, boards_list: list[Board]) -> None:
    assert list(df.index) == list(range(len(boards_list)))
    for i, board in enumerate(boards_list):
        want = _expected_row(board)
        for col, w in want.items():
            got = _value(df[col].iloc[i])
            if isinstance(w, float):
                if math.isinf(w):
                    assert got == w, (i, col, got, w)
                else:
                    assert got == pytest.approx(w, rel=1e-9, abs=1e-9), (i, col, got, w)
            else:
                assert got == w, (i, col, got, w, board)


def _fixed_boards() -> list[Board]:
    return [
        boards.get("milton-bradley"),
        boards.get("milton-bradley-48"),
        boards.get("seed004"),
        boards.get("seed-30"),
        boards.get("milton-bradley", overshoot="bounce", chain=True),
        boards.get("milton-bradley", overshoot="win", dice=Dice.sum_of(2, 6)),
        Board(1),
        Board(1, dice={1: 1.0}),
        Board(10, start=10),                          # start on the goal
        Board(10, {3: 8}, start=3),                   # a token on start ignores the jump
        Board(10, {9: 0}, overshoot="exact"),
        Board(10, {4: 9, 9: 2}, chain=True),          # chained jumps
        Board(4, overshoot="exact", dice={3: 1.0}),   # unreachable goal: min -1, mean inf
        Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5}),  # may get stuck: inf, finite min
        Board(8, {5: 7}, overshoot="exact", dice={2: 1.0}, start=1),  # stuck on odd squares
        Board(12, {11: 1}, overshoot="bounce", dice={1: 0.2, 5: 0.8}),
        Board(6, overshoot="bounce", dice={7: 1.0}),  # face size + 1 bounces to 0
        Board(30, overshoot="exact", dice={1: 1e-3, 2: 1 - 1e-3}),
    ]


# -- agreement with the single-board functions ---------------------------------
def test_fixed_boards_match_single_board_api():
    bl = _fixed_boards()
    df = analyze_many(bl, columns=ALL, chunk_size=5)
    _assert_matches(df, bl)
    assert df.loc[12, "min_throws"] is pd.NA and df.loc[12, "mean"] == math.inf
    assert df.loc[12, "median"] is pd.NA and df.loc[12, "mode"] is pd.NA
    assert df.loc[13, "min_throws"] == 1 and df.loc[13, "variance"] == math.inf
    assert df["min_throws"].dtype == "Int64" and df["mean"].dtype == np.float64


def test_unreachable_goal_is_missing_so_reductions_skip_it(tmp_path):
    # issue 55, item 4: pandas' convention, not -1 (which made the column's mean wrong)
    bl = [Board(10), Board(4, overshoot="exact", dice={3: 1.0}), Board(20)]
    want = [min_throws(bl[0]), min_throws(bl[2])]
    assert min_throws(bl[1]) == -1 and want == [2, 4]  # 10 / 6, 20 / 6 rounded up
    df = analyze_many(bl, columns=["min_throws", "mean"])
    assert df["min_throws"].dtype == "Int64" and df["min_throws"].isna().tolist() == [
        False, True, False]
    assert df.min_throws.mean() == 3.0 and df.min_throws.min() == 2  # <NA> skipped
    assert df["mean"].iloc[1] == math.inf  # never finishing is a value, not a missing one
    # the Parquet results keep it missing
    analyze_to_parquet(bl, tmp_path / "out", columns=["min_throws", "mean"])
    back = read_results(tmp_path / "out")
    assert back["min_throws"].dtype == "Int64" and back.min_throws.mean() == 3.0
    assert back["min_throws"].isna().tolist() == [False, True, False]


def _assert_naive_rows(bl):
    """analyze_many's rows against naive.batch_row's (BFS, dense solves, the mass pushed
    throw by throw)."""
    df = analyze_many(bl, columns=("min_throws", "mean", "variance", "median"))
    for i, b in enumerate(bl):
        want = naive.batch_row(b.size, b.jumps, b.start, b.overshoot, b.chain, b.dice.to_dict())
        assert _value(df["min_throws"].iloc[i]) == (None if want["min_throws"] < 0
                                                    else want["min_throws"])
        assert _value(df["median"].iloc[i]) == want["median"]
        for col in ("mean", "variance"):
            assert df[col].iloc[i] == pytest.approx(want[col], rel=1e-8), (i, col)


def test_matches_naive_twin():
    _assert_naive_rows(_fixed_boards()[3:])


@st.composite
def _boards(draw):
    overshoot = draw(st.sampled_from(["win", "exact", "bounce"]))
    size = draw(st.integers(2, 60))
    dice = draw(st.sampled_from([None, {1: 0.5, 2: 0.5}, {2: 0.25, 3: 0.75},
                                 {1: 0.1, 4: 0.6, 6: 0.3}, {2: 0.5, 4: 0.5}]))
    if overshoot == "bounce" and max((dice or {6: 1}).keys()) > size + 1:
        dice = {1: 0.5, 2: 0.5}
    b = boards.random_board(size, draw(st.floats(0, 0.45)), rng=draw(st.integers(0, 2**32)),
                            overshoot=overshoot, chain=draw(st.booleans()), dice=dice)
    start = draw(st.integers(0, size))
    return b.replace(start=start)


@settings(deadline=None, max_examples=15)
@given(st.lists(_boards(), min_size=1, max_size=6))
def test_random_boards_match_the_naive_twin(bl):
    _assert_naive_rows(bl)


@settings(deadline=None, max_examples=15)
@given(st.lists(_boards(), min_size=1, max_size=12), st.integers(1, 7))
def test_random_boards_match_single_board_api(bl, chunk_size):
    df = analyze_many(bl, columns=ALL, chunk_size=chunk_size)
    _assert_matches(df, bl)


def test_mixed_sizes_batch_agrees_with_random_batch_boards():
    big = BoardBatch.concat([random_batch(40, 100, rng=1),
                             random_batch(30, 30, snakes=3, ladders=4, rng=2, overshoot="exact"),
                             random_batch(30, 50, snakes=5, ladders=5, rng=3, chain=True,
                                          overshoot="bounce")])
    df = analyze_many(big, columns=("min_throws", "mean", "variance", "median"))
    rng = np.random.default_rng(0)
    for i in rng.choice(len(big), 12, replace=False).tolist():
        b = big[i]
        assert _value(df["min_throws"].iloc[i]) == _expected_row(b)["min_throws"]
        assert df["mean"].iloc[i] == pytest.approx(expected_throws(b), rel=1e-9)
        assert df["variance"].iloc[i] == pytest.approx(throws_variance(b), rel=1e-9)
        assert df["median"].iloc[i] == analyze(b).median


# -- the batch representation -----------------------------------------------------
def test_board_batch_round_trip_and_concat():
    bl = _fixed_boards()
    batch = BoardBatch.from_boards(bl)
    assert len(batch) == len(bl)
    assert list(batch) == bl
    assert [batch[i] for i in range(-len(bl), 0)] == bl
    both = BoardBatch.concat([batch, batch[3:5]])
    assert len(both) == len(bl) + 2 and both[len(bl) + 1] == bl[4]
    assert list(batch.take(np.array([4, 0]))) == [bl[4], bl[0]]
    assert batch.fingerprint() == BoardBatch.from_boards(bl).fingerprint()
    assert batch.fingerprint() != batch[1:].fingerprint()
    with pytest.raises(IndexError, match="out of range"):
        batch[len(bl)]


def test_from_arrays_canonical_dice_and_layout_errors():
    b = BoardBatch.from_arrays([10, 5], overshoot=["exact", "win"],
                               jump_ptr=[0, 1, 1], jump_src=[3], jump_dst=[8],
                               dice_ptr=[0, 3, 4], faces=[2, 1, 3, 4], probs=[0.5, 0.5, 0.0, 1.0])
    assert b.dice_ptr.tolist() == [0, 3, 4] and b.faces.tolist() == [1, 2, 3, 4]
    assert b[0] == Board(10, {3: 8}, overshoot="exact", dice={1: 0.5, 2: 0.5})
    # a face of probability zero is never thrown
    df = analyze_many(b, columns=("min_throws", "mean", "n_faces"))
    assert df["n_faces"].tolist() == [2, 1]
    assert df["min_throws"].tolist() == [min_throws(b[0]), min_throws(b[1])] == [3, 2]
    assert df["mean"].iloc[0] == pytest.approx(expected_throws(b[0]), rel=1e-12)
    with pytest.raises(ValueError, match="jump_ptr must have 3 entries"):
        BoardBatch.from_arrays([10, 5], jump_ptr=[0, 1], jump_src=[3], jump_dst=[8])
    with pytest.raises(ValueError, match="jump_ptr must rise from 0 to 1"):
        BoardBatch.from_arrays([10, 5], jump_ptr=[0, 2, 1], jump_src=[3], jump_dst=[8])
    with pytest.raises(TypeError, match="sizes must hold integers"):
        BoardBatch.from_arrays([10.5])
    with pytest.raises(ValueError, match="overshoot must be one of"):
        BoardBatch.from_arrays([10], overshoot=["wins"])


@pytest.mark.parametrize("block", [1, 2, 5, 64, 1 << 20])
def test_from_arrays_orders_each_boards_faces_as_a_plain_sort_does(monkeypatch, block):
    """Faces are checked, and sorted where out of order, a block of boards at a time (Ctrl-C
    stops between blocks): the same faces and probabilities as a stable sort of each
    board's dice on its own, whatever the blocks, empty boards and ties included."""
    from snl_numeric.batch import data

    monkeypatch.setattr(data, "ORDER_BLOCK", block)
    rng = np.random.default_rng(block)
    for _ in range(40):
        n = int(rng.integers(0, 25))
        counts = rng.integers(0, 6, n) * (rng.random(n) < 0.8)  # some boards without dice
        ptr = np.concatenate([[0], np.cumsum(counts)])
        faces = rng.integers(1, 5, ptr[-1]) if rng.random() < 0.7 else np.arange(ptr[-1]) + 1
        probs = rng.random(ptr[-1])
        given_faces, given_probs = faces.copy(), probs.copy()
        b = BoardBatch.from_arrays(np.full(n, 10), dice_ptr=ptr, faces=faces, probs=probs)
        want = [sorted(zip(faces[lo:hi].tolist(), probs[lo:hi].tolist()), key=lambda fp: fp[0])
                for lo, hi in zip(ptr[:-1], ptr[1:])]  # (sorted is stable: ties as given)
        assert b.faces.tolist() == [f for board in want for f, _ in board]
        assert b.probs.tolist() == [p for board in want for _, p in board]
        assert b.dice_ptr.tolist() == ptr.tolist()
        # the caller's arrays are left as they were
        assert np.array_equal(faces, given_faces) and np.array_equal(probs, given_probs)


def test_from_arrays_reads_rule_names_in_one_pass():
    names = np.array(["exact", "win", "bounce", "exact"])
    for given in (names, names.astype(object), names.tolist()):
        b = BoardBatch.from_arrays([10, 10, 10, 10], overshoot=given)
        assert b.overshoot.tolist() == [1, 0, 2, 1] and b.overshoot.dtype == np.int8
    for bad, shown_ in ((["win", "wins"], "'wins'"), (np.array(["win", 3], object), "'3'"),
                        (["win", None], "'None'")):
        with pytest.raises(ValueError, match=f"overshoot must be one of .*got {shown_}"):
            BoardBatch.from_arrays([10, 10], overshoot=bad)


def test_random_batch_boards_are_valid():
    b = random_batch(200, 100, snakes=10, ladders=10, rng=5, chain=True)
    assert len(b) == 200 and len(b.jump_src) == 4000
    boards_list = list(b)  # each builds a Board: valid
    assert all(len(x.snakes) == 10 and len(x.ladders) == 10 for x in boards_list)
    assert random_batch(3, 20, snakes=2, ladders=2, rng=1).fingerprint() == \
        random_batch(3, 20, snakes=2, ladders=2, rng=1).fingerprint()




@pytest.mark.parametrize("n, snakes, ladders", [(0, 2, 2), (5, 0, 0), (7, 3, 2), (9_000, 10, 10)])
def test_random_batch_arrays_are_those_from_arrays_makes(n, snakes, ladders):
    # random_batch builds its BoardBatch directly; what reads a batch (the kernels, the
    # writers, concat, fingerprint) sees the arrays from_arrays would have made
    b = random_batch(n, 100, snakes=snakes, ladders=ladders, rng=7, overshoot="bounce",
                     chain=True)
    via = BoardBatch.from_arrays(b.sizes, starts=b.starts, overshoot=b.overshoot,
                                 chain=b.chain, jump_ptr=b.jump_ptr, jump_src=b.jump_src,
                                 jump_dst=b.jump_dst, dice_ptr=b.dice_ptr, faces=b.faces,
                                 probs=b.probs)
    for name in ("sizes", "starts", "overshoot", "chain", "jump_ptr", "jump_src", "jump_dst",
                 "dice_ptr", "faces", "probs"):
        got, want = getattr(b, name), getattr(via, name)
        assert got.dtype == want.dtype and got.shape == want.shape, name
        assert got.flags.c_contiguous and got.flags.writeable and got.flags.aligned, name
        assert np.array_equal(got, want), name
    assert b.fingerprint() == via.fingerprint()
    assert b.overshoot.tolist() == [2] * n and b.chain.tolist() == [True] * n
    assert np.array_equal(np.diff(b.jump_ptr), np.full(n, snakes + ladders))

@pytest.mark.parametrize("n, size, jumps", [(1, 2_000_001, 1), (400, 20_001, 2), (20_000, 100, 10)])
def test_random_batch_memory_estimate_covers_its_peak(monkeypatch, n, size, jumps):
    # a chunk holds the random keys and argpartition's int64 indices at once (16 bytes a
    # square): the estimate counted 10, 1.6 times below the peak on large boards
    import tracemalloc

    from snl_numeric.batch import data

    asked = []
    monkeypatch.setattr(data, "check_memory", lambda nbytes, what: asked.append(nbytes))
    tracemalloc.start()
    try:
        random_batch(n, size, snakes=jumps, ladders=jumps, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(asked) == 1 and 0.95 * peak <= asked[0] <= 2 * peak, (peak / 2**20, asked[0] / 2**20)

# -- bad boards ---------------------------------------------------------------------
BAD = [
    {"size": 10, "jumps": [[10, 2]]},
    {"size": 10, "jumps": [[3, 11]]},
    {"size": 10, "jumps": [[-1, 5]]},
    {"size": 10, "jumps": [[3, 3]]},
    {"size": 10, "jumps": [[3, 7], [5, 1], [3, 9]]},
    {"size": 10, "jumps": [[2, 6], [6, 4], [4, 2]], "chain": True},
    {"size": 4, "overshoot": "bounce"},
    {"size": 10, "dice": {"faces": [1, 2], "probs": [0.5, float("nan")]}},
    {"size": 10, "dice": {"faces": [1, 2], "probs": [1.5, -0.5]}},
    {"size": 10, "dice": {"faces": [1, 2], "probs": [0.5, 0.4]}},
    {"size": 10, "dice": {"faces": [0, 2], "probs": [0.5, 0.5]}},
    {"size": 10, "dice": {"faces": [1, 2, 2], "probs": [1.0, 0.0, 0.0]}},
    {"size": 10, "dice": {"faces": [1, 2], "probs": [0.0, 0.0]}},
    {"size": 10, "dice": {"faces": [], "probs": []}},
    {"size": 0},
    {"size": 10, "start": 11},
    {"size": 10, "overshoot": "sometimes"},
    {"size": 10, "jumps": [[1, 2, 3]]},
    {"size": 10, "colour": "red"},
]


def _board_error(data: dict) -> str:
    with pytest.raises((ValueError, TypeError)) as info:
        Board.from_dict(data)
    return str(info.value)


def test_coerce_gives_the_board_message_per_row():
    good = {"size": 10, "jumps": [[3, 8]]}
    items = [good] + BAD + [good]
    df = analyze_many(items, errors="coerce", columns=("min_throws", "mean",
                                                       "median", "n_snakes"), chunk_size=4)
    assert pd.isna(df["error"].iloc[0]) and pd.isna(df["error"].iloc[-1])
    assert df["min_throws"].iloc[-1] == min_throws(Board.from_dict(good))
    for i, data in enumerate(BAD, start=1):
        assert df["error"].iloc[i] == _board_error(data), data
        assert df["min_throws"].iloc[i] is pd.NA and df["median"].iloc[i] is pd.NA
        assert df["n_snakes"].iloc[i] is pd.NA and math.isnan(df["mean"].iloc[i])


def test_vectorised_validation_matches_board_messages():
    # the same bad boards as arrays (the fast path: no Board per row unless flagged)
    rows = [d for d in BAD if "colour" not in d and d.get("overshoot") != "sometimes"
            and d.get("jumps") != [[1, 2, 3]]]
    sizes = [d["size"] for d in rows]
    jumps = [d.get("jumps", []) for d in rows]
    dice = [d.get("dice", {"faces": [1, 2, 3, 4, 5, 6], "probs": [1 / 6] * 6}) for d in rows]
    batch = BoardBatch.from_arrays(
        sizes, starts=[d.get("start", 0) for d in rows],
        overshoot=[d.get("overshoot", "win") for d in rows],
        chain=np.array([d.get("chain", False) for d in rows]),
        jump_ptr=np.cumsum([0] + [len(j) for j in jumps]),
        jump_src=[p[0] for j in jumps for p in j], jump_dst=[p[1] for j in jumps for p in j],
        dice_ptr=np.cumsum([0] + [len(d["faces"]) for d in dice]),
        faces=[f for d in dice for f in d["faces"]], probs=[p for d in dice for p in d["probs"]])
    df = analyze_many(batch, errors="coerce")
    assert df["error"].tolist() == [_board_error(d) for d in rows]


def test_dice_sum_at_the_tolerance_is_judged_like_dice():
    # within 1e-12 of 1 is accepted; farther is refused, as Dice does
    ok = {"size": 10, "dice": {"faces": [1, 2], "probs": [0.5, 0.5 + 0.9e-12]}}
    bad = {"size": 10, "dice": {"faces": [1, 2], "probs": [0.5, 0.5 + 1.1e-12]}}
    df = analyze_many([ok, bad], errors="coerce")
    assert pd.isna(df["error"].iloc[0]) and df["min_throws"].iloc[0] == 5
    assert df["error"].iloc[1] == _board_error(bad)
    # a face of probability zero does not count against the bounce limit, as in Dice
    huge = analyze_many([{"size": 10**12}], errors="coerce")["error"].iloc[0]
    assert huge == "size 1000000000000 is too large for batch analysis (at most 10000000)"
    zero = {"size": 4, "overshoot": "bounce", "dice": {"faces": [1, 9], "probs": [1.0, 0.0]}}
    assert analyze_many([zero])["min_throws"].tolist() == [4]


def test_raise_names_the_row():
    items = [{"size": 10}] * 17 + [{"size": 100, "jumps": [[100, 5]]}]
    with pytest.raises(ValueError, match=r"^board 17: jump 100->5 leaves the goal 100"):
        analyze_many(items, chunk_size=5)
    with pytest.raises(ValueError, match=r"^board 1: jump cycle under chain=True: 2->6->2"):
        analyze_many([Board(10), {"size": 10, "jumps": [[2, 6], [6, 2]], "chain": True}])


def test_argument_errors():
    with pytest.raises(ValueError, match="unknown column 'bogus'"):
        analyze_many([Board(5)], columns=["bogus"])
    with pytest.raises(ValueError, match="must name q in"):
        analyze_many([Board(5)], columns=["p120"])
    with pytest.raises(ValueError, match="^errors must be one of 'raise', 'coerce', got 'ignore'$"):
        analyze_many([Board(5)], errors="ignore")
    with pytest.raises(TypeError, match="^errors must be one of 'raise', 'coerce', got None$"):
        analyze_many([Board(5)], errors=None)
    with pytest.raises(ValueError, match="chunk_size must be at least 1"):
        analyze_many([Board(5)], chunk_size=0)
    with pytest.raises(TypeError, match="wrap a single Board"):
        analyze_many(Board(5))
    empty = analyze_many([], columns=("min_throws", "median"))
    assert len(empty) == 0 and list(empty.columns) == ["min_throws", "median"]


def test_streamed_iterable_equals_list():
    bl = [boards.random_board(30, 0.2, rng=i, overshoot="exact") for i in range(23)]
    gen = (b.to_dict() if i % 2 else b for i, b in enumerate(bl))
    df = analyze_many(gen, columns=("min_throws", "mean", "median"), chunk_size=4)
    assert df.equals(analyze_many(bl, columns=("min_throws", "mean", "median")))
    mixed = [BoardBatch.from_boards(bl[:5]), bl[5], BoardBatch.from_boards(bl[6:])]
    df2 = analyze_many(iter(mixed), columns=("min_throws", "mean", "median"),
                       chunk_size=7)
    assert df2.equals(df)


# -- files and the command line -------------------------------------------------------
def test_jsonl_and_parquet_round_trips(tmp_path):
    bl = _fixed_boards()
    jl, pqf = tmp_path / "b.jsonl", tmp_path / "b.parquet"
    write_jsonl(bl, jl)
    write_parquet(iter([BoardBatch.from_boards(bl[:4]), BoardBatch.from_boards(bl[4:])]), pqf)
    assert list(read_boards(jl)) == bl
    assert list(read_boards(pqf)) == bl
    ref = analyze_many(bl, columns=ALL)
    names = ref["name"].astype(object)
    assert names.where(names.notna(), None).tolist() == [b.name for b in bl]  # names kept
    assert analyze_many(str(jl), columns=ALL, chunk_size=4).equals(ref)
    # batches carry no names: the same numbers without the name column
    assert analyze_many(pqf, columns=ALL, chunk_size=4).equals(ref.drop(columns="name"))
    named = tmp_path / "named.parquet"
    write_parquet(bl, named)
    assert analyze_many(named, columns=ALL, chunk_size=5).equals(ref)


def test_write_jsonl_keeps_every_rule_of_streamed_boards(tmp_path):
    # Boards given one by one (an iterator, a generator, mixed with a batch) keep their
    # name and capture rule, as a list of Boards does: each line is the Board's to_dict()
    bump = Board(10, {3: 7}, name="x", capture="start", safe=[5])
    back = Board(12, {11: 2}, chain=True, dice={1: 0.1, 2: 0.7, 3: 0.2}, capture=2)
    for given in (iter([bump, back]), (b for b in (bump, back)),
                  iter([bump, BoardBatch.from_boards([Board(6)]), back])):
        path = tmp_path / "s.jsonl"
        write_jsonl(given, path)
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        assert lines[0] == bump.to_dict() and lines[-1] == back.to_dict()
        assert Board.from_dict(lines[0]).capture == "start"
        assert Board.from_dict(lines[0]).safe == (5,)


def test_a_capture_rule_a_batch_cannot_hold_is_said(tmp_path):
    # a BoardBatch holds the one-player game: read_boards and write_parquet say when they
    # leave a capture rule out instead of handing back the game without it in silence
    bump = Board(10, {3: 7}, capture="start", safe=[5])
    path = tmp_path / "b.jsonl"
    write_jsonl([Board(6), bump], path)
    with pytest.warns(UserWarning, match=r"board 1.*capture='start'.*Board.from_dict"):
        back = read_boards(path)
    assert list(back) == [Board(6), bump.replace(capture=None, safe=())]
    with pytest.warns(UserWarning, match=r"board 1.*capture='start'.*Parquet"):
        write_parquet([Board(6), bump], tmp_path / "b.parquet")
    with pytest.warns(UserWarning, match=r"board 0.*capture=2"):
        write_parquet(iter([Board(6, capture=2)]), tmp_path / "c.parquet")
    write_jsonl([Board(6), Board(8)], path)  # no capture rule: nothing said
    write_parquet([Board(6)], tmp_path / "d.parquet")
    assert len(read_boards(path)) == 2


def test_parquet_alternative_schema_and_defaults(tmp_path):
    path = tmp_path / "alt.parquet"
    table = pa.table({
        "size": pa.array([10, 20, 30], pa.int64()),
        "overshoot": pa.array(["exact", None, "bogus"]),
        "jumps": pa.array([[[3, 8], [9, 1]], None, []], pa.list_(pa.list_(pa.int64()))),
        "dice_faces": pa.array([[1, 2], None, [1]], pa.list_(pa.int64())),
        "dice_probs": pa.array([[0.5, 0.5], None, [1.0]], pa.list_(pa.float64())),
    })
    pq.write_table(table, path)
    df = analyze_many(path, errors="coerce", columns=("min_throws",))
    b0 = Board(10, {3: 8, 9: 1}, overshoot="exact", dice={1: 0.5, 2: 0.5})
    assert df["min_throws"].iloc[0] == min_throws(b0)
    assert df["min_throws"].iloc[1] == min_throws(Board(20))
    assert df["error"].iloc[2] == _board_error({"size": 30, "overshoot": "bogus"})
    with pytest.raises(ValueError, match="board 2: overshoot must be one of"):
        read_boards(path)


def test_parquet_rule_columns_spelt_otherwise_are_refused_or_said(tmp_path):
    # a misspelt rule column used to be ignored: its boards took the default rule
    # ("overshot": "exact" read as "win", mean 9.05 throws on 30 squares instead of 13.33)
    path = tmp_path / "m.parquet"
    for columns, match in (({"snakes": [[[9, 2]]]}, "spells 'snakes' as 'jump_src/jump_dst'"),
                           ({"dice": [[1, 2]]}, "spells 'dice' as 'dice_faces/dice_probs'")):
        pq.write_table(pa.table({"size": [30], **columns}), path)
        with pytest.raises(ValueError, match=match):
            read_boards(path)
        with pytest.raises(ValueError, match=match):
            analyze_many(path, columns=("mean",))
    # a near miss may be a label that looks like a rule: read past, and said
    for columns, match in (({"overshot": ["exact"]}, "'overshot'.*did you mean 'overshoot'"),
                           ({"chian": [True]}, "'chian'.*did you mean 'chain'")):
        pq.write_table(pa.table({"size": [30], "jump_src": [[9]], "jump_dst": [[2]], **columns}),
                       path)
        with pytest.warns(UserWarning, match=match):
            assert list(read_boards(path)) == [Board(30, {9: 2})]
        with pytest.warns(UserWarning, match=match):
            assert analyze_many(path, columns=("mean",))["mean"].iloc[0] == pytest.approx(
                expected_throws(Board(30, {9: 2})), rel=1e-12)
    pq.write_table(pa.table({"sizes": [30]}), path)
    with pytest.warns(UserWarning, match="'sizes'.*did you mean 'size'"), pytest.raises(
            ValueError, match="needs a 'size' column"):
        read_boards(path)
    # other columns (data, labels, a near miss of a rule column that is there) are read past
    pq.write_table(pa.table({"size": [30], "overshoot": ["exact"], "start": [0], "starts": [1],
                             "jump_src": [[9]], "jump_dst": [[2]], "jump": [0], "names": ["a"],
                             "colour": ["red"], "capture": ["start"]}), path)
    assert list(read_boards(path)) == [Board(30, {9: 2}, overshoot="exact")]
    assert analyze_many(path, columns=("mean",))["mean"].iloc[0] == pytest.approx(
        expected_throws(Board(30, {9: 2}, overshoot="exact")), rel=1e-12)


def test_jsonl_bad_lines(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"size": 5}\n\nnot json\n[1, 2]\n{"size": 6, "ladders": [[2, 5]]}\n')
    df = analyze_many(path, errors="coerce", columns=("min_throws",))
    assert df["error"].iloc[1].startswith("invalid board JSON")
    assert df["error"].iloc[1].endswith("(line 3)")  # rows skip the blank line, lines do not
    assert df["error"].iloc[2] == "board data must be a mapping, got list (line 4)"
    assert df["min_throws"].tolist()[3] == min_throws(Board.from_pairs(6, ladders=[(2, 5)]))
    assert df["min_throws"].iloc[0] == 1


def test_cli_batch(tmp_path, capsys):
    bl = _fixed_boards()
    src, out = tmp_path / "in.jsonl", tmp_path / "out"
    write_jsonl(bl, src)
    cols = "min_throws,mean,median,p90"
    code = main(["batch", str(src), "-o", str(out), "--columns", cols, "--chunk-size", "5",
                 "--no-progress"])
    assert code == 0
    assert f"{len(bl)} boards -> {out} (4 parts: 4 computed, 0 reused; 0 errors)" in \
        capsys.readouterr().out
    got = read_results(out)
    assert got.equals(analyze_many(bl, columns=cols.split(",")))
    assert sorted(os.listdir(out)) == ["_manifest.json"] + [f"part-00000{i}.parquet"
                                                            for i in range(4)]
    # a rerun reuses every part
    assert main(["batch", str(src), "-o", str(out), "--columns", cols, "--chunk-size", "5",
                 "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reused"] == 4
    # a bad board: exit code 2 and the row named; --errors coerce records it
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"size": 10}\n{"size": 10, "jumps": [[10, 1]]}\n')
    assert main(["batch", str(bad), "-o", str(tmp_path / "o2"), "--no-progress"]) == 2
    assert "board 1: jump 10->1 leaves the goal 10" in capsys.readouterr().err
    assert main(["batch", str(bad), "-o", str(tmp_path / "o3"), "--errors", "coerce"]) == 0
    captured = capsys.readouterr()
    assert "1 errors" in captured.out and captured.err == ""  # no bar in a pipe
    assert main(["batch", str(bad), "-o", str(tmp_path / "o4"), "--errors", "coerce",
                 "--progress"]) == 0
    assert "batch: 100%" in capsys.readouterr().err  # asked for: a bar
    assert read_results(tmp_path / "o3")["error"].iloc[1].startswith("jump 10->1")


# -- resume ---------------------------------------------------------------------------
def test_resume_after_interruption(tmp_path, monkeypatch):
    batch = random_batch(230, 40, snakes=4, ladders=4, rng=11, overshoot="exact")
    cols = ("min_throws", "mean", "median")
    clean = analyze_to_parquet(batch, tmp_path / "clean", columns=cols, chunk_size=25)
    assert (clean.chunks, clean.computed, clean.reused) == (10, 10, 0)

    class Stop(Exception):
        pass

    written = []

    def hook(index):
        written.append(index)
        if len(written) == 4:
            raise Stop

    out = tmp_path / "run"
    monkeypatch.setattr(batch_store, "_after_part_written", hook)
    with pytest.raises(Stop):
        analyze_to_parquet(batch, out, columns=cols, chunk_size=25)
    monkeypatch.setattr(batch_store, "_after_part_written", None)
    assert len([n for n in os.listdir(out) if n.startswith("part-")]) == 4
    computed = []
    monkeypatch.setattr(batch_store, "_after_part_written", computed.append)
    run = analyze_to_parquet(batch, out, columns=cols, chunk_size=25)
    assert (run.rows, run.chunks, run.reused, run.computed) == (230, 10, 4, 6)
    assert computed == list(range(4, 10))
    assert read_results(out).equals(read_results(tmp_path / "clean"))
    assert read_results(out).equals(analyze_many(batch, columns=cols))
    # a damaged part is recomputed
    (out / "part-000002.parquet").write_bytes(b"garbage")
    computed.clear()
    assert analyze_to_parquet(batch, out, columns=cols, chunk_size=25).computed == 1
    assert computed == [2]
    # other settings or another input: refused, unless overwrite
    with pytest.raises(ValueError, match="another input or other settings"):
        analyze_to_parquet(batch, out, columns=cols, chunk_size=50)
    with pytest.raises(ValueError, match="another input or other settings"):
        analyze_to_parquet(batch[1:], out, columns=cols, chunk_size=25)
    run = analyze_to_parquet(batch[:60], out, columns=cols, chunk_size=50, overwrite=True)
    assert (run.chunks, run.computed) == (2, 2)
    assert read_results(out).equals(analyze_many(batch[:60], columns=cols))


# -- Dask -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def dask_client():
    import distributed
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = root + (os.pathsep + old if old else "")
    # compile (or load) the kernels here first: workers then load them from the cache
    analyze_many(random_batch(4, 20, snakes=2, ladders=2, rng=0), columns=("median", "mode"))
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=":0", silence_logs=50)  # any free port
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def test_dask_equals_local(dask_client, tmp_path):
    batch = BoardBatch.concat([random_batch(300, 60, snakes=6, ladders=6, rng=21),
                               BoardBatch.from_boards(_fixed_boards())])
    cols = ("min_throws", "mean", "variance", "median", "p90", "mode")
    local = analyze_many(batch, columns=cols, chunk_size=40)
    remote = analyze_many(batch, columns=cols, chunk_size=40, client=dask_client)
    assert remote.equals(local)
    run = analyze_to_parquet(batch, tmp_path / "o", columns=cols, chunk_size=40,
                             client=dask_client)
    assert run.computed == 8 and read_results(tmp_path / "o").equals(local)
    with pytest.raises(ValueError, match="^board 1: jump 10->1 leaves the goal"):
        analyze_many([{"size": 10}, {"size": 10, "jumps": [[10, 1]]}], client=dask_client)


def test_dask_default_chunks_split_across_the_workers(dask_client, tmp_path):
    # issue 55, item 5: 2 worker threads x 4 tasks each, not one task of 20,000 boards
    batch = random_batch(1_000, 30, snakes=3, ladders=3, rng=5)
    cols = ("min_throws", "mean")
    run = analyze_to_parquet(batch, tmp_path / "o", columns=cols, client=dask_client)
    assert (run.chunks, run.computed) == (8, 8)  # ceil(1000 / 8) = 125 boards a task
    assert read_results(tmp_path / "o").equals(analyze_many(batch, columns=cols))
    # resumed here (no cluster): the run keeps its chunks and reuses every part
    again = analyze_to_parquet(batch, tmp_path / "o", columns=cols)
    assert (again.chunks, again.reused, again.computed) == (8, 8, 0)
    # an iterator's length is unknown: the usual chunk
    assert batch_run.default_chunk_size(iter(batch[:10]), dask_client) == 20_000
    assert batch_run.default_chunk_size(batch[:10], dask_client) == 100  # the smallest task


def test_dask_worker_killed_mid_run_loses_no_rows(dask_client):
    batch = random_batch(3000, 100, rng=31)
    cols = ("min_throws", "mean", "median", "mode")
    local = analyze_many(batch, columns=cols, chunk_size=100)
    pids = dask_client.run(os.getpid)
    killed = {}

    def killer():
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for addr, keys in dask_client.processing().items():
                if any(str(k).startswith("snl-batch-") for k in keys) and addr in pids:
                    killed["worker"], killed["tasks"] = addr, list(keys)
                    os.kill(pids[addr], signal.SIGKILL)
                    return
            time.sleep(0.005)

    thread = threading.Thread(target=killer)
    thread.start()
    remote = analyze_many(batch, columns=cols, chunk_size=100, client=dask_client)
    thread.join()
    assert killed and killed["tasks"], "no worker was killed while it held chunks"
    assert remote.index.tolist() == list(range(len(batch)))  # every row exactly once
    assert remote.equals(local)
    dask_client.wait_for_workers(2, timeout=30)  # the nanny restarts the killed worker


def test_review_regressions_bad_codes_faces_and_rows():
    bad = analyze_many(BoardBatch.from_arrays([10, 10], overshoot=[258, 0]), errors="coerce")
    assert "overshoot" in bad["error"].iloc[0] and bad["mean"].iloc[1] > 0
    with pytest.raises(ValueError, match="must name q in"):
        analyze_many([Board(10)], columns=["p100"])
    huge = BoardBatch.from_arrays([10], dice_ptr=[0, 2], faces=[1, 2**63 - 1], probs=[0.5, 0.5])
    assert "dice faces" in analyze_many(huge, errors="coerce")["error"].iloc[0]
    b = BoardBatch.from_boards([Board(10, {3: 8}), Board(20)])
    assert b.take([-1])[0] == Board(20)
    with pytest.raises(IndexError, match="row 5 is out of range"):
        b.take([5])


def test_batch_objects_display_in_notebooks(tmp_path):
    from html.parser import HTMLParser

    batch = random_batch(20, 50, snakes=3, ladders=3, rng=1)
    html = batch._repr_html_()
    assert "BoardBatch" in html and "20" in html
    run = analyze_to_parquet(batch, tmp_path / "out")
    html_run = run._repr_html_()
    assert "BatchRun" in html_run and "computed" in html_run
    HTMLParser().feed(html + html_run)


def test_vocabulary_columns_and_deprecated_alias():
    mb = boards.get("milton-bradley")
    df = analyze_many([mb, Board(10, {9: 0}, overshoot="exact", dice={3: 1.0})],
                      columns=["mean", "finish_probability", "min_throws"])
    a = analyze(mb)
    assert df["mean"].iloc[0] == pytest.approx(a.mean, rel=1e-12)
    assert df["finish_probability"].tolist() == [1.0, 0.0]
    with pytest.warns(DeprecationWarning, match="column 'expected_throws' is now 'mean'"):
        old = analyze_many([mb], columns=["expected_throws"])
    assert old.columns.tolist() == ["name", "expected_throws"]  # the name asked for
    assert old["expected_throws"].iloc[0] == df["mean"].iloc[0]
    with pytest.raises(ValueError, match="columns must be distinct"):
        with pytest.warns(DeprecationWarning):
            analyze_many([mb], columns=["expected_throws", "mean"])
    with pytest.raises(ValueError, match="unknown column 'men'; did you mean 'mean'"):
        analyze_many([mb], columns=["men"])


def test_finish_probability_column_is_exact_where_not_sure():
    half = Board(4, overshoot="exact", dice={3: 0.5, 4: 0.5})  # 0.5, not sure
    df = analyze_many([half, Board(10)], columns=["finish_probability"])
    assert df["finish_probability"].tolist() == [finish_probability(half), 1.0] == [0.5, 1.0]


def test_labels_carried_through(tmp_path):
    named = [Board(10, name="ten"), Board(20), Board(30, name="thirty")]
    df = analyze_many(named, columns=["min_throws"], chunk_size=2)
    assert df.columns.tolist() == ["name", "min_throws"]
    assert df["name"].iloc[0] == "ten" and pd.isna(df["name"].iloc[1])
    # a Parquet file's own id and name columns, any types, as they were
    path = tmp_path / "ids.parquet"
    pq.write_table(pa.table({"id": pa.array([101, 102]), "name": pa.array(["a", None]),
                             "size": pa.array([10, 20], pa.int64())}), path)
    out = analyze_many(path, columns=["min_throws"], errors="coerce")
    assert out["id"].tolist() == [101, 102] and out["name"].iloc[0] == "a"
    # JSON Lines boards with names, streamed in chunks; unnamed dicts get no column
    assert analyze_many(iter([{"size": 10}]), columns=["size"]).columns.tolist() == ["size"]
    lines = iter([{"size": 10, "name": "x"}, {"size": 12}])
    assert analyze_many(lines, columns=["size"])["name"].iloc[0] == "x"


def test_batch_row_of_a_huge_negative_size_is_a_size_error():
    df = analyze_many([{"size": -2**57}, {"size": 10}], errors="coerce")
    assert df["error"].tolist()[0] == f"size must be at least 1, got {-2**57}"
    assert df["mean"].notna().tolist() == [False, True]


def test_read_boards_refuses_a_row_that_breaks_the_rules_naming_row_line_and_file(
        tmp_path, monkeypatch):
    # a row that reads but breaks a rule of the game used to come back in the batch, its
    # error raised later (batch[i], analyze_many) without the row, line or file
    def board_error(*args, **kwargs):
        with pytest.raises(ValueError) as exc:
            Board(*args, **kwargs)
        return str(exc.value)

    path = tmp_path / "b.jsonl"
    path.write_text('{"size": 10}\n\n{"size": 10, "jumps": [[10, 3]]}\n{"size": -3}\n')
    why = board_error(10, {10: 3})
    assert why == "jump 10->3 leaves the goal 10; no jump may leave it"
    with pytest.raises(ValueError, match="^" + re.escape(
            f"board 1: {why} (line 3 of {str(path)!r})") + "$"):
        read_boards(path)
    # the first bad row is named, whether it breaks a rule or cannot be read
    path.write_text('{"size": 10}\n{"size": -3}\n{"size": 10, "jumps": [[10, 3]]}\n')
    with pytest.raises(ValueError, match="^" + re.escape(
            f"board 1: size must be at least 1, got -3 (line 2 of {str(path)!r})") + "$"):
        read_boards(path)
    # Parquet: the row of the file; in a later chunk too
    monkeypatch.setattr(batch_files, "DEFAULT_CHUNK_SIZE", 2)
    pqf = tmp_path / "b.parquet"
    pq.write_table(pa.table({
        "size": pa.array([10, 20, 30, 30], pa.int64()),
        "jump_src": pa.array([[], [3], [3, 3], [29]], pa.list_(pa.int64())),
        "jump_dst": pa.array([[], [8], [8, 1], [30]], pa.list_(pa.int64())),
        "dice_faces": pa.array([None, None, None, [1, 2]], pa.list_(pa.int64())),
        "dice_probs": pa.array([None, None, None, [0.5, 0.4]], pa.list_(pa.float64())),
    }), pqf)
    why = board_error(30, [(3, 8), (3, 1)])
    assert why == "two jumps start on square 3 (3->8 and 3->1)"
    with pytest.raises(ValueError, match="^" + re.escape(
            f"board 2: {why} (row 2 of {str(pqf)!r})") + "$"):
        read_boards(pqf)
    pq.write_table(pa.table({"size": [30, 30], "dice_faces": [[1], [1, 2]],
                             "dice_probs": [[1.0], [0.5, 0.4]]}), pqf)
    why = board_error(30, dice={1: 0.5, 2: 0.4})
    assert why.startswith("dice probabilities must sum to 1")
    with pytest.raises(ValueError, match="^" + re.escape(
            f"board 1: {why} (row 1 of {str(pqf)!r})") + "$"):
        read_boards(pqf)
    # a board too large for any kernel is no Board; one too large for batch analysis is
    path.write_text('{"size": 20000000}\n{"size": 1099511627776}\n')
    with pytest.raises(ValueError, match="^" + re.escape(
            "board 1: board too large to compile: 1,099,511,627,777 squares x 6 faces = "
            f"6,597,069,766,662 table entries; the limit is 500,000,000 (line 2 of {str(path)!r})"
    ) + "$"):
        read_boards(path)
    path.write_text('{"size": 20000000}\n')
    assert list(read_boards(path)) == [Board(20_000_000)]
    # every good board reads as before, and analyze_many still reports a bad row by row
    write_jsonl([Board(10), Board(20, {3: 8})], path)
    assert list(read_boards(path)) == [Board(10), Board(20, {3: 8})]
    df = analyze_many(pqf, errors="coerce", columns=("mean",))
    assert df["error"].iloc[1] == why


def test_read_boards_names_a_parquet_row_past_the_board_table_limit(tmp_path):
    # a row small enough for batch analysis (size <= MAX_SIZE) but whose table passes the
    # Board limit (10,000,000 squares x 100 faces = 1e9 entries > 5e8) is no Board; it
    # must be named with its row and file, not come back in the batch to fail later at
    # batch[1]
    size, faces = 9_999_999, list(range(1, 101))
    assert (size + 1) * len(faces) > 500_000_000 and size <= MAX_SIZE
    with pytest.raises(ValueError) as exc:
        Board(size, dice={f: 0.01 for f in faces})
    why = str(exc.value)
    assert why.startswith("board too large to compile: 10,000,000 squares x 100 faces")
    pqf = tmp_path / "b.parquet"
    pq.write_table(pa.table({"size": [10, size], "dice_faces": [[1], faces],
                             "dice_probs": [[1.0], [0.01] * 100]}), pqf)
    with pytest.raises(ValueError, match="^" + re.escape(
            f"board 1: {why} (row 1 of {str(pqf)!r})") + "$"):
        read_boards(pqf)
    # analyze_many says of such a row what the Board says (it said it needed ~17 GiB
    # per thread, and would have analysed it where a thread may use that much)
    bb = BoardBatch.from_arrays([10, size], dice_ptr=[0, 1, 101], faces=[1, *faces],
                                probs=[1.0, *[0.01] * 100])
    df = analyze_many(bb, errors="coerce", columns=["mean"])
    assert df["error"].tolist()[1] == why and df["mean"].tolist()[0] == 10.0
    # half the squares: exactly the limit, a Board, read as before
    pq.write_table(pa.table({"size": [10, 4_999_999], "dice_faces": [[1], faces],
                             "dice_probs": [[1.0], [0.01] * 100]}), pqf)
    assert read_boards(pqf)[1] == Board(4_999_999, dice={f: 0.01 for f in faces})
