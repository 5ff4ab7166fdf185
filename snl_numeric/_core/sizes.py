"""Every size rule that chooses a path, in one place, and the one definition of an
ordinary board.

A board is *ordinary* when its successor table has at most :data:`ORDINARY_ENTRIES`
entries (squares x faces): it is answered by NumPy/SciPy/LAPACK (the direct solver of
:mod:`.solve.direct`, the searches and pushes of :mod:`.vectorised`) with nothing
compiled; above, the Numba kernels and the structured solver take over. The other rules
below choose between methods inside one path; numerical tolerances stay beside the code
they bound.

:func:`options` forces a path for the code run inside a ``with`` block (tests compare the
two paths on the same boards; a benchmark times both at one size).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["BACKWARD_PUSH_DENSE_MAX", "DENSE_MAX", "DENSE_PUSH_MAX", "FALLBACK_WOODBURY_MAX",
           "GTH_MAX", "MAX_JOINT_STATES", "ORDINARY_ENTRIES", "POLICY_KERNEL_SQUARES",
           "PYTHON_RULES_MAX", "SMALL_SYSTEM", "SPLU_MAX", "SWEEP_MIN", "SWEEP_SHARE",
           "SWEEP_TARGETS", "WOODBURY_BYTES", "WOODBURY_MAX", "options", "ordinary",
           "policy_kernels", "sweep_targets"]

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

# -- the direct solver (ordinary boards) ----------------------------------------------------
#: Unknowns up to which ``A`` is factorised by LAPACK's dense LU (SuperLU above: measured
#: faster from about 150 unknowns on, README, Performance).
DENSE_MAX = 128
#: Unknowns up to which the direct solver's cancellation-free elimination is done densely
#: (the structured solver's above).
GTH_MAX = 1500
#: Squares up to which the mass is pushed several throws per dense product (``Q^B`` from
#: squarings, which cost ``m**3`` each); one sparse product per throw above.
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


@contextmanager
def options(*, path: str = "auto") -> Iterator[None]:
    """Choose the computation path for the code run inside the ``with`` block.

    Parameters
    ----------
    path : {"auto", "direct", "structured"}
        ``"auto"`` (the default) chooses by size: an ordinary board (at most
        ``ORDINARY_ENTRIES`` = 30,000 table entries, squares x faces) is answered with
        NumPy/SciPy/LAPACK and compiles nothing, a larger one with the Numba kernels and the
        structured solver. ``"direct"`` takes the NumPy/SciPy path and ``"structured"`` the
        Numba path whatever the size (optimal policies included). The answers agree within
        their certified errors; only the time differs.

    Notes
    -----
    The choice is held in a ``contextvars.ContextVar``, not in a module constant: it
    applies to the calling thread (or asyncio task) only, so other threads keep their own
    choice, and it is restored when the block ends, also on an exception. Threads started
    inside the block begin with the default (run them under
    ``contextvars.copy_context`` to pass the choice on). A board's successor table is
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
    """
    if path not in _PATHS:
        raise ValueError(f"path must be one of {', '.join(map(repr, _PATHS))}, got {path!r}")
    token = _FORCED.set(path)
    try:
        yield
    finally:
        _FORCED.reset(token)


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


def sweep_targets(squares: int) -> int:
    """The most squares the backward moves may land on for a solve of many right-hand sides
    by one sweep (:data:`SWEEP_TARGETS`, :data:`SWEEP_SHARE`).

    Examples
    --------
    >>> sweep_targets(101), sweep_targets(5001)
    (64, 625)
    """
    return max(SWEEP_TARGETS, squares // SWEEP_SHARE)
