import json
import subprocess
import sys

import pytest

from snl_numeric import Board, analyze, boards
from snl_numeric.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_analyze_registry_board(capsys):
    code, out, _ = run(capsys, "analyze", "milton-bradley")
    assert code == 0
    a = analyze(boards.get("milton-bradley"))
    assert f"fewest throws     {a.min_throws}" in out
    assert f"{a.mean:.6f}" in out
    assert "ladder   1->38" in out


def test_analyze_json_with_rule_flags(capsys):
    code, out, _ = run(capsys, "analyze", "seed-30", "--overshoot", "bounce", "--chain",
                       "--dice", "2d6", "--start", "3", "--json")
    assert code == 0
    data = json.loads(out)
    board = boards.get("seed-30").replace(overshoot="bounce", chain=True, start=3,
                                          dice={f: p for f, p in zip(range(2, 13), [
                                              1 / 36, 2 / 36, 3 / 36, 4 / 36, 5 / 36, 6 / 36,
                                              5 / 36, 4 / 36, 3 / 36, 2 / 36, 1 / 36], strict=False)})
    assert Board.from_dict(data["board"]).replace(name=None).jumps == board.jumps
    assert data["start"] == 3 and data["board"]["overshoot"] == "bounce"
    assert data["mean"] == pytest.approx(analyze(board).mean, rel=1e-9)


def test_analyze_json_file_and_unreachable(capsys, tmp_path):
    path = tmp_path / "stuck.json"
    Board(4, overshoot="exact", dice={3: 1.0}).to_json(path)
    code, out, _ = run(capsys, "analyze", str(path), "--json")
    data = json.loads(out)
    assert code == 0 and data["min_throws"] == -1 and data["mean"] == "inf"
    code, out, _ = run(capsys, "analyze", str(path))
    assert "unreachable" in out


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["analyze", "nope"], "neither a known board"),
        (["analyze", "seed-30", "--dice", "zz"], "cannot read dice"),
        (["analyze", "seed-30", "--start", "99"], "start must be a square"),
    ],
)
def test_errors_exit_2_with_a_message(capsys, argv, match):
    code, _, err = run(capsys, *argv)
    assert code == 2 and match in err


def test_bad_json_file(capsys, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"size": 10, "jumps": [[10, 2]]}')
    code, _, err = run(capsys, "analyze", str(path))
    assert code == 2 and "leaves the goal" in err


def test_boards_listing(capsys):
    code, out, _ = run(capsys, "boards", "--json")
    assert code == 0 and set(json.loads(out)) == set(boards.names())


def test_python_dash_m():
    proc = subprocess.run([sys.executable, "-m", "snl_numeric", "analyze", "seed-30"],
                          capture_output=True, text=True, check=True)
    assert "fewest throws     3" in proc.stdout
