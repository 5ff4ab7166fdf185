"""The README's examples are valid as printed (issue 16, item 6)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from snl_numeric import Board, analyze, boards
from snl_numeric import batch as batch_module

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_board_format_example_is_a_valid_board():
    (example,) = [b for b in _blocks("json") if '"format": "snl_numeric.board"' in b]
    board = Board.from_dict(json.loads(example))
    assert board.size == 100 and board.jumps == {1: 38, 16: 6} and board.overshoot == "exact"
    assert board.dice.faces.tolist() == [1, 2, 3, 4]


def test_tables_example_runs():
    (code,) = [b for b in _blocks("python") if "to_frame().assign(rule=r)" in b]
    scope: dict = {}
    exec(code, scope)
    df = scope["df"]
    assert set(df["rule"]) == {"win", "exact", "bounce"}
    exact = df[df["rule"] == "exact"]
    mb = boards.get("milton-bradley")
    assert abs((exact["throws"] * exact["pmf"]).sum() - analyze(mb).mean) < 1e-8


def test_documented_file_functions_exist():
    for name in ("write_jsonl", "write_parquet", "read_boards", "read_results"):
        assert f"{name}(" in README and callable(getattr(batch_module, name))
    assert "snl warmup" in README and "NUMBA_CACHE_DIR" in README
