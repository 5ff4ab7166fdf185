"""Compilation of a :class:`~snl_numeric.Board` into arrays.

Every analysis works from a :class:`CompiledBoard`, built once per board
and cached on it (``board.compiled``):

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

from ._core.memory import SMALL_REQUEST, check_memory, format_bytes
from ._core.table import (
    MAX_TABLE_ENTRIES,
    OVERSHOOT_CODES,
    moves_up_kernel,
    reach_kernel,
    succ_table_kernel,
)
from ._core.validation import readonly
from ._core.sizes import ordinary
from ._core.vectorised import landing_rest, reach, reachable_from, succ_table

if TYPE_CHECKING:
    from .board import Board

__all__ = ["BoardCache", "CompiledBoard", "compile_board"]

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
        The dice's faces and probabilities.
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

    def _fired(self) -> np.ndarray:
        jump_to = np.full(self.n_states, -1, dtype=np.intp)
        jump_to[self.jump_src] = self.jump_dst
        _, landed = succ_table(self.size, jump_to, self.overshoot, self.chained, self.faces,
                               landing=True)
        assert landed is not None  # asked for
        return _fired(landed, self.jump_index)

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
        data = np.tile(self.probs, n)
        mat = sp.csr_matrix((data, indices, indptr), shape=(n, n))
        mat.sum_duplicates()
        mat.sort_indices()
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
            if self.ordinary:  # (NumPy: nothing to compile)
                table = self.succ[:-1] if self.probs.all() else self.succ[:-1, self.probs > 0.0]
                up = bool(table.size and (table.max(axis=1) > np.arange(self.size)).all())
            else:
                up = bool(moves_up_kernel(self.succ))  # (no face has probability 0)
            if up:
                sure = np.ones(self.n_states, dtype=np.bool_)
                sure.flags.writeable = False
                return sure
        return self.reach[1]

    def reachable_from(self, start: int) -> np.ndarray:
        """The squares a token on ``start`` can ever rest on (read-only, built once per
        start)."""
        return self.cache.get(f"reachable from {start}", lambda: self._reachable(start))

    def _reachable(self, start: int) -> np.ndarray:
        seen = reachable_from(self.succ, start)
        seen.flags.writeable = False
        return seen

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
    faces = board.dice.faces
    entries = (size + 1) * len(faces)
    large = not ordinary(size + 1, len(faces))
    need = table_bytes(size, len(faces))
    if entries > MAX_TABLE_ENTRIES:
        raise ValueError(
            f"board too large to compile: {size + 1:,} squares x {len(faces)} faces = "
            f"{entries:,} table entries (about {format_bytes(need)}); "
            f"the limit is {MAX_TABLE_ENTRIES:,}")
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
        succ_table_kernel(size, jump_to, OVERSHOOT_CODES[board.overshoot], board.chain,
                          readonly(faces), succ, landed)
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
