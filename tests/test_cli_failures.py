"""Every CLI failure exits 2 with one line on standard error naming the flag typed; a
closed pipe ends quietly; Ctrl-C exits 130 without a traceback."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time

import pytest
from subproc import hear_ctrl_c

from snl_numeric._core.numba_config import COMPILE_NOTE
from snl_numeric.cli import main

SNL = [sys.executable, "-c", "import sys; from snl_numeric.cli import main; sys.exit(main())"]


def fails(capsys, *argv):
    """Run ``snl argv`` in process; the one line it wrote to standard error."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(("argv", "line"), [
    (["simulate", "seed-30", "--games", "10", "--seed", "-1"],
     "snl simulate: error: --seed must be at least 0, got -1"),
    (["simulate", "seed-30", "--games", "0"],
     "snl simulate: error: --games must be at least 1, got 0"),
    (["simulate", "seed-30", "--games", "10", "--max-throws", "0"],
     "snl simulate: error: --max-throws must be at least 1, got 0"),
    (["simulate", "seed-30", "--games", "10", "--threads", "0"],
     "snl simulate: error: --threads must be at least 1, got 0"),
    (["simulate", "seed-30", "--games", "10", "--confidence", "1"],
     "snl simulate: error: --confidence must be in (0, 1), got 1.0"),
    (["simulate", "seed-30", "--games", str(2**70)],
     f"snl simulate: error: --games must be at most 9,223,372,036,854,775,807, got {2**70}"),
    (["analyze", "seed-30", "--start", "99"],
     "snl analyze: error: --start must be a square in 0..29, got 99"),
    (["analyze", "seed-30", "--players", "0"],
     "snl analyze: error: --players must be at least 1, got 0"),
    (["analyze", "seed-30", "--dice", "1:1e400"],
     "snl analyze: error: --dice: cannot read dice '1:1e400': expected 'd6', '6', '1-3', '2d6' "
     "or '1:0.5,2:0.5'"),
    (["race", "seed-30", "--dice", "1-x"],
     "snl race: error: --dice: cannot read dice '1-x': expected 'd6', '6', '1-3', '2d6' or "
     "'1:0.5,2:0.5'"),
    (["race", "seed-30", "--capture", "start", "--dice", "1-3", "--dice", "4-6"],
     "snl race: error: races choosing dice are between players who never meet; this board has "
     "capture='start': race with --capture none, or ask 'snl analyze --players K' for the "
     "game with captures and fixed dice"),
    (["policy", "seed-30", "--horizon", "-1"],
     "snl policy: error: --horizon must be at least 0, got -1"),
    (["design", "--snakes", "2", "--ladders", "2", "--max", "--seed", "-3"],
     "snl design: error: --seed must be at least 0, got -3"),
    (["design", "--snakes", "2", "--ladders", "2", "--max", "--chains", "0"],
     "snl design: error: --chains must be at least 1, got 0"),
])
def test_messages_name_the_flag_typed(capsys, argv, line):
    assert fails(capsys, *argv) == line


def test_dice_too_large_for_memory_is_refused_up_front(capsys, monkeypatch):
    monkeypatch.setenv("SNL_NUMERIC_MAX_MEMORY", "1M")
    line = fails(capsys, "analyze", "seed-30", "--dice", "1-2000000000")
    assert line == ("snl analyze: error: --dice: dice '1-2000000000' would have 2,000,000,000 "
                    "faces; a die read from a string has at most 1,000,000")
    line = fails(capsys, "analyze", "seed-30", "--dice", "1-900000")  # within the count
    assert line == ("snl analyze: error: --dice: a fair die with 900,000 faces needs about "
                    "54.9 MiB of memory; 1.0 MiB is available")


