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
    assert "  ladder  1->38     0.1667" in out  # aligned columns


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
    assert "fewest throws     - (the goal cannot be reached)" in out


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["analyze", "nope"], "board 'nope' not found: no such file, nor a known board"),
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


# -- manners (issue 16, item 6) ---------------------------------------------------------
def _subparsers():
    import argparse

    from snl_numeric.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices


def test_version(capsys):
    import snl_numeric

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out == f"snl {snl_numeric.__version__}\n"


def test_every_flag_has_help():
    import argparse

    missing = [(name, a.option_strings or a.dest) for name, sp in _subparsers().items()
               for a in sp._actions if not a.help or a.help == argparse.SUPPRESS]
    assert missing == []
    assert set(_subparsers()) == {"analyze", "boards", "simulate", "maze", "design", "batch",
                                  "policy", "race", "report", "warmup"}


@pytest.mark.parametrize("argv, hint", [
    (["simulate", "milton-bradley", "--games", "10", "--sed", "3"], "did you mean --seed?"),
    (["simulate", "milton-bradley", "--gmes", "10"], "unknown flag --gmes: did you mean --games?"),
    (["design", "--snakes", "1", "--ladders", "1", "--max", "--chians", "2"],
     "did you mean --chains?"),
])
def test_typo_names_the_subcommand_in_one_line(capsys, argv, hint):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith(f"snl {argv[0]}: error: ") and hint in err
    assert err.endswith(f"(see 'snl {argv[0]} --help')\n") and err.count("\n") == 1


def test_mistyped_board_name(capsys):
    assert main(["analyze", "milton-bradly"]) == 2
    assert "did you mean 'milton-bradley'?" in capsys.readouterr().err
    assert main(["analyze", "zzz"]) == 2
    assert "did you mean" not in capsys.readouterr().err


