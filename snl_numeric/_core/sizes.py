"""Every size rule that chooses a path, in one place, and the one definition of an
ordinary board.

A board is *ordinary* when its successor table has at most :data:`ORDINARY_ENTRIES`
entries (squares x faces): it is answered by NumPy/SciPy/LAPACK (the direct solver of
:mod:`.solve.direct`, the searches and pushes of :mod:`.vectorised`) with nothing
compiled; above, the Numba kernels and the structured solver take over. The other rules
below choose between methods inside one path; numerical tolerances stay beside the code
they bound.

:func:`options` forces a path, or the form of the mass pushes, for the code run inside a
``with`` block (tests compare the two paths on the same boards; a benchmark times both at
one size).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .memory import check_memory
from .words import choice

__all__ = ["BACKWARD_PUSH_DENSE_MAX", "DENSE_MAX", "DENSE_PUSH_MAX", "FALLBACK_WOODBURY_MAX",
           "GTH_MAX", "MAX_JOINT_STATES", "MAX_TABLE_ENTRIES", "NATURAL_ENVELOPE",
           "ORDINARY_ENTRIES", "POLICY_KERNEL_SQUARES", "POLICY_UPDATE_ROWS",
           "POLICY_WARM_BASE", "POLICY_WARM_SQUARES", "POLICY_WARM_SWEEPS", "PYTHON_RULES_MAX",
           "SMALL_SYSTEM", "SPLU_MAX", "SWEEP_MIN", "SWEEP_SHARE", "SWEEP_TARGETS",
           "WOODBURY_BYTES", "WOODBURY_MAX",
           "check_table_entries", "dense_push", "natural_order", "options", "ordinary",
           "policy_kernels", "policy_warm_sweeps", "sweep_targets"]

# -- the two paths ------------------------------------------------------------------------
#: Boards with at most this many table entries (squares x faces) are ordinary: answered by
#: NumPy/SciPy and by the direct solver, with nothing compiled. Above, the Numba kernels
#: take over (README, Performance: the crossover measured with a d6).
ORDINARY_ENTRIES = 30_000
#: Policy iteration, value iteration and backward induction loop over squares and dice in
#: Numba kernels on boards of more squares than this, in NumPy up to it (measured in
#: ``benchmarks/bench_policy.py``: a loop over every die and face per step pays for its
#: compilation later than a single board's solve does). Its solves follow
#: :func:`ordinary`.
POLICY_KERNEL_SQUARES = 20_000
#: Policy iteration ("min") on a board whose policies the direct solver evaluates starts
#: from the greedy play after :data:`POLICY_WARM_BASE` Jacobi sweeps of the Bellman equation
#: and one more per this many squares, at most :data:`POLICY_WARM_SWEEPS`
#: (:func:`policy_warm_sweeps`): each sweep costs a one-step sum, each policy step saved an
#: evaluation. Measured (``sure_region`` + ``improve``, CPU time, random boards of 10%
#: jumps, dice 1-3 and 4-6, 4-8 seeds each, policy steps a few squares apart updated as
#: :data:`POLICY_UPDATE_ROWS` says): the fastest sweeps were 15-20 at 100 squares, 25-30 at
#: 150, 30 at 200, 40-50 at 300, 60-85 at 500, 70-85 at 700, 75-100 at 1,000 and 100 at
#: 2,000 (150 cost more than the steps they saved); one sweep per 10 squares, the rule
#: before, was 10-15% slower up to 300 squares.
POLICY_WARM_SQUARES = 10
POLICY_WARM_BASE = 10
POLICY_WARM_SWEEPS = 100
#: Policy iteration solves a policy whose dice differ from the last one it factorised on
#: at most this many squares by updating those factors (Sherman-Morrison-Woodbury, one
#: solve per square: :mod:`.solve.update`) instead of factorising its own, on systems of
#: more than :data:`DENSE_MAX` unknowns (a dense LU costs about what the update does).
POLICY_UPDATE_ROWS = 8

# -- what can be analysed at all -----------------------------------------------------------
#: Largest successor table (squares x faces) compiled; about 10 GiB of arrays at peak. A
#: :class:`~snl_numeric.Board` larger than this cannot be analysed, so it is refused when
#: built (its squares then fit the kernels' int32 tables: ``size < 2**31``).
MAX_TABLE_ENTRIES = 500_000_000


def check_table_entries(size: int, faces: int, *, chain: bool = False) -> None:
    """Refuse a board whose successor table (``size + 1`` squares x ``faces``) would pass
    :data:`MAX_TABLE_ENTRIES`: checked when a board is built (before a die read from a
    string or a board file is built) and before a table is compiled. ``chain``: the table
    of a chain (states x transitions).

    Examples
    --------
    >>> check_table_entries(100, 6)
    >>> try:
    ...     check_table_entries(100, 10**8)
    ... except ValueError as exc:
    ...     print(exc)
    board too large to compile: 101 squares x 100,000,000 faces = 10,100,000,000 table entries; the limit is 500,000,000
    """
    entries = (size + 1) * faces
    if entries > MAX_TABLE_ENTRIES:
        what, rows, cols = ("chain", "states", "transitions") if chain else ("board", "squares",
                                                                             "faces")
        raise ValueError(f"{what} too large to compile: {size + 1:,} {rows} x {faces:,} {cols} "
                         f"= {entries:,} table entries; the limit is {MAX_TABLE_ENTRIES:,}")


# -- the direct solver (ordinary boards) ----------------------------------------------------
#: Unknowns up to which ``A`` is factorised by LAPACK's dense LU (SuperLU above: measured
#: faster from about 150 unknowns on, README, Performance).
DENSE_MAX = 128
#: SuperLU factorises the system with the squares in descending order, with no fill-reducing
#: ordering and no pivoting, while the envelope of its backward moves (over each square a
#: move leads back to, the squares from it up to the highest moving there: where that order
#: fills in) is at most this many entries per unknown; COLAMD orders it above
#: (:func:`natural_order`). Measured (``DirectSolver`` built, CPU time, medians) on every
#: family of ``benchmarks/_families.py`` and random boards of 10% (two seeds) and 30% jumps
#: at 300 to 4,000 squares: up to 27 entries per unknown the order is 1.3-3.5x faster than
#: COLAMD (1.8x on ``random_board(1000, 0.1)``, 15.6), at 37-39 between 0.93x and 1.4x,
#: from 46 on 0.75-1.3x; the chain-like families (short snakes, snake chains: about 1)
#: 2-3.5x at every size.
NATURAL_ENVELOPE = 30
#: Unknowns up to which the direct solver's cancellation-free elimination is done densely
#: (the structured solver's above).
GTH_MAX = 1500
#: Squares up to which the mass is pushed several throws per dense product (``Q^B`` from
#: squarings, which cost ``m**3`` each); one sparse product per throw above
#: (:func:`dense_push`).
DENSE_PUSH_MAX = 128
#: Squares up to which the length distributions from every square (handicaps) are pushed
#: backward with a dense ``Q`` (its powers fill in); one sparse product per throw above.
BACKWARD_PUSH_DENSE_MAX = 1024
#: Jumps plus faces up to which a board's rules are checked in plain Python (nothing to
#: compile on a cold start); compiled above.
PYTHON_RULES_MAX = 1000

# -- the structured solver (large boards) ---------------------------------------------------
#: Woodbury is used when there are at most this many backward targets...
WOODBURY_MAX = 64
#: ... or on boards of at most this many squares, whatever their number (and above it the
#: squares may be taken in a rotated order).
SMALL_SYSTEM = 400
#: ``W`` (``n x k`` doubles) may take at most this many bytes.
WOODBURY_BYTES = 1 << 28
#: Boards of at least this many squares solve single columns with the one-column sweep
#: (faster than the many-column kernel, and its compile time is nothing there).
SWEEP_MIN = 50_000
#: GMRES that cannot certify its answer hands over to SciPy's sparse LU up to this size.
SPLU_MAX = 200_000
#: Most backward targets for which a failed GMRES falls back to the Woodbury correction.
FALLBACK_WOODBURY_MAX = 3000

# -- many right-hand sides at once ---------------------------------------------------------
#: A solve of many right-hand sides by one sweep and a low-rank correction (``jump_candidates``:
#: :mod:`.solve.sweeps`) is used while the backward moves land on at most this many squares,
#: or on one square in :data:`SWEEP_SHARE` of the board, whichever is more (each such square
#: costs a row of a product over all columns); above, the solver's factorisation.
SWEEP_TARGETS = 64
SWEEP_SHARE = 8

# -- searches -----------------------------------------------------------------------------
#: Most joint states (squares ** players) the exact game of players who meet
#: (:mod:`snl_numeric.meet`) takes on: a throw costs about 0.1 s per 4 million states and
#: a game needs hundreds of throws (Milton Bradley: 531,441 states for 3 players; 4
#: players, 43 million, are refused).
MAX_JOINT_STATES = 4_000_000

_PATHS = ("auto", "direct", "structured")
_FORCED: ContextVar[str] = ContextVar("snl_numeric_path", default="auto")
_PUSHES = ("auto", "dense", "sparse")
_PUSH: ContextVar[str] = ContextVar("snl_numeric_push", default="auto")


@contextmanager
def options(*, path: str | None = None, push: str | None = None) -> Iterator[None]:
    """Choose the computation path, and how the mass is pushed, for the code run inside the
    ``with`` block.

    Parameters
    ----------
    path : {"auto", "direct", "structured"}, optional
        ``"auto"`` (the default) chooses by size: an ordinary board (at most
        ``ORDINARY_ENTRIES`` = 30,000 table entries, squares x faces) is answered with
        NumPy/SciPy/LAPACK and compiles nothing, a larger one with the Numba kernels and the
        structured solver. ``"direct"`` takes the NumPy/SciPy path and ``"structured"`` the
        Numba path whatever the size (optimal policies included). The answers agree within
        their certified errors; only the time differs. A board keeps what it has solved:
        to compare the paths, give each a board not yet solved (``board.replace()``).
    push : {"auto", "dense", "sparse"}, optional
        How the NumPy/SciPy pushes carry the probability mass from throw to throw: the
        distribution of the number of throws (:func:`~snl_numeric.length_distribution`,
        on the ``"direct"`` path and for every chain), the win chance's derivative
        (``sensitivity(..., of="win")``) and the length distributions from every square
        behind :func:`~snl_numeric.fair_starts`. ``"auto"`` (the default) chooses by the
        number of squares ``m`` the mass moves on: dense products, several throws each
        (``Q^16``, ``Q^64``, from squarings), up to ``DENSE_PUSH_MAX`` = 128 squares
        (``BACKWARD_PUSH_DENSE_MAX`` = 1,024 for the backward push of ``fair_starts``),
        one sparse product per throw above. ``"dense"`` and ``"sparse"`` take one form
        whatever the size (``"dense"`` holds several ``m x m`` arrays, checked against
        the memory limit first, and costs ``m**3`` work per squaring: meant for
        comparisons, not for large boards). Every entry is a sum of
        non-negative terms either way, so each keeps its relative accuracy: the two agree
        to rounding (a relative error of a few units of roundoff per throw; within
        ``1e-11`` on the test suite's boards), except that the push may stop a throw
        apart where the mass still live crosses ``tail`` (a term below ``tail``).
        The Numba push of a large board is chosen by ``path``, not by ``push``.

    Either keyword left out keeps the choice in force (the default ``"auto"``, or that of
    an enclosing block).

    Notes
    -----
    The choices are held in ``contextvars.ContextVar`` objects, not in module constants:
    they apply to the calling thread (or asyncio task) only, so other threads keep their
    own, and they are restored when the block ends, also on an exception. Threads started
    inside the block begin with the defaults (run them under
    ``contextvars.copy_context`` to pass the choices on). A board's successor table is
    built on its first analysis, by the path in force then (int64 on the NumPy path, int32
    on the Numba path); ``board.replace()`` gives a fresh copy to compile again.

    Examples
    --------
    >>> import snl_numeric as snl
    >>> with snl.options(path="structured"):
    ...     report = snl.solver_report(snl.Board(30, {3: 22, 25: 4}))
    >>> report.method
    'triangular'
    >>> snl.solver_report(snl.Board(30, {3: 22, 25: 4})).method
    'lu'

    The same distribution by one sparse product per throw (a 30-square board is pushed
    densely by default):

    >>> board = snl.Board(30, {3: 22, 25: 4})
    >>> with snl.options(push="sparse"):
    ...     sparse = snl.length_distribution(board)
    >>> dense = snl.length_distribution(board)
    >>> bool(abs(sparse - dense).max() <= 1e-12 * dense.max()), len(sparse) == len(dense)
    (True, True)
    """
    path = None if path is None else choice(path, "path", _PATHS)
    push = None if push is None else choice(push, "push", _PUSHES)
    path_token = None if path is None else _FORCED.set(path)
    push_token = None if push is None else _PUSH.set(push)
    try:
        yield
    finally:
        if push_token is not None:
            _PUSH.reset(push_token)
        if path_token is not None:
            _FORCED.reset(path_token)


def ordinary(n_states: int, n_faces: int) -> bool:
    """Whether a board of ``n_states`` squares and ``n_faces`` faces is ordinary (answered by
    NumPy/SciPy, nothing compiled), unless :func:`options` forces a path.

    Examples
    --------
    >>> ordinary(101, 6), ordinary(1_000_001, 6)
    (True, False)
    """
    forced = _FORCED.get()
    if forced != "auto":
        return forced == "direct"
    return n_states * n_faces <= ORDINARY_ENTRIES


def policy_warm_sweeps(squares: int, faces: int) -> int:
    """The Jacobi sweeps policy iteration starts from on a board of ``squares`` squares
    (the goal not counted) and ``faces`` faces per die (:data:`POLICY_WARM_SQUARES`): none
    where its policies are not :func:`ordinary` (the structured solver evaluates them for
    less than the sweeps would cost).

    Examples
    --------
    >>> policy_warm_sweeps(100, 6), policy_warm_sweeps(5000, 3), policy_warm_sweeps(10**5, 6)
    (20, 100, 0)
    """
    if not ordinary(squares + 1, faces):
        return 0
    return min(POLICY_WARM_BASE + squares // POLICY_WARM_SQUARES, POLICY_WARM_SWEEPS)


def policy_kernels(squares: int) -> bool:
    """Whether policy and value iteration on a board of ``squares`` squares (the goal not
    counted) loop in Numba kernels (:data:`POLICY_KERNEL_SQUARES`), unless :func:`options`
    forces a path.

    Examples
    --------
    >>> policy_kernels(100), policy_kernels(100_000)
    (False, True)
    """
    forced = _FORCED.get()
    if forced != "auto":
        return forced == "structured"
    return squares > POLICY_KERNEL_SQUARES


def dense_push(states: int, limit: int = DENSE_PUSH_MAX, *, nbytes: float = 0.0) -> bool:
    """Whether the mass on ``states`` squares is pushed by dense products, several throws
    each (up to ``limit`` squares: :data:`DENSE_PUSH_MAX`, or :data:`BACKWARD_PUSH_DENSE_MAX`
    for the backward push), rather than one sparse product per throw, unless
    :func:`options` forces a form. A dense push forced past ``limit`` has its ``nbytes``
    (its matrices) checked first.

    Examples
    --------
    >>> dense_push(100), dense_push(500), dense_push(500, BACKWARD_PUSH_DENSE_MAX)
    (True, False, True)
    >>> with options(push="sparse"):
    ...     dense_push(100)
    False
    """
    forced = _PUSH.get()
    if forced == "auto":
        return states <= limit
    if forced == "dense" and states > limit:
        check_memory(nbytes, f"a dense push over {states:,} squares")
    return forced == "dense"


def natural_order(envelope: int, unknowns: int) -> bool:
    """Whether SuperLU factorises a system of ``unknowns`` unknowns whose backward moves
    have this ``envelope`` in descending order of the squares, unordered and unpivoted
    (:data:`NATURAL_ENVELOPE`), rather than in COLAMD's order.

    Examples
    --------
    >>> natural_order(14_000, 900), natural_order(290_000, 3_500)
    (True, False)
    """
    return envelope <= NATURAL_ENVELOPE * unknowns


def sweep_targets(squares: int) -> int:
    """The most squares the backward moves may land on for a solve of many right-hand sides
    by one sweep (:data:`SWEEP_TARGETS`, :data:`SWEEP_SHARE`).

    Examples
    --------
    >>> sweep_targets(101), sweep_targets(5001)
    (64, 625)
    """
    return max(SWEEP_TARGETS, squares // SWEEP_SHARE)
