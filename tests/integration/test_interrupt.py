"""Everything long can be stopped (issue 14, item 11, for the kernels run in rounds).

Each long run starts in a child process; once it is running, SIGINT (Ctrl-C) must stop it
within a couple of seconds: the kernels run in short rounds and Python checks for the
interrupt between them. The command line exits with status 130.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from subproc import hear_ctrl_c, slowdown

from snl_numeric import maze

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.name == "nt", reason="POSIX signals")]

#: Seconds allowed between SIGINT and the end of the process on a quiet machine; on a busy
#: one, times how much slower a busy loop runs there and then (``subproc.slowdown``).
STOP_WITHIN = 3.0


class Child:
    """A child process whose output is collected by threads (pipes never fill)."""

    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                     preexec_fn=hear_ctrl_c)
        self.out: list[str] = []
        self.err: list[str] = []
        self.threads = [threading.Thread(target=self._drain, args=(stream, sink), daemon=True)
                        for stream, sink in ((self.proc.stdout, self.out),
                                             (self.proc.stderr, self.err))]
        for t in self.threads:
            t.start()

    @staticmethod
    def _drain(stream, sink) -> None:
        while chunk := os.read(stream.fileno(), 65536):  # whatever has arrived
            sink.append(chunk.decode(errors="replace"))

    def wait_for(self, text: str, where: str = "out", timeout: float = 120.0) -> None:
        sink = self.out if where == "out" else self.err
        t0 = time.perf_counter()
        while text not in "".join(sink):
            assert self.proc.poll() is None, f"ended early: {''.join(self.err)[-2000:]}"
            assert time.perf_counter() - t0 < timeout, f"no {text!r} after {timeout} s"
            time.sleep(0.05)

    def interrupt(self, after: float) -> tuple[int, float, float]:
        """SIGINT after ``after`` seconds; the exit status, how long stopping took and how
        long it may take: ``STOP_WITHIN`` times the machine's slowdown, measured before the
        signal and after the end (the larger)."""
        t_wait = time.perf_counter()
        before = slowdown()
        time.sleep(max(0.0, after - (time.perf_counter() - t_wait)))
        assert self.proc.poll() is None, f"ended before SIGINT: {''.join(self.err)[-2000:]}"
        t0 = time.perf_counter()
        self.proc.send_signal(signal.SIGINT)
        try:
            code = self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:  # pragma: no cover - only when the test fails
                self.proc.kill()
                self.proc.wait()
            for t in self.threads:
                t.join(timeout=10)
            self.proc.stdout.close()
            self.proc.stderr.close()
        took = time.perf_counter() - t0
        return code, took, STOP_WITHIN * max(before, slowdown())


def _python(code: str) -> Child:
    """Run ``code`` after a small call of the same function (compiled or loaded first)."""
    return Child([sys.executable, "-c", code])


def _stops(code: str, bar: str, after: float) -> str:
    """Run ``code`` (it prints ``ready`` before its long call), wait for the long call's
    progress bar ``bar`` on standard error, send SIGINT ``after`` seconds later: the
    child must end with ``KeyboardInterrupt`` in time. Its standard error."""
    child = _python(code)
    child.wait_for("ready")
    child.wait_for(bar, where="err")  # the long run has begun
    code_, took, allowed = child.interrupt(after)
    err = "".join(child.err)
    assert code_ != 0 and "KeyboardInterrupt" in err
    assert took < allowed, f"stopped after {took:.1f} s, allowed {allowed:.1f} s"
    return err


@pytest.mark.parametrize("players", ["", ", players=4"])
def test_simulate_a_trillion_games_stops(players):
    err = _stops(
        "from snl_numeric import boards, simulate\n"
        "mb = boards.get('milton-bradley')\n"
        f"simulate(mb, 1000, rng=1{players})\n"
        "print('ready', flush=True)\n"
        f"simulate(mb, 10**12, rng=1, progress='always'{players})\n", "simulate:", 1.5)
    assert "simulate:   0%" in err and "/1.00T" in err  # the bar showed the long run


@pytest.mark.parametrize("chains, iterations", [(100_000, 20_000), (64, 10**7)])
def test_design_board_stops(chains, iterations):
    # the bar shows once the chains are set up (100,000 of them: 0.5 s on a quiet machine,
    # over 3 s on a busy one): the search's rounds have begun
    _stops(
        "from snl_numeric import design_board\n"
        "design_board(30, snakes=2, ladders=2, objective='max', iterations=20, chains=2)\n"
        "print('ready', flush=True)\n"
        f"design_board(100, snakes=10, ladders=10, objective='max', chains={chains},"
        f" iterations={iterations}, rng=1, progress='always')\n", "design (anneal)", 2.0)


def test_fair_starts_for_200_players_stops():
    """200 players on Milton Bradley: a coordinate round of C(200, 2) pairs x 100 x 100
    start squares (hours, 200 matrix products a pair); the bar shows, Ctrl-C stops it."""
    err = _stops(
        "from snl_numeric import boards, fair_starts\n"
        "mb = boards.get('milton-bradley')\n"
        "fair_starts(mb, 3)\n"
        "print('ready', flush=True)\n"
        "fair_starts(mb, 200, progress='always')\n", "fair_starts (coordinate, round 1)", 1.0)
    assert "/199M" in err  # 19,900 pairs x 100 x 100 assignments


def test_random_batch_of_millions_stops():
    """Three million boards (15 s): drawn in chunks of a few thousand, so Ctrl-C
    stops between two chunks (it waited for one vectorised draw of all of them: 14.5 s)."""
    err = _stops(
        "from snl_numeric.batch import random_batch\n"
        "random_batch(10, 100, rng=1)\n"
        "print('ready', flush=True)\n"
        "random_batch(3_000_000, 100, rng=1, progress='always')\n", "random_batch:", 1.0)
    assert "random_batch:   0%" in err and "/3.00M" in err


ONES = "\n".join(" ".join(["1"] * 30) for _ in range(30)) + "\n"


@pytest.mark.parametrize("flags", [["--count"], ["--count", "--limit", str(10**15)],
                                   [], ["--limit", str(10**15)]])
def test_snl_maze_on_a_grid_of_ones_stops(tmp_path, flags):
    maze.count_paths([[1, 1], [1, 1]], (0, 0), (1, 1))  # the kernel compiled (or loaded)
    grid = tmp_path / "ones.txt"
    grid.write_text(ONES)
    child = Child([sys.executable, "-m", "snl_numeric", "maze", str(grid), *flags,
                   "--progress"])
    if "--count" in flags:
        child.wait_for("counting paths", where="err")
    else:
        child.wait_for("MIDDLE")  # paths are printed as they are found
    code, took, allowed = child.interrupt(1.0)
    assert code == 130, "".join(child.err)[-2000:]
    assert "snl maze: interrupted" in "".join(child.err)
    assert took < allowed, f"stopped after {took:.1f} s, allowed {allowed:.1f} s"


def test_optimal_race_stops():
    """A race on 1,500 squares: 2.25 million pair states, half a second a sweep on a
    quiet machine, tens of seconds in all; the bar counts the sweeps, Ctrl-C stops it."""
    _stops(
        "from snl_numeric import Board, boards, optimal_race\n"
        "optimal_race(boards.get('milton-bradley'), ['1-3', '4-6'])\n"
        "print('ready', flush=True)\n"
        "optimal_race(Board(1500, {1499: 2, 700: 1}, overshoot='exact'), ['1-3', '4-6'],"
        " progress='always')\n", "optimal_race:", 1.5)


def test_sensitivity_of_the_win_stops():
    """The win chance's derivative on 3,000 squares: thousands of sparse products forward,
    then back; the bar counts the throws, Ctrl-C stops it."""
    _stops(
        "from snl_numeric import Board, boards, sensitivity\n"
        "sensitivity(boards.get('milton-bradley'), of='win')\n"
        "print('ready', flush=True)\n"
        "sensitivity(Board(3000, {2999: 2, 1500: 1}, overshoot='exact'), of='win',"
        " wrt='transitions', progress='always')\n", "sensitivity:", 1.0)


def test_board_batch_from_arrays_of_millions_stops():
    """``BoardBatch.from_arrays`` (file input) on 4 million boards whose faces come in
    decreasing order: it checks, and sorts, the faces a block of boards at a time, so
    Ctrl-C stops within a block (it waited for one sort of all 24 million faces at once,
    about a third of the call: 2.5 s of 8 s on a busy machine). The call has no bar: it
    is timed once in full first, and interrupted a third of the way into the second."""
    child = _python(
        "import time\n"
        "import numpy as np\n"
        "from snl_numeric.batch import BoardBatch\n"
        "n = 4_000_000\n"
        "kw = dict(dice_ptr=np.arange(0, 6 * n + 1, 6), faces=np.tile(np.arange(6, 0, -1), n),"
        " probs=np.full(6 * n, 1 / 6))\n"
        "t = time.perf_counter()\n"
        "BoardBatch.from_arrays(np.full(n, 100), **kw)\n"
        "print('full', time.perf_counter() - t, flush=True)\n"
        "print('ready', flush=True)\n"
        "BoardBatch.from_arrays(np.full(n, 100), **kw)\n"
        "print('done', flush=True)\n")
    child.wait_for("ready")
    full = float("".join(child.out).split()[1])
    code, took, allowed = child.interrupt(full / 3)
    assert code != 0 and "KeyboardInterrupt" in "".join(child.err)
    assert "done" not in "".join(child.out)
    # a block of faces and the process's exit (0.22-0.29 s of a 2.9-4.1 s call there)
    assert took < min(allowed, full / 6), f"stopped after {took:.2f} s of a {full:.2f} s call"
