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
- ``reverse``: the reversed adjacency (CSR, predecessors of each square),
  used by breadth-first propagation towards the goal.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from ._numba_config import njit

if TYPE_CHECKING:
    from .board import Board

__all__ = ["CompiledBoard", "compile_board"]


@njit()
def _reverse_kernel(succ, indptr, indices):  # pragma: no cover - jitted
    """Counting sort of the throws by landing square: CSR of the predecessors.

    ``indptr`` (zeroed, length n + 1) and ``indices`` (length n * faces) are
    filled; within a row, predecessors are increasing (one entry per face).
    """
    n, k = succ.shape
    for x in range(n):
        for f in range(k):
            indptr[succ[x, f] + 1] += 1
    for y in range(n):
        indptr[y + 1] += indptr[y]
    fill = indptr[:n].copy()
    for x in range(n):
        for f in range(k):
            y = succ[x, f]
            indices[fill[y]] = x
            fill[y] += 1


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
        Resting square after each face from each square.
    fired : ndarray of int32, shape (size + 1, n_faces)
        First jump fired by each throw, -1 for none.
    jump_src, jump_dst : ndarray of intp
        Jump sources (increasing) and destinations.
    jump_index : ndarray of int32, shape (size + 1,)
        Index of the jump starting on each square, -1 for none.
    chained : bool
        Whether jumps chain (``Board.chain``).
    """

    size: int
    start: int
    faces: np.ndarray
    probs: np.ndarray
    succ: np.ndarray
    fired: np.ndarray
    jump_src: np.ndarray
    jump_dst: np.ndarray
    jump_index: np.ndarray
    chained: bool

    @property
    def n_states(self) -> int:
        """Number of states, ``size + 1``."""
        return self.size + 1

    @cached_property
    def matrix(self) -> sp.csr_matrix:
        """Transition matrix ``P`` (CSR, sorted indices, duplicates summed)."""
        n, k = self.succ.shape
        rows = np.repeat(np.arange(n, dtype=self.succ.dtype), k)
        data = np.tile(self.probs, n)
        mat = sp.csr_matrix((data, (rows, self.succ.ravel())), shape=(n, n))
        mat.sum_duplicates()
        mat.sort_indices()
        return mat

    @cached_property
    def reverse(self) -> sp.csr_matrix:
        """Reversed adjacency: row ``y`` lists the squares with a throw to ``y``.

        Built straight from ``succ`` (a stable counting sort), without the
        probabilities; a square appears once per face that leads to ``y``.
        """
        n, k = self.succ.shape
        indptr = np.zeros(n + 1, dtype=np.int64)
        indices = np.empty(n * k, dtype=self.succ.dtype)
        _reverse_kernel(self.succ, indptr, indices)
        data = np.ones(len(indices), dtype=np.int8)
        return sp.csr_matrix((data, indices, indptr), shape=(n, n))

    def chain(self, j: int) -> list[int]:
        """Every jump fired once jump ``j`` fires, in order (``[j]`` unless chained)."""
        members = [j]
        if self.chained:
            nxt = self.jump_index[self.jump_dst[j]]
            while nxt != -1:
                members.append(int(nxt))
                nxt = self.jump_index[self.jump_dst[nxt]]
        return members

    @cached_property
    def fire_matrix(self) -> sp.csr_matrix:
        """``A[x, j]``: probability that one throw from ``x`` fires jump ``j``."""
        rows, faces = np.nonzero(self.fired >= 0)
        first = self.fired[rows, faces]
        data = self.probs[faces]
        if self.chained:
            chains = [self.chain(int(j)) for j in range(len(self.jump_src))]
            lengths = np.array([len(c) for c in chains], dtype=np.intp)[first]
            rows, data = np.repeat(rows, lengths), np.repeat(data, lengths)
            first = np.concatenate([chains[j] for j in first]) if len(first) else first
        shape = (self.n_states, len(self.jump_src))
        return sp.csr_matrix((data, (rows, first)), shape=shape)

    def rest_of(self, j: int) -> int:
        """Where the token rests after jump ``j`` fires (the end of its chain)."""
        return int(self.jump_dst[self.chain(j)[-1]])


_RULES = ("win", "exact", "bounce")


@njit()
def _succ_kernel(faces, rule, rest, jump_index, succ, fired):  # pragma: no cover - jitted
    """Fill ``succ`` and ``fired``; ``rule`` indexes ``_RULES``, ``rest`` ends chains."""
    n = succ.shape[0]
    size = n - 1
    for x in range(n):
        for f in range(faces.shape[0]):
            t = x + faces[f]
            if x == size:
                succ[x, f] = size
                fired[x, f] = -1
            elif t > size and rule == 1:  # exact: the token stays, nothing fires
                succ[x, f] = x
                fired[x, f] = -1
            else:
                if t > size:
                    t = size if rule == 0 else 2 * size - t
                succ[x, f] = rest[t]
                fired[x, f] = jump_index[t]


def compile_board(board: Board) -> CompiledBoard:
    """Build the successor table of ``board`` (one Numba pass, O(size * faces))."""
    size = board.size
    faces = board.dice.faces
    idx = np.intp
    src, dst = (a.astype(idx) for a in board._arrays)

    rest = np.arange(size + 1, dtype=idx)
    rest[src] = dst
    if board.chain and len(src):  # pointer jumping over the sources (no cycles: checked)
        while True:
            nxt = rest[rest[src]]
            if np.array_equal(nxt, rest[src]):
                break
            rest[src] = nxt
    jump_index = np.full(size + 1, -1, dtype=np.int32)
    jump_index[src] = np.arange(len(src), dtype=np.int32)

    succ = np.empty((size + 1, len(faces)), dtype=idx)
    fired = np.empty((size + 1, len(faces)), dtype=np.int32)
    _succ_kernel(faces.astype(idx), _RULES.index(board.overshoot), rest, jump_index, succ, fired)
    for arr in (succ, fired):
        arr.flags.writeable = False
    return CompiledBoard(size=size, start=board.start, faces=faces, probs=board.dice.probs,
                         succ=succ, fired=fired, jump_src=src, jump_dst=dst,
                         jump_index=jump_index, chained=board.chain)