def test_text_reports_explain_align_and_count(capsys):
    assert main(["analyze", "seed-30", "--dice", "2d6", "--overshoot", "bounce"]) == 0
    out = capsys.readouterr().out
    assert "dice 2d6" in out and "Dice(" not in out
    assert "(a-[f]->b: from square a, face f, the token rests on b)" in out
    rows = [r for r in out.splitlines() if r.startswith(("  ladder", "  snake"))]
    assert len(rows) == 8 and len({r.index("0.") for r in rows}) == 1  # one column
    assert main(["simulate", "seed-30", "--games", "1000", "--seed", "1", "--dice", "2d6"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "seed-30: 1000 simulated games (4 ladders, 4 snakes)"
    # a label column, then every value starting in the same column
    assert all(ln[:2] == "  " and ln[2] != " " and ln[19] == " " and ln[20] != " "
               for ln in lines[1:]), lines
    assert main(["design", "--size", "20", "--snakes", "1", "--ladders", "1", "--min",
                 "--iterations", "30", "--seed", "1"]) == 0
    assert capsys.readouterr().out.startswith("Designed board: size 20, 1 ladder, 1 snake\n")


def test_missing_numbers_print_as_dash():
    from snl_numeric import simulate

    stuck = Board(10, {9: 0}, overshoot="exact", dice={3: 1.0})  # never finishes
    text = str(analyze(stuck))
    assert "None" not in text and "median / mode     - / -" in text and "p50=-" in text
    with pytest.warns(RuntimeWarning):
        r = simulate(stuck, 50, rng=1, max_throws=20)
    text = str(r)
    assert "None" not in text and "min / max         - / -" in text


@pytest.mark.parametrize("argv", [
    ["analyze", "seed-30", "--json"],
    ["analyze", "seed-30", "--overshoot", "exact", "--dice", "5:1", "--json"],  # inf
    ["boards", "--json"],
    ["simulate", "seed-30", "--games", "100", "--seed", "1", "--json"],
    ["policy", "milton-bradley", "--action", "1-3", "--action", "4-6", "--json"],
    ["policy", "seed-30", "--horizon", "3", "--json"],
    ["design", "--size", "20", "--snakes", "1", "--ladders", "1", "--min", "--iterations", "20",
     "--seed", "1", "--json"],
    ["warmup", "maze", "--processes", "1", "--json"],
])
def test_json_is_indented_and_strict_everywhere(capsys, argv):
    assert main(argv) == 0
    out = capsys.readouterr().out

    def refuse(name):
        raise ValueError(name)

    data = json.loads(out, parse_constant=refuse)  # no NaN / Infinity literals
    assert out == json.dumps(data, indent=2) + "\n"


def test_json_of_maze_and_batch_is_indented(capsys, tmp_path):
    grid = tmp_path / "m.txt"
    grid.write_text("1 1\n1 1\n")
    for argv in (["maze", str(grid), "--json"], ["maze", str(grid), "--count", "--json"],
                 ["maze", str(grid), "--shortest", "--start", "0", "0", "--json"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert out == json.dumps(json.loads(out), indent=2) + "\n"
    boards_file = tmp_path / "b.jsonl"
    boards_file.write_text('{"size": 10}\n')
    assert main(["batch", str(boards_file), "-o", str(tmp_path / "out"), "--json"]) == 0
    out = capsys.readouterr().out
    assert out == json.dumps(json.loads(out), indent=2) + "\n"


def test_analyze_players_under_capture(capsys):
    """``--players K --capture start``: the win chances, rounds and first player's edge of
    the joint chain (players who meet), not those of independent players."""
    mb = boards.get("milton-bradley")
    bump = mb.replace(capture="start")
    code, out, _ = run(capsys, "analyze", "milton-bradley", "--players", "2", "--capture",
                       "start")
    assert code == 0
    from snl_numeric import expected_game_length, first_player_advantage

    g, plain = expected_game_length(bump, 2), expected_game_length(mb, 2)
    assert "capture to the start" in out
    assert f"{g.win_probabilities[0]:.6f}" in out and f"{g.mean_rounds:.6f}" in out
    assert f"{plain.mean_rounds:.6f}" not in out
    edge = first_player_advantage(bump, 2)
    assert f"player 1's edge   {edge:.6f}   (its win chance - 1/2)" in out
    assert edge == pytest.approx(0.005572, abs=5e-7)  # (simulate agrees within 4 SE:
    # test_simulate_players.py::test_milton_bradley_capture_matches_the_joint_chain)
    code, out, _ = run(capsys, "analyze", "milton-bradley", "--players", "2", "--capture", "3",
                       "--safe", "10,20", "--json")
    data = json.loads(out)
    board = mb.replace(capture=3, safe=[10, 20])
    w = expected_game_length(board, 2).win_probabilities
    assert data["players"]["win_probabilities"] == pytest.approx(w.tolist(), abs=1e-15)
    assert data["players"]["first_player_advantage"] == first_player_advantage(board, 2)


def test_main_in_process_leaves_logging_as_it_was(capsys, monkeypatch):
    # main() shows the package's notes on standard error while it runs, and takes its
    # handler (and the level it set) away when it returns: a notebook calling it twice
    # gets each note once, and none of the package's records on stderr afterwards
    import logging

    import snl_numeric.cli.boards as boards_cli

    logger = logging.getLogger("snl_numeric")
    handlers, level = list(logger.handlers), logger.level

    def noisy(args):
        logger.warning("a note from inside the command")
        return 0

    monkeypatch.setattr(boards_cli, "run", noisy)
    for _ in range(2):
        code, _, err = run(capsys, "boards")
        assert code == 0
        assert err.count("a note from inside the command") == 1
        assert err.strip() == "snl_numeric: warning: a note from inside the command"
        assert logger.handlers == handlers and logger.level == level
    logger.warning("a note after main returned")
    assert "after main returned" not in capsys.readouterr().err
    # a failing command cleans up too
    monkeypatch.setattr(boards_cli, "run", lambda args: 1 / 0)
    assert run(capsys, "boards")[0] == 2
    assert logger.handlers == handlers and logger.level == level


@pytest.mark.filterwarnings("default::UserWarning")  # shown, as at a terminal
def test_main_in_two_threads_each_keeps_its_notes(capsys, monkeypatch):
    # two in-process calls at once share the logger and warnings.showwarning: the first to
    # return must not take the notes away from the other, nor leave its own hook behind
    import logging
    import threading
    import warnings

    import snl_numeric.cli.analyze as analyze_cli
    import snl_numeric.cli.boards as boards_cli

    logger = logging.getLogger("snl_numeric")
    handlers, level, hook = list(logger.handlers), logger.level, warnings.showwarning
    started, first_done = threading.Barrier(2, timeout=30), threading.Event()

    def first(args):  # `snl boards`: returns while the other still runs
        started.wait()
        return 0

    def second(args):  # `snl analyze`: speaks after the first returned
        started.wait()
        assert first_done.wait(30)
        logger.warning("a note from the second call")
        warnings.warn("a warning from the second call", stacklevel=1)
        return 0

    monkeypatch.setattr(boards_cli, "run", first)
    monkeypatch.setattr(analyze_cli, "run", second)
    codes = {}
    threads = [threading.Thread(target=lambda: (codes.update(a=main(["boards"])),
                                                first_done.set())),
               threading.Thread(target=lambda: codes.update(b=main(["analyze", "seed-30"])))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert codes == {"a": 0, "b": 0}
    assert capsys.readouterr().err.splitlines() == [
        "snl_numeric: warning: a note from the second call",
        "snl analyze: warning: a warning from the second call"]
    assert logger.handlers == handlers and logger.level == level
    assert warnings.showwarning is hook


def test_overlapping_main_calls_leave_the_warning_filters_as_they_were(monkeypatch):
    # a command that filters its own warnings (snl simulate ignores RuntimeWarning) while
    # a second call starts, and returns first: each call's catch_warnings put back the
    # filters it found, so the second call, returning last, left the first's filter for
    # the rest of the process (RuntimeWarning ignored everywhere)
    import threading
    import warnings

    import snl_numeric.cli.analyze as analyze_cli
    import snl_numeric.cli.boards as boards_cli

    before = list(warnings.filters)
    filtered, second_in, first_done = threading.Event(), threading.Event(), threading.Event()

    def first(args):  # `snl boards`: ignores a warning while the second starts
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            filtered.set()
            assert second_in.wait(30)
        return 0

    def second(args):  # `snl analyze`: started inside the first's filter, returns last
        second_in.set()
        assert first_done.wait(30)
        return 0

    monkeypatch.setattr(boards_cli, "run", first)
    monkeypatch.setattr(analyze_cli, "run", second)
    codes = {}
    a = threading.Thread(target=lambda: (codes.update(a=main(["boards"])), first_done.set()))
    b = threading.Thread(target=lambda: codes.update(b=main(["analyze", "seed-30"])))
    a.start()
    assert filtered.wait(30)
    b.start()
    for t in (a, b):
        t.join(60)
    assert codes == {"a": 0, "b": 0}
    assert warnings.filters == before
