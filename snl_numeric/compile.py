"""Compilation of a :class:`~snl_numeric.Board` into arrays.

Every analysis works from a :class:`CompiledBoard`, built once per board
and cached on it (``board.compiled``), or once per :class:`~snl_numeric.Chain`
(``chain.compiled``, :func:`compile_chain`: the same arrays, each row of the chain one
row of the table, with its own probabilities):

- ``succ[x, f]``: the square where a token on ``x`` comes to rest after
  throwing face ``faces[f]`` (overshoot rule and jumps applied);
- ``fired[x, f]``: the index (into ``jump_src``) of the first jump that this
  throw fires, or -1; under ``chain=True`` the rest of the chain follows
  (:meth:`CompiledBoard.chain`);
- ``matrix``: the transition matrix ``P`` as ``scipy.sparse`` CSR, states
  ``0 .. size`` with the goal ``size`` absorbing (built lazily);
- ``reach``: fewest throws to the goal and the squares that finish with
  probability 1, by breadth-first search over the reversed moves.

Everything derived from a compiled board later (its factorised fundamental
system, expected throws, ...) is kept in its :class:`BoardCache`, an explicit
object that computes each entry once, under a lock, so one board can be shared
by threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import scipy.sparse as sp

from ._core.memory import SMALL_REQUEST, check_memory
from ._core.table import (
    OVERSHOOT_CODES,
    moves_up_kernel,
    reach_kernel,
    succ_table_kernel,
)
from ._core.sizes import check_table_entries, ordinary
from ._core.vectorised import (
    fired_table,
    landing_rest,
    over_faces,
    play_from,
    reach,
    reachable_from,
    search_from,
    squares_in,
    succ_table,
)

if TYPE_CHECKING:
    from .board import Board

__all__ = ["BoardCache", "CompiledBoard", "compile_board", "compile_chain", "uneven"]

T = TypeVar("T")


class BoardCache:
    """Results derived from one compiled board, each computed once (thread-safe).

    ``cache.get(key, make)`` returns the stored value for ``key`` or stores and
    returns ``make()``; a re-entrant lock lets ``make`` ask for other entries.
    Stored arrays should be read-only: every caller shares them.

    Examples
    --------
    >>> cache = BoardCache()
    >>> cache.get("answer", lambda: 42), cache.get("answer", lambda: 0)
    (42, 42)
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._values: dict[str, Any] = {}

    def get(self, key: str, make: Callable[[], T]) -> T:
        """The value for ``key``, computed by ``make()`` the first time."""
        try:
            return self._values[key]
        except KeyError:
            pass
        with self._lock:
            if key not in self._values:
                self._values[key] = make()
            return self._values[key]

    def __contains__(self, key: str) -> bool:
        return key in self._values


