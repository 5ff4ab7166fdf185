"""Compile every kernel ahead of time: ``snl warmup`` / :func:`snl_numeric.warmup`.

Kernels compile on first use and are kept in the cache directory
(:func:`snl_numeric.cache_dir`), so only the first process of a new
environment pays for compilation. Container images, CI jobs and Dask worker
images can pay it once, at build time, with ``snl warmup``: the kernels
compile in parallel processes (one group of entry points per process) and
every later process loads them from disk in a fraction of a second.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from ._core.numba_config import cache_dir, check_cache_writable, skip_compile_note, unsaved
from ._core.validation import choice, positive_int, shown


def _core() -> None:
    from . import boards, length_distribution, min_throws, solver_report, win_probabilities
    from .analysis import analyze
    from .board import Board
    from .boards import random_board
    from .chain import expected_throws_all
    from .dice import Dice

    mb = boards.get("milton-bradley")
    analyze(mb)
    analyze(Board(40))  # no snakes: the variance formula cancels and is solved apart
    min_throws(mb)
    win_probabilities(mb, 2)
    bounce = Board(40, {7: 30, 33: 2, 25: 10}, overshoot="bounce", chain=True,
                   dice={1: 0.3, 2: 0.3, 5: 0.4})
    length_distribution(bounce)
    expected_throws_all(random_board(600, 0.1, rng=3))  # the structured solver (Woodbury)
    solver_report(random_board(5000, 0.2, rng=1))  # ... and GMRES (and 1,000 jumps: the
    Dice(np.arange(1, 1202), np.full(1201, 1 / 1201))  # board and dice rules compiled)


def _simulate() -> None:
    from . import boards
    from .board import Board
    from .simulate.run import play_games  # (simulate, without warning of stranded games)

    # a kernel for each of fair and other dice, with and without per-game records
    loaded = Board(20, {10: 2}, dice={1: 0.3, 2: 0.7})
    for board in (boards.get("milton-bradley"), loaded):
        for per_game in (False, True):
            play_games(board, 100, rng=0, per_game=per_game)
    play_games(loaded.to_chain(), 100, rng=0)  # a chain's rows: an alias table each
    for board in (boards.get("milton-bradley"), loaded):  # races: fair dice, others
        play_games(board, 100, players=2, rng=0)
    # and captures where a game can strand (5 is dead and safe: no capture helps there)
    play_games(Board(6, overshoot="exact", dice="2-3", capture="start", safe=[5]), 100,
               players=2, rng=0)


def _batch() -> None:
    from . import boards
    from .batch import analyze_many

    analyze_many([boards.get("milton-bradley"), {"size": 10, "jumps": [[10, 1]]}],
                 columns=["min_throws", "mean", "variance", "median", "mode", "p90",
                          "finish_probability"],
                 errors="coerce")


def _policy() -> None:
    from . import boards
    from .boards import random_board
    from .policy import finish_within, optimal_policy

    mb = boards.get("milton-bradley")
    str(optimal_policy(mb, ["1-3", "4-6"], optional_jumps=True))
    optimal_policy(mb, ["1-3", "d6"], objective="max")
    optimal_policy(boards.get("seed-30"), ["1-2", "d6"], method="value")
    finish_within(mb, ["1-3", "4-6"], 5)
    optimal_policy(random_board(2000, 0.2, rng=2), ["1-3", "4-6"])  # 400 jumps: compiled depths


def _race() -> None:
    from .board import Board
    from .boards import random_board
    from .policy import optimal_policy
    from .race import optimal_race, race_value

    # compulsory and optional jumps, lost throws under "exact", chains, a best response,
    # tokens that can be stranded (draws), and a race between fixed policies
    small = Board(30, {3: 22, 8: 4, 17: 9, 25: 12, 27: 29}, overshoot="exact", chain=True)
    fewest = optimal_policy(small, ["1-3", "4-6"])
    for optional in (False, True):
        optimal_race(small, ["1-3", "4-6"], optional_jumps=optional)
        optimal_race(small, ["1-3", "4-6"], opponent=fewest, optional_jumps=optional)
    stuck = Board(6, {2: 1}, overshoot="exact", dice={3: 0.5, 4: 0.5})
    optimal_race(stuck, [stuck.dice])
    optimal_race(stuck, [stuck.dice, {3: 0.75, 4: 0.25}], optional_jumps=True)
    race_value(stuck, [stuck.dice, "1-2"], [1] * 7, [0] * 7)
    # the accelerated finish (many snakes) and a chain too slow for sweeps (linear solve)
    optimal_race(random_board(80, 0.2, snake_fraction=0.8, rng=5), ["1-3", "4-6"])
    slow = Board(20, {2: 10, 4: 1, 6: 16, 7: 17, 9: 5, 11: 5, 16: 12, 18: 17},
                 overshoot="exact", dice={1: 1e-6, 2: 0.999999})
    optimal_race(slow, [slow.dice])


def _design() -> None:
    from .design import design_board

    design_board(30, snakes=2, ladders=2, objective="max", iterations=20, chains=2, rng=0)
    design_board(30, snakes=2, ladders=2, target=10.0, method="local", iterations=20, chains=2,
                 rng=0)


def _maze() -> None:
    from . import maze

    grid = [[1, 1, 1], [1, 1, 1], [1, 1, 1]]
    maze.corner_paths(grid)
    maze.count_paths(grid, (0, 0), (1, 1))


#: Rough relative compile cost of each group (to start the longest first).
_COST = {"design": 8, "batch": 6, "core": 5, "simulate": 5, "policy": 4, "race": 4, "maze": 1}

#: The groups of entry points compiled by :func:`warmup`, each in its own process.
GROUPS: dict[str, Callable[[], None]] = {
    "core": _core, "simulate": _simulate, "batch": _batch, "policy": _policy,
    "race": _race, "design": _design, "maze": _maze,
}


def _run_group(name: str) -> tuple[str, float, bool]:
    """Compile one group: its name, seconds, and whether a kernel could not be saved."""
    t0 = time.perf_counter()
    GROUPS[name]()
    return name, time.perf_counter() - t0, unsaved()


def _exit_with_parent(parent) -> None:
    from multiprocessing import connection

    connection.wait([parent.sentinel])  # ready when the parent ends, however it ends
    os._exit(1)


def _worker_init() -> None:
    """A worker process ignores Ctrl-C (its parent stops it), prints no compile note (its
    parent reports) and ends with its parent, even one killed by SIGKILL (a thread waits
    on the parent's sentinel)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    skip_compile_note()
    from multiprocessing import parent_process

    threading.Thread(target=_exit_with_parent, args=(parent_process(),), daemon=True).start()


def warmup(groups: Sequence[str] | None = None, *, processes: int | None = None
           ) -> dict[str, float]:
    """Compile the package's kernels into the cache directory, in parallel processes.

    Parameters
    ----------
    groups : sequence of str, optional
        Which groups of entry points (keys of :data:`GROUPS`: ``core``,
        ``simulate``, ``batch``, ``policy``, ``race``, ``design``, ``maze``); default all.
    processes : int, optional
        Worker processes (default: the number of cores, at most one per
        group). ``1`` compiles everything in this process.

    Returns
    -------
    dict of str to float
        Seconds spent on each group (a group whose kernels are already cached
        takes a fraction of a second), plus ``"total"``.

    Raises
    ------
    OSError
        When the cache directory cannot be written (or there is none): nothing
        would be kept.

    Notes
    -----
    Ctrl-C stops the worker processes at once, and they end with this process
    however it ends. The kernels every group uses (the successor table and its
    BFS) are compiled first, here, so the processes do not compile them twice.
    Where the cache lives:
    :func:`snl_numeric.cache_dir` (``$NUMBA_CACHE_DIR`` when set).

    Examples
    --------
    >>> from snl_numeric import warmup
    >>> times = warmup(["maze"], processes=1)
    >>> sorted(times)
    ['maze', 'total']
    """
    if isinstance(groups, str):
        raise TypeError(f"groups must be a list of group names, got the string {groups!r} "
                        f"(write [{groups!r}])")
    if groups is not None and not isinstance(groups, Iterable):  # (was "not iterable")
        raise TypeError(f"groups must be a list of group names or None, got {shown(groups)}")
    names = list(GROUPS) if groups is None else [choice(name, "each group", tuple(GROUPS))
                                                 for name in groups]
    if processes is None:
        processes = os.cpu_count() or 1
    processes = positive_int(processes, "processes")
    check_cache_writable()
    t0 = time.perf_counter()
    if processes == 1 or len(names) <= 1:
        runs = [_run_group(name) for name in names]
    else:
        from . import boards
        from .shortest import min_throws

        min_throws(boards.get("milton-bradley"))  # the shared kernels, compiled once, here
        from multiprocessing import get_context

        ctx = get_context("spawn")  # no fork of a process holding threads
        longest_first = sorted(names, key=lambda n: -_COST.get(n, 0))  # packs the processes
        # leaving the block (done, an error, Ctrl-C) terminates the workers at once
        with ctx.Pool(min(processes, len(names)), initializer=_worker_init) as pool:
            runs = list(pool.imap_unordered(_run_group, longest_first))
    if any(lost for _, _, lost in runs) or unsaved():
        raise OSError(f"some kernels could not be saved in {cache_dir()} (see the warnings "
                      "above); set NUMBA_CACHE_DIR to a writable directory")
    seconds = {name: t for name, t, _ in runs}
    times = {name: seconds[name] for name in names}
    times["total"] = time.perf_counter() - t0
    return times


__all__ = ["GROUPS", "cache_dir", "warmup"]
