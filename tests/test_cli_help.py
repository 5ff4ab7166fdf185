"""The command line as a new user meets it (issue 27): ``--help`` says what a command does
and shows examples that run; counts read like ``1e6``; missing files say "not found"; a
maze without a path says so; the race and policy grids are laid out like the board."""

import json
import re

import pytest
from test_maze import SEED_003

from snl_numeric import Board, boards
from snl_numeric.cli import build_parser, main
from snl_numeric.cli.common import whole_number


def _help(command):
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices[command].format_help()


COMMANDS = ["analyze", "simulate", "policy", "race", "maze", "design", "batch", "report",
            "boards", "warmup"]


def test_every_command_is_covered():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert sorted(sub.choices) == sorted(COMMANDS)


@pytest.mark.parametrize("only", ["", "analyze", "race"])
def test_snl_help_is_the_same_when_one_command_is_registered(only):
    """``main`` registers only the command given (its module imported): ``snl --help``
    lists every command with the same line as the full parser."""
    assert build_parser(only=only).format_help() == build_parser().format_help()


@pytest.mark.parametrize("command", COMMANDS)
def test_help_describes_the_command_and_its_examples_run(command, capsys, tmp_path,
                                                         monkeypatch):
    text = _help(command)
    description = text.split("\n\n")[1]
    assert len(description.split()) >= 15, description  # says what it does
    examples = re.findall(rf"^  (snl {command}\b.*?)(?:[ ]{{2,}}.*)?$", text, re.M)
    assert len(examples) >= 2
    monkeypatch.chdir(tmp_path)
    boards.get("milton-bradley").to_json("my_board.json")
    (tmp_path / "maze.txt").write_text("\n".join(" ".join(map(str, r)) for r in SEED_003))
    with open("boards.jsonl", "w") as fh:
        fh.write(boards.get("seed-30").to_json() + "\n" + Board(20).to_json() + "\n")
    for line in examples:
        argv = line.split()[1:]
        if "--games" in argv:  # the example's 1e6 games, fewer here (the parsing is the point)
            argv[argv.index("--games") + 1] = "1e3"
        if command == "design" and "--iterations" not in argv:
            argv += ["--iterations", "200"]  # fewer steps here too
        if command == "warmup" or "--scheduler" in argv:  # compiles everything / a cluster
            build_parser().parse_args(argv)  # parsed only
            continue
        assert main(argv) == 0, line
        out = capsys.readouterr().out
        if "--json" in argv:
            json.loads(out)
        else:
            assert out.strip()


def test_games_read_like_people_write_them(capsys):
    assert [whole_number(t) for t in ("1e6", "1_000_000", "1,000,000", "2.5e3")] == [
        1_000_000] * 3 + [2500]
    assert main(["simulate", "seed-30", "--games", "2e3", "--seed", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2000
    with pytest.raises(SystemExit):
        main(["simulate", "seed-30", "--games", "1.5"])
    assert "expected a whole number such as 1000000 or 1e6, got '1.5'" in capsys.readouterr().err


def test_missing_files_say_not_found(capsys, tmp_path):
    assert main(["analyze", str(tmp_path / "board.json")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"snl analyze: error: board file '{tmp_path / 'board.json'}' not found")
    assert main(["maze", str(tmp_path / "maze.txt")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"snl maze: error: maze file '{tmp_path / 'maze.txt'}' not found")


def test_a_maze_without_a_path_says_so(capsys, tmp_path):
    path = tmp_path / "closed.txt"
    path.write_text("2 2 2\n2 0 2\n2 2 2\n")  # every corner jumps between corners only
    assert main(["maze", str(path)]) == 1
    assert capsys.readouterr().out == "no path from the corners to MIDDLE\n"
    assert main(["maze", str(path), "--start", "0", "0", "--goal", "0", "2"]) == 0
    assert main(["maze", str(path), "--limit", "0"]) == 0  # nothing asked for: nothing said
    assert capsys.readouterr().out == "(0, 0)->(2, 0)->(2, 2)->(0, 2)\n(0, 0)->(0, 2)\n"
    # --json lists the same paths (none) with the same exit code as the text
    assert main(["maze", str(path), "--json"]) == 1
    assert json.loads(capsys.readouterr().out) == {"goal": [1, 1], "paths": []}
    assert main(["maze", str(path), "--json", "--limit", "0"]) == 0
    capsys.readouterr()
    assert main(["maze", str(path), "--json", "--start", "0", "0", "--goal", "0", "2"]) == 0


def test_race_and_policy_grids_are_laid_out_like_the_board(capsys):
    grids = {}
    for command in ("race", "policy"):
        assert main([command, "seed-30", "--action", "1-3", "--action", "4-6"]) == 0
        out = capsys.readouterr().out
        grids[command] = [[int(n) for n in re.findall(r"\d+", line)]
                          for line in out.splitlines() if re.match(r"^ +\d+ [AB ]", line)]
    # seed-30 has 29 squares: 5 rows of 6, boustrophedon from square 1 at the bottom left
    assert grids["race"] == grids["policy"] == [
        [25, 26, 27, 28, 29], [24, 23, 22, 21, 20, 19], [13, 14, 15, 16, 17, 18],
        [12, 11, 10, 9, 8, 7], [1, 2, 3, 4, 5, 6]]


def _synopses(text):
    """``{command: flags}`` of the ``snl COMMAND ...`` lines of a page's ```text blocks
    (an indented line continues the command above it)."""
    flags, command = {}, None
    for block in re.findall(r"```text\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            line = line.split("#", 1)[0]
            head = re.match(r"snl (\w+)", line)
            if head:
                command = head.group(1)
            elif not line.startswith(" "):
                command = None
            if command:
                flags.setdefault(command, set()).update(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", line))
    return flags


@pytest.mark.parametrize("page", ["README.md", "docs/user_guide/command_line.md"])
def test_the_synopses_of_the_docs_name_real_flags(page):
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / page).read_text(encoding="utf-8")
    synopses = _synopses(text)
    assert sorted(synopses) == sorted(COMMANDS)
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for command, flags in synopses.items():
        known = {s for a in sub.choices[command]._actions for s in a.option_strings}
        assert flags <= known, (page, command, flags - known)
