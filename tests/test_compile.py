"""``snl_numeric.compile``: a board compiled to its successor table (NumPy for ordinary
boards, the kernel for large ones) against the rules' naive moves, and a board too large
to compile refused before allocating; and every kernel of the package compiled once in a
process that runs the Numba entry points."""

import hashlib
import json
import os
import tempfile

import numpy as np
import pytest
from conftest import boards as board_strategy
from hypothesis import given, settings
from subproc import run_ok

from snl_numeric import Board, expected_throws


def _kernel_table(board):
    """The successor table by the large boards' kernel (whatever the board's size)."""
    from snl_numeric._core.table import OVERSHOOT_CODES, succ_table_kernel

    size, faces = board.size, board.dice.faces.astype(np.intp)
    jump_to = np.full(size + 1, -1, dtype=np.intp)
    src, dst = board.jump_arrays
    jump_to[src] = dst
    succ = np.empty((size + 1, len(faces)), dtype=np.int32)
    landed = np.empty_like(succ)
    succ_table_kernel(size, jump_to, OVERSHOOT_CODES[board.overshoot], board.chain, faces,
                      succ, landed)
    return succ, landed


@settings(max_examples=150, deadline=None)
@given(board_strategy())
def test_kernel_table_matches_naive_moves(board):
    import naive

    succ, _ = _kernel_table(board)
    expected = [[naive.naive_move(board, x, int(f)) for f in board.dice.faces]
                for x in range(board.size + 1)]
    assert succ.tolist() == expected
    assert succ.tolist() == board.compiled.succ.tolist()  # the NumPy table of small boards


def test_a_long_chain_of_jumps_is_followed_once():
    """Every square of a 30,000-square chain of ladders leads to its end: the kernel follows
    each square once (it followed every throw's chain to the end: 4.7 s here, now ms)."""
    n = 30_000
    board = Board.from_arrays(n, np.arange(1, n - 1), np.arange(2, n), chain=True)
    succ, landed = _kernel_table(board)
    assert (succ[: n - 7] == n - 1).all()
    assert succ[n - 2].tolist() == [n - 1] + [n] * 5  # (a throw past the goal wins)
    assert (landed[0] == np.arange(1, 7)).all()


def test_absurd_board_is_refused_before_allocating():
    with pytest.raises(ValueError, match="board too large to compile"):
        expected_throws(Board(10**9))


#: The main Numba entry points on small inputs, in one process; then, for each of the
#: package's kernels (``make_kernels``: the registry ``snl warmup`` fills), its signatures:
#: those this process compiled or loaded (``signatures``) and the entries of its cache
#: (one ``.nbc`` file a signature), which also count a kernel only ever called from
#: another kernel (a kernel loaded from the cache brings the code of its callees, whose
#: dispatchers then hold no signature).
ENTRY_POINTS = """
import glob, json, os
import snl_numeric as snl
from snl_numeric import boards, maze
from snl_numeric._core.numba_config import cache_stem, make_kernels
from snl_numeric.batch import COLUMNS, random_batch
from snl_numeric.boards import random_board

mb = boards.get("milton-bradley")
snl.analyze_many(random_batch(4, 60, snakes=4, ladders=4, rng=0), columns=list(COLUMNS))
snl.design_board(30, snakes=2, ladders=2, objective="max", iterations=20, chains=2, rng=0)
snl.simulate(mb, 1000, rng=0)
snl.optimal_race(boards.get("seed-30"), ["1-3", "4-6"])
with snl.options(path="structured"):  # the large boards' solver: each of its methods
    for board in (snl.Board(300), random_board(300, 0.1, rng=1), random_board(3000, 0.2, rng=1)):
        snl.analyze(board)
maze.corner_paths([[1, 1, 1], [1, 1, 1], [1, 1, 1]])
counts = {}
for k in make_kernels():
    stem = os.path.join(glob.escape(k.stats.cache_path), cache_stem(k))
    n = max(len(k.signatures), len(glob.glob(stem + ".*.nbc")))
    if n:
        name = f"{k.py_func.__module__}.{k.py_func.__qualname__}"
        counts[name] = [n, [str(s) for s in k.signatures]]
print(json.dumps(counts))
"""


@pytest.mark.slow
def test_each_kernel_compiles_once_in_a_process():
    """A kernel called with other argument types (a literal ``True`` where another caller
    passes a bool, a read-only array where another passes a writable one) compiles a second
    specialisation: seconds of a cold first call for nothing (issue 53). After the main
    entry points in one process, each kernel has at most one signature.

    The process keeps its kernels in a cache directory of its own (emptied when the
    package's sources change), so that only these entry points' signatures are counted:
    the first run compiles them (a minute), later runs load them (a few seconds)."""
    digest = hashlib.sha256(ENTRY_POINTS.encode()).hexdigest()[:12]
    cache = os.path.join(os.environ.get("NUMBA_CACHE_DIR") or tempfile.gettempdir(),
                         f"snl-each-kernel-once-{digest}")
    out = run_ok(ENTRY_POINTS, timeout=1200, env={"NUMBA_CACHE_DIR": cache, "SNL_QUIET": "1"})
    counts = json.loads(out.strip().splitlines()[-1])
    assert len(counts) >= 40  # the entry points did run the kernels
    several = {name: sigs for name, (n, sigs) in counts.items() if n > 1}
    assert not several, "kernels compiled for more than one signature:\n" + "\n".join(
        f"{name}: {counts[name][0]} signatures {sigs}" for name, sigs in several.items())
