"""Shared fixtures and Hypothesis strategies.

Under ``CI=true`` Hypothesis runs derandomised (the ``ci`` profile), so a
CI failure is reproducible.

The test processes print no compile note: a process prints it once, at its first
compilation, so which test captured it on standard error would depend on the kernel cache
(empty in CI's fresh clone) and on the order xdist hands tests to each worker. The note is
tested in fresh processes (tests/integration/test_coldstart.py).
"""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from snl_numeric._core import numba_config

sys.path.insert(0, os.path.dirname(__file__))

settings.register_profile("ci", derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
numba_config.skip_compile_note()  # see the module's docstring

DICE = [None, {1: 0.5, 2: 0.5}, {1: 0.5, 3: 0.5}, {2: 0.25, 3: 0.25, 5: 0.5},
        {1: 0.2, 4: 0.8}, {3: 0.5, 4: 0.5}]


#: The boards the tests of the main answers use (tests/test_chain.py, test_accuracy.py,
#: test_distribution.py, test_shortest.py, test_board.py), as ``(id, args, kwargs)`` of
#: ``Board``: every rule, lopsided and degenerate dice, squares that never finish, a start
#: on the goal, long games, and one large board of chained snakes (the structured path).
ANSWER_BOARDS = [
    ("plain-1", (1,), {}),
    ("plain-10", (10,), {}),
    ("one-face-12", (12,), {"dice": {1: 1.0}}),
    ("exact-2-coin", (2,), {"overshoot": "exact", "dice": {1: 0.5, 2: 0.5}}),
    ("snake-to-0-coin", (2, {1: 0}), {"dice": {1: 0.5, 2: 0.5}}),
    ("trapped-start", (5, {3: 0}), {"start": 3, "dice": {2: 1.0}}),
    ("exact-2", (2,), {"overshoot": "exact"}),
    ("exact-4-three", (4,), {"overshoot": "exact", "dice": {3: 1.0}}),
    ("exact-4-three-four", (4,), {"overshoot": "exact", "dice": {3: 0.5, 4: 0.5}}),
    ("lopsided-ladders", (8, {1: 7, 2: 4, 3: 2, 4: 1}), {"dice": {1: .001, 2: .999}}),
    ("five-six", (10, {7: 5}), {"dice": {5: .5, 6: .5}}),
    ("near-deterministic", (30,), {"overshoot": "exact", "dice": {1: 1e-3, 2: 1 - 1e-3}}),
    ("ladder-5-15", (20, {5: 15}), {}),
    ("snake-39-0", (40, {39: 0}), {}),
    ("plain-300", (300,), {}),
    ("exact-7", (7,), {"overshoot": "exact", "dice": {2: 0.3, 5: 0.7}}),
    ("snake-20-3", (30, {20: 3}), {}),
    ("long-exact-snake", (100, {99: 0}), {"overshoot": "exact", "dice": {1: 0.999, 2: 0.001}}),
    ("bounce-four", (10,), {"overshoot": "bounce", "dice": {4: 1.0}}),
    ("bounce-three-four", (10,), {"overshoot": "bounce", "dice": {3: 0.5, 4: 0.5}}),
    ("start-on-goal", (10,), {"start": 10}),
    ("ladder-snake", (10, {3: 8, 9: 2}), {}),
    ("two-jumps", (20, {5: 15, 12: 2}), {}),
    ("loop-3-5", (10, {3: 5, 5: 3}), {}),
    ("chained-ladders", (30, {x: x + 1 for x in range(1, 20, 2)}), {"chain": True}),
    ("chained-snakes-6000", (6000, {s: s - 97 for s in range(5999, 200, -97)}),
     {"chain": True}),
]


@st.composite
def boards(draw, min_size=1, max_size=30, rules=True):
    """Random small boards across every rule variant (jumps may chain or strand)."""
    from snl_numeric import Board

    size = draw(st.integers(min_size, max_size))
    dice = draw(st.sampled_from(DICE)) if rules else None
    overshoot = draw(st.sampled_from(["win", "exact", "bounce"])) if rules else "win"
    chain = draw(st.booleans()) if rules else False
    max_face = 6 if dice is None else max(dice)
    if overshoot == "bounce" and max_face > size + 1:
        overshoot = "exact"
    sources = draw(st.lists(st.integers(0, size - 1), unique=True, max_size=max(size // 3, 1)))
    jumps = {}
    for s in sources:
        d = draw(st.integers(0, size).filter(lambda d, s=s: d != s))
        jumps[s] = d
    if chain:  # drop jumps that would close a cycle
        kept = {}
        for s, d in jumps.items():
            trial = {**kept, s: d}
            node, seen = s, set()
            while node in trial and node not in seen:
                seen.add(node)
                node = trial[node]
            if node not in seen:
                kept[s] = d
        jumps = kept
    start = draw(st.integers(0, size)) if rules else 0
    return Board(size, jumps, start=start, overshoot=overshoot, chain=chain, dice=dice)


def every_start(board, columns=("mean", "variance")):
    """``analyze_many``'s rows for ``board`` started on each of its squares (row ``x``:
    start ``x``): the per-board kernel that batch analysis and design call, on every square
    (boards under a few hundred squares never have too many backward targets for it)."""
    from snl_numeric import analyze_many

    return analyze_many([board.replace(start=x) for x in range(board.size + 1)],
                        columns=list(columns))


@pytest.fixture(params=["direct", "structured"])
def path(request):
    """Both paths of a single-board question (boards built inside the test): NumPy/SciPy
    with the direct solver (every board of a test is ordinary), or the Numba kernels with
    the structured solver (no board is), by ``snl_numeric.options(path=...)``."""
    from snl_numeric import options

    with options(path=request.param):
        yield request.param


@pytest.fixture
def structured():
    """The Numba kernels and the structured solver for every board built inside the test."""
    from snl_numeric import options

    with options(path="structured"):
        yield


@pytest.fixture(scope="module")
def browser():
    """A headless chromium (Debian's; ``.ci/run`` installs it), one per test module."""
    from browser import Browser, find_chromium

    exe = find_chromium()
    if exe is None:
        pytest.fail("chromium is needed for the browser test: apt-get install -y chromium "
                    "(.ci/run installs it)")
    b = Browser(exe)
    yield b
    b.close()