def test_overwrite_is_named_as_the_flag(capsys, tmp_path):
    src, other = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    src.write_text('{"size": 10}\n')
    other.write_text('{"size": 12}\n')
    out = tmp_path / "out"
    assert main(["batch", str(src), "-o", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    line = fails(capsys, "batch", str(other), "-o", str(out), "--no-progress")
    assert line.endswith("use a new output folder or --overwrite")
    assert "overwrite=True" not in line
    assert main(["batch", str(other), "-o", str(out), "--no-progress", "--overwrite"]) == 0


def test_deep_and_undecodable_maze_files(capsys, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 5000 + "]" * 5000)
    assert fails(capsys, "maze", str(deep)) == (
        f"snl maze: error: {deep}: invalid JSON maze: nested 65 levels deep (at most 64)")
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"1 2\n\xff\xfe\n")
    assert fails(capsys, "maze", str(binary)) == f"snl maze: error: {binary}: not UTF-8 text (byte 4)"
    ones = tmp_path / "ones.txt"
    ones.write_text("1 1 1\n1 1 1\n1 1 1\n")
    assert fails(capsys, "maze", str(ones), "--limit", "-1") == (
        "snl maze: error: --limit must be at least 0, got -1")
    assert fails(capsys, "maze", str(ones), "--start", "7", "7").startswith(
        "snl maze: error: --start (7, 7) is outside the 3x3 maze")


@pytest.mark.parametrize("exc", [OverflowError("int too large to convert"), MemoryError(),
                                 RecursionError("maximum recursion depth exceeded"),
                                 RuntimeError("did not converge\nat all")])
def test_any_failure_is_one_line_and_exit_2(capsys, monkeypatch, exc):
    from snl_numeric.cli import analyze as cli_analyze

    def boom(args):
        raise exc

    monkeypatch.setattr(cli_analyze, "run", boom)
    monkeypatch.delenv("SNL_DEBUG", raising=False)
    # the parser holds the function it was built with: rebuild it after the patch
    line = fails(capsys, "analyze", "seed-30")
    assert line.startswith("snl analyze: error: ")
    words = {OverflowError: "a number is too large", MemoryError: "out of memory",
             RecursionError: "nested too deeply", RuntimeError: "did not converge at all"}
    assert words[type(exc)] in line


def test_a_closed_pipe_ends_quietly(tmp_path):
    ones = tmp_path / "ones.txt"
    ones.write_text("\n".join(" ".join(["1"] * 9) for _ in range(9)) + "\n")
    proc = subprocess.Popen(SNL + ["maze", str(ones)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("snl maze kept running after its reader went away")
    assert first.startswith("(0, 0)->") and first.rstrip().endswith("MIDDLE")
    # nothing on stderr but the note a first run prints while it compiles the maze kernels
    note = f"snl_numeric: {COMPILE_NOTE}"
    assert proc.returncode == 0 and [ln for ln in err.splitlines() if ln != note] == []


def test_ctrl_c_exits_130_without_a_traceback():
    # --progress: a bar on stderr even in this pipe, so we see when the work has begun
    proc = subprocess.Popen(SNL + ["simulate", "milton-bradley", "--games", "1000000000",
                                   "--seed", "1", "--progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=hear_ctrl_c)
    try:
        # wait for the progress bar: the work has begun (with an empty kernel cache the
        # compile note comes first; stopping a compilation is not what this test is about);
        # a child that never shows it fails the test instead of blocking the read forever
        seen, deadline = b"", time.monotonic() + 300
        while b"simulate:" not in seen:
            left = deadline - time.monotonic()
            assert left > 0 and select.select([proc.stderr], [], [], left)[0], (
                f"no progress bar from snl simulate within 300 s: {seen!r}")
            chunk = os.read(proc.stderr.fileno(), 4096)
            assert chunk, f"snl simulate ended before its bar showed: {seen!r}"
            seen += chunk
        time.sleep(0.5)
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("snl simulate did not stop on Ctrl-C")
    finally:
        if proc.poll() is None:  # only when the test failed
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.rstrip().endswith("snl simulate: interrupted")
    assert out == ""


def test_never_advise_an_option_the_cli_lacks(capsys, tmp_path):
    slow = tmp_path / "slow.json"  # a game of mean 10**9 throws: the tail cannot be reached
    slow.write_text('{"size": 1, "overshoot": "exact", "dice": {"1": 1e-9, "2": 0.999999999}}')
    assert main(["analyze", str(slow)]) == 0
    out = capsys.readouterr().out
    assert ("note              the distribution was not computed: the tail cannot fall below "
            "1e-12 within 10000000 throws (at least 0.99 of the mass is left") in out
    assert "max_throws" not in out and "raise" not in out
    assert main(["analyze", str(slow), "--json"]) == 0
    note = json.loads(capsys.readouterr().out)["note"]
    assert "max_throws" not in note and "raise" not in note
    # simulate has the flag: its output names it as typed
    assert main(["simulate", str(slow), "--games", "10", "--max-throws", "5", "--seed", "1",
                 "--no-progress"]) == 0
    assert "10 games did not finish (0 stranded, 10 at --max-throws 5)" in capsys.readouterr().out


# -- usage errors and output folders: one line each (issue 55, item 6) -----------------
@pytest.mark.parametrize("argv, start, why", [
    (["frob"], "snl: error: ", "invalid choice: 'frob'"),
    (["analyze"], "snl analyze: error: ", "the following arguments are required: BOARD"),
    (["simulate", "milton-bradley", "--games", "x"], "snl simulate: error: ", "--games"),
    (["warmup", "frob"], "snl warmup: error: ", "invalid choice: 'frob' (choose from 'core', "),
    (["design", "--snakes", "1"], "snl design: error: ", "required"),
])
def test_usage_errors_are_one_line(capsys, argv, start, why):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith(start) and why in err and "usage:" not in err
    assert "[]" not in err  # no empty choice listed


@pytest.mark.parametrize("argv", [
    ["report", "seed-30", "-o", "{missing}/report.html"],
    ["design", "--size", "20", "--snakes", "1", "--ladders", "1", "--max", "-o",
     "{missing}/board.json"],
])
def test_a_missing_output_folder_is_refused_in_one_line(capsys, tmp_path, argv):
    missing = tmp_path / "no" / "such"
    argv = [a.format(missing=missing) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == (f"snl {argv[0]}: error: -o {argv[-1]}: the folder '{missing}' does not "
                   "exist\n")
    assert not missing.exists()