@dataclass(frozen=True, eq=False)
class CompiledBoard:
    """Arrays describing one board; see the module docstring.

    Attributes
    ----------
    size : int
        The goal square; states are ``0 .. size``.
    start : int
        The board's start square.
    faces, probs : ndarray
        The dice's faces and probabilities: ``probs`` of shape ``(n_faces,)``, the same on
        every square (a board: the fixed-stride fast case), or ``(size + 1, n_faces)``, a
        row per square (a chain).
    succ : ndarray of intp, shape (size + 1, n_faces)
        Resting square after each face from each square (int32 on a board that is not
        ordinary, :attr:`ordinary`: the tables the compiled kernels read).
    jump_src, jump_dst : ndarray of intp
        Jump sources (increasing) and destinations.
    chained : bool
        Whether jumps chain (``Board.chain``).
    overshoot : str
        The overshoot rule (``Board.overshoot``).
    cache : BoardCache
        What later analyses derive from these arrays (also ``fired`` and
        ``jump_index``, built on first use).
    states : ndarray of intp or None
        A chain's: the index here of each of its states (its place among the transient
        states, ``size`` for every absorbing state); None for a board (whose squares are
        its states).
    """

    size: int
    start: int
    faces: np.ndarray
    probs: np.ndarray
    succ: np.ndarray
    jump_src: np.ndarray
    jump_dst: np.ndarray
    chained: bool
    overshoot: str
    cache: BoardCache = field(default_factory=BoardCache, repr=False)
    states: np.ndarray | None = field(default=None, repr=False)

    def in_state_order(self, values: np.ndarray) -> np.ndarray:
        """``values`` (one per square here, along the last axis) as a fresh array in the
        model's own state order: a copy for a board, gathered for a chain (an absorbing
        state takes the goal's value)."""
        if self.states is None:
            return np.array(values)
        return np.take(values, self.states, axis=-1)

    @property
    def jump_index(self) -> np.ndarray:
        """``jump_index[x]``: the index of the jump starting on ``x``, -1 for none (int32)."""
        return self.cache.get("jump_index", self._jump_index)

    def _jump_index(self) -> np.ndarray:
        index = np.full(self.n_states, -1, dtype=np.int32)
        index[self.jump_src] = np.arange(len(self.jump_src), dtype=np.int32)
        index.flags.writeable = False
        return index

    @property
    def fired(self) -> np.ndarray:
        """``fired[x, f]``: the first jump a throw of face ``f`` from ``x`` fires, -1 for none
        (int32, shape ``(size + 1, n_faces)``)."""
        return self.cache.get("fired", self._fired)

    def _fired(self) -> np.ndarray:  # (a large board's is built when it is compiled)
        fired = fired_table(self.size, self.jump_index, self.overshoot, self.faces)
        fired.flags.writeable = False
        return fired

    @property
    def n_states(self) -> int:
        """Number of states, ``size + 1``."""
        return self.size + 1

    @property
    def matrix(self) -> sp.csr_matrix:
        """Transition matrix ``P`` (CSR, sorted indices, duplicates summed)."""
        return self.cache.get("matrix", self._matrix)

    def _matrix(self) -> sp.csr_matrix:
        n, k = self.succ.shape
        # CSR straight from the table (row x holds its k faces in order), then duplicates
        # summed and indices sorted in place: data, indices and row pointers, no COO copies
        check_memory(MATRIX_BYTES * n * k, f"the transition matrix of {n:,} squares x {k} "
                     "faces")
        index = np.int32 if n * k < 2**31 else np.int64
        indptr = np.arange(0, n * k + 1, k, dtype=index)
        indices = self.succ.astype(index).ravel()
        data = np.tile(self.probs, n) if self.probs.ndim == 1 else self.probs.ravel().copy()
        mat = sp.csr_matrix((data, indices, indptr), shape=(n, n))
        mat.sum_duplicates()
        mat.sort_indices()
        if self.probs.ndim == 2:  # a chain's padding
            mat.eliminate_zeros()
        return mat

    @property
    def reach(self) -> tuple[np.ndarray, np.ndarray]:
        """``(dist, sure)``: fewest throws to the goal (-1 if unreachable) and
        whether the goal is reached with probability 1, from every square.

        One breadth-first search from the goal over the reversed moves, then (only
        if some square cannot reach the goal) one from the squares that cannot. On a
        large board (the Numba kernel) the moves that are their face's usual step are
        reversed in place and only the others (jumps, overshoot) are tabulated.
        """
        return self.cache.get("reach", self._reach)

    @property
    def sure(self) -> np.ndarray:
        """Whether the goal is reached with probability 1 from each square (``reach[1]``).

        Known without a search when every square but the goal has a throw (of positive
        probability) that rests on a higher square: taking such throws, every square
        reaches the goal, so no square can strand a token.
        """
        return self.cache.get("sure", self._sure)

    def _sure(self) -> np.ndarray:
        if "reach" not in self.cache:
            if self.probs.ndim == 2:  # a chain: its padding stays in place
                table = np.where(self.probs[:-1] > 0.0, self.succ[:-1], -1)
                up = bool(table.size and (table.max(axis=1) > np.arange(self.size)).all())
            elif self.ordinary:  # (NumPy: nothing to compile)
                table = self.succ[:-1] if self.probs.all() else self.succ[:-1, self.probs > 0.0]
                up = bool(table.size
                          and (over_faces(np.maximum, table) > np.arange(self.size)).all())
            else:
                up = bool(moves_up_kernel(self.succ))  # (no face has probability 0)
            if up:
                sure = np.ones(self.n_states, dtype=np.bool_)
                sure.flags.writeable = False
                return sure
        return self.reach[1]

    @property
    def live(self) -> np.ndarray:
        """Whether the goal can be reached from each square, the goal excluded
        (``reach[0] > 0``): without a search when every square finishes surely
        (:attr:`sure`, on an ordinary board or once known)."""
        return self.cache.get("live", self._live)

    def _live(self) -> np.ndarray:
        if ("reach" not in self.cache and (self.ordinary or "sure" in self.cache)
                and self.sure.all()):
            live = np.ones(self.n_states, dtype=np.bool_)
            live[self.size] = False
        else:
            live = self.reach[0] > 0
        live.flags.writeable = False
        return live

    def throws_from(self, start: int) -> int:
        """Fewest throws from ``start`` to the goal, -1 if unreachable (``reach[0][start]``):
        on an ordinary board whose :attr:`reach` is not built yet, from one search forward
        from ``start`` (no reversed moves; the one :meth:`reachable_from` kept, if any):
        :meth:`play_from`'s throws."""
        if "reach" in self.cache or not self.ordinary:
            return int(self.reach[0][start])
        squares = self.play_from(start)
        return -1 if squares is None else len(squares) - 1

    def play_from(self, start: int) -> np.ndarray | None:
        """The squares (``start`` to the goal) of the fewest-throws play from ``start`` that
        takes at each throw the first face keeping it shortest; None if the goal cannot be
        reached. On an ordinary board whose :attr:`reach` is not built yet, read off one
        search forward from ``start``; else throw by throw over ``reach``'s distances."""
        if "reach" in self.cache or not self.ordinary:
            dist = self.reach[0]
            x, d = start, int(dist[start])
            if d < 0:
                return None
            squares = [x]
            while d > 0:  # (one step a throw of the play: the first face one closer)
                row = self.succ[x]
                x = int(row[dist.take(row).tolist().index(d - 1)])
                squares.append(x)
                d -= 1
            return np.array(squares)
        made = f"search from {start}" in self.cache  # (by reachable_from; else search once)
        return play_from(self.succ, start, self._search(start)[1] if made else None)

    def reachable_from(self, start: int) -> np.ndarray:
        """The squares a token on ``start`` can ever rest on (read-only, built once per
        start)."""
        return self.cache.get(f"reachable from {start}", lambda: self._reachable(start))

    def _reachable(self, start: int) -> np.ndarray:
        seen = (squares_in(self._search(start)[0], self.n_states) if self.ordinary
                else reachable_from(self.succ, start))
        seen.flags.writeable = False
        return seen

    def _search(self, start: int) -> tuple[np.ndarray, np.ndarray]:
        """One search forward from ``start`` on an ordinary board (:func:`search_from`),
        made once per start (by :meth:`reachable_from`; :meth:`play_from` reads it when
        made): the squares reached and the play to each."""
        def search() -> tuple[np.ndarray, np.ndarray]:
            order, pred = search_from(self.succ, start)
            order.flags.writeable = pred.flags.writeable = False
            return order, pred

        return self.cache.get(f"search from {start}", search)

    @property
    def ordinary(self) -> bool:
        """Whether the board is of ordinary size: answered by NumPy/SciPy, nothing compiled
        (:func:`~snl_numeric._core.sizes.ordinary`)."""
        return ordinary(*self.succ.shape)

    def _reach(self) -> tuple[np.ndarray, np.ndarray]:
        if self.ordinary:
            dist, sure = reach(self.succ)
        else:
            dist = np.empty(self.n_states, dtype=np.int64)
            sure = np.empty(self.n_states, dtype=np.bool_)
            reach_kernel(self.succ, -1, dist, sure)
        for arr in (dist, sure):
            arr.flags.writeable = False
        return dist, sure

    @property
    def fire_matrix(self) -> sp.csr_matrix:
        """``A[x, j]``: probability that one throw from ``x`` fires jump ``j``."""
        return self.cache.get("fire_matrix", self._fire_matrix)

    def _fire_matrix(self) -> sp.csr_matrix:
        rows, jumps, data = self.fire_entries
        return sp.csr_matrix((data, (rows, jumps)), shape=(self.n_states, len(self.jump_src)))

    @property
    def fire_entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(x, j, p)``: the entries of :attr:`fire_matrix` as coordinate arrays, one per
        throw and jump it fires (a pair may repeat: the matrix sums them)."""
        return self.cache.get("fire_entries", self._fire_entries)

    def _fire_entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rows, faces = np.nonzero(self.fired >= 0)
        first = self.fired[rows, faces]
        data = self.probs[faces]
        if self.chained:  # then every jump down the chain, one link for all throws at a time
            after = self.jump_index[self.jump_dst]  # the jump each jump leads to, -1 for none
            length, link = np.ones(len(after), dtype=np.int64), after
            while (link >= 0).any():  # the jumps fired once each jump fires
                length += link >= 0
                link = np.where(link >= 0, after[link], -1)
            entries = int(length[first].sum())
            if 40 * entries >= SMALL_REQUEST:
                check_memory(40 * entries, f"the jumps fired by each throw ({entries:,}, "
                             "down chains of jumps)")
            throw = np.arange(len(rows))
            parts = [(throw, first)]
            while len(first):
                first = after[first]
                keep = first >= 0
                throw, first = throw[keep], first[keep]
                parts.append((throw, first))
            throws, fired = (np.concatenate(a) for a in zip(*parts, strict=True))
            order = np.argsort(throws, kind="stable")  # each throw's chain together, in order
            throws, first = throws[order], fired[order]
            rows, data = rows[throws], data[throws]
        first = first.astype(np.intp, copy=False)
        for arr in (rows, first, data):
            arr.flags.writeable = False
        return rows, first, data

    @property
    def rests(self) -> np.ndarray:
        """``rests[j]``: where the token rests after jump ``j`` fires (the end of its chain
        when jumps chain)."""
        return self.cache.get("rests", self._rests)

    def _rests(self) -> np.ndarray:
        if not self.chained:
            return self.jump_dst
        jump_to = np.full(self.n_states, -1, dtype=np.intp)
        jump_to[self.jump_src] = self.jump_dst
        rests = landing_rest(jump_to, True)[self.jump_dst]
        rests.flags.writeable = False
        return rests


#: Peak bytes per table entry of :attr:`CompiledBoard.matrix`: data (8) and indices (4, or
#: 8 above 2**31 entries), summed and sorted in place (10^7 squares x 6: 0.8 GiB measured).
MATRIX_BYTES = 16


def table_bytes(size: int, faces: int, *, kept: bool = False, index: int | None = None
                ) -> int:
    """Peak bytes of :func:`compile_board`: per entry ``succ`` and ``landed`` (``index``
    bytes each; by default 8 on an ordinary board, whose tables NumPy builds, and 4 in the
    int32 tables of a large one), ``fired`` (4) and its temporaries (8); per square two
    jump indexes (12). With ``kept``, the bytes the compiled board keeps afterwards
    (``succ``, ``fired`` and the indexes)."""
    if index is None:
        index = 8 if ordinary(size + 1, faces) else 4
    return (size + 1) * (((index + 4) if kept else (2 * index + 12)) * faces + 12)


def compile_board(board: Board) -> CompiledBoard:
    """Build the successor table of ``board`` (O(size * faces): NumPy on an ordinary board, a
    Numba pass on a large one).

    Usually reached through the cached ``board.compiled``.

    Examples
    --------
    >>> from snl_numeric import Board
    >>> cb = compile_board(Board(10, {3: 8}, overshoot="exact"))
    >>> cb.succ[0].tolist(), cb.succ[9].tolist()
    ([1, 2, 8, 4, 5, 6], [10, 9, 9, 9, 9, 9])
    """
    size = board.size
    faces = board.dice.faces  # (a Board refuses a table past MAX_TABLE_ENTRIES when built)
    large = not ordinary(size + 1, len(faces))
    need = table_bytes(size, len(faces))
    if need >= SMALL_REQUEST:
        check_memory(need, f"compiling a board of {size + 1:,} squares x {len(faces)} faces")
    idx = np.intp
    src, dst = board.jump_arrays
    jump_to = np.full(size + 1, -1, dtype=idx)
    jump_to[src] = dst
    faces = faces.astype(idx, copy=False)
    if not large:  # the jumps each throw fires: built on first use
        succ = succ_table(size, jump_to, board.overshoot, board.chain, faces)[0]
    else:  # int32 (every table compiled has fewer than 2**31 entries): half the memory
        succ = np.empty((size + 1, len(faces)), dtype=np.int32)  # and faster sweeps
        landed = np.empty((size + 1, len(faces)), dtype=np.int32)
        # faces copied writable, as the batch and design kernels pass theirs: one signature
        succ_table_kernel(size, jump_to, OVERSHOOT_CODES[board.overshoot], board.chain,
                          faces.copy(), succ, landed)
    succ.flags.writeable = False
    cb = CompiledBoard(size=size, start=board.start, faces=faces, probs=board.dice.probs,
                       succ=succ, jump_src=src, jump_dst=dst, chained=board.chain,
                       overshoot=board.overshoot)
    if large:  # the jumps each throw fires, over the landing squares (not kept)
        fired = _fired(landed, cb.jump_index)
        cb.cache.get("fired", lambda: fired)
    return cb


def _fired(landed: np.ndarray, jump_index: np.ndarray) -> np.ndarray:
    """The index of the jump each throw lands on, -1 for none, from the landing squares."""
    hit = landed >= 0  # (in place: no table-sized temporary on a large board)
    landed[hit] = jump_index[landed[hit]]
    fired = landed.astype(np.int32, copy=False)
    fired.flags.writeable = False
    return fired


#: A chain whose widest row holds more than this many entries and more than
#: :data:`SKEW_RATIO` times the mean is too uneven to pad blindly (see :func:`compile_chain`).
SKEW_WIDTH = 64
SKEW_RATIO = 8
#: ... once its padded table would take more than this many bytes (below, padding costs
#: little whatever the waste).
SKEW_BYTES = 1 << 28


def uneven(indptr: np.ndarray, absorbing: np.ndarray) -> str:
    """Why a chain's rows (CSR ``indptr``; ``absorbing`` its mask) are too uneven for a
    successor table, or ``""``: its widest transient row holds more than ``SKEW_WIDTH``
    entries and ``SKEW_RATIO`` times the mean, and the table padded to it would take more
    than ``SKEW_BYTES``.

    Examples
    --------
    >>> uneven(np.array([0, 1, 2]), np.array([False, True]))
    ''
    """
    lengths = np.diff(indptr)[~absorbing]
    size = len(lengths)
    width = max(1, int(lengths.max(initial=0)))
    mean = max(float(lengths.mean()) if size else 0.0, 1.0)
    if width > SKEW_WIDTH and width > SKEW_RATIO * mean and 12 * (size + 1) * width > SKEW_BYTES:
        return (f"its widest row holds {width:,} transitions, {width / mean:.0f}x the mean of "
                f"{mean:.1f}")
    return ""


def compile_chain(matrix: sp.csr_array, absorbing: np.ndarray, start: int) -> CompiledBoard:
    """The :class:`CompiledBoard` of an absorbing chain (usually ``chain.compiled``).

    The transient states keep their order (``0 .. size - 1``, ``size`` of them) and every
    absorbing state merges into one goal, ``size``. Row ``x`` of the chain becomes row
    ``x`` of a fixed-stride successor table as wide as the widest row, padded with
    zero-probability entries that point at the row's own square; ``probs`` is per row, of
    shape ``(size + 1, width)``. A chain has no dice, jumps or overshoot: ``faces`` is
    ``1 .. width`` (a row's entries, in column order), ``jump_src``/``jump_dst`` are empty,
    ``chained`` is False and ``overshoot`` is ``"chain"`` (no rule: the board-only
    builders refuse it). ``states`` maps each of the chain's states here.

    When every transition is a whole number of equal shares ``p`` summed exactly (a fair
    die's board: each row ``1/6`` per face, faces that land together summed), the table is
    a die's instead: ``k = 1/p`` faces of probability ``p`` on every row (``probs`` of shape
    ``(k,)``, a transition of ``c`` shares given ``c`` faces), the fixed-stride case whose
    sweeps the structured solver runs fastest; the chain is the same one.

    The padded table needs ``(size + 1) * width`` entries, checked against the memory
    available first. A chain whose widest row is far above the mean (more than
    ``SKEW_RATIO`` times it and more than ``SKEW_WIDTH`` entries) would waste most of that
    table: above ``SKEW_BYTES`` of table it is refused here with the reason (:func:`uneven`;
    the moments of such a chain are solved from its CSR rows, :mod:`snl_numeric.uneven`).

    Parameters
    ----------
    matrix : scipy.sparse.csr_array
        The transition matrix (validated: rows summing to 1, sorted, no stored zeros).
    absorbing : ndarray of bool
        The absorbing states.
    start : int
        The chain's start state.

    Examples
    --------
    >>> P = sp.csr_array(np.array([[1.0, 0, 0], [0.3, 0, 0.7], [0, 0, 1.0]]))
    >>> cb = compile_chain(P, np.array([True, False, True]), 1)
    >>> cb.size, cb.start, cb.succ.tolist(), cb.probs.tolist(), cb.states.tolist()
    (1, 0, [[1, 1], [1, 1]], [[0.3, 0.7], [1.0, 0.0]], [1, 0, 1])

    In equal shares (a coin): a die's table.

    >>> P = sp.csr_array(np.array([[0, 0.5, 0.5], [0, 0, 1.0], [0, 0, 1.0]]))
    >>> cb = compile_chain(P, np.array([False, False, True]), 0)
    >>> cb.succ.tolist(), cb.probs.tolist()
    ([[1, 2], [2, 2], [2, 2]], [0.5, 0.5])
    """
    n = matrix.shape[0]
    transient = np.flatnonzero(~absorbing)
    size = len(transient)
    states = np.full(n, size, dtype=np.intp)
    states[transient] = np.arange(size)
    rows = matrix[transient] if size < n else matrix
    lengths = np.diff(rows.indptr)
    width = max(1, int(lengths.max(initial=0)))
    reason = uneven(matrix.indptr, absorbing)
    if reason:
        raise ValueError(
            f"this chain's rows are too uneven for a successor table: {reason} (padding "
            f"every row to it would waste most of the table); expected_throws_all, "
            f"throws_variance_all and solver_report answer it from its rows, the other "
            f"questions need the table")
    shares = _equal_shares(rows.data, lengths, width)
    if shares is not None:  # a die's table: the fast path of the structured solver
        p, k, counts = shares
        large = not ordinary(size + 1, k)
        index = np.int32 if large else np.intp
        check_memory((size + 1) * k * 2 * np.dtype(index).itemsize,
                     f"the successor table of a chain of {size + 1:,} states x {k} shares")
        succ = np.empty((size + 1, k), dtype=index)
        succ[:size] = _die_table(states[rows.indices], counts, lengths, size, k)
        succ[size] = size
        return _chain_board(size, states[start], np.full(k, p), succ, states)
    large = not ordinary(size + 1, width)
    index = np.int32 if large else np.intp
    check_table_entries(size, width, chain=True)
    need = (size + 1) * width * (np.dtype(index).itemsize + 8)
    check_memory(need, f"the successor table of a chain of {size + 1:,} states x {width} "
                 "transitions")
    succ = np.empty((size + 1, width), dtype=index)
    succ[:] = np.arange(size + 1, dtype=index)[:, None]
    probs = np.zeros((size + 1, width))
    nnz = int(rows.indptr[-1])
    at = np.repeat(np.arange(size), lengths)
    col = np.arange(nnz) - np.repeat(rows.indptr[:-1].astype(np.intp), lengths)
    succ[at, col] = states[rows.indices]
    probs[at, col] = rows.data
    probs[size, 0] = 1.0
    return _chain_board(size, states[start], probs, succ, states)


def _chain_board(size: int, start: int, probs: np.ndarray, succ: np.ndarray,
                 states: np.ndarray) -> CompiledBoard:
    """The :class:`CompiledBoard` of a chain's table (see :func:`compile_chain`)."""
    for arr in (succ, probs, states):
        arr.flags.writeable = False
    faces = np.arange(1, succ.shape[1] + 1, dtype=np.intp)
    empty = np.zeros(0, dtype=np.intp)
    cb = CompiledBoard(size=size, start=int(start), faces=faces, probs=probs,
                       succ=succ, jump_src=empty, jump_dst=empty, chained=False,
                       overshoot="chain", states=states)
    fired = np.broadcast_to(np.int32(-1), succ.shape)  # no jumps: nothing fires
    cb.cache.get("fired", lambda: fired)
    cb.cache.get("rests", lambda: empty)
    cb.cache.get("fire_entries", lambda: (empty, empty, np.zeros(0)))
    return cb


def _equal_shares(data: np.ndarray, lengths: np.ndarray, width: int
                  ) -> tuple[float, int, np.ndarray] | None:
    """``(p, k, counts)`` when every transition of the chain is a whole number of shares
    ``p`` (the smallest transition) and every row holds ``k`` of them, ``k`` at most
    ``max(width, 6)``: each transition ``counts[i] * p`` *exactly* as summed share by share
    (as a board's matrix sums the faces that land on one square), so the chain is a die
    of ``k`` faces of ``p`` each on every square, the table it is given as unchanged.
    None otherwise (or when the chain has no transient state)."""
    if not len(data) or not len(lengths):
        return None
    p = float(data.min())
    k = int(round(1.0 / p))
    if not 1 <= k <= max(width, 6):
        return None
    multiples = np.empty(k)
    total = 0.0
    for c in range(k):  # p, p + p, (p + p) + p, ...: sequential sums, as sum_duplicates
        total += p
        multiples[c] = total
    counts = np.rint(data / p).astype(np.intp)
    if counts.min() < 1 or counts.max() > k or not np.array_equal(multiples[counts - 1], data):
        return None
    rows = np.repeat(np.arange(len(lengths)), lengths)
    if not (np.bincount(rows, weights=counts, minlength=len(lengths)) == k).all():
        return None
    return p, k, counts


def _die_table(dest: np.ndarray, counts: np.ndarray, lengths: np.ndarray, size: int, k: int
               ) -> np.ndarray:
    """The ``(size, k)`` table of a chain in equal shares: a share of a move from ``x`` to
    ``x + j`` (``1 <= j <= k``) in column ``j - 1``, as a die's face ``j`` (so a board's
    chain gets the board's own table, whose regular rows the structured solver sweeps
    fastest), the other shares in the columns left, in order."""
    rows = np.repeat(np.arange(size), lengths)
    table = np.full((size, k), -1, dtype=np.intp)
    col = dest - rows - 1
    first = (col >= 0) & (col < k)
    goal = np.flatnonzero(dest == size)  # (absorbing states merged: one row may hold several)
    first[goal[1:][rows[goal][1:] == rows[goal][:-1]]] = False
    table[rows[first], col[first]] = dest[first]
    rest = counts - first  # the shares not placed yet, row by row in order
    free = np.flatnonzero(table.ravel() == -1)  # row by row, in order: the same counts
    table.ravel()[free] = np.repeat(dest, rest)
    _jumps_in_place(table, free)
    return table


def _jumps_in_place(table: np.ndarray, free: np.ndarray) -> None:
    """Put each share not placed by its distance (``free``: its flat places, row by row)
    in the column of the face that lands where it leads from, as a board's table does
    (a face landing on a jump's square leads where the jump ends), in place.

    A row with one such share says where its landing square ``x + j`` leads, and a row with
    one landing left unknown says where that one leads (its shares minus the known ones),
    round after round; a row with several takes those landings' destinations when they
    are the row's own shares (the same multiset: the same chain), else keeps them in
    order. The board's order is what its
    structured sweeps run fastest (a 10^6-square board's chain: 1.4x) and sums as the
    board does."""
    if not len(free):
        return
    size, k = table.shape
    r, c = np.divmod(free, k)
    land = r + c + 1
    flat = table.ravel()
    cur = flat[free]
    alone = np.bincount(r, minlength=size)[r] == 1
    if alone.all():
        return
    lead = np.full(size + k + 1, -1, dtype=np.intp)
    lead[land[alone]] = cur[alone]
    total = np.bincount(r, weights=cur, minlength=size)  # (exact: integers below 2**53)
    for _ in range(k):  # a row with one landing left unknown: its shares minus the known
        known = lead[land] >= 0
        left = np.bincount(r, weights=~known, minlength=size)
        if not left.any():
            break
        seen = np.bincount(r, weights=np.where(known, lead[land], 0), minlength=size)
        one = ~known & (left[r] == 1)
        guess = (total - seen)[r[one]].astype(np.intp)
        fresh = (guess >= 0) & (guess <= size)
        if not fresh.any():
            break
        lead[land[one][fresh]] = guess[fresh]
    prop = lead[land]
    # each row's proposal and its own shares, both sorted within the row
    a = prop[np.lexsort((prop, r))]
    b = cur[np.lexsort((cur, r))]
    bad = np.zeros(size, dtype=np.bool_)
    bad[r[a != b]] = True
    ok = ~alone & ~bad[r]
    flat[free[ok]] = prop[ok]
